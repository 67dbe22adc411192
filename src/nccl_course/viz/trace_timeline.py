"""A profiler trace drawn as a timeline: backward compute, all-reduces, and the exposed part.

``plot_overlap_timeline({"label": [rank 0's trace, rank 1's trace, ...], ...})`` draws one panel
per configuration and two rows per rank: the backward compute and the communication events
(``nccl_course.viz.trace_events`` decides which events are which), with the communication that
runs beside no compute marked as exposed. Times are milliseconds from the earliest start of a
``backward`` annotation in the panel (all ranks of a trace ran on one host, so their clocks
agree). ``recorded_traces(config)`` loads the traces the course keeps in ``recorded_traces/``,
recorded by lab 10's solution on gloo.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.numbers import format_number
from nccl_course.viz.trace_events import (
    Trace,
    communication,
    compute,
    difference,
    load_trace,
    overlap,
    union,
)

RECORDED = Path(__file__).with_name("recorded_traces")
#: Configurations kept in RECORDED, in the order the book shows them.
RECORDED_CONFIGS = ("serialized", "overlapped")
#: Panel titles of the recorded configurations (others are shown by their label).
CONFIG_TITLES = {
    "serialized": N_("one bucket (bucket_cap_mb=100)"),
    "overlapped": N_("one bucket per layer (bucket_cap_mb=1)"),
}
COMPUTE_COLOR, COMM_COLOR, EXPOSED_COLOR = "#4c72b0", "#dd8452", "#c44e52"


def recorded_traces(config: str) -> list[Trace]:
    """The course's recorded traces of ``config`` ("serialized" or "overlapped"), by rank."""
    paths = sorted(RECORDED.glob(f"ddp-gloo-{config}-rank*.json"))
    if not paths:
        known = ", ".join(RECORDED_CONFIGS)
        raise FileNotFoundError(
            f"no recorded traces named {config!r} in {RECORDED} (known: {known})"
        )
    return [load_trace(p) for p in paths]


def _origin_us(traces: Sequence[Trace]) -> float:
    starts = [e.start_us for t in traces for e in t.named("backward")]
    if not starts:
        starts = [e.start_us for t in traces for e in compute(t) + communication(t)]
    if not starts:
        raise ValueError(
            "the traces hold neither a backward annotation nor any compute or communication"
        )
    return min(starts)


def plot_overlap_timeline(configs: Mapping[str, Sequence[Trace]], *, lang: str = "en"):
    """One panel per configuration (label -> traces by rank); returns the figure."""
    tr = translator(lang)
    fig, axes = plt.subplots(
        len(configs), 1, figsize=(9, 1.2 + 1.5 * sum(map(len, configs.values())))
    )
    axes = [axes] if len(configs) == 1 else list(axes)
    for ax, (label, traces) in zip(axes, configs.items(), strict=True):
        origin = _origin_us(traces)
        rows, exposed_ms = [], []
        for rank, trace in enumerate(traces):
            work = union(e.interval for e in compute(trace))
            comm = union(e.interval for e in communication(trace))
            exposed = difference(comm, work)
            exposed_ms.append(overlap(trace).exposed_us / 1e3)
            y_compute, y_comm = 2 * (len(traces) - 1 - rank) + 1, 2 * (len(traces) - 1 - rank)
            for spans, y, color in (
                (work, y_compute, COMPUTE_COLOR),
                (comm, y_comm, COMM_COLOR),
                (exposed, y_comm, EXPOSED_COLOR),
            ):
                bars = [((s - origin) / 1e3, (e - s) / 1e3) for s, e in spans]
                ax.broken_barh(bars, (y + 0.15, 0.7), facecolors=color)
            # "rank N" is a kept term (as on the other figures); only the row's kind is text
            who = f"rank {rank}"
            rows += [
                (y_compute, tr(N_("{who} backward")).format(who=who)),
                (y_comm, tr(N_("{who} all-reduce")).format(who=who)),
            ]
        ax.set_yticks([y + 0.5 for y, _ in rows], [text for _, text in rows])
        exposed_text = " / ".join(format_number(ms, lang, digits=1) for ms in exposed_ms)
        name = tr(CONFIG_TITLES[label]) if label in CONFIG_TITLES else label
        ax.set_title(
            tr(N_("{name}: exposed all-reduce per rank {values} ms")).format(
                name=name, values=exposed_text
            ),
            fontsize=10,
        )
        ax.set_xlim(left=0)
        ax.grid(axis="x", alpha=0.3)
    axes[-1].set_xlabel(tr(N_("time from the start of backward (ms)")))
    fig.legend(
        handles=[
            Patch(color=COMPUTE_COLOR, label=tr(N_("backward compute"))),
            Patch(color=COMM_COLOR, label=tr(N_("all-reduce beside compute"))),
            Patch(color=EXPOSED_COLOR, label=tr(N_("exposed all-reduce"))),
        ],
        loc="lower center",
        ncol=3,
        frameon=False,
        bbox_to_anchor=(0.5, -0.02),
    )
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def plot_recorded_timeline(*, lang: str = "en"):
    """The course's recorded traces, one bucket above one bucket per layer (for the book)."""
    return plot_overlap_timeline({c: recorded_traces(c) for c in RECORDED_CONFIGS}, lang=lang)
