"""Issuer continuity: one set of keys across the did:web identifiers a data folder has had.

The server names its issuer after its public URL (``did:web:HOST``). Moving it to another URL
gives another DID, but not another key: the new issuer's ``keys`` folder is a link to the
keys of the issuer used last (``adopt_keys``), so the key is generated once and kept, a
rotation (``nccl-course cert rotate``) applies to every DID that shares it, and each earlier
DID's folder stays in place, so credentials issued under it still verify on this server.

Each issuer's ``issuer.json`` records ``first_used``, ``last_used`` and ``keys_from`` (the DID
whose keys it took); ``issuer_history`` reads them, with the public half of each key only, for
``nccl-course cert issuers``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
from datetime import datetime, timezone
from pathlib import Path

log = logging.getLogger("nccl_course.certs")
LOCK_FILE = ".issuers.lock"


@contextlib.contextmanager
def _certs_lock(certs: Path):
    """An exclusive lock over the whole ``certs`` folder (adopting keys across issuers)."""
    certs.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(certs / LOCK_FILE, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _settings(folder: Path) -> dict | None:
    try:
        data = json.loads((folder / "issuer.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("issuer_id"), str) else None


def _has_keys(folder: Path) -> bool:
    return any((folder / "keys").glob("key-*.json"))


def _last_used(folder: Path, settings: dict) -> str:
    stamp = settings.get("last_used")
    if isinstance(stamp, str):
        return stamp
    # Folders from before the history was kept: the time issuer.json was last written.
    mtime = (folder / "issuer.json").stat().st_mtime
    return stamp_of(datetime.fromtimestamp(mtime, timezone.utc))


def stamp_of(when: datetime | None = None) -> str:
    """A UTC time stamp to the microsecond (two starts in one second stay ordered)."""
    return (when or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def adopt_keys(data_dir: Path, folder: Path, issuer_id: str) -> str | None:
    """Give the did:web issuer in ``folder`` (not yet holding a key) the keys of the did:web
    issuer of this data folder used last, by linking its ``keys`` folder to theirs. Returns
    that issuer's DID, or None (the issuer has keys already, or there is no earlier one)."""
    if not issuer_id.startswith("did:web:"):
        return None  # a did:key's identifier is its key: never shared
    certs = Path(data_dir) / "certs"
    with _certs_lock(certs):
        if _has_keys(folder):
            return None
        best: tuple[str, str, Path] | None = None
        for other in sorted(certs.iterdir()):
            if other.resolve() == folder.resolve() or not other.is_dir():
                continue
            settings = _settings(other)
            if settings is None or not settings["issuer_id"].startswith("did:web:"):
                continue
            if not _has_keys(other):
                continue
            candidate = (_last_used(other, settings), settings["issuer_id"], other)
            if best is None or candidate[0] > best[0]:
                best = candidate
        if best is None:
            return None
        _, old_id, old_folder = best
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        keys = folder / "keys"
        if keys.is_dir() and not keys.is_symlink():
            keys.rmdir()  # empty (no key in it): left by an interrupted first start
        target = (old_folder / "keys").resolve()
        os.symlink(os.path.relpath(target, folder), keys)
    log.warning("issuer %s now signs with the keys of %s", issuer_id, old_id)
    return old_id


def issuer_history(data_dir: Path) -> list[dict]:
    """Every issuer in ``data_dir/certs`` (oldest first): its DID, when it was first and last
    used, whose keys it took, where its keys are, its keys (public part: id, created,
    retired) and whether it is the current one (the one used last)."""
    from nccl_course.certs.did import did_key_from_public
    from nccl_course.certs.multibase import decode_ed25519_public

    certs = Path(data_dir) / "certs"
    entries: list[dict] = []
    if not certs.is_dir():
        return entries
    for folder in sorted(certs.iterdir()):
        settings = _settings(folder) if folder.is_dir() else None
        if settings is None:
            continue
        keys = []
        for path in (folder / "keys").glob("key-*.json"):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                keys.append(
                    {
                        "number": int(data["number"]),
                        "created": str(data.get("created", "")),
                        "public_key": str(data["publicKeyMultibase"]),
                    }
                )
            except (OSError, ValueError, KeyError, TypeError):
                continue
        keys.sort(key=lambda k: k["number"])
        did = settings["issuer_id"]
        if did.startswith("did:key") and keys:
            did = did_key_from_public(decode_ed25519_public(keys[-1]["public_key"]))
        for key in keys:
            key["id"] = (
                did_key_from_public(decode_ed25519_public(key["public_key"]))
                if did.startswith("did:key")
                else f"{did}#key-{key['number']}"
            )
            key["retired"] = key is not keys[-1]
        first = settings.get("first_used") or (keys[0]["created"] if keys else None)
        entries.append(
            {
                "issuer_id": did,
                "name": settings.get("name"),
                "verify_url": settings.get("verify_url"),
                "first_used": first,
                "last_used": _last_used(folder, settings),
                "keys_from": settings.get("keys_from"),
                "keys_folder": str((folder / "keys").resolve()),
                "folder": str(folder),
                "keys": keys,
                "current": False,
            }
        )
    if entries:
        max(entries, key=lambda e: e["last_used"])["current"] = True
    entries.sort(key=lambda e: (e["first_used"] or "", e["issuer_id"]))
    return entries
