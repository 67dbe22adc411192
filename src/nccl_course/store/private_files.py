"""The data folder is private: folders 0700, files 0600, checked when the server starts.

The data folder holds every learner's name and e-mail, the answer keys of open attempts, the
admin token and the issuer's signing keys, so no other local user may read (or write) any of it:

- ``make_private_dir`` creates a folder with mode 0700; ``create_private_file`` creates an
  empty file with mode 0600 (SQLite then gives its ``-wal`` and ``-shm`` files the database
  file's mode); ``private_umask`` is a umask of 077 while the server creates files (SQLite
  connections).
- ``secure_tree`` is the check at start: it walks the data folder, takes the group and other
  bits off every folder and file the server may change (and logs each change), and raises
  ``PrivateFileError``, naming each file and the ``chmod`` to run, if some stay open to other
  users.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("nccl_course.exam")

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
OPEN_BITS = 0o077  # group and other
PRIVATE_UMASK = 0o077


class PrivateFileError(PermissionError):
    """Files that other users can reach and this process cannot make private."""


@dataclass(frozen=True)
class Change:
    path: Path
    old_mode: int
    new_mode: int

    def __str__(self) -> str:
        return f"{self.path}: {self.old_mode:04o} -> {self.new_mode:04o}"


_umask_lock = threading.Lock()
_umask_depth = 0
_umask_saved = 0


@contextlib.contextmanager
def private_umask() -> Iterator[None]:
    """Files and folders created inside the block get no group or other bits.

    The umask belongs to the whole process: nested and concurrent blocks share one change,
    and the old umask comes back when the last block ends.
    """
    global _umask_depth, _umask_saved
    with _umask_lock:
        if _umask_depth == 0:
            old = os.umask(PRIVATE_UMASK)
            os.umask(old | PRIVATE_UMASK)
            _umask_saved = old
        _umask_depth += 1
    try:
        yield
    finally:
        with _umask_lock:
            _umask_depth -= 1
            if _umask_depth == 0:
                os.umask(_umask_saved)


def make_private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) with the new folder itself at mode 0700.

    An existing folder is left as it is: ``secure_tree`` checks it.
    """
    path = Path(path)
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            path.mkdir(mode=PRIVATE_DIR_MODE)
            os.chmod(path, PRIVATE_DIR_MODE)  # mkdir's mode is filtered by the umask
    return path


def create_private_file(path: Path) -> bool:
    """Create an empty file at mode 0600 unless it exists; True if it was created."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def _tighten(path: Path, st: os.stat_result, problems: list[str]) -> Change | None:
    mode = stat.S_IMODE(st.st_mode)
    if not mode & OPEN_BITS:
        return None
    wanted = mode & ~OPEN_BITS
    try:
        os.chmod(path, wanted)
        # Some file systems (FAT, some network mounts) accept chmod and keep nothing.
        kept = stat.S_IMODE(os.stat(path).st_mode)
        if kept & OPEN_BITS:
            raise OSError(0, f"the file system keeps mode {kept:04o}")
    except OSError as exc:
        kind = "folder" if stat.S_ISDIR(st.st_mode) else "file"
        problems.append(
            f"{kind} {path} is open to other users (mode {mode:04o}, owner uid {st.st_uid}) "
            f"and this server (uid {os.geteuid()}) cannot change it ({exc.strerror}): "
            f"run 'chmod {wanted:o} {shlex.quote(str(path))}' as its owner"
        )
        return None
    return Change(path, mode, wanted)


def secure_paths(paths, *, what: str = "private files") -> list[Change]:
    """Take the group and other bits off each existing path in ``paths`` (following
    symbolic links); log each change, and raise ``PrivateFileError`` for those that stay
    open."""
    changes: list[Change] = []
    problems: list[str] = []
    for path in paths:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        change = _tighten(Path(path), st, problems)
        if change:
            changes.append(change)
    _report(changes, problems, what)
    return changes


def secure_tree(root: Path) -> list[Change]:
    """Check the folder ``root`` and everything in it (symbolic links are followed to check
    their target, never into folders): folders and files lose their group and other bits
    where this process may change them, and each change is logged. Raises
    ``PrivateFileError`` if something stays open to other users."""
    root = Path(root)
    changes: list[Change] = []
    problems: list[str] = []

    def visit(path: Path) -> None:
        try:
            st = os.stat(path)
        except FileNotFoundError:  # a dangling link, or removed meanwhile
            return
        if stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode):
            change = _tighten(path, st, problems)
            if change:
                changes.append(change)

    visit(root)
    for folder, dirs, files in os.walk(root, onerror=None, followlinks=False):
        for name in (*dirs, *files):
            visit(Path(folder) / name)
    _report(changes, problems, f"the data folder {root}")
    return changes


def _report(changes: list[Change], problems: list[str], what: str) -> None:
    for change in changes:
        log.warning(
            "%s was open to other users (mode %04o); changed it to %04o",
            change.path,
            change.old_mode,
            change.new_mode,
        )
    if problems:
        raise PrivateFileError(
            f"refusing to start: {what} must be readable by this server's user only, and "
            + ("these are" if len(problems) > 1 else "this is")
            + " not:\n  "
            + "\n  ".join(problems)
        )
