"""Generators of the *choose* questions (:mod:`nccl_course.quiz.choose`): a situation, and
options whose correctness and feedback come from the course's models.

* ``choose_parallel_layout``: a model, a cluster and a memory budget; the options are layouts
  (DP/TP/PP sizes, DDP or FSDP) priced by :mod:`nccl_course.cost.layouts`; the answer is the
  fastest layout that fits.
* ``choose_nccl_algorithm``: a collective, a size and a system; the options are algorithm and
  protocol pairs from NCCL's cost table (:func:`nccl_course.cost.nccl.predict`); the answer is
  NCCL's pick.
* ``choose_textbook_algorithm``: the same with the textbook model
  (:func:`nccl_course.cost.sweep_times`), whose algorithms are the course's schedules.

Every option but the answer is at least ``tolerance`` (a fraction) slower than the answer in the
model, or cannot be used (a layout that does not fit, an algorithm NCCL cannot run there), so a
small error of the model never turns a wrong option right; the prompt states the tolerance.

Units: seconds in the models; the options show milliseconds (layouts) or microseconds
(collectives), GB = 1e9 bytes.
"""

from __future__ import annotations

import functools
import random

from nccl_course.collectives import display_name
from nccl_course.cost import algorithms_for, get_preset, sweep_times
from nccl_course.cost.layouts import Cluster, StepTime, layouts, step_time
from nccl_course.cost.training import GPT3_SHAPES, TransformerShape
from nccl_course.quiz.choose import ChoiceDraw, Option
from nccl_course.quiz.generators import generator
from nccl_course.units import format_size

#: GPT-3 13B's shape (Brown et al. 2020, Table 2.1: 40 layers, d_model 5140, context 2048).
GPT3_13B = TransformerShape("GPT-3 13B", layers=40, hidden=5140, vocab=50257, seq_len=2048)
_SHAPES = (*GPT3_SHAPES[:2], GPT3_13B)

# (nodes, GPU, NIC Gb/s, node preset, network preset, achieved TFLOP/s per GPU to draw from):
# rates a training job reaches, 30-40 % of the H100's 989 and 40-50 % of the A100's 312 dense
# BF16 TFLOP/s.
_CLUSTERS = (
    (2, "H100", 400, "h100-nvlink", "ib-ndr-2node", (300, 400)),
    (4, "H100", 400, "h100-nvlink", "ib-ndr-4node", (300, 400)),
    (2, "A100", 200, "a100-nvlink", "a100-ib-hdr-2node", (125, 150)),
)
_BATCHES = (32, 64, 128, 256)
_BUDGETS_GB = (20, 40, 60)

# Why a layout that fits is slower than the best: the term that grows most against the best's.
_WHY = {
    "bubble_s": "the pipeline bubble",
    "tp_s": "tensor-parallel communication",
    "pp_s": "pipeline communication",
    "dp_s": "data-parallel communication",
}

LAYOUT_TEXT = "DP = {{dp}}, TP = {{tp}}, PP = {{pp}}, {{mode}}"
LAYOUT_BEST = (
    "Right: the fastest layout that fits, {{ms}} ms per step in the model: compute "
    "{{compute_ms}} ms, pipeline bubble {{bubble_ms}} ms with {{micro}} micro-batches "
    "per replica, communication {{comm_ms}} ms (TP {{tp_ms}}, PP {{pp_ms}}, DP {{dp_ms}}); "
    "{{gb}} GB of model states per GPU."
)
LAYOUT_SLOW = (
    "It fits ({{gb}} GB of model states per GPU) but takes {{ms}} ms per step in the model, "
    "{{slower}} % more than the fastest layout that fits: compute {{compute_ms}} ms, pipeline "
    "bubble {{bubble_ms}} ms with {{micro}} micro-batches per replica, communication "
    "{{comm_ms}} ms (TP {{tp_ms}}, PP {{pp_ms}}, DP {{dp_ms}}). Most of the difference: {{why}}."
)
LAYOUT_TOO_BIG = (
    "It does not fit: {{gb}} GB of model states per GPU, over the budget of {{budget}} GB. "
    "Otherwise it would take {{ms}} ms per step in the model."
)


