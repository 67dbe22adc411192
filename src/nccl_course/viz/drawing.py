"""Step diagrams of schedules: ranks as boxes, chunks coloured by the rank their data came from.

A chunk whose data is the sum of several ranks' contributions is drawn as stripes, one per
contributing rank; a chunk that holds every rank's contribution gets a thick outline. Copies are
drawn as solid blue arrows, reductions as dashed orange arrows marked "+".

Every drawing takes ``lang`` (a language of the book): its titles, labels and legends are
marked with ``N_`` and shown in that language, numbers with its decimal separator. Code names
(collectives, algorithms, ``p=``, ``rank``) stay as they are.
"""

from __future__ import annotations

import io
import math

import matplotlib
import matplotlib.text
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, Rectangle

from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.numbers import localize_decimals
from nccl_course.sim import build_schedule
from nccl_course.sim.execute import provenance_states
from nccl_course.sim.layout import required
from nccl_course.sim.registry import ALGORITHMS
from nccl_course.sim.schedule import Schedule

COPY_COLOR = "#1f5fa8"
REDUCE_COLOR = "#d9661f"
MAX_DRAWN_RANKS = 32
MAX_DRAWN_CHUNKS = 64


# The book's content column is 688 px wide in a 1280 px window (sphinx-book-theme 1.3, measured
# in chromium); a wider PNG is scaled down to it. Text must stay at least MIN_TEXT_PX tall there.
BOOK_WIDTH_PX = 688
MIN_TEXT_PX = 10.0


def labeller(lang: str):
    """``say(text, **fields)``: ``text`` (a string marked with ``N_``) in ``lang`` with its
    ``{field}`` templates filled in, numbers written as ``lang`` writes them (1,5 in Turkish)."""
    tr = translator(lang)

    def say(text: str, **fields) -> str:
        return localize_decimals(tr(text, **fields), lang)

    return say


def shown_scale(fig) -> float:
    """How much the book scales ``fig``'s PNG (at ``fig.dpi``) down: 1 if it fits the column."""
    return min(1.0, BOOK_WIDTH_PX / (fig.get_figwidth() * fig.dpi))


def make_text_readable(fig) -> None:
    """Enlarge every text of ``fig`` that would be under MIN_TEXT_PX pixels in the book."""
    smallest_pt = MIN_TEXT_PX * 72 / (fig.dpi * shown_scale(fig))
    for text in fig.findobj(matplotlib.text.Text):
        if text.get_text() and text.get_fontsize() < smallest_pt:
            text.set_fontsize(smallest_pt)
    # Tick labels are made again when the figure is drawn, from the axis's tick settings.
    for ax in fig.axes:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            labels = axis.get_majorticklabels()
            size = labels[0].get_fontsize() if labels else smallest_pt
            ax.tick_params(axis=name, which="both", labelsize=max(size, smallest_pt))


class CourseFigure(Figure):
    """A Figure that renders itself as PNG in Jupyter (``_repr_png_``). The package makes its
    figures without pyplot, so a notebook shows one exactly once: when a cell returns or
    displays it (a pyplot figure would also be shown at the end of the cell, i.e. twice)."""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", dpi=self.dpi)
        return buffer.getvalue()


def new_figure(*grid, figsize):
    """A :class:`CourseFigure` and its axes (``grid``: rows, columns as for subplots)."""
    fig = CourseFigure(figsize=figsize, dpi=100)
    return fig, fig.subplots(*grid)


def rank_color(rank: int, p: int):
    """The colour of rank ``rank``'s data (tab10 up to 10 ranks, tab20 up to 20, then hsv)."""
    if p <= 10:
        return matplotlib.colormaps["tab10"](rank)
    if p <= 20:
        return matplotlib.colormaps["tab20"](rank)
    return matplotlib.colormaps["hsv"](rank / p)


def _box_positions(p: int) -> np.ndarray:
    """Centres of the rank boxes: a circle, so that ring arrows read as a ring."""
    if p == 1:
        return np.array([[0.0, 0.0]])
    angle = np.pi / 2 - 2 * np.pi * np.arange(p) / p
    return np.stack([np.cos(angle), np.sin(angle)], axis=1)


