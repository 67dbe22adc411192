"""``nccl-course exam stats``: item statistics of the graded attempts in the server's database.

Reads the database directly (the server may be running: it is only read), computes the
statistics (``nccl_course.exam.item_stats``) and prints a table, ``--json`` (everything) or
``--csv`` (one row per item). Exit 0 with statistics, 1 when the database is missing, is no
course server database, or holds no graded attempt (with what to do), 2 on a bad option.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

from nccl_course.exam.item_stats import DEFAULT_MIN_RESPONSES
from nccl_course.store.data_dir import DATA_DIR_ENV, default_data_dir

DESCRIPTION = (
    "Classical test theory statistics of every question of the exam, from the graded "
    "(submitted or expired) attempts in the course server's database: difficulty (the mean "
    "score, 0-1), discrimination (the correlation of the question's score with the rest of "
    "the attempt), the number of attempts that drew it, and flags (negative or low "
    "discrimination, too easy, too hard, too few responses to say); the same per chapter and "
    "per learning objective; and the exam's reliability (KR-20 / Cronbach's alpha over the "
    "positions of the drawn attempts, with the standard error of measurement in points). "
    "Only reads the database, also while the server runs. The server shows the same at "
    "/exam/admin/stats (admin token)."
)


class StatsError(Exception):
    """What keeps the statistics from being computed, said so a person can act on it."""


def register(sub) -> None:
    parser = sub.add_parser(
        "stats",
        help="item statistics (difficulty, discrimination, flags, reliability)",
        description=DESCRIPTION,
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument(
        "--json", action="store_true", help="print everything as JSON instead of tables"
    )
    output.add_argument(
        "--csv", action="store_true", help="print one CSV row per question instead of tables"
    )
    parser.add_argument(
        "--min-responses",
        type=int,
        default=DEFAULT_MIN_RESPONSES,
        metavar="N",
        help="questions drawn by fewer attempts are shown but not judged (default: %(default)s)",
    )
    parser.add_argument(
        "--exam-id",
        default=None,
        help="the exam to report when the database holds several (default: the one with "
        "the most graded attempts)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=default_data_dir(),
        help=f"the server's data folder, whose course.db is read (default: ${DATA_DIR_ENV}, "
        "else ./.data)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        help="the server's database if not SQLite in the data folder, e.g. "
        "postgresql://user@host/db (default: $DATABASE_URL, as for serve)",
    )
    parser.set_defaults(func=run)


def database_url(args) -> str:
    import os

    from nccl_course.store.data_dir import DATABASE_FILE
    from nccl_course.store.db import sqlite_url

    url = args.database_url or os.environ.get("DATABASE_URL") or None
    if url:
        return url
    path = Path(args.data_dir) / DATABASE_FILE
    if not path.is_file():
        raise StatsError(
            f"no database at {path}: name the server's data folder with --data-dir (or "
            f"${DATA_DIR_ENV}), or its database with --database-url"
        )
    return sqlite_url(path)


def load(url: str, exam_id: str | None, min_responses: int):
    """(exam id, ExamStats, other exams [(id, attempts)]) from the database at ``url``."""
    from sqlalchemy.exc import SQLAlchemyError

    from nccl_course.exam.item_stats import compute
    from nccl_course.store.db import Database, table_names
    from nccl_course.store.item_responses import graded_exams, graded_responses

    db = Database(url)
    try:
        if "attempts" not in table_names(db.engine):
            raise StatsError(
                f"{db.url.split('://')[0]} database {db.path or ''} has no attempts table: it "
                "is not a course server database (start 'nccl-course serve' on it once, or "
                "name the right one with --data-dir or --database-url)"
            )
        with db.read() as session:
            exams = graded_exams(session)
            if not exams:
                raise StatsError(
                    "no graded attempts yet: the statistics read submitted or expired "
                    "attempts, and this database has none. Run it again once learners have "
                    "submitted."
                )
            chosen = exam_id or exams[0][0]
            if chosen not in dict(exams):
                known = ", ".join(f"{e} ({n} attempts)" for e, n in exams)
                raise StatsError(f"no graded attempts of exam {chosen!r}; the database has {known}")
            responses = graded_responses(session, chosen)
    except SQLAlchemyError as exc:
        raise StatsError(f"cannot read the database: {exc}") from None
    finally:
        db.dispose()
    others = [(e, n) for e, n in exams if e != chosen]
    return chosen, compute(responses, min_responses), others


def number(value, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines)


def text_report(exam_id: str, stats) -> str:
    from nccl_course.exam.item_stats import FLAG_MEANINGS

    out = [
        f"exam {exam_id}: {stats.attempts} graded attempts, {stats.responses} graded questions, "
        f"{len(stats.items)} distinct questions",
        "difficulty: mean score (0-1, higher is easier); discrimination: correlation of the "
        "question's score with the rest of the attempt",
        "",
        table(
            ["question", "n", "difficulty", "discrimination", "flags"],
            [
                [
                    i.uid,
                    str(i.responses),
                    number(i.difficulty),
                    number(i.discrimination),
                    ", ".join(i.flags),
                ]
                for i in stats.items
            ],
        ),
    ]
    for title, groups in (("chapter", stats.chapters), ("objective", stats.objectives)):
        rows = [
            [
                g.key,
                str(g.items),
                str(g.responses),
                number(g.difficulty),
                number(g.mean_discrimination),
                str(g.flagged),
            ]
            for g in groups
        ]
        out += [
            "",
            table([title, "questions", "n", "difficulty", "discrimination", "flagged"], rows),
        ]
    rel = stats.reliability
    out.append("")
    if rel is None:
        out.append("reliability: no attempt with a complete set of positions")
    else:
        out.append(
            f"reliability ({rel.method} over the {rel.positions} positions of "
            f"{rel.attempts} attempts of one blueprint): {number(rel.alpha)}; total "
            f"{rel.total_mean:.2f} +- {rel.total_sd:.2f} points, standard error of "
            f"measurement {number(rel.sem)} points" + (f" ({rel.note})" if rel.note else "")
        )
    used = sorted({f for i in stats.items for f in i.flags})
    if used:
        out += ["", "flags:"]
        out += [f"  {f}: {FLAG_MEANINGS[f]}" for f in used]
        out.append(f"  (judged from {stats.min_responses} responses up: --min-responses)")
    return "\n".join(out)


CSV_FIELDS = (
    "uid",
    "chapter",
    "objective",
    "skill",
    "responses",
    "difficulty",
    "score_sd",
    "discrimination",
    "flags",
)


def write_csv(stats, stream) -> None:
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for item in stats.items:
        row = {name: getattr(item, name) for name in CSV_FIELDS}
        row["flags"] = ";".join(item.flags)
        writer.writerow(["" if row[f] is None else row[f] for f in CSV_FIELDS])


def run(args) -> int:
    min_responses = args.min_responses
    if min_responses < 1:
        print("error: --min-responses must be at least 1", file=sys.stderr)
        return 2
    try:
        exam_id, stats, others = load(database_url(args), args.exam_id, min_responses)
    except StatsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if others:
        listed = ", ".join(f"{e} ({n} attempts)" for e, n in others)
        print(f"note: also in the database: {listed}; choose with --exam-id", file=sys.stderr)
    if args.json:
        print(json.dumps({"exam_id": exam_id, **stats.to_dict()}, indent=2))
    elif args.csv:
        write_csv(stats, sys.stdout)
    else:
        print(text_report(exam_id, stats))
    return 0
