"""The exam service: one object holding the parts the HTTP routes call.

- ``learners`` (``nccl_course.exam.learners``): registration and learner keys;
- ``attempts`` (``nccl_course.exam.attempts``): start, view, deadline, submit and grading;
- ``answers`` (``nccl_course.exam.answers``): checking and saving answers (the HTTP route
  batches them through ``nccl_course.exam.batching.GroupCommitWriter``);
- ``credentials`` (``nccl_course.exam.credentials``): the credential of each passed attempt,
  its download, verification by id and revocation; ``desk`` is the issuer behind them.

Imports go one way: ``errors`` <- ``learners`` <- ``credentials`` <- ``attempts`` <- ``answers``
<- ``service``; none of them knows about HTTP (``nccl_course.exam.routes`` does).
"""

from __future__ import annotations

from nccl_course.exam.answers import AnswerStore
from nccl_course.exam.attempts import Attempts
from nccl_course.exam.banks import QuizEngine
from nccl_course.exam.blueprint import Blueprint
from nccl_course.exam.credentials import CredentialDesk, IssuedCredentials
from nccl_course.exam.db import Database
from nccl_course.exam.learners import Learners


class ExamService:
    def __init__(
        self, db: Database, blueprint: Blueprint, engine: QuizEngine, desk: CredentialDesk
    ):
        self.db = db
        self.blueprint = blueprint
        self.engine = engine
        self.desk = desk
        self.learners = Learners(db)
        self.credentials = IssuedCredentials(db, desk, blueprint.achievement)
        self.attempts = Attempts(db, blueprint, engine, self.credentials)
        self.answers = AnswerStore(db)
        # What the server reports at start and on /exam/api/exam: banks it skipped, zones it
        # dropped or shrank.
        self.problems = [*engine.problems, *blueprint.problems]
