"""Turning measured rows into what people read: the nccl-tests-style table, a JSON record with
the environment, an alpha-beta fit, and a plot of busbw against size with a model overlaid."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from nccl_course.cost import busbw_factor, closed_form_time
from nccl_course.units import format_size

#: The closed form each collective's fit and model use (cost.formulas), where one exists;
#: the rest are fitted as t = alpha + S * beta.
MODEL_ALGORITHM = {
    "all_reduce": "ring",
    "all_gather": "ring",
    "reduce_scatter": "ring",
    "all_to_all": "pairwise",
    "broadcast": "ring",
    "reduce": "binomial_tree",
}

HEADER = (
    "#{:>12} {:>13} {:>9} {:>7} {:>6} {:>11} {:>8} {:>8} {:>7}\n"
    "#{:>12} {:>13} {:>9} {:>7} {:>6} {:>11} {:>8} {:>8} {:>7}"
).format(
    "size",
    "count",
    "type",
    "redop",
    "root",
    "time",
    "algbw",
    "busbw",
    "#wrong",
    "(B)",
    "(elements)",
    "",
    "",
    "",
    "(us)",
    "(GB/s)",
    "(GB/s)",
    "",
)


def format_row(row: dict) -> str:
    return (
        f" {row['size']:>12} {row['count']:>13} {row['type']:>9} {row['redop']:>7} "
        f"{row['root']:>6} {row['time_us']:>11.2f} {row['algbw']:>8.3f} {row['busbw']:>8.3f} "
        f"{row['wrong']:>7}"
    )


def format_table(result: dict) -> str:
    """The table nccl-tests prints (one time column: the collective runs in place where torch's
    call is in place, out of place where it is not), with a header naming the run."""
    env = result.get("environment") or {}
    lines = [
        f"# nccl-course bench: {result['collective']} on {result['nranks']} ranks, backend "
        f"{result['backend']}, torch {env.get('torch')}"
        + (f", NCCL {env['nccl_version']}" if env.get("nccl_version") else ""),
        f"# warm-up {result['config']['warmup']}, timed iterations up to "
        f"{result['config']['iters']} per size; time = per call, mean over ranks "
        "(as nccl-tests' default -a 1)",
        HEADER,
    ]
    lines += [format_row(row) for row in result["rows"]]
    rows = result["rows"]
    if rows:
        avg = sum(r["busbw"] for r in rows) / len(rows)
        lines.append(f"# Out of bounds values : {sum(r['wrong'] for r in rows)} (wrong elements)")
        lines.append(f"# Avg bus bandwidth    : {avg:.4g} GB/s")
    return "\n".join(lines)


@dataclass
class AlphaBetaFit:
    """alpha: seconds per message step; beta: seconds per byte (1/bandwidth) in the closed form
    named by ``model``; rms_rel_error: root-mean-square relative error of the fit's times."""

    collective: str
    p: int
    model: str
    alpha_s: float
    beta_s_per_byte: float
    rms_rel_error: float

    @property
    def bandwidth_GBps(self) -> float:
        return math.inf if self.beta_s_per_byte == 0 else 1 / self.beta_s_per_byte / 1e9

    def time(self, size: float) -> float:
        """Seconds the fitted model predicts for a collective of ``size`` bytes."""
        a_term, b_term = _basis(self.collective, size, self.p)
        return self.alpha_s * a_term + self.beta_s_per_byte * b_term

    def as_dict(self) -> dict:
        return {
            "collective": self.collective,
            "p": self.p,
            "model": self.model,
            "alpha_s": self.alpha_s,
            "beta_s_per_byte": self.beta_s_per_byte,
            "bandwidth_GBps": self.bandwidth_GBps,
            "rms_rel_error": self.rms_rel_error,
        }


