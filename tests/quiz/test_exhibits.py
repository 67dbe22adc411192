"""Exhibits: the format's checks, how every renderer shows them, and the banks' exhibits checked
against the code: each NCCL log is read by the course's log reader and the facts its right
answer rests on are asserted from the parse; each program is run on gloo, buggy and fixed, in
one launch (tests/quiz/exhibit_runner.py), so that the bug the right answer names is real."""

from __future__ import annotations

import difflib
import functools
import io
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from nccl_course.cost.nccl.log_reader import read_log
from nccl_course.quiz.banks import bank_paths
from nccl_course.quiz.exhibits import MAX_LINE_CHARS, MAX_LINES, exhibit_html, numbered_lines
from nccl_course.quiz.model import BankError
from nccl_course.quiz.parsing import load_bank, parse_bank, validate_bank
from nccl_course.quiz.terminal import show_question

RUNNER = Path(__file__).with_name("exhibit_runner.py")
# Seconds a collective of a program may wait before gloo raises: the hang, made visible.
HANG_S = 1.5


def _bank(tmp_path: Path, exhibit) -> Path:
    """A one-question bank in a folder without objectives."""
    path = tmp_path / "demo.yml"
    question = {
        "id": "q",
        "type": "single",
        "difficulty": 1,
        "tags": ["t"],
        "prompt": "Which line?",
        "exhibit": exhibit,
        "choices": [
            {"text": "Line 1", "correct": True, "feedback": "yes"},
            {"text": "Line 2", "feedback": "no"},
        ],
    }
    path.write_text(yaml.safe_dump({"chapter": "demo", "title": "Demo", "questions": [question]}))
    return path


LOG = {"kind": "log", "caption": "rank 0", "text": "x NCCL INFO Using network Socket\n"}
PROGRAM = {
    "kind": "program",
    "caption": "two ranks",
    "text": "def main():\n    return 1\n",
    "fixed": "def main():\n    return 2\n",
    "bug": "wrong-result",
}


# -- the format ---------------------------------------------------------------------------


def test_a_valid_exhibit_is_read_and_handed_out_without_the_fix(tmp_path):
    bank = load_bank(_bank(tmp_path, PROGRAM))
    q = bank.questions[0]
    assert q.exhibit.kind == "program" and q.exhibit.ranks == 2 and q.exhibit.bug == "wrong-result"
    public = q.instantiate(0).public()
    assert public["exhibit"] == {
        "kind": "program",
        "caption": "two ranks",
        "text": PROGRAM["text"].strip(),
    }
    assert "fixed" not in str(public) and "return 2" not in str(q.instantiate(0).key())


@pytest.mark.parametrize(
    ("exhibit", "message"),
    [
        (
            {**LOG, "kind": "screenshot"},
            "'exhibit.kind' is 'screenshot'; use one of log, program, trace",
        ),
        ({**LOG, "text": "  \n"}, "'exhibit.text' is empty"),
        ({**LOG, "text": "line\n" * (MAX_LINES + 1)}, f"at most {MAX_LINES} fit a question"),
        (
            {**LOG, "text": "x" * (MAX_LINE_CHARS + 1)},
            f"line 1 has {MAX_LINE_CHARS + 1} characters",
        ),
        ({**LOG, "text": "a\tb"}, "contains a tab"),
        ({**LOG, "caption": ""}, "'exhibit.caption' must say what the exhibit is"),
        ({**LOG, "colour": "red"}, "'exhibit' has unknown keys ['colour']"),
        ({**LOG, "bug": "hang"}, "keys ['bug'] only go with kind: program"),
        ({k: v for k, v in PROGRAM.items() if k != "fixed"}, "a program exhibit needs 'fixed'"),
        (
            {**PROGRAM, "bug": "slow"},
            "'exhibit.bug' is 'slow'; say what the bug does: hang or wrong-result",
        ),
        ({**PROGRAM, "ranks": 9}, "'exhibit.ranks' must be a whole number from 2 to 4"),
        ("a log", "'exhibit' must be a mapping"),
    ],
)
def test_a_bad_exhibit_is_refused_with_a_message_that_says_what_to_do(tmp_path, exhibit, message):
    errors = validate_bank(_bank(tmp_path, exhibit))
    assert any(message in e and "question 'q'" in e for e in errors), errors
    with pytest.raises(BankError):
        load_bank(_bank(tmp_path, exhibit))


