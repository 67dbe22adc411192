"""The in-page cost-model explorers work in the built book with no kernel and no network: every
control changes the plot and the numbers, and the numbers match the Python package (relative
difference <= 1e-9, read from the data-* attributes the explorer writes at full precision)."""

from __future__ import annotations

import json

import numpy as np

from nccl_course.cost import nccl, predict
from nccl_course.cost import training as tr
from nccl_course.sim.registry import build_schedule

REL = 1e-9

READY = "() => document.querySelector('.nccl-explorer[data-ready=\"true\"]') !== null"
ROWS = """() => [...document.querySelectorAll('.nccl-explorer .nccl-explorer-table tbody tr')].map(
  tr => Object.fromEntries(Object.entries(tr.dataset)))"""
STATE = "() => JSON.parse(document.querySelector('.nccl-explorer').dataset.state)"
PICTURE = "() => [...document.querySelectorAll('.nccl-explorer canvas')].map(c => c.toDataURL())"


def close(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


def open_explorer(offline_page, book_url, path):
    page = offline_page.page
    page.goto(f"{book_url}/{path}")
    page.wait_for_function(READY, timeout=20000)
    assert page.locator(".nccl-explorer .uplot canvas").count() >= 1
    assert not page.locator(".nccl-explorer-noscript").first.is_visible()
    return page


def choose(page, control, value):
    """Select ``value`` in the explorer's control; return (state, rows, pictures) after."""
    before = page.evaluate(PICTURE)
    page.select_option(f".nccl-explorer select[data-control='{control}']", str(value))
    state = page.evaluate(STATE)
    after = page.evaluate(PICTURE)
    assert after != before, f"changing {control} did not change the plot"
    return state, page.evaluate(ROWS)


def check_algorithm_rows(state, rows):
    c, preset, p, size = state["collective"], state["preset"], state["ranks"], state["size"]
    assert [r["algorithm"] for r in rows]
    for r in rows:
        want = predict(c, size, preset, ranks=p, algorithm=r["algorithm"])
        assert close(float(r["timeS"]), want.time_s), (state, r)
        assert close(float(r["busbwGbps"]), want.busbw_GBps), (state, r)


def test_algorithms_explorer(book_url, offline_page):
    page = open_explorer(offline_page, book_url, "book/algorithms/05-cost-model.html")
    state = page.evaluate(STATE)
    assert (state["collective"], state["preset"], state["ranks"]) == (
        "all_reduce",
        "h100-nvlink",
        8,
    )
    first = page.evaluate(ROWS)
    check_algorithm_rows(state, first)
    summary = page.locator(".nccl-explorer-summary")
    best = predict(state["collective"], state["size"], state["preset"], ranks=state["ranks"])
    assert summary.get_attribute("data-algorithm") == best.algorithm
    shown = page.locator(".nccl-explorer-nccl")
    pick = nccl.predict("all_reduce", state["size"], "h100-nvlink", ranks=8)
    assert (shown.get_attribute("data-algorithm"), shown.get_attribute("data-protocol")) == (
        pick.algorithm,
        pick.protocol,
    )
    assert close(float(shown.get_attribute("data-time-s")), pick.time_s)

    for control, value in (
        ("collective", "all_gather"),
        ("preset", "ib-ndr-2node"),
        ("ranks", 4),
        ("size", 2**30),
    ):
        state, rows = choose(page, control, value)
        assert rows != first
        first = rows
        check_algorithm_rows(state, rows)
    assert state == {
        "collective": "all_gather",
        "preset": "ib-ndr-2node",
        "ranks": 4,
        "size": 2**30,
    }
    # all_to_all: no tuner choice, NCCL's grouped sends and receives
    state, rows = choose(page, "collective", "all_to_all")
    check_algorithm_rows(state, rows)
    pick = nccl.predict("all_to_all", 2**30, "ib-ndr-2node", ranks=4)
    assert (shown.get_attribute("data-algorithm"), shown.get_attribute("data-protocol")) == (
        "P2P",
        pick.protocol,
    )
    assert close(float(shown.get_attribute("data-time-s")), pick.time_s)
    assert "grouped sends and receives" in shown.inner_text()
    assert offline_page.external == []


def test_nccl_explorer(book_url, offline_page):
    page = open_explorer(offline_page, book_url, "book/practice/01-inside-nccl.html")
    rows = page.evaluate(ROWS)
    for control, value in (
        ("collective", "all_gather"),
        ("preset", "h100-nvls"),
        ("ranks", 4),
        ("harness", "torch.distributed"),
        ("collective", "all_to_all"),
    ):
        state, new_rows = choose(page, control, value)
        assert new_rows != rows
        rows = new_rows
        for r in rows:
            want = nccl.predict(
                state["collective"],
                int(r["size"]),
                state["preset"],
                ranks=state["ranks"],
                harness=state["harness"],
            )
            assert (r["algorithm"], r["protocol"], int(r["channels"])) == (
                want.algorithm,
                want.protocol,
                want.channels,
            )
            assert close(float(r["timeS"]), want.time_s) and close(
                float(r["busbwGbps"]), want.busbw_GBps
            )
            assert close(float(r["callTimeS"]), want.call_time_s) and close(
                float(r["callBusbwGbps"]), want.call_busbw_GBps
            )
    assert len(rows) == 32
    assert offline_page.external == []


def test_schedule_explorer(book_url, offline_page):
    page = open_explorer(offline_page, book_url, "notebooks/60-cost-model-explorer.html")
    # the page's first explorer compares algorithms; the schedule explorer is the second
    assert page.locator(".nccl-explorer").count() == 2
    root = page.locator(".nccl-explorer[data-kind='schedule']")

    def rows():
        return root.evaluate(
            "el => [...el.querySelectorAll('.nccl-explorer-table tbody tr')].map(tr => Object.fromEntries("
            "Object.entries(tr.dataset)))"
        )

    def pick(control, value):
        before = root.evaluate("el => [...el.querySelectorAll('canvas')].map(c => c.toDataURL())")
        root.locator(f"select[data-control='{control}']").select_option(str(value))
        after = root.evaluate("el => [...el.querySelectorAll('canvas')].map(c => c.toDataURL())")
        assert after != before, control
        return json.loads(root.get_attribute("data-state"))

    for control, value in (("algorithm", "recursive_doubling"), ("ranks", 5), ("size", 2**30)):
        state = pick(control, value)
        s = build_schedule(state["collective"], state["algorithm"], state["ranks"])
        per = s.chunk_bytes(state["size"])
        got = rows()
        assert len(got) == state["ranks"]
        for r in got:
            rank = int(r["rank"])
            want = [int(np.sum(st.src == rank)) * per for st in s.step_arrays]
            sent = json.loads(r["sent"])
            assert len(sent) == s.num_steps
            assert all(close(x, y) for x, y in zip(sent, want, strict=True)), (state, rank)
            assert round(float(r["total"])) == s.bytes_sent_per_rank(state["size"])[rank]
    assert offline_page.external == []


def test_training_explorer(book_url, offline_page):
    page = open_explorer(offline_page, book_url, "book/practice/02-training.html")
    rows = page.evaluate(ROWS)
    for control, value in (("model", "GPT-3 175B"), ("ranks", 16), ("preset", "h100-nvls")):
        state, new_rows = choose(page, control, value)
        assert new_rows != rows
        rows = new_rows
        shape = next(s for s in tr.GPT3_SHAPES if s.name == state["model"])
        params = shape.parameters()
        p = state["ranks"]
        want = {
            "DDP": tr.ddp_calls(params, p, 2),
            "FSDP / ZeRO-3": tr.zero3_calls(params, p, shape.layers, 2, 2),
            "tensor parallel": tr.tensor_parallel_calls(shape, p, 2, False),
        }
        assert [r["strategy"] for r in rows] == list(want)
        for r in rows:
            calls = want[r["strategy"]]
            assert int(r["calls"]) == tr.total_calls(calls)
            assert close(float(r["bytes"]), tr.bytes_sent_per_rank(calls))
            assert close(float(r["timeS"]), tr.time_on_preset(calls, state["preset"])), r
    assert offline_page.external == []
