"""Figure text stays readable at the book's width: every text of every kind of figure the
package draws is at least MIN_TEXT_PX pixels tall once the book has scaled the PNG to its column."""

from __future__ import annotations

import matplotlib
import matplotlib.text
import pytest

from nccl_course.sim import build_schedule
from nccl_course.viz.drawing import (
    BOOK_WIDTH_PX,
    MIN_TEXT_PX,
    draw_before_after,
    draw_schedule,
    shown_scale,
)
from nccl_course.viz.plots import plot_algorithm_comparison, plot_time_vs_ranks

matplotlib.use("Agg")


def shown_text_px(fig) -> list[tuple[float, str]]:
    """(height in book pixels, text) of every visible text, after drawing the figure."""
    fig.canvas.draw()
    scale = shown_scale(fig)
    return [
        (t.get_fontsize() * fig.dpi / 72 * scale, t.get_text())
        for t in fig.findobj(matplotlib.text.Text)
        if t.get_text() and t.get_visible()
    ]


FIGURES = {
    "comparison": lambda: plot_algorithm_comparison("all_reduce", "h100-nvlink"),
    "time vs ranks": lambda: plot_time_vs_ranks("all_reduce", "pcie-gen5", 65536),
    "step": lambda: draw_schedule(build_schedule("all_reduce", "ring", 8), step=2),
    "overview": lambda: draw_schedule(build_schedule("broadcast", "binomial_tree", 8)),
    "before/after": lambda: draw_before_after("all_to_all", 4),
}


@pytest.mark.parametrize("name", FIGURES)
def test_text_is_readable_in_the_book(name):
    fig = FIGURES[name]()
    sizes = shown_text_px(fig)
    assert sizes, "no text found"
    small = [(round(px, 1), text) for px, text in sizes if px < MIN_TEXT_PX - 1e-6]
    assert not small, f"{name}: text under {MIN_TEXT_PX} px at {BOOK_WIDTH_PX} px wide: {small}"


def test_the_scale_is_the_book_column_over_the_png_width():
    fig = plot_algorithm_comparison("all_reduce", "h100-nvlink")  # 11 in at 100 dpi
    assert shown_scale(fig) == pytest.approx(BOOK_WIDTH_PX / 1100)