def test_lines_are_numbered_to_one_width():
    lines = numbered_lines("\n".join(f"l{i}" for i in range(1, 11)))
    assert lines[0] == " 1  l1" and lines[9] == "10  l10"


def test_the_page_shows_a_labelled_focusable_pre(tmp_path):
    q = load_bank(_bank(tmp_path, {**LOG, "text": "a < b & c\nsecond"})).questions[0]
    page = exhibit_html(q.exhibit, "NCCL log", "ex-1")
    assert '<figcaption id="ex-1">NCCL log: rank 0</figcaption>' in page
    assert (
        '<pre class="nccl-exhibit-text" tabindex="0" role="region" aria-labelledby="ex-1">' in page
    )
    assert "1  a &lt; b &amp; c\n2  second" in page


def test_the_terminal_shows_the_exhibit_before_the_prompt(tmp_path):
    q = load_bank(_bank(tmp_path, {**LOG, "text": "first\nsecond"})).questions[0]
    out = io.StringIO()
    show_question(q.instantiate(0), 1, 1, out)
    text = out.getvalue()
    assert "NCCL log: rank 0" in text
    assert text.index("1  first\n2  second") < text.index("Which line?")


# -- the banks' exhibits --------------------------------------------------------------------


@functools.cache
def _questions() -> tuple:
    """Every question of quizzes/ that parses (a bank's errors are test_validation's business)."""
    found = []
    for path in bank_paths("quizzes"):
        bank, _ = parse_bank(path)
        found += bank.questions if bank is not None else []
    return tuple(found)


def _exhibit_questions(kind: str) -> dict:
    return {q.uid: q for q in _questions() if q.exhibit is not None and q.exhibit.kind == kind}


def _correct(q) -> str:
    """The right choice's text (the first, for a question with several)."""
    return next(c.text for c in q.choices if c.correct)


def _best_pair(log, function: str, n_bytes: int) -> tuple[str, str]:
    """The (algorithm, protocol) with the smallest latency + bytes / (1000 x bandwidth) among
    the printed cells that have a bandwidth."""
    times = {
        (algo, proto): lat + n_bytes / (1000 * bw)
        for (fn, algo, proto), (lat, bw) in log.cells.items()
        if fn == function and bw > 0
    }
    return min(times, key=times.get)


def _call(log, function: str, n_bytes: int):
    return next(c for c in log.calls if c.function == function and c.n_bytes == n_bytes)


def check_tuning_table(q, log):
    assert _best_pair(log, "AllReduce", 4 * 2**20) == ("Tree", "Simple")
    assert "Tree" in _correct(q) and "Simple" in _correct(q)
    assert _best_pair(log, "AllReduce", 64 * 2**10) == ("Tree", "LL")  # the explanation's claim
    assert "Tree/LL" in q.explanation


def check_call_channels(q, log):
    call = _call(log, "AllReduce", 4 * 2**20)
    assert (call.algorithm, call.protocol, call.channels) == ("Tree", "Simple", q.answer)


def check_ring_graph(q, log):
    ring = dict(log.graphs)["Ring"]
    assert log.nodes == 2
    assert ring.n_channels * ring.bw_inter == q.answer


def check_nvls_call(q, log):
    assert log.nvls_multicast is True and "NVLS" in dict(log.graphs)
    assert _call(log, "AllReduce", 256 * 2**20).algorithm == "NVLS"
    assert _call(log, "AllReduce", 32 * 2**10).algorithm == "Ring"
    assert _correct(q).startswith("NVLS")


def check_pat(q, log):
    assert log.nodes == log.ranks == 32 and log.local_ranks == 1
    for function in ("AllGather", "ReduceScatter"):
        call = _call(log, function, 2**20)
        assert (call.algorithm, call.protocol) == ("PAT", "Simple")
    assert _call(log, "AllReduce", 2**20).algorithm == "Ring"


