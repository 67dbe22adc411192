"""busbw against size for the report: the measurement and, when there is one, NCCL's tuner
model on a fine grid of sizes, with the model's algorithm/protocol named where it changes.

Drawn with matplotlib's object API (no pyplot state, the Agg canvas) into PNG bytes that the
page embeds as a data URI. Text from the bundle never reaches the figure except the backend
name, reduced to letters and digits (matplotlib reads ``$...$`` as math).

Units: bytes on a log2 axis, GB/s (1e9 bytes/s).
"""

from __future__ import annotations

import io
import math
import re

from nccl_course.bench.report import busbw_axes
from nccl_course.results.bundle import BenchRecord
from nccl_course.results.model_choice import PricedModel

GRID_POINTS = 200


def _grid(lo: int, hi: int) -> list[int]:
    """About GRID_POINTS whole sizes spaced evenly on a log scale from ``lo`` to ``hi``."""
    if hi <= lo:
        return [lo]
    step = (math.log(hi) - math.log(lo)) / (GRID_POINTS - 1)
    sizes = {round(math.exp(math.log(lo) + i * step)) for i in range(GRID_POINTS)}
    return sorted(sizes | {lo, hi})


def busbw_png(bench: BenchRecord, model: PricedModel | None) -> bytes | None:
    """The plot as PNG bytes; None when the record has no rows."""
    from matplotlib.figure import Figure

    rows = [r for r in bench.rows if math.isfinite(r.busbw)]
    if not rows:
        return None
    sizes = [r.size for r in rows]
    fig = Figure(figsize=(8, 4.5))
    ax = fig.subplots()
    backend = re.sub(r"[^A-Za-z0-9]", "", bench.backend)[:16] or "?"
    ax.plot(
        sizes, [r.busbw for r in rows], "o-", label=f"measured ({backend}, {bench.nranks} ranks)"
    )
    if model is not None:
        grid, curve, previous = [], [], None
        for size in _grid(sizes[0], sizes[-1]):
            point = model.at(size)
            if point.busbw_GBps is None:
                continue
            grid.append(size)
            curve.append(point.busbw_GBps)
            choice = f"{point.algorithm}/{point.protocol}"
            if choice != previous:  # name NCCL's pick where it changes
                ax.plot([size], [point.busbw_GBps], "v", color="tab:red")
                ax.annotate(
                    choice,
                    (size, point.busbw_GBps),
                    xytext=(3, 6),
                    textcoords="offset points",
                    fontsize=7,
                    color="tab:red",
                )
                previous = choice
        if grid:
            ax.plot(grid, curve, "-.", color="tab:red", label=model.label)
    name = bench.collective if bench.collective.isidentifier() else "collective"
    busbw_axes(ax, sizes, f"{name}: busbw vs size", legend_fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()
