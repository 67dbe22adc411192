"""``nccl-course model --check-log FILE``: NCCL's own tuner output next to the model's.

The GPU generation comes from ``--preset`` (which also fills in what the log leaves out) or
``--sm``; everything else the tuner needs is read from the log (see
:mod:`nccl_course.cost.nccl.log_check`). The release is the log's ``NCCL version`` unless
``--nccl-version`` names one.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path


def _hardware(args, log):
    from nccl_course.cost.nccl.system import NcclHardware
    from nccl_course.cost.presets import get_preset

    if args.preset:
        preset = get_preset(args.preset)
        if preset.nccl is None:
            raise ValueError(f"preset {preset.name!r} has no NCCL system description")
        hw = preset.nccl
        return hw if args.sm is None else replace(hw, compute_capability=args.sm)
    if args.sm is None:
        raise ValueError(
            "say what GPUs the log comes from: --preset NAME (see --list-presets) or --sm N "
            "(the compute capability, e.g. 90 for H100 and H200)"
        )
    names = dict(log.graphs)
    if "Ring" not in names:
        raise ValueError(
            "with --sm alone the graphs must come from the log, and it has no 'Pattern ...' "
            "lines: run with NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING, or give --preset"
        )
    # Only graphs the log lacks (e.g. PAT's) come from the search, so the links and NICs
    # here need only be of the right kind, NVLink or PCIe, network or none.
    nvlink = names["Ring"].type_intra == "NVL"
    return NcclHardware(
        gpu=f"sm_{args.sm}",
        compute_capability=args.sm,
        gpus_per_node=log.local_ranks or 1,
        nvlink_links=18 if nvlink else 0,
        nics_per_node=1 if (log.nodes or 1) > 1 else 0,
        nic_gbit=400.0 if (log.nodes or 1) > 1 else 0.0,
    )


def _release(args, log):
    from nccl_course.cost.nccl.releases import release

    version = args.nccl_version or log.version
    if version is None:
        raise ValueError(
            "the log has no 'NCCL version' line: give the release with --nccl-version X.Y.Z"
        )
    try:
        return release(version)
    except ValueError as exc:
        if args.nccl_version:
            raise
        raise ValueError(
            f"the log is from NCCL {version}; {exc}. Compare with one of those anyway with "
            "--nccl-version"
        ) from None


def run_check_log(args) -> int:
    from nccl_course.cost.nccl.log_check import check_log
    from nccl_course.cost.nccl.log_reader import read_log
    from nccl_course.cost.nccl.overrides import Enablement

    path = Path(args.check_log)
    try:
        text = path.read_text(errors="replace")
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        log = read_log(text)
        if not (log.cells or log.calls):
            raise ValueError(
                f"{path} has no TUNING output (no cost table, no 'Bytes -> Algo' line): run "
                "with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING and give rank 0's log"
            )
        result = check_log(
            log,
            _hardware(args, log),
            _release(args, log),
            enable=Enablement.parse(args.algorithm, args.proto),
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(result.report())
    return 0 if result.mismatches == 0 else 1
