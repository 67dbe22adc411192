"""ipywidgets explorers for the notebooks (they need a running kernel; the static book shows
their first state, and the animations are the kernel-free alternative)."""

from __future__ import annotations

import matplotlib.pyplot as plt
from IPython.display import display

from nccl_course.cost.presets import PRESETS
from nccl_course.sim.registry import ALGORITHMS, build_schedule
from nccl_course.viz.drawing import draw_schedule
from nccl_course.viz.plots import plot_algorithm_comparison


def schedule_explorer(
    collective: str = "all_reduce",
    algorithm: str = "ring",
    p: int = 4,
    chunks: int = 1,
    *,
    lang: str = "en",
):
    """Widgets to pick a collective, algorithm, rank count and chunk count and step through the
    schedule (the drawing labelled in ``lang``). Returns the widget box."""
    import ipywidgets as w

    coll = w.Dropdown(options=list(ALGORITHMS), value=collective, description="collective")
    algo = w.Dropdown(
        options=list(ALGORITHMS[collective]), value=algorithm, description="algorithm"
    )
    ranks = w.IntSlider(value=p, min=1, max=16, description="ranks")
    depth = w.IntSlider(value=chunks, min=1, max=6, description="chunks")
    step = w.IntSlider(value=0, min=0, max=1, description="step")
    out = w.Output()
    state = {}

    def rebuild(*_):
        state["schedule"] = build_schedule(coll.value, algo.value, ranks.value, chunks=depth.value)
        step.max = state["schedule"].num_steps
        step.value = min(step.value, step.max)
        redraw()

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            fig = draw_schedule(state["schedule"], step=step.value, lang=lang)
            state["shown"] = (state["schedule"], step.value)
            display(fig)
            plt.close(fig)

    def on_collective(change):
        algo.options = list(ALGORITHMS[change["new"]])
        algo.value = algo.options[0]

    coll.observe(on_collective, names="value")
    for widget in (algo, ranks, depth):
        widget.observe(rebuild, names="value")
    step.observe(redraw, names="value")
    rebuild()
    box = w.VBox([w.HBox([coll, algo]), w.HBox([ranks, depth]), step, out])
    box.state = state  # what is shown: ("schedule", step), for tests and for notebook readers
    return box


def algorithm_comparison_explorer(
    collective: str = "all_reduce",
    preset: str = "h100-nvlink",
    ranks: int | None = None,
    *,
    lang: str = "en",
):
    """Widgets to compare the algorithms of a collective on a preset versus message size, with
    a rank-count slider (the plot labelled in ``lang``). Returns the widget box."""
    import ipywidgets as w

    coll = w.Dropdown(
        options=[c for c in ALGORITHMS if c != "barrier"],
        value=collective,
        description="collective",
    )
    pre = w.Dropdown(options=list(PRESETS), value=preset, description="preset")
    nranks = w.IntSlider(value=ranks or PRESETS[preset].ranks, min=2, max=64, description="ranks")
    out = w.Output()

    state = {}

    def redraw(*_):
        with out:
            out.clear_output(wait=True)
            fig = plot_algorithm_comparison(coll.value, pre.value, ranks=nranks.value, lang=lang)
            state["title"] = fig.axes[0].get_title()
            display(fig)
            plt.close(fig)

    def on_preset(change):
        # A preset describes a machine: start from its rank count (one redraw, by the slider,
        # if that changes it).
        if nranks.value != PRESETS[change["new"]].ranks:
            nranks.value = PRESETS[change["new"]].ranks
        else:
            redraw()

    coll.observe(redraw, names="value")
    pre.observe(on_preset, names="value")
    nranks.observe(redraw, names="value")
    redraw()
    box = w.VBox([w.HBox([coll, pre, nranks]), out])
    box.state = state  # the title of the plot shown, for tests and for notebook readers
    return box