def check_watchdog_odd_op(q, log):
    ops = Counter(t.op for t in log.timeouts)
    odd = [t for t in log.timeouts if ops[t.op] == 1]
    assert len(log.timeouts) == 4 and len(odd) == 1
    assert len({t.seq for t in log.timeouts}) == 1  # the same collective in every rank's order
    assert odd[0].rank == 2 and odd[0].op == "ALLGATHER"
    assert _correct(q).startswith("Rank 2 issued an all-gather")
    assert {t.timeout_ms for t in log.timeouts} == {600_000}  # "10 minutes" in the feedback


def check_watchdog_missing_rank(q, log):
    missing = set(range(log.ranks)) - {t.rank for t in log.timeouts}
    assert missing == {2}
    assert len({(t.seq, t.op) for t in log.timeouts}) == 1
    assert _correct(q).startswith("Rank 2")


def check_socket_fallback(q, log):
    assert log.no_ib and log.network == "Socket"
    for c in log.connections:
        same_node = c.src // log.local_ranks == c.dst // log.local_ranks
        assert c.transport.startswith("P2P" if same_node else "NET/Socket"), c
    assert any(not c.transport.startswith("P2P") for c in log.connections)


def check_shm(q, log):
    assert log.nodes == 1 and log.connections
    assert all(c.transport.startswith("SHM") for c in log.connections)


def check_crossover(q, log):
    (lat_t, bw_t), (lat_r, bw_r) = (log.cells["AllReduce", a, "Simple"] for a in ("Tree", "Ring"))
    crossing = (lat_r - lat_t) / (1 / (1000 * bw_t) - 1 / (1000 * bw_r))  # bytes
    assert crossing / 2**20 == pytest.approx(q.answer, rel=0.005)
    below, above = int(crossing * 0.9), int(crossing * 1.1)
    assert _best_pair(log, "AllReduce", below) == ("Tree", "Simple")
    assert _best_pair(log, "AllReduce", above) == ("Ring", "Simple")


def check_no_multicast(q, log):
    assert log.nvls_multicast is False and "NVLS" not in dict(log.graphs)
    assert _call(log, "AllReduce", 256 * 2**20).algorithm == "Ring"


def check_old_call_indices(q, log):
    assert log.version == "2.21.5" and all(c.function is None for c in log.calls)
    picks = {c.n_bytes: (c.algorithm, c.protocol) for c in log.calls}
    claims = {
        "The 1 GiB all-reduce ran Ring with the Simple protocol.": picks[2**30]
        == ("Ring", "Simple"),
        "The 64 KiB all-reduce ran Tree with the LL protocol.": picks[2**16] == ("Tree", "LL"),
    }
    for text, holds in claims.items():
        assert next(c.correct for c in q.choices if c.text == text) == holds


def check_no_gdrdma(q, log):
    assert log.network == "IB" and not log.no_ib
    network = [c for c in log.connections if c.transport.startswith("NET/")]
    assert network and all(c.transport.startswith("NET/IB/") for c in network)
    assert not any("GDRDMA" in c.transport for c in network)
    assert {c.transport for c in network if c.direction == "send"} == {"NET/IB/0", "NET/IB/1"}


def check_watchdog_limit(q, log):
    (timeout,) = log.timeouts
    assert timeout.timeout_ms == 30 * 60 * 1000 and timeout.ran_ms >= timeout.timeout_ms
    assert timeout.op == "BROADCAST" and "30 minutes" in _correct(q)


def check_threads(q, log):
    assert log.threads["Ring", "LL128"] == q.answer
    assert log.threads["Ring", "LL"] == log.threads["Ring", "Simple"] == 512  # the mistake


def check_duplicate_gpu(q, log):
    assert log.ranks == 2 and log.duplicate_gpus == ((1, 0, "1b000"),)
    assert "set_device" in _correct(q)


def check_dev_shm(q, log):
    ((path, size),) = log.shm_failures
    assert path.startswith("/dev/shm/") and size > 2**20
    assert "/dev/shm" in _correct(q)


def check_ring_order(q, log):
    ring = log.rings[1]
    assert len(log.rings) == 4 and sorted(ring) == list(range(log.ranks))
    assert ring[(ring.index(3) + 1) % len(ring)] == q.answer
    assert log.rings[0][(log.rings[0].index(3) + 1) % len(ring)] == q.mistakes[0].answer


def _last_records(log) -> dict:
    last = {}
    for record in log.flight_records:  # in dump order: the last one per rank wins
        last[record.rank] = record
    return last


