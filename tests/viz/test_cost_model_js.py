"""The explorers' JavaScript (static/cost-model.js, run in Node) computes what the package does.

The data the page gets is made by nccl_course.viz.explorer_data, as in the book build; every
number is compared with the Python package on a dense grid: closed forms for every algorithm
and p = 1..33, the model's times for every collective x algorithm x preset x rank count x size,
the fastest algorithm and the switch points, NCCL's pick, bytes per rank per step of the
exported schedules, and the training-step calls and times. Relative difference <= 1e-9.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from nccl_course.cost import closed_form_time, nccl, predict
from nccl_course.cost import training as tr
from nccl_course.cost.formulas import CLOSED_FORMS
from nccl_course.cost.presets import PRESETS
from nccl_course.sim.registry import build_schedule
from nccl_course.viz.explorer_data import RANK_CHOICES, explorer_data
from nccl_course.viz.plots import comparison_data

NODE = shutil.which("node")
COST_MODEL_JS = Path(__file__).resolve().parents[2] / "src/nccl_course/viz/static/cost-model.js"
REL = 1e-9

RUNNER = """
const lib = require(process.argv[2]);
const fs = require("fs");
const data = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const cases = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));
const m = lib.createCostModel(data);
const T = m.training;
const shape = (s) => s;
const run = {
  closed: (a) => lib.closedFormTime(...a),
  closedKeys: () => Object.keys(lib.CLOSED_FORMS).sort(),
  compare: ([c, preset, p]) => m.comparisonData(c, preset, { ranks: p }),
  predict: ([c, size, preset, p]) => m.predict(c, size, preset, { ranks: p }),
  nccl: ([c, size, preset, p, harness]) => m.nccl.predict(c, size, preset, { ranks: p, harness }),
  schedule: ([c, a, p, k, size]) => m.scheduleBytes(c, a, p, k, size),
  ddp: ([params, dp, g]) => T.ddpCalls(params, dp, g),
  zero3: ([params, dp, units]) => T.zero3Calls(params, dp, units),
  tp: ([s, tp, sp]) => T.tensorParallelCalls(shape(s), tp, 2, sp),
  params: ([s]) => T.parameters(s),
  bytes: ([calls]) => T.bytesSentPerRank(calls),
  count: ([calls]) => T.totalCalls(calls),
  alphaBeta: ([calls, a, b]) => T.timeAlphaBeta(calls, a, b),
  onPreset: ([calls, preset]) => T.timeOnPreset(calls, preset),
};
process.stdout.write(JSON.stringify(cases.map(([kind, args]) => run[kind](args))));
"""


def close(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= REL * max(abs(a), abs(b))


@pytest.fixture(scope="module")
def exported():
    """What the book exports for the explorers (built once: it takes seconds)."""
    return explorer_data()


@pytest.fixture(scope="module")
def js(tmp_path_factory, exported):
    """Runs a list of (kind, args) cases in Node against the exported data."""
    if NODE is None:
        pytest.skip("node is not installed (make setup installs it for npm)")
    folder = tmp_path_factory.mktemp("costjs")
    data = folder / "data.json"
    data.write_text(json.dumps(exported))
    runner = folder / "run.js"
    runner.write_text(RUNNER)

    def run(cases: list) -> list:
        path = folder / "cases.json"
        path.write_text(json.dumps(cases))
        out = subprocess.run(
            [NODE, str(runner), str(COST_MODEL_JS), str(data), str(path)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    return run


def test_closed_forms_match_for_every_algorithm(js):
    assert js([["closedKeys", []]])[0] == sorted(f"{c}/{a}" for c, a in CLOSED_FORMS)
    cases, expected = [], []
    for c, a in CLOSED_FORMS:
        for p in range(1, 34):
            for n in (0.0, 1.0, 4096.0, 3e8):
                for alpha, beta, gamma in ((1e-6, 1 / 450e9, 0.0), (2.7e-6, 2e-11, 1e-12)):
                    for k in (1, 3, 8):
                        args = [c, a, n, p, alpha, beta, gamma, k]
                        cases.append(["closed", args])
                        expected.append(closed_form_time(*args))
    got = js(cases)
    bad = [(c, g, e) for c, g, e in zip(cases, got, expected, strict=True) if not close(g, e)]
    assert len(got) > 10000 and not bad, bad[:5]


def test_model_times_best_algorithm_and_switches_match(js):
    cases, expected = [], []
    collectives = [c for c in explorer_data_algorithms() if c != "barrier"]
    for preset in PRESETS:
        for p in RANK_CHOICES:
            for c in collectives:
                cases.append(["compare", [c, preset, p]])
                expected.append(comparison_data(c, preset, ranks=p))
    got = js(cases)
    compared = 0
    for case, g, e in zip(cases, got, expected, strict=True):
        assert list(g["times"]) == list(e["times"]), case
        for algo, times in e["times"].items():
            assert all(close(x, y) for x, y in zip(g["times"][algo], times, strict=True)), (
                case,
                algo,
            )
            compared += len(times)
        table = np.stack(list(e["times"].values()))
        for i, (gb, eb) in enumerate(zip(g["best"], e["best"], strict=True)):
            # the same pick, unless two algorithms tie (same cost up to rounding)
            assert gb == eb or close(table.min(axis=0)[i], e["times"][gb][i]), (case, i)
        if g["best"] == e["best"]:
            assert len(g["switches"]) == len(e["switches"]), case
            for (gs, ga, gb), (es, ea, eb) in zip(g["switches"], e["switches"], strict=True):
                assert (ga, gb) == (ea, eb) and close(gs, es), case
    assert compared > 100000


def explorer_data_algorithms():
    from nccl_course.sim.registry import ALGORITHMS

    return list(ALGORITHMS)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_predict_matches_including_nvls_and_barrier(js, preset):
    cases, expected = [], []
    sizes = [0, 1, 1000, 2**20 + 3, 3 * 2**30]
    for p in RANK_CHOICES:
        for c in explorer_data_algorithms():
            for size in sizes:
                cases.append(["predict", [c, size, preset, p]])
                expected.append(predict(c, size, preset, ranks=p).as_dict())
    for g, e, case in zip(js(cases), expected, cases, strict=True):
        for key in ("time_s", "algbw_GBps", "busbw_GBps"):
            assert close(g[key], e[key]), (case, key, g[key], e[key])
        assert g["algorithm"] == e["algorithm"] or close(
            predict(
                case[1][0], case[1][1], preset, ranks=case[1][3], algorithm=g["algorithm"]
            ).time_s,
            e["time_s"],
        ), case


def test_nccl_pick_matches_the_python_tuner(js, exported):
    data = exported["nccl"]
    cases, expected = [], []
    sizes = [0, 1, 8, 100, 4096, 65536, 2**20, 12345678, 2**30, 16 * 2**30]
    harnesses = list(data["callCost"]["harnesses"])
    for preset, by_ranks in data["systems"].items():
        for p in by_ranks:
            for c in [*data["courseToFunction"], *data["p2pCollectives"]]:
                for i, size in enumerate(sizes + [int(s) for s in np.logspace(0, 34, 60, base=2)]):
                    harness = harnesses[i % len(harnesses)]  # every harness on every system
                    cases.append(["nccl", [c, size, preset, int(p), harness]])
                    pred = nccl.predict(c, size, preset, ranks=int(p), harness=harness)
                    expected.append(pred.as_dict())
    got = js(cases)
    for g, e, case in zip(got, expected, cases, strict=True):
        for key in (
            "algorithm",
            "protocol",
            "channels",
            "threads",
            "ranks",
            "nodes",
            "harness",
            "network_bound",
        ):
            assert g[key] == e[key], (case, key)
        for key in ("time_s", "algbw_GBps", "busbw_GBps"):
            assert close(g[key], e[key]), (case, key)
        for key in ("call_time_s", "call_algbw_GBps", "call_busbw_GBps"):
            assert close(g[key], e[key]), (case, key)
        assert g["call_terms_us"].keys() == e["call_terms_us"].keys()
        assert all(close(g["call_terms_us"][k], v) for k, v in e["call_terms_us"].items()), case
        assert g["candidates"].keys() == e["candidates"].keys()
        assert all(close(g["candidates"][k], v) for k, v in e["candidates"].items()), case
    assert len(got) > 5000


def test_schedule_bytes_per_rank_per_step_match(js, exported):
    schedules = exported["schedules"]
    cases, expected = [], []
    for c, algos in schedules.items():
        for a, by_ranks in algos.items():
            for p, by_depth in by_ranks.items():
                for k in by_depth:
                    s = build_schedule(c, a, int(p), chunks=int(k))
                    for size in (1000, 2**20):
                        cases.append(["schedule", [c, a, int(p), int(k), size]])
                        per = s.chunk_bytes(size)
                        expected.append(
                            (
                                [np.bincount(st.src, minlength=s.p) * per for st in s.step_arrays],
                                s.bytes_sent_per_rank(size),
                            )
                        )
    got = js(cases)
    for g, (per_step, totals), case in zip(got, expected, cases, strict=True):
        assert g["steps"] == len(per_step), case
        for row, want in zip(g["sent"], per_step, strict=True):
            assert all(close(x, float(y)) for x, y in zip(row, want, strict=True)), case
        sums = np.sum(g["sent"], axis=0) if g["sent"] else np.zeros(len(totals))
        assert [round(x) for x in sums] == totals, case
    assert len(got) > 150


def _shape_dict(s: tr.TransformerShape) -> dict:
    return dict(
        name=s.name,
        layers=s.layers,
        hidden=s.hidden,
        vocab=s.vocab,
        seq_len=s.seq_len,
        micro_batch=s.micro_batch,
    )


def _calls(calls) -> list[dict]:
    return [dict(vars(c)) for c in calls]


def test_training_calls_bytes_and_times_match(js):
    shapes = list(tr.GPT3_SHAPES) + [
        tr.TransformerShape("odd", layers=3, hidden=1000, vocab=999, seq_len=100, micro_batch=3)
    ]
    cases, expected = [], []

    def add(kind, args, want):
        cases.append([kind, args])
        expected.append(want)

    for shape in shapes:
        params = shape.parameters()
        add("params", [_shape_dict(shape)], params)
        for ranks in (2, 8, 24):
            lists = [
                tr.ddp_calls(params, ranks, 2),
                tr.ddp_calls(params, ranks, 4),
                tr.zero3_calls(params, ranks, shape.layers),
                tr.tensor_parallel_calls(shape, ranks, 2, False),
                tr.tensor_parallel_calls(shape, ranks, 2, True),
            ]
            add("ddp", [params, ranks, 2], _calls(lists[0]))
            add("ddp", [params, ranks, 4], _calls(lists[1]))
            add("zero3", [params, ranks, shape.layers], _calls(lists[2]))
            add("tp", [_shape_dict(shape), ranks, False], _calls(lists[3]))
            add("tp", [_shape_dict(shape), ranks, True], _calls(lists[4]))
            for calls in lists:
                add("bytes", [_calls(calls)], tr.bytes_sent_per_rank(calls))
                add("count", [_calls(calls)], tr.total_calls(calls))
                add(
                    "alphaBeta",
                    [_calls(calls), 2.7e-6, 2e-11],
                    tr.time_alpha_beta(calls, 2.7e-6, 2e-11),
                )
                for preset in ("h100-nvls", "ib-ndr-2node", "pcie-gen4"):
                    add("onPreset", [_calls(calls), preset], tr.time_on_preset(calls, preset))
    got = js(cases)
    for g, e, case in zip(got, expected, cases, strict=True):
        if isinstance(e, float):
            assert close(g, e), (case[0], g, e)
        else:
            assert g == e, case[0]
    assert len(got) > 400


def test_rank_counts_outside_the_export_are_refused(js):
    with pytest.raises(AssertionError, match="not exported"):
        js([["predict", ["all_reduce", 1024, "h100-nvlink", 5]]])
    assert math.isfinite(js([["predict", ["all_reduce", 1024, "h100-nvlink", 8]]])[0]["time_s"])
