"""A personal preset: one of the course's presets with the learner's own call-cost constants.

``nccl-course model --calibrate FILE --write-preset OUT.yml`` fits the constants
(:func:`nccl_course.cost.nccl.call_fit.calibrate`) and writes OUT.yml; ``--preset-file
OUT.yml`` then predicts and compares with it. The file is YAML a person can read and edit::

    name: my-cluster
    base: ib-ndr-2node          # the course preset whose hardware it describes
    calibration:
      fixed_us: 9.5             # per-call cost beyond NCCL's latency, microseconds
      efficiency: 0.93          # achievable / modelled bandwidth of the links below
      link_class: inter         # intra (inside a node) or inter (between nodes)
      fitted_on: all_reduce_perf on 16 ranks, out.txt, 8 B to 8 GiB
      fill_fraction: {LL: 0.1, Simple: 0.4}   # the pipeline fill per protocol

Units: microseconds; efficiency is a ratio.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from nccl_course import yaml_text
from nccl_course.cost.nccl.call_cost import Calibration
from nccl_course.cost.presets import Preset, get_preset

KEYS = ("name", "base", "calibration")
CALIBRATION_KEYS = ("fixed_us", "efficiency", "link_class", "fitted_on", "fill_fraction")


class PresetFileError(ValueError):
    """A preset file that cannot be used; the message says what to fix."""


def personal_preset(name: str, base: str | Preset, calibration: Calibration) -> Preset:
    """``base`` with ``calibration``, under ``name``."""
    base = get_preset(base)
    return replace(
        base,
        name=name,
        description=f"{base.description}; calibrated: {calibration.fitted_on}",
        calibration=calibration,
    )


def write_preset_file(path: str | Path, name: str, base: str, calibration: Calibration) -> Path:
    """Write the personal preset ``name``: course preset ``base`` with ``calibration``."""
    get_preset(base)  # ValueError naming the presets
    data = {"name": name, "base": base, "calibration": calibration.as_dict()}
    path = Path(path)
    header = "# A personal preset for nccl-course model --preset-file (written by --calibrate).\n"
    path.write_text(header + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def load_preset_file(path: str | Path) -> Preset:
    """The personal preset in ``path``; PresetFileError saying what is wrong with it."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PresetFileError(
            f"cannot read the preset file {path}: {exc.strerror or exc}"
        ) from None
    except UnicodeDecodeError:
        raise PresetFileError(
            f"{path} is not a text file: give the YAML --calibrate wrote"
        ) from None
    try:
        data = yaml_text.safe_load(text)
    except yaml.YAMLError as exc:
        raise PresetFileError(f"{path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise PresetFileError(f"{path}: expected the keys {', '.join(KEYS)}")
    missing = [k for k in KEYS if k not in data]
    unknown = sorted(set(data) - set(KEYS))
    if missing or unknown:
        what = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unknown {', '.join(map(str, unknown))}" if unknown else "",
            )
            if part
        )
        raise PresetFileError(f"{path}: {what} (a preset file has {', '.join(KEYS)})")
    name, base, cal = data["name"], data["base"], data["calibration"]
    if not isinstance(name, str) or not name.strip():
        raise PresetFileError(f"{path}: name must be a non-empty string")
    if not isinstance(base, str):
        raise PresetFileError(f"{path}: base must be a course preset's name")
    try:
        base_preset = get_preset(base)
    except ValueError as exc:
        raise PresetFileError(f"{path}: base: {exc}") from None
    if not isinstance(cal, dict) or sorted(cal) != sorted(CALIBRATION_KEYS):
        raise PresetFileError(f"{path}: calibration needs exactly {', '.join(CALIBRATION_KEYS)}")
    try:
        fixed, efficiency = float(cal["fixed_us"]), float(cal["efficiency"])
        raw = cal["fill_fraction"]
        if raw is not None and not isinstance(raw, dict):
            raise ValueError("fill_fraction must map protocols (LL, LL128, Simple) to numbers")
        fill = None if raw is None else {str(k): float(v) for k, v in raw.items()}
        calibration = Calibration(
            fixed, efficiency, str(cal["link_class"]), str(cal["fitted_on"]), fill
        )
    except (TypeError, ValueError) as exc:
        raise PresetFileError(f"{path}: calibration: {exc}") from None
    if not (fixed < 1e6 and efficiency < 100):
        raise PresetFileError(f"{path}: calibration values out of range: {cal}")
    return personal_preset(name.strip(), base_preset, calibration)
