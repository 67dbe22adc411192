"""The credential issuer: its keys, its DID document, its status lists, and issuing.

Everything lives under ``data_dir/certs/<issuer>/`` (never in the repository):

- ``keys/key-N.json``: Ed25519 key pairs (Multikey encodings), mode 0600 in a 0700 folder.
  The highest N signs; older keys stay in the DID document so earlier credentials verify.
- ``registry.sqlite``: which status-list index each issued credential holds, and which are
  revoked, unless the issuer is given another registry (``nccl_course.certs.registry``; the
  exam server keeps it in its database). Indices are drawn at random (Bitstring Status List
  privacy advice) and the registry's constraints keep two processes from taking the same one.
- ``issuer.json``: settings (identifier, name, URLs) for the command line, and its history
  (first and last use, ``keys_from``: a did:web made for a new public URL links its ``keys``
  to those of the issuer used last instead of making a key; ``nccl_course.certs.history``).

The issuer's folder is 0700 and its files 0600, like everything in the exam server's data folder.

The issuer stores no credential; the caller (the exam server) does.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import stat
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import quote, urlsplit

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from nccl_course.certs import did as dids
from nccl_course.certs import eddsa
from nccl_course.certs.credential import (
    build_credential,
    parse_datetime,
    status_entry,
    xsd_datetime,
)
from nccl_course.certs.fetch import local_http
from nccl_course.certs.loader import VC_V2, default_loader
from nccl_course.certs.multibase import (
    decode_ed25519_private,
    encode_ed25519_private,
    encode_ed25519_public,
)
from nccl_course.certs.registry import DuplicateCredential, IndexRegistry, SqliteIndexRegistry
from nccl_course.certs.statuslist import MIN_ENTRIES, REFRESH_S, TTL_S, encode_bitstring

# Start a new list before a list gets so full that random draws keep colliding.
LIST_FILL_LIMIT = MIN_ENTRIES // 2
# The status-list index registry the issuer keeps on its own (the exam server passes one kept
# in its database instead: nccl_course.certs.registry).
REGISTRY_FILE = "registry.sqlite"
# The lock file of an issuer's folder (key creation, rotation); it holds no data.
LOCK_FILE = ".lock"


def default_data_dir() -> Path:
    """``$NCCL_COURSE_DATA``, else ``~/.local/share/nccl-course``."""
    env = os.environ.get("NCCL_COURSE_DATA")
    return Path(env).expanduser() if env else Path.home() / ".local" / "share" / "nccl-course"


def issuer_folder(data_dir: Path, issuer_id: str) -> Path:
    """The folder of one issuer under a data folder."""
    slug = (
        "did-key" if issuer_id.startswith("did:key") else re.sub(r"[^A-Za-z0-9._-]", "_", issuer_id)
    )
    return Path(data_dir) / "certs" / slug


def verify_link(verify_url: str, credential_id: str) -> str:
    """The URL of the verify page for one credential.

    ``verify_url`` may hold ``{id}`` (replaced by the URL-encoded credential id); otherwise
    ``?id=<credential id>`` is appended.
    """
    encoded = quote(credential_id, safe="")
    if "{id}" in verify_url:
        return verify_url.replace("{id}", encoded)
    return f"{verify_url}{'&' if '?' in verify_url else '?'}id={encoded}"


@dataclass(frozen=True)
class IssuerKey:
    number: int
    created: str
    private: Ed25519PrivateKey

    @property
    def fragment(self) -> str:
        return f"key-{self.number}"

    @property
    def public_raw(self) -> bytes:
        return self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


@contextlib.contextmanager
def _locked(folder: Path):
    """An exclusive lock on the issuer folder across processes (key creation, rotation)."""
    fd = os.open(folder / LOCK_FILE, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


class Issuer:
    """Issues, signs and revokes credentials for one issuer identity (did:web or did:key)."""

    def __init__(
        self,
        folder: Path,
        issuer_id: str,
        name: str,
        verify_url: str,
        registry: IndexRegistry | None = None,
    ):
        self.folder = Path(folder)
        # Where status-list indices are kept (default: registry.sqlite in the folder).
        self.registry = registry or SqliteIndexRegistry(self.folder / REGISTRY_FILE)
        self._requested_id = issuer_id
        self.name = name
        self.verify_url = verify_url
        parts = urlsplit(verify_url)
        if not parts.scheme or not parts.netloc:
            raise ValueError(f"verify_url {verify_url!r} must be an absolute http(s) URL")
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.keys: list[IssuerKey] = []
        self._status_cache: dict[tuple, dict] = {}
        self._reload_keys()

    # -- creation and keys -------------------------------------------------------------
    @classmethod
    def load_or_create(
        cls,
        data_dir: Path,
        issuer_id: str,
        name: str,
        verify_url: str,
        registry: IndexRegistry | None = None,
    ) -> Issuer:
        """Open the issuer kept under ``data_dir``, creating its first key on first use.

        ``issuer_id`` is a did:web (``did:web:127.0.0.1%3A8000``) or did:key. Pass the bare
        ``"did:key"`` to have the identifier derived from the key; a full did:key must be the
        one whose key this data folder holds.
        """
        if not (issuer_id.startswith("did:web:") or issuer_id.startswith("did:key")):
            raise ValueError(f"issuer_id {issuer_id!r} must be a did:web or did:key identifier")
        folder = issuer_folder(Path(data_dir), issuer_id)
        # A new did:web (another public URL) signs with the keys already here, never new ones.
        from nccl_course.certs.history import adopt_keys, stamp_of

        adopted = adopt_keys(Path(data_dir), folder, issuer_id)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        (folder / "keys").mkdir(mode=0o700, exist_ok=True)
        os.chmod(folder / "keys", 0o700)
        with _locked(folder):
            if not any((folder / "keys").glob("key-*.json")):
                if issuer_id.startswith("did:key:"):
                    raise ValueError(
                        f"{issuer_id} names a key this data folder does not hold; pass "
                        "'did:key' to create a new key and derive the identifier from it"
                    )
                _write_key(folder / "keys", 1, Ed25519PrivateKey.generate())
            settings = {
                "issuer_id": issuer_id if not issuer_id.startswith("did:key") else "did:key",
                "name": name,
                "verify_url": verify_url,
            }
            # History for 'nccl-course cert issuers' (nccl_course.certs.history).
            with contextlib.suppress(OSError, ValueError, TypeError):
                earlier = json.loads((folder / "issuer.json").read_text())
                settings.update(
                    {k: earlier[k] for k in ("first_used", "keys_from") if k in earlier}
                )
            settings.setdefault("first_used", stamp_of())
            if adopted:
                settings["keys_from"] = adopted
            settings["last_used"] = stamp_of()
            _write_json(folder / "issuer.json", settings, 0o600)
        issuer = cls(folder, issuer_id, name, verify_url, registry)
        if issuer_id.startswith("did:key:") and issuer_id != issuer.issuer_id:
            raise ValueError(f"{issuer_id} is not this data folder's key ({issuer.issuer_id})")
        if isinstance(issuer.registry, SqliteIndexRegistry):
            issuer.registry.connect().close()
        return issuer

    @classmethod
    def open_existing(cls, data_dir: Path, issuer_id: str | None = None) -> Issuer:
        """The issuer already in ``data_dir`` (the only one, or the one named)."""
        root = Path(data_dir) / "certs"
        folders = [p for p in sorted(root.glob("*")) if (p / "issuer.json").exists()]
        if issuer_id is not None:
            folders = [p for p in folders if p == issuer_folder(Path(data_dir), issuer_id)]
        if not folders:
            raise LookupError(
                f"no issuer in {data_dir}: create one with 'nccl-course cert keygen --issuer DID'"
            )
        if len(folders) > 1:
            ids = ", ".join(
                json.loads((p / "issuer.json").read_text())["issuer_id"] for p in folders
            )
            raise LookupError(
                f"{data_dir} holds several issuers ({ids}); choose with --issuer "
                "('nccl-course cert issuers' says which is current)"
            )
        settings = json.loads((folders[0] / "issuer.json").read_text())
        return cls(folders[0], settings["issuer_id"], settings["name"], settings["verify_url"])

    def _reload_keys(self) -> None:
        keys = []
        for path in (self.folder / "keys").glob("key-*.json"):
            mode = stat.S_IMODE(path.stat().st_mode)
            if mode & 0o077:
                raise PermissionError(
                    f"private key file {path} is open to other users (mode {mode:04o}); "
                    f"run 'chmod 600 {path}' and check who could have read it"
                )
            data = json.loads(path.read_text())
            seed = decode_ed25519_private(data["secretKeyMultibase"])
            keys.append(
                IssuerKey(
                    number=int(data["number"]),
                    created=data["created"],
                    private=Ed25519PrivateKey.from_private_bytes(seed),
                )
            )
        if not keys:
            raise LookupError(f"no key in {self.folder / 'keys'}")
        self.keys = sorted(keys, key=lambda k: k.number)

    @property
    def current_key(self) -> IssuerKey:
        return self.keys[-1]

    @property
    def issuer_id(self) -> str:
        if self._requested_id.startswith("did:key"):
            return dids.did_key_from_public(self.current_key.public_raw)
        return self._requested_id

    def verification_method(self, key: IssuerKey | None = None) -> str:
        key = key or self.current_key
        if self._requested_id.startswith("did:key"):
            return dids.did_key_method(dids.did_key_from_public(key.public_raw))
        return f"{self.issuer_id}#{key.fragment}"

    def rotate(self) -> None:
        """Sign with a new key from now on; older public keys stay in the DID document."""
        if self._requested_id.startswith("did:key"):
            raise ValueError(
                "a did:key issuer cannot rotate: its identifier is its key, so rotating would "
                "change the issuer of every new credential; use a did:web issuer"
            )
        with _locked(self.folder):
            self._reload_keys()
            _write_key(
                self.folder / "keys", self.current_key.number + 1, Ed25519PrivateKey.generate()
            )
            self._reload_keys()
        self._status_cache.clear()

    def did_document(self) -> dict:
        """The public DID document (all keys, oldest first); publish it for did:web.

        For did:key it is the document the identifier itself encodes (one key).
        """
        self._refresh_keys()
        if self._requested_id.startswith("did:key"):
            fragment = self.issuer_id.split(":", 2)[2]
            return dids.did_document(self.issuer_id, [(fragment, self.current_key.public_raw)])
        return dids.did_document(self.issuer_id, [(k.fragment, k.public_raw) for k in self.keys])

    @property
    def did_document_url(self) -> str | None:
        """Where a did:web DID document must be served (None for did:key): HTTPS, or plain
        HTTP for a server on this machine, where verifiers fetch it (``fetch.local_http``)."""
        if not self.issuer_id.startswith("did:web:"):
            return None
        return local_http(dids.did_web_url(self.issuer_id))

    # -- status lists ------------------------------------------------------------------
    def status_list_url(self, list_number: int = 1) -> str:
        """Where the server publishes status list ``list_number``: ORIGIN/credentials/status/N."""
        return f"{self.origin}/credentials/status/{list_number}"

    def _allocate(self, credential_id: str) -> tuple[int, int]:
        try:
            return self.registry.allocate(credential_id, MIN_ENTRIES, LIST_FILL_LIMIT)
        except DuplicateCredential as exc:
            raise ValueError(str(exc)) from None

    def revoke(self, credential: dict | str) -> None:
        """Set the credential's revocation bit (by the credential or its id); idempotent."""
        credential_id = credential if isinstance(credential, str) else credential.get("id")
        self.registry.revoke(credential_id)

    def is_revoked(self, credential_id: str) -> bool:
        return self.registry.is_revoked(credential_id)

    def status_lists(self) -> list[int]:
        return self.registry.lists() or [1]

    def status_list_credential(self, list_number: int = 1, now: datetime | None = None) -> dict:
        """The signed BitstringStatusListCredential for list ``list_number``.

        Its validFrom and proof time are the start of the current :data:`REFRESH_S` period
        (of ``now``, default the current time), or the latest revocation in the list if later;
        its ``validUntil`` is :data:`TTL_S` after that, and its ``ttl`` (milliseconds) the
        same lifetime. The same state in the same period gives the same document, so it can
        be cached.
        """
        self._refresh_keys()
        rows = self.registry.revoked(list_number)
        revoked = [r[0] for r in rows]
        moment = (now or datetime.now(timezone.utc)).timestamp()
        period = datetime.fromtimestamp(moment - moment % REFRESH_S, timezone.utc)
        stamp = max([r[1] for r in rows] + [self.current_key.created, xsd_datetime(period)])
        key = (list_number, tuple(revoked), stamp, self.current_key.number)
        cached = self._status_cache.get(key)
        if cached is not None:
            return json.loads(json.dumps(cached))
        url = self.status_list_url(list_number)
        unsigned = {
            "@context": [VC_V2],
            "id": url,
            "type": ["VerifiableCredential", "BitstringStatusListCredential"],
            "issuer": self.issuer_id,
            "validFrom": stamp,
            "validUntil": xsd_datetime(parse_datetime(stamp) + timedelta(seconds=TTL_S)),
            "credentialSubject": {
                "id": f"{url}#list",
                "type": "BitstringStatusList",
                "statusPurpose": "revocation",
                "encodedList": encode_bitstring(revoked),
                "ttl": TTL_S * 1000,
            },
        }
        signed = self._sign(unsigned, created=stamp)
        self._status_cache = {key: signed}
        return json.loads(json.dumps(signed))

    # -- issuing -----------------------------------------------------------------------
    def _refresh_keys(self) -> None:
        """Pick up a rotation made by another process (e.g. the command line)."""
        names = {p.name for p in (self.folder / "keys").glob("key-*.json")}
        if names != {f"key-{k.number}.json" for k in self.keys}:
            self._reload_keys()

    def _sign(self, document: dict, created: str | None = None) -> dict:
        self._refresh_keys()
        return eddsa.sign(
            document,
            self.current_key.private,
            verification_method=self.verification_method(),
            created=created or _now(),
            loader=default_loader(),
        )

    def issue(
        self,
        *,
        learner_name: str,
        learner_email: str,
        exam_id: str,
        score: float,
        passed_at: datetime,
        achievement: dict | None = None,
        valid_until: datetime | None = None,
    ) -> dict:
        """A signed OpenBadgeCredential for a passed exam. ``score`` is a fraction in [0, 1].

        Allocates a status list index (the only thing recorded here); the caller stores the
        credential.
        """
        credential_id = f"urn:uuid:{uuid.uuid4()}"
        # Validate the inputs before taking an index.
        build_credential(
            issuer_id=self.issuer_id,
            issuer_name=self.name,
            issuer_url=self.origin,
            learner_name=learner_name,
            learner_email=learner_email,
            exam_id=exam_id,
            score=score,
            passed_at=passed_at,
            achievement=achievement,
            status_entry={},
            valid_until=valid_until,
            credential_id=credential_id,
        )
        list_number, index = self._allocate(credential_id)
        unsigned = build_credential(
            issuer_id=self.issuer_id,
            issuer_name=self.name,
            issuer_url=self.origin,
            learner_name=learner_name,
            learner_email=learner_email,
            exam_id=exam_id,
            score=score,
            passed_at=passed_at,
            achievement=achievement,
            status_entry=status_entry(self.status_list_url(list_number), index),
            valid_until=valid_until,
            credential_id=credential_id,
        )
        try:
            return self._sign(unsigned)
        except Exception:
            # e.g. an achievement with a term no context defines: give the index back.
            self._release(credential_id)
            raise

    def _release(self, credential_id: str) -> None:
        self.registry.release(credential_id)


def _now() -> str:
    return xsd_datetime(datetime.now(timezone.utc))


def _write_json(path: Path, data: dict, mode: int) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, mode)
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def _write_key(folder: Path, number: int, private: Ed25519PrivateKey) -> Path:
    """Write key ``number`` with mode 0600; never overwrite an existing key file."""
    from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

    seed = private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    data = {
        "number": number,
        "type": "Multikey",
        "created": _now(),
        "publicKeyMultibase": encode_ed25519_public(public),
        "secretKeyMultibase": encode_ed25519_private(seed),
    }
    path = folder / f"key-{number}.json"
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=2)
    return path
