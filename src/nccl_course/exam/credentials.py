"""Credentials on the server: the issuer's files, and the credentials issued for attempts.

- ``CredentialDesk``: one issuer (keys and status list in the data folder), verification
  against it, and rendered certificates cached on disk. All the cryptography and the credential
  format live in ``nccl_course.certs``; the desk only decides where files go and serialises
  access (the issuer allocates status-list indices and rewrites its status list, so one thread
  at a time).
- ``IssuedCredentials``: the database side. A passed attempt gets exactly one credential,
  issued when it is submitted (or, if that failed, on the next download); the learner downloads
  it with their key, anyone can have a credential this server issued verified by its id, and
  the admin revokes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from pathlib import Path

from sqlalchemy import select

from nccl_course.certs import Issuer, render_certificate, verify
from nccl_course.certs.credential import CredentialFormatError
from nccl_course.exam.blueprint import json_roundtrip
from nccl_course.exam.db import Database
from nccl_course.exam.errors import Conflict, Invalid, NotFound
from nccl_course.exam.learners import find_attempt, find_learner
from nccl_course.exam.models import Attempt, IssuedCredential, Learner, as_utc, utcnow

log = logging.getLogger("nccl_course.exam")
CERTIFICATE_DIR = "certificates"


class CredentialDesk:
    def __init__(self, settings):
        self.settings = settings
        self._lock = threading.RLock()
        self.issuer = Issuer.load_or_create(
            Path(settings.data_dir),
            settings.issuer_did,
            settings.issuer_name,
            settings.verify_url,
        )

    def issue(self, **fields) -> dict:
        with self._lock:
            return self.issuer.issue(**fields)

    def revoke(self, credential) -> None:
        with self._lock:
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

    def status_list_for_credential(self, credential: dict) -> dict | None:
        """This issuer's status list that the credential points at, or None if it points
        elsewhere (verification then reports the status check as failed)."""
        status = credential.get("credentialStatus") if isinstance(credential, dict) else None
        entries = status if isinstance(status, list) else [status]
        for entry in entries:
            url = entry.get("statusListCredential") if isinstance(entry, dict) else None
            for number in self.status_list_numbers():
                if url == self.issuer.status_list_url(number):
                    return self.status_list_credential(number)
        return None

    def verify(self, credential: dict) -> dict:
        """Verify against this issuer (the one trusted issuer), its DID document and current
        status list (no network). A document the verifier will not examine (too large, too
        deep, wrong types) is refused as Invalid."""
        try:
            result = verify(
                credential,
                trusted_issuers=(self.issuer.issuer_id,),
                did_document=self.did_document(),
                status_list=self.status_list_for_credential(credential),
            )
        except CredentialFormatError as exc:
            raise Invalid("malformed_credential", str(exc)) from None
        return json.loads(json.dumps(result.as_dict(), default=str))

    def render(self, credential: dict, fmt: str) -> Path:
        """The certificate as .pdf or .png, rendered once per credential and kept."""
        name = hashlib.sha256(str(credential["id"]).encode()).hexdigest()[:32]
        folder = Path(self.settings.data_dir) / CERTIFICATE_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.{fmt}"
        if not path.exists():
            partial = folder / f"{name}.partial.{fmt}"
            written = render_certificate(credential, partial, self.settings.verify_url)
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
                raise Conflict("attempt_open", "submit the attempt first")
            if not attempt.passed:
                raise NotFound("not_passed", "this attempt did not pass: no credential")
        return self.ensure(attempt_id)

    def stored(self, credential_id: str) -> dict:
        """The document of a credential this server issued."""
        with self.db.read() as session:
            credential = session.scalar(
                select(IssuedCredential).where(IssuedCredential.credential_id == credential_id)
            )
        if credential is None:
            raise NotFound("no_credential", "this server has not issued that credential")
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
                self.desk.revoke(credential.document)
                credential.revoked_at = utcnow()
                credential.revocation_reason = reason[:500] or None
        return credential


def credential_summary(credential: dict) -> dict:
    """What a person checking a credential wants to read, taken from the document itself."""
    subject = credential.get("credentialSubject") if isinstance(credential, dict) else None
    subject = subject if isinstance(subject, dict) else {}
    name = None
    for ident in subject.get("identifier") or []:
        if isinstance(ident, dict) and ident.get("identityType") == "name":
            name = ident.get("identityHash")
    achievement = subject.get("achievement") if isinstance(subject.get("achievement"), dict) else {}
    results = subject.get("result") or [{}]
    issuer = credential.get("issuer")
    return {
        "learner": name,
        "achievement": achievement.get("name"),
        "issuer": issuer.get("name") if isinstance(issuer, dict) else issuer,
        "valid_from": credential.get("validFrom"),
        "score_percent": results[0].get("value") if isinstance(results[0], dict) else None,
    }
