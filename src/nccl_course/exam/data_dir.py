"""Where the course server keeps its data unless ``--data-dir`` says otherwise.

A module of its own, with nothing but the standard library, so that the command line can show
the default in ``--help`` without importing the server (``serve``, ``backup``, ``restore``).
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "NCCL_COURSE_DATA_DIR"


def default_data_dir() -> Path:
    """The server's data folder: ``$NCCL_COURSE_DATA_DIR``, else ``./.data``."""
    return Path(os.environ.get(DATA_DIR_ENV, ".data"))
