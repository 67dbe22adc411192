"""A schedule as an animation that plays in a static web page: matplotlib's JavaScript player
with every frame embedded as a PNG, made fully self-contained (no CDN)."""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
from matplotlib import animation

from nccl_course.sim.execute import provenance_states
from nccl_course.sim.schedule import Schedule
from nccl_course.viz.drawing import draw_schedule_state

MAX_FRAMES = 80

# matplotlib's player draws its buttons with Font Awesome icons loaded from a CDN; the book must
# work offline, so the stylesheet goes and each icon becomes a plain character.
_ICONS = {
    "fa fa-minus": "\u2212",
    "fa fa-fast-backward": "\u23ee",
    "fa fa-step-backward": "\u25c0\u2759",
    "fa fa-play fa-flip-horizontal": "\u25c0",
    "fa fa-pause": "\u2759\u2759",
    "fa fa-play": "\u25b6",
    "fa fa-step-forward": "\u2759\u25b6",
    "fa fa-fast-forward": "\u23ed",
    "fa fa-plus": "+",
}


def make_self_contained(html: str) -> str:
    """Remove the external stylesheet from matplotlib's player and replace its icons with text.
    Raises ValueError if any other external reference is left."""
    html = re.sub(r"<link[^>]*font-awesome[^>]*>", "", html)
    for cls, char in _ICONS.items():
        html = html.replace(f'<i class="{cls}"></i>', f'<span class="anim-icon">{char}</span>')
    leftover = re.findall(r"""(?:href|src)\s*=\s*["']?(https?:)?//""", html)
    if leftover or "font-awesome" in html:
        raise ValueError("the animation HTML still refers to an external resource")
    return html


def animation_html(schedule: Schedule, *, interval_ms: int = 900, dpi: int = 72) -> str:
    """The HTML (with inline JavaScript and base64 PNG frames) of a player that steps through
    ``schedule``: frame 0 is the data before the first step, frame i the transfers of step i,
    the last frame the result."""
    if schedule.num_steps + 1 > MAX_FRAMES:
        raise ValueError(
            f"{schedule.num_steps} steps is too many frames for a page (max {MAX_FRAMES - 1}); "
            "use fewer ranks or chunks"
        )
    states = provenance_states(schedule)
    size = 5.0 + 0.08 * max(0, schedule.p - 8)
    fig, ax = plt.subplots(figsize=(size, size), dpi=dpi)

    def frame(i):
        draw_schedule_state(ax, schedule, states, i)
        return []

    anim = animation.FuncAnimation(
        fig, frame, frames=schedule.num_steps + 1, interval=interval_ms, blit=False
    )
    limit = plt.rcParams["animation.embed_limit"]
    try:
        plt.rcParams["animation.embed_limit"] = 60.0  # MB
        html = anim.to_jshtml(default_mode="once")
    finally:
        plt.rcParams["animation.embed_limit"] = limit
        plt.close(fig)
    return make_self_contained(html)


def animate_schedule(schedule: Schedule, *, interval_ms: int = 900, dpi: int = 72):
    """An ``IPython.display.HTML`` player for ``schedule`` that works in a static HTML page
    without a kernel and without network access."""
    from IPython.display import HTML

    return HTML(animation_html(schedule, interval_ms=interval_ms, dpi=dpi))
