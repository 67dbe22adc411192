"""A published sweep against a model, for a reader: a markdown table and a busbw plot of a
:class:`~nccl_course.cost.sweeps.SweepComparison` (the comparison itself is in
:mod:`nccl_course.cost.sweeps`).

Units: bytes, microseconds, GB/s = 1e9 bytes/s.
"""

from __future__ import annotations

from nccl_course.cost.sweeps import MEDIAN_FROM_BYTES, SweepComparison, choice_label


def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def render_table(comparison: SweepComparison) -> list[str]:
    """The comparison as markdown table lines (plain strings, no DataFrame): per size the
    measured and predicted time (us; a derived measured time is marked *) and busbw (GB/s),
    the relative errors and the predictor's choice; then the median and the switch points."""
    from nccl_course.units import format_size

    lines = [
        "| size | time us | model us | err | busbw GB/s | model GB/s | err | model runs |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | :--- |",
    ]
    for row in comparison.rows:
        t = _fmt(None if row.measured_time_s is None else row.measured_time_s * 1e6, ".1f")
        if row.time_derived and row.measured_time_s is not None:
            t += "*"
        lines.append(
            f"| {format_size(row.size_bytes)} | {t} | {row.predicted_time_s * 1e6:.1f} | "
            f"{_fmt(row.time_rel_error, '+.0%')} | {_fmt(row.measured_busbw_GBps, '.2f')} | "
            f"{row.predicted_busbw_GBps:.2f} | {_fmt(row.busbw_rel_error, '+.0%')} | "
            f"{choice_label(row) or '-'} |"
        )
    med = comparison.median_abs_busbw_error
    lines.append("")
    lines.append(
        f"median |busbw error| from {format_size(MEDIAN_FROM_BYTES)}: {_fmt(med, '.1%')}"
        " (* measured time derived from a printed bandwidth)"
    )
    for label, points in (
        ("reported switch points", comparison.reported_switch_points),
        ("predicted switch points", comparison.predicted_switch_points),
    ):
        text = "; ".join(
            f"{p.before} up to {format_size(p.last_bytes)}, {p.after} from "
            f"{format_size(p.first_bytes)}"
            for p in points
        )
        lines.append(f"{label}: {text or 'none'}")
    return lines


def plot_comparison(comparison: SweepComparison, ax=None, *, lang: str = "en"):
    """Measured and predicted busbw (GB/s) against size (bytes, log x); returns the Figure.
    The labels and legend are in ``lang`` (the title is the sweep's own, as its file has it)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import ScalarFormatter

    from nccl_course.i18n.interface import N_, translator
    from nccl_course.i18n.numbers import localize_decimals

    tr = translator(lang)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    measured = [(r.size_bytes, r.measured_busbw_GBps) for r in comparison.rows]
    measured = [(s, b) for s, b in measured if b is not None]
    if measured:
        sizes, values = zip(*measured, strict=True)
        ax.plot(sizes, values, "o-", label=tr(N_("published")))
    ax.plot(
        [r.size_bytes for r in comparison.rows],
        [r.predicted_busbw_GBps for r in comparison.rows],
        "s--",
        label=tr(N_("model")),
    )
    ax.set_xscale("log", base=2)
    ax.set_xlabel(tr(N_("size (bytes)")))
    ax.set_ylabel("busbw (GB/s)")
    if lang != "en":  # the busbw axis's numbers with the language's decimal separator

        class Localized(ScalarFormatter):
            def __call__(self, x, pos=None):
                return localize_decimals(super().__call__(x, pos), lang)

        ax.yaxis.set_major_formatter(Localized())
    ax.set_title(comparison.sweep.title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return ax.figure
