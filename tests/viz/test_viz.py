"""Drawings, the offline animation player and the comparison plots."""

from __future__ import annotations

import re

import pytest
from matplotlib.figure import Figure

from nccl_course.sim import build_schedule
from nccl_course.viz import (
    algorithm_comparison_explorer,
    animation_html,
    comparison_data,
    draw_before_after,
    draw_schedule,
    make_self_contained,
    plot_algorithm_comparison,
    schedule_explorer,
)


def test_draw_schedule_step_and_overview():
    schedule = build_schedule("all_reduce", "ring", 4)
    fig = draw_schedule(schedule, step=1)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert "step 2 of 6" in ax.get_title()
    # one arrow per message of the step: 4 reductions around the ring
    assert sum(type(p).__name__ == "FancyArrowPatch" for p in ax.patches) == 4
    overview = draw_schedule(schedule)
    # one annotation arrow per message: 6 steps x 4 messages
    assert len(overview.axes[0].texts) == 24
    assert "messages per step" in overview.axes[0].get_title()
    with pytest.raises(ValueError, match="step must be"):
        draw_schedule(schedule, step=7)


def test_before_after_has_both_panels():
    fig = draw_before_after("all_to_all", 3)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith("all_to_all: before") and titles[1].startswith("after")


def test_animation_is_self_contained_with_one_frame_per_step():
    schedule = build_schedule("all_reduce", "ring", 3)
    html = animation_html(schedule, dpi=40)
    frames = re.findall(r"data:image/png;base64,", html)
    assert len(frames) == schedule.num_steps + 1
    assert "http://" not in html and "https://" not in html and "font-awesome" not in html
    assert 'title="Play"' in html


def test_make_self_contained_refuses_leftover_urls():
    with pytest.raises(ValueError):
        make_self_contained('<script src="https://cdn.example/x.js"></script>')


def test_comparison_marks_where_the_fastest_algorithm_changes():
    data = comparison_data("all_reduce", "h100-nvlink")
    assert data["best"][0] != data["best"][-1]
    assert data["switches"], "small and large sizes should prefer different algorithms"
    for size, before, after in data["switches"]:
        assert before != after and data["sizes"][0] < size < data["sizes"][-1]
    fig = plot_algorithm_comparison("all_reduce", "h100-nvlink")
    ax_time = fig.axes[0]
    assert ax_time.get_xscale() == "log" and ax_time.get_yscale() == "log"
    vertical = [line for line in ax_time.lines if line.get_linestyle() == ":"]
    assert len(vertical) == len(data["switches"])


def test_explorers_build_widgets():
    box = schedule_explorer("broadcast", "ring", 3, chunks=2)
    assert type(box).__name__ == "VBox"
    assert type(algorithm_comparison_explorer("all_gather", "pcie-gen4")).__name__ == "VBox"