def _basis(collective: str, size: float, p: int) -> tuple[float, float]:
    """Coefficients of alpha and beta in the model's time: the closed form is linear in both,
    so evaluating it at (alpha=1, beta=0) and (alpha=0, beta=1) gives them."""
    algorithm = MODEL_ALGORITHM.get(collective)
    if algorithm is None:
        return 1.0, float(size)
    return (
        closed_form_time(collective, algorithm, size, p, alpha=1.0, beta=0.0),
        closed_form_time(collective, algorithm, size, p, alpha=0.0, beta=1.0),
    )


def model_name(collective: str) -> str:
    algorithm = MODEL_ALGORITHM.get(collective)
    return f"{collective}/{algorithm}" if algorithm else "alpha + S*beta"


def fit_alpha_beta(
    collective: str, p: int, sizes: Sequence[float], seconds: Sequence[float]
) -> AlphaBetaFit:
    """Least-squares alpha and beta (both >= 0) of the collective's closed form to measured
    times, minimising *relative* error so small and large sizes count alike."""
    import numpy as np

    if len(sizes) != len(seconds) or len(sizes) < 2:
        raise ValueError("fitting alpha and beta needs at least two (size, time) points")
    basis = np.array([_basis(collective, s, p) for s in sizes], dtype=float)
    t = np.asarray(seconds, dtype=float)
    if np.any(t <= 0):
        raise ValueError("measured times must be positive")
    weighted = basis / t[:, None]
    target = np.ones_like(t)
    coef, *_ = np.linalg.lstsq(weighted, target, rcond=None)
    if coef[0] < 0 or coef[1] < 0:
        # The best unconstrained line has a negative term: keep the better one-term fit.
        best = None
        for keep in (0, 1):
            col = weighted[:, keep]
            c = float(col @ target / (col @ col)) if col @ col > 0 else 0.0
            trial = np.zeros(2)
            trial[keep] = max(c, 0.0)
            err = float(np.sum((weighted @ trial - target) ** 2))
            if best is None or err < best[0]:
                best = (err, trial)
        coef = best[1]
    predicted = basis @ coef
    rms = float(np.sqrt(np.mean(((predicted - t) / t) ** 2)))
    return AlphaBetaFit(collective, p, model_name(collective), float(coef[0]), float(coef[1]), rms)


def fit_result(result: dict) -> AlphaBetaFit:
    rows = result["rows"]
    return fit_alpha_beta(
        result["collective"],
        result["nranks"],
        [r["size"] for r in rows],
        [r["time_us"] * 1e-6 for r in rows],
    )


def write_json(result: dict, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, default=str) + "\n", encoding="utf-8")
    return path


def model_busbw(collective: str, p: int, size: float, alpha: float, beta: float) -> float:
    """busbw (GB/s) the alpha-beta model predicts for ``size`` bytes."""
    a_term, b_term = _basis(collective, size, p)
    seconds = alpha * a_term + beta * b_term
    return size / seconds / 1e9 * busbw_factor(collective, p) if seconds > 0 else math.nan


def preset_overlay(collective: str, p: int, preset: str):
    """(label, busbw function of size) for the cost model's prediction on a hardware preset
    (``nccl_course.cost.predict``: the fastest algorithm the model knows at each size)."""
    from nccl_course.cost import predict

    predict(collective, 1024, preset, ranks=p)  # raises ValueError if the model cannot

    def busbw_at(size: float) -> float:
        return predict(collective, int(size), preset, ranks=p).busbw_GBps

    return f"textbook cost model, preset {preset} ({p} ranks)", busbw_at


