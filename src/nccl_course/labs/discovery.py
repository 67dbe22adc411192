"""Find labs and read their ``lab.yaml``.

A lab is a folder ``labs/NN-name/`` holding ``lab.yaml``, ``README.md``, ``starter.py``,
``solution.py`` and ``tests/``. ``lab.yaml`` keys (defaults in brackets):

- ``title`` (required), ``summary`` (required): one line each.
- ``world_sizes`` [2, 3, 4]: the rank counts the tests run at.
- ``backends`` [gloo, nccl]: where the lab runs.
- ``gpu_only`` []: one string per part that only means something on GPUs.
- ``timeout_s`` [60]: seconds one launch may take before it is stopped as hung.
- ``objectives`` []: what the learner can do afterwards.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

#: Environment variable naming the learner's file the lab tests import (default: solution.py).
LAB_FILE_ENV = "NCCL_COURSE_LAB_FILE"
#: Environment variable overriding the world sizes the tests run at, e.g. "2,4".
WORLD_SIZES_ENV = "NCCL_COURSE_WORLD_SIZES"

DEFAULTS = {
    "world_sizes": [2, 3, 4],
    "backends": ["gloo", "nccl"],
    "gpu_only": [],
    "timeout_s": 60,
    "objectives": [],
}
_LAB_DIR_RE = re.compile(r"^(\d\d)-[a-z0-9-]+$")


class LabConfigError(ValueError):
    """A lab.yaml that is missing, unreadable or has a wrong key."""


@dataclass(frozen=True)
class Lab:
    number: str  # "03"
    name: str  # "ring-allreduce"
    path: Path
    config: dict = field(compare=False)

    @property
    def id(self) -> str:
        return f"{self.number}-{self.name}"

    @property
    def title(self) -> str:
        return self.config["title"]

    @property
    def solution(self) -> Path:
        return self.path / "solution.py"

    @property
    def starter(self) -> Path:
        return self.path / "starter.py"

    @property
    def tests(self) -> Path:
        return self.path / "tests"


def load_lab_config(path: str | os.PathLike) -> dict:
    """Parse a lab.yaml (or the lab.yaml in a lab folder), apply defaults, check types."""
    import yaml

    from nccl_course import yaml_text

    path = Path(path)
    if path.is_dir():
        path = path / "lab.yaml"
    try:
        raw = yaml_text.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LabConfigError(f"cannot read {path}: {exc}") from exc
    except yaml.YAMLError as exc:
        raise LabConfigError(f"{path} is not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise LabConfigError(f"{path} must be a mapping of keys to values")
    unknown = set(raw) - set(DEFAULTS) - {"title", "summary"}
    if unknown:
        raise LabConfigError(f"{path}: unknown keys {sorted(unknown)}")
    config = {key: (list(v) if isinstance(v, list) else v) for key, v in DEFAULTS.items()}
    config.update(raw)
    for key in ("title", "summary"):
        if not isinstance(config.get(key), str) or not config[key].strip():
            raise LabConfigError(f"{path}: '{key}' must be a non-empty string")
    sizes = config["world_sizes"]
    if not (
        isinstance(sizes, list) and sizes and all(isinstance(s, int) and s >= 1 for s in sizes)
    ):
        raise LabConfigError(f"{path}: 'world_sizes' must be a list of positive integers")
    if not set(config["backends"]) <= {"gloo", "nccl"}:
        raise LabConfigError(f"{path}: 'backends' may list only gloo and nccl")
    if not isinstance(config["timeout_s"], int | float) or config["timeout_s"] <= 0:
        raise LabConfigError(f"{path}: 'timeout_s' must be a positive number of seconds")
    for key in ("gpu_only", "objectives"):
        if not all(isinstance(s, str) for s in config[key]):
            raise LabConfigError(f"{path}: '{key}' must be a list of strings")
    return config


def labs_root() -> Path:
    """The folder holding the labs: $NCCL_COURSE_LABS_DIR, else ./labs, else the repository's."""
    env = os.environ.get("NCCL_COURSE_LABS_DIR")
    if env:
        return Path(env).resolve()
    here = Path.cwd() / "labs"
    if any(here.glob("*/lab.yaml")):
        return here.resolve()
    return Path(__file__).resolve().parents[3] / "labs"


def discover_labs(root: str | os.PathLike | None = None) -> list[Lab]:
    """Every ``NN-name/`` folder with a lab.yaml under ``root``, in number order."""
    root = Path(root) if root is not None else labs_root()
    labs = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        match = _LAB_DIR_RE.match(folder.name)
        if match and (folder / "lab.yaml").is_file():
            number = match.group(1)
            labs.append(Lab(number, folder.name[3:], folder, load_lab_config(folder)))
    return labs


def find_lab(key: str, root: str | os.PathLike | None = None) -> Lab:
    """The lab named by ``key``: its number ("3", "03") or folder name ("03-ring-allreduce")."""
    labs = discover_labs(root)
    key = key.strip()
    for lab in labs:
        if key in (lab.id, lab.name) or (key.isdigit() and int(key) == int(lab.number)):
            return lab
    known = ", ".join(lab.id for lab in labs) or "none found"
    raise LookupError(f"no lab {key!r}; the labs are: {known}")


def lab_of_path(path: str | os.PathLike) -> Path:
    """The lab folder (the nearest parent with a lab.yaml) of a file inside a lab."""
    path = Path(path).resolve()
    for parent in [path, *path.parents]:
        if (parent / "lab.yaml").is_file():
            return parent
    raise LabConfigError(f"{path} is not inside a lab folder (no lab.yaml above it)")