def _sig(x: float, figures: int = 3) -> float:
    """``x`` rounded to ``figures`` significant figures (what the feedback shows)."""
    return float(f"{x:.{figures}g}")


def _percent_slower(t: float, best: float) -> int:
    return round(100 * (t / best - 1))


def _layout_params(t: StepTime) -> dict:
    x = t.layout
    return {
        "dp": x.dp,
        "tp": x.tp,
        "pp": x.pp,
        "mode": x.mode,
        "micro": t.micro_batches,
        "ms": _sig(t.total_s * 1e3),
        "compute_ms": _sig(t.compute_s * 1e3),
        "bubble_ms": _sig(t.bubble_s * 1e3),
        "comm_ms": _sig(t.comm_s * 1e3),
        "tp_ms": _sig(t.tp_s * 1e3),
        "pp_ms": _sig(t.pp_s * 1e3),
        "dp_ms": _sig(t.dp_s * 1e3),
        "gb": _sig(t.state_bytes / 1e9),
    }


def why_slower(t: StepTime, best: StepTime) -> str:
    """The term of ``t`` that exceeds the same term of ``best`` most (a key of _WHY)."""
    return max(_WHY, key=lambda name: getattr(t, name) - getattr(best, name))


def layout_scenario(rng: random.Random, pp_sizes: tuple[int, ...] | None = None):
    """(cluster, shape, global batch, budget in bytes, step times of its layouts) drawn from
    ``rng``; ``pp_sizes`` limits the pipeline depths offered (None: all)."""
    picked = rng.randrange(len(_CLUSTERS))
    nodes, gpu, nic, _, _, rates = _CLUSTERS[picked]
    tflops = rng.choice(rates)
    shape = rng.randrange(len(_SHAPES))
    batch = rng.choice(_BATCHES)
    budget = rng.choice(_BUDGETS_GB)
    cluster, times = _scenario_times(picked, tflops, shape, batch, pp_sizes)
    info = {"nodes": nodes, "gpu": gpu, "nic": nic, "tflops": tflops}
    return cluster, _SHAPES[shape], batch, budget * 1e9, list(times), info


@functools.cache
def _scenario_times(cluster_index, tflops, shape_index, batch, pp_sizes):
    # The scenarios are few (clusters x rates x shapes x batches, ~72) and pricing one's
    # layouts with NCCL's model takes ~20 ms: an exam start that draws the question would pay
    # it every time. Priced once per process instead.
    nodes, gpu, _, node, net, _ = _CLUSTERS[cluster_index]
    cluster = Cluster(f"{nodes}x8 {gpu}", nodes, 8, node, net, tflops * 1e12)
    shape = _SHAPES[shape_index]
    times = tuple(
        step_time(x, cluster, shape, batch)
        for x in layouts(cluster, shape, batch)
        if pp_sizes is None or x.pp in pp_sizes
    )
    return cluster, times


