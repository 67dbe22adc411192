"""Pictures of schedules and costs: step diagrams, before/after data, kernel-free animations,
algorithm comparisons, and ipywidgets explorers; ``show`` puts a figure in every language of the
book into one output."""

from nccl_course.viz.animation import animate_schedule, animation_html, make_self_contained
from nccl_course.viz.bilingual import show
from nccl_course.viz.drawing import draw_before_after, draw_schedule, rank_color
from nccl_course.viz.explorers import algorithm_comparison_explorer, schedule_explorer
from nccl_course.viz.plots import comparison_data, plot_algorithm_comparison, plot_time_vs_ranks

__all__ = [
    "algorithm_comparison_explorer",
    "animate_schedule",
    "animation_html",
    "comparison_data",
    "draw_before_after",
    "draw_schedule",
    "make_self_contained",
    "plot_algorithm_comparison",
    "plot_time_vs_ranks",
    "rank_color",
    "schedule_explorer",
    "show",
]
