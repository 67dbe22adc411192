"""The exam service: one object holding the parts the HTTP routes call.

- ``learners`` (``nccl_course.server.learners``): registration and learner keys;
- ``confirmations`` (``nccl_course.server.confirmations``; None when e-mail confirmation is
  off): registration with a mailed link, confirming it, sending it again;
- ``attempts`` (``nccl_course.server.attempts``): start, view, deadline, submit and grading;
- ``answers`` (``nccl_course.store.answers``): checking and saving answers (the HTTP route
  batches them through ``nccl_course.store.batching.GroupCommitWriter``);
- ``credentials`` (``nccl_course.issuing.credentials``): the credential of each passed attempt,
  its download, verification by id and revocation; ``desk`` is the issuer behind them.

The rules they apply are the exam's (``nccl_course.exam``: no web, no SQL), their queries and
tables the store's (``nccl_course.store``); none of them knows about HTTP
(``nccl_course.server.routes`` does).
"""

from __future__ import annotations

from nccl_course.exam.banks import QuizEngine
from nccl_course.exam.blueprint import Blueprint
from nccl_course.issuing.credentials import CredentialDesk, IssuedCredentials
from nccl_course.server.attempts import Attempts
from nccl_course.server.confirmations import Confirmations
from nccl_course.server.learners import Learners
from nccl_course.server.mailer import Mailer
from nccl_course.store.answers import AnswerStore
from nccl_course.store.db import Database


class ExamService:
    def __init__(
        self,
        db: Database,
        blueprint: Blueprint,
        engine: QuizEngine,
        desk: CredentialDesk,
        *,
        mailer: Mailer | None = None,
    ):
        """``mailer``: e-mail confirmation is on (registration mails a link, and a new
        attempt needs a confirmed address); None: off."""
        self.db = db
        self.blueprint = blueprint
        self.engine = engine
        self.desk = desk
        self.learners = Learners(db)
        self.confirmations = Confirmations(db, mailer) if mailer is not None else None
        self.credentials = IssuedCredentials(db, desk, blueprint.achievement)
        self.attempts = Attempts(
            db, blueprint, engine, self.credentials, require_confirmed=mailer is not None
        )
        self.answers = AnswerStore(db)
        # What the server reports at start and on /exam/api/exam: banks it skipped, zones it
        # dropped or shrank.
        self.problems = [*engine.problems, *blueprint.problems]
