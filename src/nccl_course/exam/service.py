"""The exam service: one object holding the parts the HTTP routes call.

- ``learners`` (``nccl_course.exam.learners``): registration and learner keys;
- ``confirmations`` (``nccl_course.exam.confirmations``; None when e-mail confirmation is
  off): registration with a mailed link, confirming it, sending it again;
- ``attempts`` (``nccl_course.exam.attempts``): start, view, deadline, submit and grading;
- ``answers`` (``nccl_course.exam.answers``): checking and saving answers (the HTTP route
  batches them through ``nccl_course.exam.batching.GroupCommitWriter``);
- ``credentials`` (``nccl_course.exam.credentials``): the credential of each passed attempt,
  its download, verification by id and revocation; ``desk`` is the issuer behind them.

Imports go one way: ``errors`` <- ``learners`` <- ``confirmations``, ``credentials`` <-
``attempts`` <- ``answers`` <- ``service``; none of them knows about HTTP (``nccl_course.exam.routes`` does).
"""

from __future__ import annotations

from nccl_course.exam.answers import AnswerStore
from nccl_course.exam.attempts import Attempts
from nccl_course.exam.banks import QuizEngine
from nccl_course.exam.blueprint import Blueprint
from nccl_course.exam.confirmations import Confirmations
from nccl_course.exam.credentials import CredentialDesk, IssuedCredentials
from nccl_course.exam.db import Database
from nccl_course.exam.learners import Learners
from nccl_course.exam.mailer import Mailer


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