def _draw_slot(ax, x, y, w, h, contributions, p, full, patches=None):
    """One chunk slot: stripes of contributor colours (empty slot: white). With ``patches`` (a
    list) the rectangles are collected there instead of added one by one (much faster)."""
    own = patches is None
    patches = [] if own else patches
    who = np.flatnonzero(contributions)
    if who.size == 0:
        patches.append(Rectangle((x, y), w, h, facecolor="white", edgecolor="#bbbbbb", lw=0.5))
    else:
        stripe = w / who.size
        for i, q in enumerate(who):
            patches.append(
                Rectangle((x + i * stripe, y), stripe, h, facecolor=rank_color(q, p), lw=0)
            )
        edge = "black" if (full and p > 1) else "#555555"
        patches.append(
            Rectangle((x, y), w, h, fill=False, edgecolor=edge, lw=1.6 if full and p > 1 else 0.5)
        )
    if own:
        ax.add_collection(PatchCollection(patches, match_original=True))


def _draw_rank_boxes(ax, schedule: Schedule, held, contrib, centres, box_w, box_h, written):
    p, num_chunks = schedule.p, schedule.num_chunks
    shown = min(num_chunks, MAX_DRAWN_CHUNKS)
    cols = min(shown, 8 if shown > 16 else shown)
    rows = math.ceil(shown / cols)
    slot_w = box_w * 0.9 / cols
    slot_h = min(box_h * 0.62 / rows, slot_w * 1.4)
    patches = []
    for r in range(p):
        cx, cy = centres[r]
        patches.append(
            Rectangle(
                (cx - box_w / 2, cy - box_h / 2),
                box_w,
                box_h,
                facecolor="#f4f4f4",
                edgecolor="#333333",
                lw=1.0,
            )
        )
        ax.text(cx, cy + box_h / 2 - 0.02, f"rank {r}", ha="center", va="top", fontsize=7)
        top = cy + box_h / 2 - 0.30 * box_h
        for c in range(shown):
            i, j = divmod(c, cols)
            x = cx - box_w * 0.45 + j * slot_w
            y = top - (i + 1) * slot_h
            if held[r, c]:
                full = np.count_nonzero(contrib[r, c]) == p
                _draw_slot(ax, x, y, slot_w, slot_h, contrib[r, c], p, full, patches)
            else:
                _draw_slot(ax, x, y, slot_w, slot_h, np.zeros(p), p, False, patches)
            if written is not None and written[r, c]:
                patches.append(
                    Rectangle((x, y), slot_w, slot_h, fill=False, edgecolor="red", lw=1.2)
                )
    ax.add_collection(PatchCollection(patches, match_original=True))


def _draw_arrows(ax, step, centres, box_w, box_h):
    pairs: dict[tuple[int, int], list[int]] = {}
    for t in step:
        entry = pairs.setdefault((t.src, t.dst), [0, 0])
        entry[0] += 1
        entry[1] += int(t.reduce)
    for (s, d), (n, n_red) in pairs.items():
        a, b = centres[s], centres[d]
        direction = (b - a) / (np.linalg.norm(b - a) or 1.0)
        shrink = 0.5 * min(box_w, box_h)
        start, end = a + direction * shrink, b - direction * shrink
        reduce = n_red > 0
        arrow = FancyArrowPatch(
            start,
            end,
            arrowstyle="-|>",
            mutation_scale=9,
            color=REDUCE_COLOR if reduce else COPY_COLOR,
            linestyle="--" if reduce else "-",
            lw=1.3,
            connectionstyle="arc3,rad=0.18",
            zorder=5,
        )
        ax.add_patch(arrow)
        mid = (start + end) / 2
        label = ("+" if reduce else "") + (f"{n}" if n > 1 else "")
        if label:
            ax.text(
                mid[0],
                mid[1],
                label,
                fontsize=6,
                color=REDUCE_COLOR if reduce else COPY_COLOR,
                ha="center",
                va="center",
                zorder=6,
                bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.8),
            )


