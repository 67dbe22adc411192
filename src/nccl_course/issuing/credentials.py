"""Credentials on the server: the issuer's files, and the credentials issued for attempts.

- ``CredentialDesk``: one issuer (keys and status list in the data folder), what a
  verification here needs and this server's verdict, and rendered certificates cached on disk.
  All the cryptography and the credential format live in ``nccl_course.certs``; the desk only
  decides where files go and serialises access (the issuer allocates status-list indices and
  rewrites its status list, so one thread at a time).

  Verification here trusts only this server's own issuers: the current one and every earlier
  one whose keys are in the data folder (``data_dir/certs/<issuer>/``: another
  ``--public-url`` gave another did:web), so credentials issued before a change still verify.
  A credential is VALID only if its issuer is one of them, its key is in that issuer's DID
  document, its signature and dates hold, and its status entry is in that issuer's own status
  list and not set; anything else is NOT VALID, with the reason (nothing stays "cannot
  check"). The verification itself runs in a worker process (``nccl_course.issuing.verifier``).
- ``IssuedCredentials``: the database side. A passed attempt gets exactly one credential,
  issued when it is submitted (or, if that failed, on the next download); the learner downloads
  it with their key, anyone can have a credential this server issued verified by its id, and
  the admin revokes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from nccl_course.certs import Issuer
from nccl_course.certs.credential import LOCAL_TEST_MARK, default_achievement
from nccl_course.certs.fields import as_list, issuer_id, short
from nccl_course.certs.issuer import REGISTRY_FILE, issuer_folder
from nccl_course.certs.render import render_certificate
from nccl_course.certs.result import (
    CANNOT_CHECK,
    FAILED,
    NOT_CHECKED,
    NOT_VALID,
    VALID,
    Message,
    failure_reason,
    message_of,
)
from nccl_course.exam.blueprint import json_roundtrip
from nccl_course.exam.clock import as_utc, utcnow
from nccl_course.exam.errors import Conflict, NotFound
from nccl_course.i18n.interface import N_
from nccl_course.i18n.languages import LANGUAGES
from nccl_course.i18n.names import printable_text
from nccl_course.issuing import status_registry
from nccl_course.issuing.status_registry import DatabaseIndexRegistry
from nccl_course.store.data_dir import CERTIFICATE_DIR, ISSUERS_DIR
from nccl_course.store.db import Database
from nccl_course.store.models import Attempt, IssuedCredential, Learner
from nccl_course.store.queries import find_attempt, find_learner

log = logging.getLogger("nccl_course.exam")


class MissingIssuerKeys(RuntimeError):
    """A worker process found no issuer key to load."""


@dataclass
class VerificationPlan:
    """What ``nccl_course.certs.verify.verify`` gets for one credential on this server
    (``options``: its keyword arguments), and what this server requires beyond it."""

    options: dict = field(default_factory=dict)
    # Why the credential's status entry is not in its issuer's own status list (None: it is).
    status_problem: str | None = None


class CredentialDesk:
    """``create_keys``: create the issuer's first key if its folder has none (the server's
    parent process, or a single process). Worker processes pass False: they only load keys,
    and a worker that finds none stops with a clear error instead of making a key of its own
    (each worker would sign with a different one)."""

    def __init__(self, settings, db: Database, *, create_keys: bool = True):
        self.settings = settings
        self.db = db
        self._lock = threading.RLock()
        data_dir, did = Path(settings.data_dir), settings.issuer_did
        registry = DatabaseIndexRegistry(db, did)
        if create_keys:
            self.issuer = Issuer.load_or_create(
                data_dir, did, settings.issuer_name, settings.verify_url, registry
            )
        else:
            folder = issuer_folder(data_dir, did)
            try:
                self.issuer = Issuer(
                    folder, did, settings.issuer_name, settings.verify_url, registry
                )
            except LookupError:
                raise MissingIssuerKeys(
                    f"no issuer key in {folder / 'keys'}: worker processes load the keys the "
                    "server's parent process creates before starting them (or create them "
                    "with 'nccl-course cert keygen'); refusing to make a key per worker"
                ) from None
        registry.import_file(self.issuer.folder / REGISTRY_FILE)
        self._issuers: dict[str, Issuer] = {}
        self._issuer_folders: tuple[str, ...] | None = None

    @property
    def local_test(self) -> bool:
        """Whether this server's credentials can be checked only here (no --public-url
        https://PUBLIC.HOST): each says so in its achievement's name and description."""
        return bool(getattr(self.settings, "local_test", False))

    def issue(self, session=None, **fields) -> dict:
        """Issue; the status-list index is taken in ``session`` (the caller's transaction)
        if one is given."""
        if self.local_test:
            fields["achievement"] = local_test_achievement(
                fields.get("achievement") or default_achievement(self.issuer.origin),
                self.issuer.issuer_id,
            )
        with self._lock, status_registry.bound(session):
            return self.issuer.issue(**fields)

    def revoke(self, credential, session=None) -> None:
        with self._lock, status_registry.bound(session):
            self.issuer.revoke(credential)

    def did_document(self) -> dict:
        with self._lock:
            return self.issuer.did_document()

    def status_list_credential(self, list_number: int = 1) -> dict:
        with self._lock:
            return self.issuer.status_list_credential(list_number)

    def status_list_numbers(self) -> list[int]:
        with self._lock:
            return self.issuer.status_lists()

    def known_issuers(self) -> dict[str, Issuer]:
        """Every issuer this server holds keys for, by DID: the current one and each earlier
        one in ``data_dir/certs/`` (read again when a folder appears there). A folder that
        cannot be opened is skipped with a warning."""
        root = Path(self.settings.data_dir) / ISSUERS_DIR
        try:
            names = tuple(sorted(p.name for p in root.iterdir() if (p / "issuer.json").is_file()))
        except OSError:
            names = ()
        with self._lock:
            if names != self._issuer_folders:
                found = {self.issuer.issuer_id: self.issuer}
                for name in names:
                    folder = root / name
                    if folder.resolve() == self.issuer.folder.resolve():
                        continue
                    try:
                        meta = json.loads((folder / "issuer.json").read_text(encoding="utf-8"))
                        other = Issuer(
                            folder, meta["issuer_id"], meta.get("name", ""), meta["verify_url"]
                        )
                        # Its status lists are in the database too (imported on first use).
                        registry = DatabaseIndexRegistry(self.db, other.issuer_id)
                        registry.import_file(folder / REGISTRY_FILE)
                        other.registry = registry
                    except Exception as exc:  # unreadable, no key, keys open to others ...
                        log.warning(
                            "issuer folder %s is not trusted for verification: %s", folder, exc
                        )
                        continue
                    found.setdefault(other.issuer_id, other)
                self._issuers, self._issuer_folders = found, names
            return dict(self._issuers)

    def verification_plan(self, credential: dict) -> VerificationPlan:
        """The trusted issuers (this server's), and for a credential naming one of them its
        DID document and the status lists its status entries point to (no network)."""
        issuers = self.known_issuers()
        plan = VerificationPlan({"trusted_issuers": sorted(issuers)})
        issuer = issuers.get(issuer_id(credential) or "")
        if issuer is None:
            return plan  # verify() says why: the issuer check fails first
        with self._lock:
            plan.options["did_document"] = issuer.did_document()
            lists = {issuer.status_list_url(n): n for n in issuer.status_lists()}
            wanted: list[int] = []
            entries = as_list(credential.get("credentialStatus"))
            if not entries:
                plan.status_problem = Message(
                    N_(
                        "the credential has no status entry; every credential {issuer} issues "
                        "has one in its own status list, so that it can be revoked"
                    ),
                    issuer=issuer.issuer_id,
                )
            for entry in entries:
                url = entry.get("statusListCredential") if isinstance(entry, dict) else None
                if isinstance(url, str) and url in lists:
                    if lists[url] not in wanted:
                        wanted.append(lists[url])
                elif plan.status_problem is None:
                    plan.status_problem = Message(
                        N_(
                            "the status entry points to {url}, which is not a status list of "
                            "{issuer} (its lists: {lists})"
                        ),
                        url=short(url),
                        issuer=issuer.issuer_id,
                        lists=", ".join(lists),
                    )
            if wanted:
                plan.options["status_list"] = [issuer.status_list_credential(n) for n in wanted]
        return plan

    @staticmethod
    def conclude(plan: VerificationPlan, result: dict) -> dict:
        """This server's verdict on ``verify()``'s result (``VerificationResult.as_dict()``):
        VALID only if every check is ok and the status entry is in the issuer's own list.
        What verify() could not check here (a status list elsewhere) is a failure: the
        credential is NOT VALID on this server, with the reason."""
        checks = result.get("checks") or []
        if plan.status_problem and result.get("verdict") != NOT_VALID:
            for check in checks:
                if check["name"] == "status":
                    check.update(
                        status=FAILED,
                        detail=str(plan.status_problem),
                        message=message_of(plan.status_problem),
                    )
        failed = next((c for c in checks if c["status"] == FAILED), None)
        if failed is None and result.get("verdict") == CANNOT_CHECK:
            failed = next((c for c in checks if c["status"] == NOT_CHECKED), None)
            if failed is not None:
                failed["status"] = FAILED
        if failed is not None and result.get("verdict") != NOT_VALID:
            result["verdict"] = NOT_VALID
            detail = Message.from_dict(failed.get("message") or failed["detail"])
            reason = failure_reason(failed["name"], detail)
            result.update(reason=str(reason), reason_message=message_of(reason))
        result["ok"] = result.get("verdict") == VALID and failed is None
        return result

    def render(self, credential: dict, fmt: str, language: str = "en") -> Path:
        """The certificate as .pdf or .png in ``language`` (its attempt's), rendered once per
        credential and language and kept."""
        name = hashlib.sha256(str(credential["id"]).encode()).hexdigest()[:32]
        if language != "en":  # English keeps the file name it always had
            name = f"{name}.{language}"
        folder = Path(self.settings.data_dir) / CERTIFICATE_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.{fmt}"
        if not path.exists():
            partial = folder / f"{name}.partial.{fmt}"
            written = render_certificate(
                credential,
                partial,
                self.settings.verify_url,
                language=language,
                locale_dir=getattr(self.settings, "locale_dir", None),
            )
            Path(written).replace(path)
        return path


