"""Registration without e-mail confirmation, and the learner keys already seen valid.

A learner registers with a name and an email (checked by ``nccl_course.exam.learners``) and
gets a learner key, shown once; the server keeps only its SHA-256. With e-mail confirmation on,
registration goes through ``nccl_course.server.confirmations`` instead.
"""

from __future__ import annotations

import secrets

from sqlalchemy.exc import IntegrityError

from nccl_course.exam.clock import utcnow
from nccl_course.exam.errors import Conflict
from nccl_course.exam.learners import checked_identity, token_hash
from nccl_course.i18n.interface import N_
from nccl_course.store.db import Database
from nccl_course.store.models import Learner
from nccl_course.store.queries import find_learner


class Learners:
    def __init__(self, db: Database):
        self.db = db
        # Hashes of keys known to be valid, so routes can check the key before reading a body
        # without a query each time. Learners are never deleted; a key is replaced only when
        # its learner signs in again through a mailed link, and then the service's own look-up
        # (find_learner, after the body is read) refuses the old one.
        self._known_hashes: set[str] = set()

    def is_known(self, token: str) -> bool:
        """Whether a learner key was already seen valid (no database access)."""
        return token_hash(token) in self._known_hashes

    def authenticate(self, token: str | None) -> None:
        """Unauthenticated unless ``token`` is a learner's key (one query, then remembered)."""
        if token and self.is_known(token):
            return
        with self.db.read() as session:
            find_learner(session, token)
        if len(self._known_hashes) > 100_000:
            self._known_hashes.clear()
        self._known_hashes.add(token_hash(token))

    def register(self, name: str, email: str) -> tuple[Learner, str]:
        """A new learner and their key (the only time the key exists outside the browser);
        registration without e-mail confirmation (``nccl_course.server.confirmations``
        otherwise)."""
        name, email = checked_identity(name, email)
        token = secrets.token_urlsafe(32)
        learner = Learner(
            public_id=secrets.token_hex(8),
            name=name,
            email=email,
            token_hash=token_hash(token),
            created_at=utcnow(),
        )
        try:
            with self.db.write() as session:
                session.add(learner)
        except IntegrityError:
            raise Conflict(
                "already_registered",
                N_("this email is already registered: sign in with the learner key you were given"),
            ) from None
        return learner, token