def nccl_overlay(collective: str, p: int, preset: str):
    """(label, busbw function of size, choice function of size) for NCCL's own model on a
    preset (:func:`nccl_course.cost.nccl.predict`); the choice is "Algorithm/Protocol", which
    :func:`plot` marks where it changes ("P2P/LL" or "P2P/Simple" for all_to_all). ValueError for
    the collectives the model does not price (send_recv, gather, scatter)."""
    from nccl_course.cost.nccl import predict

    first = predict(collective, 1024, preset, ranks=p)  # raises ValueError if it cannot

    def busbw_at(size: float) -> float:
        return predict(collective, int(size), preset, ranks=p).busbw_GBps

    def choice_at(size: float) -> str:
        q = predict(collective, int(size), preset, ranks=p)
        return f"{q.algorithm}/{q.protocol}"

    label = f"NCCL {first.nccl_version} model, preset {preset} ({p} ranks)"
    return label, busbw_at, choice_at


def _mark_choices(ax, grid, choice_at, busbw_at, color) -> None:
    """Name the algorithm/protocol at the first size and wherever it changes along ``grid``."""
    previous = None
    for size in grid:
        choice = choice_at(size)
        if choice != previous:
            ax.plot([size], [busbw_at(size)], "v", color=color)
            ax.annotate(
                choice,
                (size, busbw_at(size)),
                xytext=(3, 6),
                textcoords="offset points",
                fontsize=7,
                color=color,
            )
            previous = choice


def save_figure(fig, path) -> Path:
    """Lay out ``fig``, write it as a PNG at ``path`` (folders made as needed), free it."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def busbw_axes(ax, sizes, title: str, legend_fontsize: int = 7) -> None:
    """The axes of a busbw-against-size plot as nccl-tests' users read it: sizes (bytes) on a
    log2 axis labelled with units, bus bandwidth in GB/s, a grid and the legend."""
    ax.set_xscale("log", base=2)
    ticks = list(sizes)[:: max(1, len(sizes) // 8)]
    ax.set_xticks(ticks)
    ax.set_xticklabels([format_size(s) for s in ticks], rotation=30)
    ax.set_xlabel("size (bytes, as nccl-tests reports it)")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend_fontsize, loc="upper left")


def plot(
    result: dict,
    path: str | Path,
    prediction: dict | None = None,
    overlays: Sequence[tuple] = (),
) -> Path:
    """busbw against size (log scale), measured points, the alpha-beta fit to these points and,
    when given, a prediction ``{"label": str, "alpha_s": float, "beta_s_per_byte": float}``
    made without looking at the measurements, and ``overlays``: (label, busbw-of-size function)
    pairs such as :func:`preset_overlay`, or triples with a choice-of-size function as
    :func:`nccl_overlay` returns, whose changes are marked on the curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = result["rows"]
    collective, p = result["collective"], result["nranks"]
    sizes = np.array([r["size"] for r in rows], dtype=float)
    measured = np.array([r["busbw"] for r in rows], dtype=float)
    grid = np.geomspace(sizes.min(), sizes.max(), 200) if len(sizes) > 1 else sizes
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ax.plot(sizes, measured, "o-", label=f"measured ({result['backend']}, {p} ranks)")
    if len(rows) >= 2:
        fit = fit_result(result)
        curve = [model_busbw(collective, p, s, fit.alpha_s, fit.beta_s_per_byte) for s in grid]
        ax.plot(
            grid,
            curve,
            "--",
            label=(
                f"alpha-beta FIT to these measurements ({fit.model}): "
                f"alpha={fit.alpha_s * 1e6:.3g} us, 1/beta={fit.bandwidth_GBps:.3g} GB/s"
            ),
        )
    if prediction is not None:
        curve = [
            model_busbw(collective, p, s, prediction["alpha_s"], prediction["beta_s_per_byte"])
            for s in grid
        ]
        ax.plot(grid, curve, ":", label=f"cost-model prediction: {prediction['label']}")
    for label, busbw_at, *choice in overlays:
        line = ax.plot(grid, [busbw_at(s) for s in grid], "-.", label=label)[0]
        if choice:
            _mark_choices(ax, grid, choice[0], busbw_at, line.get_color())
    busbw_axes(ax, sizes, f"{collective}: busbw vs size", legend_fontsize=7)
    return save_figure(fig, path)
