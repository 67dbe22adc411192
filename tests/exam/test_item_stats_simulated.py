"""Item statistics recover what was planted in a simulated class (``tests/support/simulated_class``:
800 learners, 24 items of a 2PL model, 12 drawn per attempt, stored as graded attempts in a real
SQLite database by the store's own code), through the store's query, ``nccl-course exam stats``
and the admin API.

Why a rank correlation above 0.9 for difficulty: each item is drawn by about 400 attempts, so
its observed mean score has a standard error of at most sqrt(0.25 / 400) = 0.025, close to the
mean gap of 0.035 between neighbouring planted difficulties. Neighbours may therefore swap, but
even if every item sat one rank off, Spearman's rho would be 1 - 6 * 24 / (24 * 575) = 0.99, and
a third of the items two or three ranks off still leaves about 0.97. A wrong difficulty (the
wrong sign, scores mixed up between items) gives a rho near 0 or -1; 0.9 separates the two with
room for noise (over seeds 1 to 30 the rho ranged from 0.987 to 0.999).

Why exactly the planted items are flagged: the good items' slopes (a >= 1.4) give item-rest
correlations around 0.3 to 0.5, and at 400 responses a correlation's standard error is about
0.045, so a good item falls under the 0.20 threshold rarely (no seed of 1 to 30 did), while the
bad item's slope of -1.2 gives about -0.4 and the easy one scores 1 in nearly every attempt.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3

import numpy as np
import pytest
from sqlalchemy import event

from nccl_course import cli
from nccl_course.exam import item_stats
from nccl_course.quiz.keys import correct_response
from nccl_course.store.db import Database, sqlite_url
from nccl_course.store.item_responses import graded_exams, graded_responses
from tests.exam import test_js_api_fields
from tests.exam.conftest import keys_of
from tests.exam.test_postgres import pg_server_url, pg_url  # noqa: F401 - fixtures
from tests.support.simulated_class import BAD, EASY, EXAM_ID, class_database, write_class

RHO_MIN = 0.9


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    folder, items = class_database(tmp_path_factory.mktemp("class") / "data")
    return folder, {i.uid: i for i in items}


def ranks(values) -> np.ndarray:
    """Ranks 0..n-1 (the values here have no ties)."""
    return np.argsort(np.argsort(np.asarray(values)))


def spearman(xs, ys) -> float:
    return float(np.corrcoef(ranks(xs), ranks(ys))[0, 1])


def read_responses(folder):
    db = Database(sqlite_url(folder / "course.db"))
    statements = []
    event.listen(db.engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    try:
        with db.read() as session:
            exams = graded_exams(session)
            statements.clear()
            responses = graded_responses(session, EXAM_ID)
    finally:
        db.dispose()
    return exams, responses, statements


def test_the_store_reads_every_graded_question_in_one_query(simulated):
    folder, planted = simulated
    exams, responses, statements = read_responses(folder)
    assert exams == [(EXAM_ID, 800)]
    assert len(statements) == 1
    assert len(responses) == 800 * 12
    assert {r.uid for r in responses} == set(planted)
    assert {r.objective for r in responses} == {i.objective for i in planted.values()}


def test_statistics_recover_the_planted_items(simulated):
    folder, planted = simulated
    _, responses, _ = read_responses(folder)
    stats = item_stats.compute(responses)
    items = {i.uid: i for i in stats.items}
    uids = sorted(planted)
    expected = [planted[u].expected_score() for u in uids]
    observed = [items[u].difficulty for u in uids]
    rho = spearman(expected, observed)
    good = [u for u in uids if u not in (BAD, EASY)]
    rho_a = spearman([planted[u].a for u in good], [items[u].discrimination for u in good])
    print(f"\nspearman(planted expected score, observed difficulty) = {rho:.3f}")
    print(f"spearman(planted a, observed discrimination), good items = {rho_a:.3f}")
    for u in sorted(uids, key=lambda u: items[u].difficulty):
        i, p = items[u], planted[u]
        print(
            f"{u:9} a={p.a:5.2f} b={p.b:5.2f} planted={p.expected_score():.3f} "
            f"n={i.responses} p={i.difficulty:.3f} r={i.discrimination} {','.join(i.flags)}"
        )
    print(stats.reliability)
    assert rho > RHO_MIN
    # Exactly the planted items are flagged, each for what was planted.
    assert stats.flagged(item_stats.NEGATIVE) == [BAD]
    assert stats.flagged(item_stats.EASY) == [EASY]
    assert sorted(u for u, i in items.items() if i.flags) == sorted([BAD, EASY])
    assert items[BAD].discrimination < -0.2
    assert min(items[u].discrimination for u in good) >= item_stats.LOW_DISCRIMINATION
    assert all(i.responses >= stats.min_responses for i in stats.items)
    rel = stats.reliability
    assert (rel.method, rel.attempts, rel.positions) == ("KR-20", 800, 12)
    # Alpha from the covariance matrix of the stored positions, computed apart.
    table = np.zeros((800, 12))
    row_of = {a: k for k, a in enumerate(sorted({r.attempt for r in responses}))}
    for r in responses:
        table[row_of[r.attempt], r.position] = r.score
    cov = np.cov(table, rowvar=False)
    assert rel.alpha == pytest.approx(12 / 11 * (1 - np.trace(cov) / cov.sum()), abs=1e-12)
    assert 0.4 < rel.alpha < 0.9


@pytest.fixture(autouse=True)
def no_database_url(monkeypatch):
    """``DATABASE_URL`` (set to run the PostgreSQL tests on a server) would take the place of
    ``--data-dir``, as it does for ``serve``."""
    monkeypatch.delenv("DATABASE_URL", raising=False)


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(["exam", "stats", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_prints_json_csv_and_tables(simulated, capsys):
    folder, _ = simulated
    code, out, _ = run_cli(capsys, "--data-dir", folder, "--json")
    assert code == 0
    report = json.loads(out)
    _, responses, _ = read_responses(folder)
    assert report == {"exam_id": EXAM_ID, **item_stats.compute(responses).to_dict()}
    code, out, _ = run_cli(capsys, "--database-url", sqlite_url(folder / "course.db"), "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 24
    flagged = {r["uid"]: r["flags"].split(";") for r in rows if r["flags"]}
    assert sorted(flagged) == sorted([BAD, EASY])
    assert flagged[BAD] == [item_stats.NEGATIVE]
    assert flagged[EASY][-1] == item_stats.EASY  # and near-zero discrimination: few misses
    code, out, _ = run_cli(capsys, "--data-dir", folder)
    assert code == 0
    assert f"exam {EXAM_ID}: 800 graded attempts" in out
    assert "reliability (KR-20 over the 12 positions of 800 attempts" in out
    bad_line = next(line for line in out.splitlines() if line.startswith(BAD))
    assert bad_line.split()[-1] == item_stats.NEGATIVE
    code, out, _ = run_cli(capsys, "--data-dir", folder, "--json", "--min-responses", 1000)
    assert {tuple(i["flags"]) for i in json.loads(out)["items"]} == {(item_stats.FEW,)}


def test_the_command_says_what_is_wrong(tmp_path, capsys):
    code, _, err = run_cli(capsys, "--data-dir", tmp_path / "missing")
    assert code == 1 and "no database at" in err and "--data-dir" in err
    assert not (tmp_path / "missing").exists()
    other = tmp_path / "other"
    other.mkdir(mode=0o700)
    sqlite3.connect(other / "course.db").close()
    code, _, err = run_cli(capsys, "--data-dir", other)
    assert code == 1 and "not a course server database" in err
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o700)
    db = Database(sqlite_url(empty / "course.db"))
    db.upgrade()
    db.dispose()
    code, out, err = run_cli(capsys, "--data-dir", empty)
    assert code == 1 and out == ""
    assert "no graded attempts yet" in err
    code, _, err = run_cli(capsys, "--data-dir", empty, "--min-responses", 0)
    assert code == 2 and "at least 1" in err


def test_the_admin_api_and_page(client, app, make_learner):
    """Graded attempts made through the server's own flow; an open attempt is left out."""
    for n in range(4):
        learner = make_learner(name=f"Learner {n}", email=f"l{n}@example.org")
        attempt = learner.start().json()
        keys = keys_of(app, attempt["id"])
        for q, key in list(zip(attempt["questions"], keys, strict=True))[:n]:
            assert learner.save(attempt["id"], q["index"], correct_response(key)).status_code == 200
        assert learner.submit(attempt["id"]).status_code == 200
    make_learner(name="Still open", email="open@example.org").start()
    url = "/exam/api/admin/item-stats"
    assert client.get(url).status_code == 403
    assert client.get(url, headers={"Authorization": "Bearer wrong"}).status_code == 403
    admin = {"Authorization": "Bearer test-admin-token"}
    response = client.get(url + "?min_responses=2", headers=admin)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "no-store"
    report = response.json()
    with app.state.db.read() as session:
        responses = graded_responses(session, "test-exam")
    assert report == {"exam_id": "test-exam", **item_stats.compute(responses, 2).to_dict()}
    assert report["attempts"] == 4 and report["responses"] == 20
    assert {i["chapter"] for i in report["items"]} == {"alpha", "beta"}
    assert client.get(url + "?min_responses=0", headers=admin).status_code == 422
    assert "ItemStatsReport" in json.dumps(app.openapi()["paths"][url])
    page = client.get("/exam/admin/stats")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    # No inline code: the scripts are files, the one inline element is the strings' JSON.
    tags = re.findall(r"<script[^>]*>", page.text)
    assert tags == [
        '<script type="application/json" id="nccl-strings">',
        '<script src="/exam/lib/nccl-page.js">',
        '<script src="/exam/static/admin-stats.js">',
    ]
    turkish = client.get("/exam/admin/stats?lang=tr")
    assert turkish.status_code == 200 and "Soru istatistikleri" in turkish.text
    assert "Güvenirlik: bütün konumları dolu bir deneme yok." in turkish.text  # script's S()
    script = client.get("/exam/static/admin-stats.js")
    assert script.status_code == 200 and url in script.text


