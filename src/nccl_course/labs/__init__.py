"""Labs: discovery (``labs/NN-name/lab.yaml``), running a lab's file, checking it with its tests."""

from nccl_course.labs.discovery import (
    LAB_FILE_ENV,
    WORLD_SIZES_ENV,
    Lab,
    LabConfigError,
    discover_labs,
    find_lab,
    lab_of_path,
    labs_root,
    load_lab_config,
)

__all__ = [
    "LAB_FILE_ENV",
    "WORLD_SIZES_ENV",
    "Lab",
    "LabConfigError",
    "discover_labs",
    "find_lab",
    "lab_of_path",
    "labs_root",
    "load_lab_config",
]
