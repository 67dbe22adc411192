"""A schedule as an animation that plays in a static web page: matplotlib's JavaScript player
with every frame embedded as a PNG, made fully self-contained (no CDN). The frames' titles and
legend are in the ``lang`` given."""

from __future__ import annotations

import re
from html import escape

import matplotlib.pyplot as plt
from matplotlib import animation

from nccl_course.i18n.interface import N_, translator
from nccl_course.sim.execute import provenance_states
from nccl_course.sim.schedule import Schedule
from nccl_course.viz.drawing import draw_schedule_state, labeller

MAX_FRAMES = 80

# matplotlib's player draws its buttons with Font Awesome icons loaded from a CDN; the book must
# work offline, so the stylesheet goes and each icon becomes a small inline SVG (16 x 16 units).
# Not text characters: fonts commonly lack U+23EE/U+23ED (first/last frame), which a browser
# then draws as empty boxes.
_ICON_PATHS = {
    "fa fa-minus": "M2 7h12v2H2z",
    "fa fa-fast-backward": "M1 2h2v12H1z M9 2 3 8l6 6z M15 2 9 8l6 6z",
    "fa fa-step-backward": "M2 2h3v12H2z M14 2 5 8l9 6z",
    "fa fa-play fa-flip-horizontal": "M13 2 3 8l10 6z",
    "fa fa-pause": "M3 2h3.5v12H3z M9.5 2H13v12H9.5z",
    "fa fa-play": "M3 2l10 6-10 6z",
    "fa fa-step-forward": "M2 2l9 6-9 6z M11 2h3v12h-3z",
    "fa fa-fast-forward": "M1 2l6 6-6 6z M7 2l6 6-6 6z M13 2h2v12h-2z",
    "fa fa-plus": "M2 7h12v2H2z M7 2h2v12H7z",
}


# The player's controls: button and form titles (also their aria-label), and the labels of the
# repetition modes. Shown in the animation's language.
_CONTROL_TITLES = (
    N_("Decrease speed"),
    N_("First frame"),
    N_("Previous frame"),
    N_("Play backwards"),
    N_("Pause"),
    N_("Play"),
    N_("Next frame"),
    N_("Last frame"),
    N_("Increase speed"),
    N_("Repetition mode"),
)
_CONTROL_LABELS = (N_("Once"), N_("Loop"), N_("Reflect"))


def localize_controls(html: str, lang: str) -> str:
    """matplotlib's player ``html`` with the titles and labels of its controls in ``lang``."""
    if lang == "en":
        return html
    tr = translator(lang)
    for text in _CONTROL_TITLES:
        said = escape(tr(text))
        html = html.replace(
            f'title="{text}" aria-label="{text}"', f'title="{said}" aria-label="{said}"'
        )
    for text in _CONTROL_LABELS:
        html = html.replace(f">{text}</label>", f">{escape(tr(text))}</label>")
    return html


def label_player(html: str, schedule: Schedule, lang: str) -> str:
    """matplotlib's player ``html`` with a text alternative for its picture and a name for its
    frame slider, in ``lang``: matplotlib's template leaves both out."""
    tr = translator(lang)
    name = f"{schedule.collective} / {schedule.algorithm}, p={schedule.p}"
    alt = tr(
        N_("{name}, one frame per step: the data on each rank and that step's transfers"), name=name
    )
    html, pictures = re.subn(
        r'<img id="(_anim_img\w+)"', rf'<img id="\1" alt="{escape(alt)}"', html
    )
    html, sliders = re.subn(
        r'(<input id="_anim_slider\w+" type="range")',
        rf'\1 aria-label="{escape(tr(N_("step")))}"',
        html,
    )
    if pictures != 1 or sliders != 1:
        raise ValueError("matplotlib's player changed: expected one frame picture and one slider")
    return html


def _icon(path: str) -> str:
    return (
        '<svg class="anim-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" '
        f'focusable="false"><path fill="currentColor" d="{path}"/></svg>'
    )


def make_self_contained(html: str) -> str:
    """Remove the external stylesheet from matplotlib's player and replace its icons with
    inline SVG. Raises ValueError if any other external reference or icon is left."""
    html = re.sub(r"<link[^>]*font-awesome[^>]*>", "", html)
    for cls, path in _ICON_PATHS.items():
        html = html.replace(f'<i class="{cls}"></i>', _icon(path))
    leftover = re.findall(r"""(?:href|src)\s*=\s*["']?(https?:)?//""", html)
    if leftover or "font-awesome" in html or '<i class="fa' in html:
        raise ValueError("the animation HTML still refers to an external resource or icon font")
    return html


def animation_html(
    schedule: Schedule, *, interval_ms: int = 900, dpi: int = 90, lang: str = "en"
) -> str:
    """The HTML (with inline JavaScript and base64 PNG frames) of a player that steps through
    ``schedule``: frame 0 is the data before the first step, frame i the transfers of step i,
    the last frame the result; the frames are labelled in ``lang``."""
    if schedule.num_steps + 1 > MAX_FRAMES:
        raise ValueError(
            f"{schedule.num_steps} steps is too many frames for a page (max {MAX_FRAMES - 1}); "
            "use fewer ranks or chunks"
        )
    labeller(lang)  # an unknown language fails here, before a figure is made
    states = provenance_states(schedule)
    size = 5.0 + 0.08 * max(0, schedule.p - 8)
    fig, ax = plt.subplots(figsize=(size, size), dpi=dpi)

    def frame(i):
        draw_schedule_state(ax, schedule, states, i, lang=lang)
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
    return label_player(localize_controls(make_self_contained(html), lang), schedule, lang)


def animate_schedule(
    schedule: Schedule, *, interval_ms: int = 900, dpi: int = 90, lang: str = "en"
):
    """An ``IPython.display.HTML`` player for ``schedule`` that works in a static HTML page
    without a kernel and without network access; its frames are labelled in ``lang``."""
    from IPython.display import HTML

    return HTML(animation_html(schedule, interval_ms=interval_ms, dpi=dpi, lang=lang))