def check_fr_missing_seq(q, log):
    last = _last_records(log)
    assert sorted(last) == [0, 1, 2, 3]
    newest = max(r.seq for r in last.values())
    assert [rank for rank, r in last.items() if r.seq < newest] == [2]
    assert last[2].state == "completed" and {last[r].state for r in (0, 1, 3)} == {"started"}
    assert _correct(q).startswith(f"Rank 2 never issued collective {newest}")


def check_fr_size_mismatch(q, log):
    last = _last_records(log)
    assert len({(r.seq, r.op) for r in last.values()}) == 1
    sizes = Counter(r.input_sizes for r in last.values())
    odd = [rank for rank, r in last.items() if sizes[r.input_sizes] == 1]
    assert odd == [2] and last[2].input_sizes[0][0] * 2 == last[0].input_sizes[0][0]
    assert _correct(q).startswith("Rank 2 passed a buffer half the size")


LOG_CHECKS = {
    "debugging/dbg-fr-missing-seq": check_fr_missing_seq,
    "debugging/dbg-fr-size-mismatch": check_fr_size_mismatch,
    "nccl-tuner/tuner-log-threads": check_threads,
    "debugging/dbg-log-duplicate-gpu": check_duplicate_gpu,
    "debugging/dbg-log-dev-shm": check_dev_shm,
    "nccl-internals/ni-log-ring-order": check_ring_order,
    "nccl-tuner/tuner-log-tree-ring-crossover": check_crossover,
    "pat-nvls/pn-log-no-multicast": check_no_multicast,
    "nccl-internals/ni-log-old-call-indices": check_old_call_indices,
    "debugging/dbg-log-no-gdrdma": check_no_gdrdma,
    "debugging/dbg-log-watchdog-limit": check_watchdog_limit,
    "nccl-tuner/tuner-log-table-4mib": check_tuning_table,
    "nccl-tuner/tuner-log-call-channels": check_call_channels,
    "nccl-tuner/tuner-log-ring-graph-bw": check_ring_graph,
    "pat-nvls/pn-log-nvls-call": check_nvls_call,
    "pat-nvls/pn-log-pat-allgather": check_pat,
    "debugging/dbg-log-watchdog-odd-op": check_watchdog_odd_op,
    "debugging/dbg-log-watchdog-missing-rank": check_watchdog_missing_rank,
    "nccl-internals/ni-log-socket-fallback": check_socket_fallback,
    "nccl-internals/ni-log-shm-transport": check_shm,
}


def test_every_log_exhibit_has_a_check():
    assert set(_exhibit_questions("log")) == set(LOG_CHECKS)


@pytest.mark.parametrize("uid", sorted(LOG_CHECKS))
def test_the_log_reader_reads_the_facts_the_right_answer_rests_on(uid):
    q = _exhibit_questions("log")[uid]
    LOG_CHECKS[uid](q, read_log(q.exhibit.text))


# What each fixed program returns on each rank; SAME: every rank returns one value.
SAME = object()
FIXED_RESULTS = {
    "debugging/dbg-prog-rank0-allreduce": [[4.5], [4.5]],
    "debugging/dbg-prog-uneven-shards": [[12.0], [12.0]],
    "debugging/dbg-prog-contiguous-copy": [[[0.0, 9.0], [3.0, 12.0], [6.0, 15.0]]] * 2,
    "debugging/dbg-prog-aliased-list": [[[0.0, 0.0], [1.0, 1.0]]] * 2,
    "debugging/dbg-prog-seeded-replicas": SAME,
    "send-recv/sr-prog-recv-first": [[1.0] * 4, [0.0] * 4],
    "send-recv/sr-prog-tag-mismatch": [[2.0] * 3, [20.0] * 3],
    "processes/proc-prog-collective-order": [[2.0] * 4 + [0.0]] * 2,
    "processes/proc-prog-size-mismatch": [[2.0] * 4] * 2,
    "reduce/reduce-prog-non-root": [[3.0] * 3] * 2,
    "broadcast/bcast-prog-temporary": [[0.1], [0.1]],
    "all-reduce/ar-prog-sum-not-mean": [[1 - 0.1 * 3.0 / 2] * 3] * 2,
    "debugging/dbg-prog-local-early-stop": [[2.0], [2.0]],
    "send-recv/sr-prog-barrier-one-rank": [[1.0, 1.0], [1.0, 1.0]],
    "all-gather/ag-prog-gathered-layout": [[0.0, 1.0, 2.0], [10.0, 11.0, 12.0]],
}


