"""``nccl-course lab run``: launch a lab file's ``main()`` on N local ranks."""

from __future__ import annotations

import sys
from pathlib import Path

from nccl_course.labs.discovery import Lab


def run_lab(
    lab: Lab,
    file: Path,
    nproc: int,
    backend: str | None = None,
    timeout_s: float | None = None,
) -> int:
    """Run ``main`` of ``file`` on ``nproc`` ranks; print a short diagnosis on failure."""
    from nccl_course.launcher import LaunchTimeout, WorkerError, choose_backend, launch

    timeout = timeout_s or max(120.0, float(lab.config["timeout_s"]) * 2)
    backend = backend or choose_backend(nproc)
    try:
        # On gloo, also check that every tensor a collective gets would be on the GPU under NCCL.
        launch(
            (str(file), "main"),
            nproc,
            backend=backend,
            timeout_s=timeout,
            check_placement=backend == "gloo",
        )
    except WorkerError as exc:
        from nccl_course.labs.checker import summarize

        print(f"error: lab {lab.number} failed on {nproc} ranks", file=sys.stderr)
        print(summarize(str(exc)), file=sys.stderr)
        if any("NotImplementedError" in text for text in exc.failures.values()):
            print(
                f"(a TODO is still open in {file}: fill it in, then "
                f"'nccl-course lab check {lab.number}')",
                file=sys.stderr,
            )
        return 1
    except LaunchTimeout as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
