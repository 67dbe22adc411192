"""A simulated class whose items behave as planted, stored as real graded attempts.

Learners have an ability ``theta ~ N(0, 1)``; item ``i`` is answered right with the two-parameter
logistic (2PL) probability ``P_i(theta) = 1 / (1 + exp(-a_i (theta - b_i)))`` (``a``: how sharply
it separates abilities, ``b``: the ability at which half get it). Each attempt draws, like the
exam's blueprint, ``DRAW`` questions of each chapter's bank and numbers the positions zone by
zone. The rows are written with the store's own code (``insert_questions``, ``store_grades``)
into a migrated SQLite database, so the statistics read exactly what the server would store.

Planted: one bad item (``a < 0``: the abler a learner, the likelier a wrong answer, as with a
wrong key) and one too-easy item (``b`` far below every ability). Every other item has
``a`` in [1.4, 2.4] and ``b`` spread evenly over [-1.6, 1.6].
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

CHAPTERS = ("alpha", "beta", "gamma")
PER_CHAPTER = 8
DRAW = 4
EXAM_ID = "simulated-exam"
DIGEST = "0" * 64
BAD = "gamma/q5"
EASY = "alpha/q2"


@dataclass(frozen=True)
class PlantedItem:
    uid: str
    chapter: str
    objective: str
    a: float
    b: float

    def probability(self, theta):
        return 1.0 / (1.0 + np.exp(-self.a * (theta - self.b)))

    def expected_score(self) -> float:
        """The planted difficulty: E[P(theta)] over theta ~ N(0, 1), by Gauss-Hermite
        quadrature (80 nodes: exact to rounding for this smooth integrand)."""
        nodes, weights = np.polynomial.hermite_e.hermegauss(80)
        return float(np.sum(weights * self.probability(nodes)) / np.sqrt(2 * np.pi))


def planted_items(seed: int) -> list[PlantedItem]:
    rng = random.Random(seed)
    uids = [f"{c}/q{i}" for c in CHAPTERS for i in range(PER_CHAPTER)]
    good = [u for u in uids if u not in (BAD, EASY)]
    bs = [-1.6 + 3.2 * k / (len(good) - 1) for k in range(len(good))]
    rng.shuffle(bs)
    planted = dict(zip(good, ((rng.uniform(1.4, 2.4), b) for b in bs), strict=True))
    planted[BAD] = (-1.2, 0.0)
    planted[EASY] = (1.2, -6.0)
    return [
        PlantedItem(
            uid=u,
            chapter=u.split("/")[0],
            objective=f"{u.split('/')[0]}/objective-{int(u.split('q')[1]) % 2}",
            a=planted[u][0],
            b=planted[u][1],
        )
        for u in uids
    ]


def write_class(
    database_url: str, learners: int = 800, seed: int = 20261206, exam_id: str = EXAM_ID
) -> list[PlantedItem]:
    """Migrate the database, store one graded attempt of ``exam_id`` per simulated learner,
    return the items."""
    from sqlalchemy import select

    from nccl_course.store.db import Database
    from nccl_course.store.models import Attempt, AttemptQuestion, Learner
    from nccl_course.store.queries import driver_cursor, insert_questions, store_grades

    items = planted_items(seed)
    by_chapter = {c: [i for i in items if i.chapter == c] for c in CHAPTERS}
    rng = random.Random(seed + 1)
    now = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    db = Database(database_url)
    try:
        db.upgrade()
        with db.write() as session:
            scores_by_attempt = {}
            for n in range(learners):
                theta = rng.gauss(0.0, 1.0)
                learner = Learner(
                    public_id=f"sim-learner-{n}",
                    name=f"Learner {n}",
                    email=f"learner{n}@example.org",
                    token_hash=f"{n:064x}",
                    created_at=now,
                )
                session.add(learner)
                session.flush()
                drawn = []
                for chapter in CHAPTERS:
                    picked = rng.sample(by_chapter[chapter], DRAW)
                    rng.shuffle(picked)
                    drawn += picked
                scores = [
                    1.0 if rng.random() < float(item.probability(theta)) else 0.0 for item in drawn
                ]
                points = sum(scores)
                attempt = Attempt(
                    public_id=f"sim-attempt-{n}",
                    learner_id=learner.id,
                    exam_id=exam_id,
                    number=1,
                    seed=n,
                    blueprint_digest=DIGEST,
                    status="submitted",
                    started_at=now,
                    deadline_at=now + timedelta(hours=1),
                    closed_at=now + timedelta(minutes=40),
                    points=points,
                    max_points=float(len(drawn)),
                    score=points / len(drawn),
                    passed=points / len(drawn) >= 0.7,
                    language="en",
                )
                session.add(attempt)
                session.flush()
                rows = [
                    {
                        "position": position,
                        "chapter": item.chapter,
                        "question_id": item.uid.split("/")[1],
                        "instance_seed": position,
                        "public": json.dumps(
                            {"uid": item.uid, "objective": item.objective, "skill": None}
                        ),
                        "key": json.dumps({"type": "single", "answer": 0}),
                    }
                    for position, item in enumerate(drawn)
                ]
                cursor, dialect = driver_cursor(session)
                insert_questions(cursor, dialect, attempt.id, rows)
                cursor.close()
                scores_by_attempt[attempt.id] = scores
            ids = session.execute(
                select(AttemptQuestion.id, AttemptQuestion.attempt_id, AttemptQuestion.position)
            ).all()
            store_grades(
                session,
                [
                    {
                        "id": qid,
                        "score": scores_by_attempt[attempt_id][position],
                        "correct": scores_by_attempt[attempt_id][position] == 1.0,
                        "feedback": "",
                    }
                    for qid, attempt_id, position in ids
                ],
            )
    finally:
        db.dispose()
    return items


def class_database(folder: Path, **kwargs) -> tuple[Path, list[PlantedItem]]:
    """A data folder whose ``course.db`` holds the simulated class (as the server names it)."""
    from nccl_course.store.data_dir import DATABASE_FILE
    from nccl_course.store.db import sqlite_url

    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / DATABASE_FILE
    return folder, write_class(sqlite_url(path), **kwargs)
