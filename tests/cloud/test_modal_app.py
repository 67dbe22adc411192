"""labs/cloud/modal_app.py imports without a Modal token and asks for the GPUs it says.

Each check imports the app in a subprocess whose HOME is an empty temporary folder and whose
environment has no MODAL_* variable, so no token can be found (``modal run`` would need one; an
import must not). Skipped, saying so, where Modal's client is not installed (``make cloud``).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "labs" / "cloud" / "modal_app.py"

# Imports the app from argv[1], then runs the code in argv[2] with it as `app`.
IMPORT_APP = textwrap.dedent(
    """
    import importlib.util, json, sys
    spec = importlib.util.spec_from_file_location("modal_app", sys.argv[1])
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    exec(sys.argv[2])
    """
)


def _with_app(code: str, home: Path, **env: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec("modal") is None:
        pytest.skip("Modal's client is not installed: run `make cloud` first")
    environment = {"HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-c", IMPORT_APP, str(APP), code],
        capture_output=True,
        text=True,
        cwd=home,
        env={**environment, **env},
        timeout=120,
    )


def _json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


DESCRIBE = """print(json.dumps({
    "gpu": app.GPU,
    "function_gpus": app.gpu_check._spec_.gpus,
    "allowed": list(app.ALLOWED_GPUS),
    "timeout_s": app.FUNCTION_TIMEOUT_S,
    "budget_s": app.GPU_CHECK_BUDGET_S,
    "build_gpu": app.BUILD_GPU,
    "repo": str(app.REPO),
}))"""


def test_imports_without_a_token_and_asks_for_8_h100(tmp_path):
    described = _json(_with_app(DESCRIBE, tmp_path))
    assert described["gpu"] == "H100:8"
    assert described["build_gpu"] == "H100", "torch is installed on one GPU of the same kind"
    assert described["function_gpus"] == "H100:8", "the function must request the GPU string"
    assert described["timeout_s"] == 2400
    assert described["budget_s"] == 2100, "gpu_check.sh must stop before Modal stops the function"
    assert described["repo"] == str(REPO)
    assert not (tmp_path / ".modal.toml").exists()


def test_the_allowed_gpu_strings(tmp_path):
    allowed = _json(_with_app(DESCRIBE, tmp_path))["allowed"]
    eight = ["B200", "H200", "H100", "A100-80GB", "A100-40GB", "L40S", "L4", "T4"]
    expected = [f"{kind}:{n}" for kind in eight for n in range(2, 9)]
    expected += ["A10:2", "A10:3", "A10:4"]
    assert allowed == expected


def test_an_environment_variable_picks_another_gpu(tmp_path):
    described = _json(_with_app(DESCRIBE, tmp_path, NCCL_COURSE_MODAL_GPU="A100-80GB:4"))
    assert (described["gpu"], described["function_gpus"]) == ("A100-80GB:4", "A100-80GB:4")
    assert described["build_gpu"] == "A100-80GB"


@pytest.mark.parametrize("wrong", ["H100:16", "A10:8", "H100", "h100:8", "TPU:8"])
def test_an_unknown_gpu_is_one_line_naming_the_choices(tmp_path, wrong):
    done = _with_app("pass", tmp_path, NCCL_COURSE_MODAL_GPU=wrong)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"NCCL_COURSE_MODAL_GPU={wrong!r}" in lines[0] and "H100:8" in lines[0]


def test_the_bundle_round_trips_and_nothing_lands_outside(tmp_path):
    """pack_bundle's tar.gz unpacks to the same files; a member aiming outside is dropped."""
    code = textwrap.dedent(
        """
        import io, tarfile
        from pathlib import Path
        source = Path("bundle")
        (source / "sub").mkdir(parents=True)
        (source / "summary.txt").write_text("all steps passed\\n")
        (source / "sub" / "lab01-run.txt").write_bytes(b"rank 0\\x00")
        (source / "link").symlink_to("summary.txt")
        data = app.pack_bundle(source)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            names = archive.getnames()
        hostile = io.BytesIO()
        with tarfile.open(fileobj=hostile, mode="w:gz") as archive:
            for name in ("../escaped.txt", "ok.txt"):
                info = tarfile.TarInfo(name)
                info.size = 2
                archive.addfile(info, io.BytesIO(b"hi"))
        written = app.unpack_bundle(data, Path("out"))
        kept = app.unpack_bundle(hostile.getvalue(), Path("out2"))
        print(json.dumps({
            "names": names,
            "written": sorted(str(p.relative_to(Path("out").resolve())) for p in written),
            "summary": (Path("out") / "summary.txt").read_text(),
            "lab": list((Path("out") / "sub" / "lab01-run.txt").read_bytes()),
            "kept": [p.name for p in kept],
            "escaped": Path("escaped.txt").exists(),
        }))
        """
    )
    result = _json(_with_app(code, tmp_path))
    assert result["names"] == ["sub/lab01-run.txt", "summary.txt"], "links are left out"
    assert result["written"] == ["sub/lab01-run.txt", "summary.txt"]
    assert result["summary"] == "all steps passed\n"
    assert result["lab"] == list(b"rank 0\x00")
    assert result["kept"] == ["ok.txt"]
    assert result["escaped"] is False
