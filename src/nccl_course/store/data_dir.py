"""Where the course server keeps its data unless ``--data-dir`` says otherwise, and the names
of what it keeps there.

A module of its own, with nothing but the standard library, so that the command line can show
the default in ``--help`` without importing the server (``serve``, ``backup``, ``restore``),
and so that the server, the issuer and the backups name the same files.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "NCCL_COURSE_DATA_DIR"

ADMIN_TOKEN_FILE = "admin-token"
DATABASE_FILE = "course.db"
# Rendered certificates (nccl_course.issuing.credentials), and the issuers' keys:
# data_dir/certs/<issuer>/ (nccl_course.certs.issuer.issuer_folder).
CERTIFICATE_DIR = "certificates"
ISSUERS_DIR = "certs"


def default_data_dir() -> Path:
    """The server's data folder: ``$NCCL_COURSE_DATA_DIR``, else ``./.data``."""
    return Path(os.environ.get(DATA_DIR_ENV, ".data"))
