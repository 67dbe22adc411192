"""Drawings, the offline animation player and the comparison plots."""

from __future__ import annotations

import re

import pytest
from matplotlib.figure import Figure

from nccl_course.cost.presets import PRESETS
from nccl_course.sim import build_schedule
from nccl_course.sim.registry import ALGORITHMS
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
    # the nine buttons draw their icons as inline SVG; no icon-font element is left
    assert html.count('<svg class="anim-icon"') == 9 and '<i class="fa' not in html


def test_make_self_contained_refuses_leftover_urls():
    with pytest.raises(ValueError):
        make_self_contained('<script src="https://cdn.example/x.js"></script>')
    with pytest.raises(ValueError):  # an icon the replacement does not know
        make_self_contained('<button><i class="fa fa-rocket"></i></button>')


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


def _controls(box):
    """The explorer's controls by their description."""
    found = {}

    def walk(widget):
        if getattr(widget, "description", ""):
            found[widget.description] = widget
        for child in getattr(widget, "children", ()):
            walk(child)

    walk(box)
    return found


def test_schedule_explorer_follows_its_controls():
    box = schedule_explorer("broadcast", "ring", 3, chunks=2)
    c = _controls(box)
    schedule, step = box.state["shown"]
    assert (schedule.collective, schedule.algorithm, schedule.p, step) == (
        "broadcast",
        "ring",
        3,
        0,
    )
    assert c["step"].max == schedule.num_steps

    c["collective"].value = "all_reduce"  # the algorithm list follows the collective
    assert tuple(c["algorithm"].options) == tuple(ALGORITHMS["all_reduce"])
    c["algorithm"].value = "ring"
    c["ranks"].value = 5
    schedule, _ = box.state["shown"]
    assert (schedule.collective, schedule.algorithm, schedule.p) == ("all_reduce", "ring", 5)
    assert c["step"].max == schedule.num_steps == 2 * (5 - 1)  # ring all-reduce: 2(p-1) steps
    c["step"].value = 3
    assert box.state["shown"][1] == 3


def test_comparison_explorer_redraws_what_was_chosen():
    box = algorithm_comparison_explorer("all_gather", "pcie-gen4")
    c = _controls(box)
    assert c["ranks"].value == PRESETS["pcie-gen4"].ranks
    assert box.state["title"].startswith("all_gather on ")
    c["collective"].value = "all_reduce"
    assert box.state["title"].startswith("all_reduce on ")
    assert f"{PRESETS['pcie-gen4'].ranks} ranks" in box.state["title"]
    c["ranks"].value = 12
    assert "12 ranks" in box.state["title"]
    other = next(name for name in PRESETS if PRESETS[name].ranks != 12)
    c["preset"].value = other  # a new machine starts from its own rank count
    assert c["ranks"].value == PRESETS[other].ranks
    assert f"{PRESETS[other].ranks} ranks" in box.state["title"]
