"""Algorithm comparisons on a preset: time and busbw versus message size (log-log), with the
sizes where the fastest algorithm changes marked. Titles and labels in the ``lang`` given."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from nccl_course.cost.busbw import busbw_factor
from nccl_course.cost.model import algorithms_for, crossovers, sweep_times
from nccl_course.cost.presets import get_preset
from nccl_course.i18n.interface import N_
from nccl_course.i18n.numbers import format_number, localize_decimals
from nccl_course.units import format_size
from nccl_course.viz.drawing import labeller, make_text_readable, new_figure


def _plain_log_axes(ax, sizes_on_x: bool = True, lang: str = "en") -> None:
    """Log axes with plain tick labels (binary units on a size axis): readable, and much faster
    to draw than matplotlib's default mathtext labels. Numbers as ``lang`` writes them."""
    if sizes_on_x:
        ticks = [1024**i for i in range(0, 5)]
        ax.xaxis.set_major_locator(FixedLocator(ticks))
        ax.xaxis.set_major_formatter(
            FuncFormatter(lambda v, _: localize_decimals(format_size(v), lang))
        )
    else:
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: format_number(v, lang, sig_figs=6)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: format_number(v, lang, sig_figs=6)))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())


DEFAULT_SIZES = np.logspace(np.log10(8), np.log10(16 * 1024**3), 50)


def comparison_data(collective: str, preset, sizes=None, ranks=None, algorithms=None) -> dict:
    """{algorithm: seconds per size} and the switch points of the fastest algorithm:
    returns dict(sizes, times, best, switches=[(size, from_algo, to_algo)])."""
    preset = get_preset(preset)
    sizes = np.asarray(DEFAULT_SIZES if sizes is None else sizes, dtype=float)
    algorithms = tuple(algorithms or algorithms_for(collective, preset))
    times = {a: sweep_times(collective, a, sizes, preset, ranks=ranks)[0] for a in algorithms}
    table = np.stack([times[a] for a in algorithms])
    best = np.argmin(table, axis=0)
    switches = []
    for i in np.flatnonzero(best[1:] != best[:-1]):
        a, b = algorithms[best[i]], algorithms[best[i + 1]]
        points = crossovers(sizes[i : i + 2], times[a][i : i + 2], times[b][i : i + 2])
        switches.append((points[0] if points else float(sizes[i + 1]), a, b))
    return dict(
        sizes=sizes,
        times=times,
        best=[algorithms[j] for j in best],
        switches=switches,
        ranks=get_preset(preset).ranks if ranks is None else int(ranks),
    )


def plot_algorithm_comparison(
    collective: str, preset, sizes=None, ranks=None, algorithms=None, *, lang: str = "en"
):
    """Two log-log panels, time and busbw versus size, one line per algorithm, with dotted
    lines where the fastest algorithm changes; labelled in ``lang``. Returns the Figure."""
    say = labeller(lang)
    preset = get_preset(preset)
    data = comparison_data(collective, preset, sizes, ranks, algorithms)
    sizes, p = data["sizes"], data["ranks"]
    fig, (ax_t, ax_b) = new_figure(1, 2, figsize=(11, 4.2))
    for algo, t in data["times"].items():
        ax_t.loglog(sizes, t * 1e6, label=algo)
        if collective != "barrier" and p > 1:
            bus = sizes / t / 1e9 * busbw_factor(collective, p)
            ax_b.loglog(sizes, bus, label=algo)
    for i, (size, a, b) in enumerate(data["switches"]):
        for ax in (ax_t, ax_b):
            ax.axvline(size, color="grey", ls=":", lw=1)
        ax_t.annotate(
            f"{a}\u2192{b}\n{localize_decimals(format_size(size), lang)}",
            xy=(size, ax_t.get_ylim()[1]),
            xytext=(3, -4 - 22 * i),  # stacked, so that close switch points stay readable
            textcoords="offset points",
            fontsize=7,
            va="top",
        )
    ax_t.set_xlabel(say(N_("size (bytes, nccl-tests convention)")))
    ax_t.set_ylabel(say(N_("time (us)")))
    ax_b.set_xlabel(say(N_("size (bytes)")))
    ax_b.set_ylabel("busbw (GB/s)")
    ax_t.set_title(
        say(
            N_("{collective} on {preset}, {ranks} ranks: time"),
            collective=collective,
            preset=preset.name,
            ranks=p,
        ),
        fontsize=9,
    )
    ax_b.set_title(say(N_("bus bandwidth (nccl-tests factor)")), fontsize=9)
    for ax in (ax_t, ax_b):
        ax.grid(True, which="major", alpha=0.3)
        _plain_log_axes(ax, lang=lang)
        ax.set_xlim(sizes[0], sizes[-1])
    ax_t.legend(fontsize=7)
    make_text_readable(fig)
    fig.tight_layout()
    return fig


def plot_time_vs_ranks(
    collective: str, preset, size_bytes: int, ranks=None, algorithms=None, *, lang: str = "en"
):
    """Time versus rank count at one size, one line per algorithm (log-log), labelled in
    ``lang``. Returns the Figure."""
    say = labeller(lang)
    preset = get_preset(preset)
    ranks = list(ranks or [2, 4, 8, 16, 32, 64])
    algorithms = tuple(algorithms or algorithms_for(collective, preset))
    fig, ax = new_figure(figsize=(6, 4))
    for algo in algorithms:
        t = [sweep_times(collective, algo, [size_bytes], preset, ranks=p)[0][0] for p in ranks]
        ax.loglog(ranks, np.asarray(t) * 1e6, marker="o", label=algo)
    ax.set_xlabel(say(N_("ranks")))
    ax.set_ylabel(say(N_("time (us)")))
    title = N_("{collective}, {size} on {preset}")
    ax.set_title(
        say(title, collective=collective, size=format_size(size_bytes), preset=preset.name),
        fontsize=9,
    )
    ax.grid(True, alpha=0.3)
    _plain_log_axes(ax, sizes_on_x=False, lang=lang)
    ax.set_xticks(ranks)
    ax.legend(fontsize=7)
    make_text_readable(fig)
    fig.tight_layout()
    return fig