@pytest.fixture(scope="module")
def program_runs(tmp_path_factory):
    """{uid: (buggy results per rank, fixed results per rank)}: one launch per rank count."""
    from nccl_course.launcher.launch import launch

    questions = _exhibit_questions("program")
    runs = {}
    for ranks in sorted({q.exhibit.ranks for q in questions.values()}):
        chosen = [uid for uid, q in questions.items() if q.exhibit.ranks == ranks]
        programs = []
        for uid in chosen:
            programs += [
                (uid, questions[uid].exhibit.text),
                (f"{uid} fixed", questions[uid].exhibit.fixed),
            ]
        store = tmp_path_factory.mktemp(f"stores-{ranks}")
        per_rank = launch(
            (str(RUNNER), "run_programs"),
            ranks,
            args=(programs, str(store), HANG_S),
            backend="gloo",
            timeout_s=60 + 4 * HANG_S * len(programs),
        )
        for i, uid in enumerate(chosen):
            runs[uid] = ([r[2 * i] for r in per_rank], [r[2 * i + 1] for r in per_rank])
    return runs


def test_every_program_exhibit_has_an_expected_result():
    assert set(_exhibit_questions("program")) == set(FIXED_RESULTS)


@pytest.mark.parametrize("uid", sorted(FIXED_RESULTS))
def test_the_program_has_the_bug_and_the_fix_works(uid, program_runs):
    q = _exhibit_questions("program")[uid]
    buggy, fixed = program_runs[uid]
    assert all(status == "ok" for status, _ in fixed), fixed
    values = [value for _, value in fixed]
    if FIXED_RESULTS[uid] is SAME:
        assert all(v == values[0] for v in values), values
    else:
        assert values == FIXED_RESULTS[uid]
    if q.exhibit.bug == "hang":
        assert any(status == "failed" and "Timed out" in out for status, out in buggy), buggy
    else:
        assert all(status == "ok" for status, _ in buggy), buggy
        assert [value for _, value in buggy] != values


@pytest.mark.parametrize("uid", sorted(FIXED_RESULTS))
def test_the_right_choice_names_a_line_the_fix_changes(uid):
    q = _exhibit_questions("program")[uid]
    line = int(re.fullmatch(r"Line (\d+)", _correct(q)).group(1))
    buggy, fixed = q.exhibit.text.split("\n"), q.exhibit.fixed.split("\n")
    kept = set()
    for block in difflib.SequenceMatcher(a=buggy, b=fixed, autojunk=False).get_matching_blocks():
        kept.update(range(block.a + 1, block.a + block.size + 1))
    assert line not in kept, f"line {line} ({buggy[line - 1].strip()!r}) is the same in the fix"


def test_the_turkish_edition_translates_the_caption_and_keeps_the_text():
    from nccl_course.quiz.translation import translate_bank

    bank, _ = parse_bank(Path("quizzes/debugging.yml"))
    turkish = translate_bank(bank, "tr", Path("locales"))
    english = {q.id: q for q in bank.questions}
    shown = [q for q in turkish.questions if q.exhibit is not None]
    assert shown
    for q in shown:
        assert q.exhibit.text == english[q.id].exhibit.text
        assert q.exhibit.fixed == english[q.id].exhibit.fixed
        assert q.exhibit.caption and q.exhibit.caption != english[q.id].exhibit.caption


def test_the_notebook_widget_shows_the_exhibit_before_the_prompt():
    from nccl_course.quiz.widget import show_quiz

    box = show_quiz("send-recv", seed=0, bank_dir=Path("quizzes"))
    qw = next(w for w in box.questions if w.question.id == "sr-prog-recv-first")
    page = qw.box.children[0].value
    assert '<pre class="nccl-exhibit-text" tabindex="0" role="region"' in page
    assert " 9      dist.recv(theirs, src=peer)" in page
    assert page.index("nccl-exhibit") < page.index("The swap never finishes")