class IssuedCredentials:
    """The credentials this server issued, one per passed attempt."""

    def __init__(self, db: Database, desk: CredentialDesk, achievement: dict | None = None):
        self.db = db
        self.desk = desk
        self.achievement = achievement or None
        self._issue_lock = threading.Lock()

    def ensure(self, attempt_id: str) -> IssuedCredential | None:
        """Issue (once) the credential of a passed attempt; None if it did not pass."""
        with self.db.read() as session:
            attempt = session.scalar(select(Attempt).where(Attempt.public_id == attempt_id))
            if attempt is None or not attempt.passed:
                return None
            existing = session.scalar(
                select(IssuedCredential).where(IssuedCredential.attempt_id == attempt.id)
            )
            if existing is not None:
                return existing
            learner = session.get(Learner, attempt.learner_id)
        # One issuance at a time in this process: the issuer allocates status-list indices.
        with self._issue_lock:
            with self.db.write() as session:
                locked = session.scalar(
                    select(Attempt).where(Attempt.id == attempt.id).with_for_update()
                )
                existing = session.scalar(
                    select(IssuedCredential).where(IssuedCredential.attempt_id == locked.id)
                )
                if existing is not None:
                    return existing
                document = self.desk.issue(
                    session,
                    learner_name=learner.name,
                    learner_email=learner.email,
                    exam_id=attempt.exam_id,
                    score=attempt.score,
                    passed_at=as_utc(attempt.closed_at),
                    achievement=self.achievement,
                )
                credential = IssuedCredential(
                    credential_id=str(document["id"]),
                    attempt_id=attempt.id,
                    learner_id=learner.id,
                    document=json_roundtrip(document),
                    issued_at=utcnow(),
                )
                session.add(credential)
        log.info("credential %s issued for attempt %s", credential.credential_id, attempt_id)
        return credential

    def for_attempt(self, token: str | None, attempt_id: str) -> IssuedCredential:
        """The credential of the learner's passed attempt (issued now if it was not yet)."""
        with self.db.read() as session:
            learner = find_learner(session, token)
            attempt = find_attempt(session, learner, attempt_id)
            if attempt.status == "open":
                raise Conflict("attempt_open", N_("submit the attempt first"))
            if not attempt.passed:
                raise NotFound("not_passed", N_("this attempt did not pass: no credential"))
        return self.ensure(attempt_id)

    def attempt_language(self, attempt_id: str) -> str:
        """The language an attempt was taken in (its certificate is printed in it)."""
        with self.db.read() as session:
            language = session.scalar(
                select(Attempt.language).where(Attempt.public_id == attempt_id)
            )
        return language if language in LANGUAGES else "en"

    def stored(self, credential_id: str) -> dict:
        """The document of a credential this server issued."""
        with self.db.read() as session:
            credential = session.scalar(
                select(IssuedCredential).where(IssuedCredential.credential_id == credential_id)
            )
        if credential is None:
            raise NotFound("no_credential", N_("this server has not issued that credential"))
        return credential.document

    def shareable(self, credential_id: str) -> dict:
        """The document of a credential this server issued and has not revoked."""
        with self.db.read() as session:
            credential = session.scalar(
                select(IssuedCredential).where(IssuedCredential.credential_id == credential_id)
            )
        if credential is None:
            raise NotFound("no_credential", N_("this server has not issued that credential"))
        if credential.revoked_at is not None:
            raise NotFound(
                "revoked", N_("this credential has been revoked: there is nothing to share")
            )
        return credential.document

    def revoke(self, credential_id: str, reason: str = "") -> IssuedCredential:
        """Revoke in the issuer's status list and record it; revoking again changes nothing."""
        with self.db.write() as session:
            credential = session.scalar(
                select(IssuedCredential)
                .where(IssuedCredential.credential_id == credential_id)
                .with_for_update()
            )
            if credential is None:
                raise NotFound("no_credential", f"no credential {credential_id}")
            if credential.revoked_at is None:
                self.desk.revoke(credential.document, session)
                credential.revoked_at = utcnow()
                credential.revocation_reason = reason[:500] or None
        return credential