@test_js_api_fields.pytestmark
def test_the_page_script_reads_only_declared_fields(app, tmp_path):
    """The page's script, read as the exam pages' scripts are (tests/exam/api_fields.cjs):
    its one call is the item-stats route, and every field it reads is in ItemStatsReport."""
    script = test_js_api_fields.STATIC / "admin-stats.js"
    out = test_js_api_fields.check(app.openapi(), [script], tmp_path)
    assert out["problems"] == []
    assert out["calls"] == [
        {"file": "admin-stats.js", "method": "GET", "route": "/exam/api/admin/item-stats"}
    ]


def test_postgresql_gives_the_same_statistics(pg_url, tmp_path, capsys):  # noqa: F811
    """The objective comes out of the JSON column by each database's own operator: the same
    class on PostgreSQL and on SQLite gives the same report, also through the command."""
    write_class(pg_url, learners=120)
    write_class(sqlite_url(tmp_path / "course.db"), learners=120)
    reports = []
    for url in (pg_url, sqlite_url(tmp_path / "course.db")):
        code, out, err = run_cli(capsys, "--database-url", url, "--json", "--min-responses", 10)
        assert code == 0, err
        reports.append(json.loads(out))
    assert reports[0] == reports[1]
    assert {i["objective"] for i in reports[0]["items"]} == {
        f"{c}/objective-{k}" for c in ("alpha", "beta", "gamma") for k in (0, 1)
    }