@generator("choose_parallel_layout")
def choose_parallel_layout(
    rng: random.Random,
    tolerance: float = 0.1,
    distractors: int = 3,
    pp_sizes: list[int] | None = None,
) -> ChoiceDraw:
    """The fastest layout whose model states fit the budget, among ``distractors`` others that
    are at least ``tolerance`` slower or do not fit (one of those, when any, the fastest layout
    that does not fit). ``pp_sizes``: the pipeline depths the layouts may use (all by default).

    Params: nodes, gpu, nic, tflops, billions, layers, hidden, seq, batch, budget, tol; each
    option: dp, tp, pp, mode, micro, ms, compute_ms, bubble_ms, comm_ms, tp_ms, pp_ms, dp_ms, gb
    (and slower, why for a slower one)."""
    allowed = tuple(pp_sizes) if pp_sizes else None
    for _ in range(100):
        cluster, shape, batch, budget, times, info = layout_scenario(rng, allowed)
        fitting = [t for t in times if t.fits(budget)]
        if not fitting:
            continue
        best = min(fitting, key=lambda t: (t.total_s, t.layout))
        slow = [t for t in fitting if t.total_s >= best.total_s * (1 + tolerance)]
        too_big = sorted((t for t in times if not t.fits(budget)), key=lambda t: t.total_s)
        picked = too_big[:1]
        rest = [t for t in slow + too_big[1:]]
        if len(picked) + len(rest) < distractors:
            continue
        picked += rng.sample(rest, distractors - len(picked))
        break
    else:
        raise RuntimeError("no layout scenario with enough distinct options in 100 draws")

    options = [Option(LAYOUT_TEXT, True, LAYOUT_BEST, _layout_params(best))]
    for t in picked:
        own = _layout_params(t)
        if t.fits(budget):
            own["slower"] = _percent_slower(t.total_s, best.total_s)
            own["why"] = _WHY[why_slower(t, best)]
            options.append(Option(LAYOUT_TEXT, False, LAYOUT_SLOW, own))
        else:
            options.append(Option(LAYOUT_TEXT, False, LAYOUT_TOO_BIG, own))
    params = {
        **info,
        "billions": _sig(shape.parameters() / 1e9),
        "layers": shape.layers,
        "hidden": shape.hidden,
        "seq": shape.seq_len,
        "batch": batch,
        "budget": round(budget / 1e9),
        "tol": round(tolerance * 100),
    }
    return ChoiceDraw(params, tuple(options))


# Algorithm choice --------------------------------------------------------------------------

_ALGO_PRESETS = (
    "h100-nvlink",
    "h100-nvls",
    "a100-nvlink",
    "ib-ndr-2node",
    "ib-ndr-4node",
    "a100-ib-hdr-2node",
)
_ALGO_SIZES = tuple(2**k for k in range(12, 33, 2))  # 4 KiB to 4 GiB

ALGO_TEXT = "{{algo}}"
#: The textbook model's algorithms by their names in the package (``nccl-course model --algo``).
CODE_TEXT = "`{{algo}}`"
NCCL_BEST = (
    "Right: NCCL's tuner picks {{algo}}, {{us}} µs in its model for this size on "
    "{{channels}} channels."
)
NCCL_SLOW = (
    "{{algo}} takes {{us}} µs in NCCL's model, {{slower}} % more than its pick, {{best}} at "
    "{{best_us}} µs."
)
NCCL_CANNOT = (
    "NCCL's cost table has no time for {{algo}} here: the tuner cannot run it for this "
    "collective on this system, so it is never chosen."
)
TEXTBOOK_BEST = (
    "Right: `{{algo}}` is the fastest the textbook model knows here, {{us}} µs for this size."
)
TEXTBOOK_SLOW = (
    "`{{algo}}` takes {{us}} µs in the textbook model, {{slower}} % more than the fastest, "
    "`{{best}}` at {{best_us}} µs."
)


def _algorithm_options(
    rng: random.Random,
    times: dict[str, float],
    unavailable: list[str],
    tolerance: float,
    distractors: int,
    texts: tuple[str, str, str, str | None],
) -> tuple[Option, ...] | None:
    """The options for ``times`` (name -> seconds of what can run): the fastest and
    ``distractors`` others at least ``tolerance`` slower or ``unavailable`` (one of those at
    most); None when there are too few."""
    choice_text, best_text, slow_text, cannot_text = texts
    best = min(times, key=lambda name: (times[name], name))
    slow = [n for n in times if times[n] >= times[best] * (1 + tolerance)]
    cannot = sorted(unavailable) if cannot_text else []
    pool = [("slow", n) for n in sorted(slow)]
    picked = [("cannot", n) for n in rng.sample(cannot, min(1, len(cannot)))]
    if len(pool) + len(picked) < distractors:
        return None
    picked += rng.sample(pool, distractors - len(picked))
    best_us = _sig(times[best] * 1e6)
    options = [Option(choice_text, True, best_text, {"algo": best, "us": best_us})]
    for kind, name in picked:
        own = {"algo": name, "best": best, "best_us": best_us}
        if kind == "cannot":
            options.append(Option(choice_text, False, cannot_text, own))
        else:
            own["us"] = _sig(times[name] * 1e6)
            own["slower"] = _percent_slower(times[name], times[best])
            options.append(Option(choice_text, False, slow_text, own))
    return tuple(options)