def local_test_achievement(achievement: dict, issuer_did: str) -> dict:
    """A copy of ``achievement`` whose name ends with ``LOCAL_TEST_MARK`` and whose
    description starts by saying why (Open Badges 3.0 Achievement name and description, which
    the credential's own name copies, and which verify pages and the certificate show)."""
    marked = copy.deepcopy(achievement)
    name = str(marked.get("name", "")).strip()
    if LOCAL_TEST_MARK not in name:
        marked["name"] = f"{name} {LOCAL_TEST_MARK}".strip()
    description = str(marked.get("description", "")).strip()
    if not description.startswith("Local test credential"):
        marked["description"] = (
            f"Local test credential: issued by a development server as {issuer_did}, which no "
            "one else can resolve, so it cannot be verified elsewhere. " + description
        ).strip()
    return marked


def _text(value, limit: int = 200) -> str | None:
    """A value of an untrusted document as short text fit to print (``i18n.names``: no
    invisible direction or format characters), or None if it is not a scalar or prints
    nothing."""
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        return None
    text = printable_text(str(value))
    if not text:
        return None
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def credential_summary(credential: dict) -> dict:
    """What the credential *says* (learner, achievement, issuer, score), read from the
    document itself: claims, true only if the credential verifies. Any shape is accepted."""
    if not isinstance(credential, dict):
        return {}
    subject = credential.get("credentialSubject")
    subject = subject if isinstance(subject, dict) else {}
    name = None
    for ident in as_list(subject.get("identifier")):
        if isinstance(ident, dict) and ident.get("identityType") == "name":
            name = _text(ident.get("identityHash"))
    achievement = subject.get("achievement")
    achievement = achievement if isinstance(achievement, dict) else {}
    results = [r for r in as_list(subject.get("result")) if isinstance(r, dict)]
    issuer = credential.get("issuer")
    return {
        "learner": name,
        "achievement": _text(achievement.get("name")),
        "issuer": _text(issuer.get("name") if isinstance(issuer, dict) else issuer),
        "valid_from": _text(credential.get("validFrom")),
        "score_percent": _text(results[0].get("value")) if results else None,
    }