def _legend(ax, say):
    handles = [
        Line2D([], [], color=COPY_COLOR, lw=1.3, label=say(N_("copy"))),
        Line2D([], [], color=REDUCE_COLOR, lw=1.3, ls="--", label=say(N_("reduce (+)"))),
        Rectangle(
            (0, 0), 1, 1, fill=False, edgecolor="red", lw=1.2, label=say(N_("written this step"))
        ),
    ]
    ax.legend(
        handles=handles,
        loc="lower center",
        bbox_to_anchor=(0.5, -0.04),
        ncol=3,
        fontsize=7,
        frameon=False,
    )


def draw_schedule_state(ax, schedule: Schedule, states, step: int, *, lang: str = "en") -> None:
    """Draw the data after ``step`` steps (0 = before any) and the transfers of the next step
    on ``ax``, labelled in ``lang``. ``states``: from
    :func:`nccl_course.sim.execute.provenance_states`."""
    say = labeller(lang)
    p = schedule.p
    if p > MAX_DRAWN_RANKS:
        raise ValueError(f"too many ranks to draw ({p}); draw at most {MAX_DRAWN_RANKS}")
    ax.clear()
    ax.set_aspect("equal")
    ax.axis("off")
    scale = 1.0 + 0.06 * max(0, p - 8)
    centres = _box_positions(p) * scale
    box_w = min(0.9, 3.6 * scale / max(p, 4))
    box_h = box_w * 0.75
    held, contrib = states[step]
    written = None
    if step > 0:
        before_held, before = states[step - 1]
        written = (contrib != before).any(axis=2) | (held & ~before_held)
    _draw_rank_boxes(ax, schedule, held, contrib, centres, box_w, box_h, written)
    if step < schedule.num_steps:
        _draw_arrows(ax, schedule.steps[step], centres, box_w, box_h)
        title = say(
            N_("step {step} of {steps}: transfers (data before the step)"),
            step=step + 1,
            steps=schedule.num_steps,
        )
    else:
        title = say(N_("after the last step ({steps} steps)"), steps=schedule.num_steps)
    name = f"{schedule.collective} / {schedule.algorithm}, p={p}"
    if schedule.chunks > 1:
        name += f", k={schedule.chunks}"
    ax.set_title(f"{name}\n{title}", fontsize=9)
    lim = scale + box_w
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim - 0.15, lim)
    _legend(ax, say)
    make_text_readable(ax.figure)


def draw_schedule(schedule: Schedule, *, step: int | None = None, ax=None, lang: str = "en"):
    """A step diagram of ``schedule``, labelled in ``lang``.

    ``step=i`` (0-based): the data each rank holds before step i and the transfers of step i;
    ``step=num_steps``: the final data. ``step=None``: an overview of every step, one row per
    step and one column per rank, with an arrow for each message. Returns the Figure.
    """
    if step is not None:
        if not 0 <= step <= schedule.num_steps:
            raise ValueError(f"step must be 0..{schedule.num_steps}, got {step}")
        if ax is None:
            size = 5.0 + 0.08 * max(0, schedule.p - 8)
            fig, ax = new_figure(figsize=(size, size))
        else:
            fig = ax.figure
        draw_schedule_state(ax, schedule, provenance_states(schedule), step, lang=lang)
        return fig
    return _draw_overview(schedule, ax, labeller(lang))