def _system_params(preset_name: str, size: int, collective: str) -> dict:
    preset = get_preset(preset_name)
    return {
        "preset": preset_name,
        "description": preset.description,
        "ranks": preset.ranks,
        "size": format_size(size),
        "collective": display_name(collective),
    }


# The algorithm choices' situations are few (presets x sizes, 66 per collective); each is priced
# once per process, so that drawing the question costs microseconds, not the milliseconds of
# the models (an exam start draws it, and redraws it while it coincides with a printed one).
@functools.cache
def _nccl_prediction(collective: str, size: int, preset_name: str):
    from nccl_course.cost.nccl import predict

    return predict(collective, size, preset_name)


@functools.cache
def _textbook_times(collective: str, preset_name: str, size: int) -> tuple:
    return tuple(
        (algo, float(sweep_times(collective, algo, [size], preset_name)[0][0]))
        for algo in algorithms_for(collective, preset_name)
    )


@generator("choose_nccl_algorithm")
def choose_nccl_algorithm(
    rng: random.Random,
    collective: str = "all_reduce",
    tolerance: float = 0.1,
    distractors: int = 3,
) -> ChoiceDraw:
    """NCCL's pick (algorithm/protocol, as its tuning table names them) for ``collective`` of a
    drawn size on all GPUs of a drawn preset, among others at least ``tolerance`` slower in its
    cost table or disabled there.

    Params: preset, description, ranks, size, collective, tol; each option: algo, us (and
    slower, best, best_us for a slower one; channels for the answer)."""
    for _ in range(100):
        preset_name = rng.choice(_ALGO_PRESETS)
        size = rng.choice(_ALGO_SIZES)
        prediction = _nccl_prediction(collective, size, preset_name)
        times = {name: us * 1e-6 for name, us in prediction.candidates.items() if us >= 0}
        unavailable = [n for n, us in prediction.candidates.items() if us < 0]
        options = _algorithm_options(
            rng,
            times,
            unavailable,
            tolerance,
            distractors,
            (ALGO_TEXT, NCCL_BEST, NCCL_SLOW, NCCL_CANNOT),
        )
        if options is not None:
            break
    else:
        raise RuntimeError("no system and size with enough distinct options in 100 draws")
    pick = f"{prediction.algorithm}/{prediction.protocol}"
    if options[0].params["algo"] != pick:
        raise AssertionError(f"NCCL's pick {pick} is not the fastest entry of its cost table")
    options[0].params["channels"] = prediction.channels
    params = _system_params(preset_name, size, collective)
    params["tol"] = round(tolerance * 100)
    return ChoiceDraw(params, options)


@generator("choose_textbook_algorithm")
def choose_textbook_algorithm(
    rng: random.Random,
    collective: str = "all_reduce",
    tolerance: float = 0.1,
    distractors: int = 3,
) -> ChoiceDraw:
    """The fastest algorithm of the textbook model (:func:`nccl_course.cost.sweep_times`, best
    pipeline depth each) for ``collective`` of a drawn size on all GPUs of a drawn preset, among
    others at least ``tolerance`` slower.

    Params: preset, description, ranks, size, collective, tol; each option: algo, us (and
    slower, best, best_us for a slower one)."""
    for _ in range(100):
        preset_name = rng.choice(_ALGO_PRESETS)
        size = rng.choice(_ALGO_SIZES)
        times = dict(_textbook_times(collective, preset_name, size))
        options = _algorithm_options(
            rng, times, [], tolerance, distractors, (CODE_TEXT, TEXTBOOK_BEST, TEXTBOOK_SLOW, None)
        )
        if options is not None:
            break
    else:
        raise RuntimeError("no system and size with enough distinct options in 100 draws")
    params = _system_params(preset_name, size, collective)
    params["tol"] = round(tolerance * 100)
    return ChoiceDraw(params, options)


__all__ = [
    "GPT3_13B",
    "choose_nccl_algorithm",
    "choose_parallel_layout",
    "choose_textbook_algorithm",
    "why_slower",
]
