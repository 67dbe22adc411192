"""``nccl-course model --calibrate FILE``: fit the call-cost model to a learner's own sweep.

FILE is read as for ``--compare`` (nccl-tests output or its ``-J`` JSON, or
``nccl-course bench --json``), on the preset ``--preset`` names or the GPU names pick. The fit
(:func:`nccl_course.cost.nccl.call_fit.calibrate`) keeps NCCL's choice at every size and
fits the two constants the course's presets cannot know about a learner's machine: the fixed
cost of a call beyond NCCL's latency, and the bandwidth the links the run crossed achieve
against the model's. It prints the median |busbw error| per size range before and after, and
writes the personal preset file (``--write-preset``, YAML) that ``--preset-file`` reads.
Exit 0 after writing, 2 on a file or option it cannot use.
"""

from __future__ import annotations

import sys
from pathlib import Path


def calibration_for(m, preset, *, algo=None, proto=None, nccl_version=None):
    """(Calibration, observations) for measurement ``m`` on ``preset``."""
    from nccl_course.cost.nccl.call_fit import calibrate, observe
    from nccl_course.units import format_size

    observations = []
    for row in m.rows:
        timing = row.timing
        if timing is None or timing.time_us <= 0:
            continue
        observations.append(
            observe(
                m.collective,
                row.size,
                timing.time_us,
                preset,
                ranks=m.ranks,
                algo=algo,
                proto=proto,
                harness=m.harness,
                nccl_version=nccl_version,
            )
        )
    sizes = [o.size for o in observations]
    label = (
        f"{m.collective} on {m.ranks} ranks, {Path(m.path).name}, "
        f"{format_size(min(sizes)) if sizes else '-'} to {format_size(max(sizes)) if sizes else '-'}"
    )
    return calibrate(observations, fitted_on=label), observations


def run_calibrate(args) -> int:
    from nccl_course.commands._model_compare import read_for_model
    from nccl_course.cost.measured.comparison import compare, model_release
    from nccl_course.cost.preset_file import load_preset_file, personal_preset, write_preset_file

    for clash, flag in ((args.compare, "--compare"), (args.check_log, "--check-log")):
        if clash:
            print(f"error: --calibrate and {flag} read different files: give one", file=sys.stderr)
            return 2
    try:
        m, preset, notes, algo, proto = read_for_model(args, args.calibrate)
        version = model_release(args.nccl_version, m.nccl_version, [])
        calibration, observations = calibration_for(
            m, preset, algo=algo, proto=proto, nccl_version=version
        )
        before = compare(m, preset, nccl_version=version, algo=algo, proto=proto)
        name = Path(args.write_preset).stem
        personal = personal_preset(name, preset, calibration)
        after = compare(m, personal, nccl_version=version, algo=algo, proto=proto)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"note: {note}")
    print(
        f"calibrated {m.collective} on {m.ranks} ranks ({len(observations)} sizes, timed as "
        f"{m.harness}) on preset {preset}:"
    )
    print(f"  fixed cost per call  {calibration.fixed_us:10.2f} us (beyond NCCL's latency)")
    print(
        f"  efficiency           {calibration.efficiency:10.3f} of the model's bandwidth "
        f"({'between nodes' if calibration.link_class == 'inter' else 'inside a node'})"
    )
    print("median |busbw error|      " + "  ".join(f"{k:>10}" for k in before.medians))
    for label, result in (("course preset", before), ("calibrated", after)):
        cells = ["-" if v is None else f"{v:.1%}" for v in result.medians.values()]
        print(f"  {label:22}  " + "  ".join(f"{c:>10}" for c in cells))
    try:
        path = write_preset_file(args.write_preset, name, preset, calibration)
        load_preset_file(path)  # what was written reads back
    except OSError as exc:
        print(f"error: cannot write {args.write_preset}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}: use it with --preset-file {path} (with --nccl or --compare)")
    return 0