def _draw_overview(schedule: Schedule, ax, say):
    p, steps = schedule.p, schedule.steps
    shown = steps[:60]
    if ax is None:
        fig, ax = new_figure(figsize=(max(4.0, 0.45 * p + 1.5), max(2.0, 0.35 * len(shown) + 1)))
    else:
        fig = ax.figure
    for r in range(p):
        ax.axvline(r, color=rank_color(r, p), lw=2, alpha=0.35, zorder=0)
    for i, step in enumerate(shown):
        seen = {}
        for t in step:
            seen.setdefault((t.src, t.dst), [0, False])
            seen[(t.src, t.dst)][0] += 1
            seen[(t.src, t.dst)][1] |= t.reduce
        for (s, d), (_count, red) in seen.items():
            ax.annotate(
                "",
                xy=(d, i + 0.35),
                xytext=(s, i - 0.35),
                arrowprops=dict(
                    arrowstyle="-|>",
                    color=REDUCE_COLOR if red else COPY_COLOR,
                    ls="--" if red else "-",
                    lw=1.0,
                    shrinkA=0,
                    shrinkB=0,
                ),
            )
    ax.set_xlim(-0.6, p - 0.4)
    ax.set_ylim(len(shown) - 0.4, -0.6)
    ax.set_xticks(range(p))
    ax.set_xlabel("rank")
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([str(i + 1) for i in range(len(shown))], fontsize=7)
    ax.set_ylabel(say(N_("step")))
    name = f"{schedule.collective} / {schedule.algorithm}, p={p}"
    if len(steps) > len(shown):
        what = say(
            N_("{name}: messages per step (first {shown} of {steps} steps)"),
            name=name,
            shown=len(shown),
            steps=len(steps),
        )
    else:
        what = say(N_("{name}: messages per step"), name=name)
    key = say(N_("solid blue: copy, dashed orange: reduce"))
    ax.set_title(f"{what}\n{key}", fontsize=9)
    make_text_readable(fig)
    fig.tight_layout()
    return fig


def _buffer_grid(ax, held, contrib, needed, p, title, empty):
    """Rows = ranks, cells = the chunks a rank holds (before) or needs (after)."""
    ax.set_title(title, fontsize=9)
    ax.axis("off")
    width = max(int(needed.sum(axis=1).max(initial=1)), int(held.sum(axis=1).max(initial=1)))
    patches = []
    for r in range(p):
        cells = np.flatnonzero(needed[r])
        y = p - 1 - r
        ax.text(-0.3, y + 0.4, f"rank {r}", ha="right", va="center", fontsize=7)
        if cells.size == 0:
            ax.text(0, y + 0.4, empty, fontsize=7, color="#777777", va="center")
        for j, c in enumerate(cells):
            full = held[r, c] and np.count_nonzero(contrib[r, c]) == p and p > 1
            values = contrib[r, c] if held[r, c] else np.zeros(p)
            _draw_slot(ax, j, y, 0.9, 0.8, values, p, full, patches)
    ax.add_collection(PatchCollection(patches, match_original=True))
    ax.set_xlim(-2.2, max(width, 1) + 0.2)
    ax.set_ylim(-0.3, p + 0.1)


def draw_before_after(
    collective: str, p: int, *, algorithm: str | None = None, root: int = 0, lang: str = "en"
):
    """The data of every rank before and after ``collective`` on ``p`` ranks: each cell is a
    chunk, coloured by the rank(s) whose input it holds (stripes: a sum). Titles in ``lang``.
    Returns the Figure."""
    if collective not in ALGORITHMS:
        raise ValueError(f"unknown collective {collective!r}; known: {', '.join(ALGORITHMS)}")
    algorithm = algorithm or ALGORITHMS[collective][0]
    schedule = build_schedule(collective, algorithm, p, root=root)
    states = provenance_states(schedule)
    held0, contrib0 = states[0]
    held1, contrib1 = states[-1]
    needed = required(collective, p, schedule.chunks, schedule.num_chunks, schedule.root)
    fig, (left, right) = new_figure(1, 2, figsize=(9, 0.45 * p + 1.4))
    say = labeller(lang)
    before = say(N_("{collective}: before (inputs)"), collective=collective)
    _buffer_grid(left, held0, contrib0, held0, p, before, say(N_("(no input)")))
    _buffer_grid(
        right, held1, contrib1, needed, p, say(N_("after (outputs)")), say(N_("(no output)"))
    )
    make_text_readable(fig)
    fig.tight_layout()
    return fig
