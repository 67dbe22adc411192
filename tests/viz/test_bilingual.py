"""Figures drawn by the course's code in the reader's language: every drawing takes ``lang``,
shows each label it marks with ``N_`` through the interface catalog, writes numbers as the
language does, and ``show`` puts every language's version into one cell output."""

from __future__ import annotations

import base64
import re
import string
from html.parser import HTMLParser
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import matplotlib.text
import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

import nccl_course
from nccl_course.cost import sweeps
from nccl_course.cost.nccl import predict
from nccl_course.i18n import interface
from nccl_course.i18n.catalog_numbers import leftovers
from nccl_course.i18n.languages import LANGUAGES
from nccl_course.sim import build_schedule
from nccl_course.viz import (
    animate_schedule,
    animation_html,
    draw_before_after,
    draw_schedule,
    plot_algorithm_comparison,
    plot_time_vs_ranks,
    show,
    sweep_plots,
)

matplotlib.use("Agg")

PACKAGE = Path(nccl_course.__file__).parent
# Where the figures' labels are marked: the drawing modules (the sweep plot among them).
FIGURE_SOURCES = sorted((PACKAGE / "viz").glob("*.py"))
SWEEP = "stas00-8xh200-nvls"
# A few labels in real Turkish; every other marked label gets a stand-in (see stand_in).
TURKISH = {
    "{collective}: before (inputs)": "{collective}: önce (girdiler)",
    "after (outputs)": "sonra (çıktılar)",
    "(no output)": "(çıktı yok)",
}


# The English labels the figures had before they took a language: none may be left in Turkish,
# marked or not.
ENGLISH_LABELS = (
    "copy",
    "reduce (+)",
    "written this step",
    "step",
    "transfers (data before the step)",
    "after the last step",
    "messages per step",
    "before (inputs)",
    "after (outputs)",
    "(no input)",
    "(no output)",
    "size (bytes, nccl-tests convention)",
    "size (bytes)",
    "time (us)",
    "ranks",
    "bus bandwidth (nccl-tests factor)",
    "published",
    "model",
)


def marked_labels() -> list[str]:
    found = []
    for path in FIGURE_SOURCES:
        found += [m for m in interface.marked_strings(path.read_text()) if m not in found]
    return found


def stand_in(msgid: str) -> str:
    """A translation that shares no word with the English: its words upper-cased and marked
    with «», the ``{field}`` templates kept."""
    out = []
    for literal, field, _spec, _conversion in string.Formatter().parse(msgid):
        out.append(literal.upper())
        if field is not None:
            out.append("{" + field + "}")
    return "«" + "".join(out) + "»"


@pytest.fixture
def turkish(tmp_path, monkeypatch):
    """A Turkish interface catalog that translates every marked figure label."""
    catalog = Catalog(locale="tr")
    for msgid in marked_labels():
        catalog.add(msgid, TURKISH.get(msgid, stand_in(msgid)))
    folder = tmp_path / "tr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "interface.po").open("wb") as f:
        write_po(f, catalog)
    monkeypatch.setattr(interface, "LOCALE_DIR", tmp_path)
    return catalog


def texts(fig) -> list[str]:
    """Every text of ``fig`` once drawn (tick labels are made when it is drawn)."""
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]


def english_fragments(msgid: str) -> list[str]:
    """The English words of a marked label: its literal parts that hold a word."""
    parts = [lit for lit, *_ in string.Formatter().parse(msgid)]
    return [p.strip() for p in parts if re.search(r"[A-Za-z]{2,}", p)]


def sweep_figure(lang):
    comparison = sweeps.compare_sweep(sweeps.get_sweep(SWEEP), predict)
    return sweep_plots.plot_comparison(comparison, lang=lang)


def last_step(lang):
    schedule = build_schedule("all_reduce", "ring", 4, chunks=2)
    return draw_schedule(schedule, step=schedule.num_steps, lang=lang)


FIGURES = {
    "before/after": lambda lang: draw_before_after("gather", 4, root=1, lang=lang),
    "before/after, no input": lambda lang: draw_before_after("scatter", 3, lang=lang),
    "step": lambda lang: draw_schedule(build_schedule("all_reduce", "ring", 4), step=1, lang=lang),
    "last step": last_step,
    "overview": lambda lang: draw_schedule(build_schedule("all_to_all", "pairwise", 70), lang=lang),
    "comparison": lambda lang: plot_algorithm_comparison("all_reduce", "ib-ndr-2node", lang=lang),
    "time vs ranks": lambda lang: plot_time_vs_ranks(
        "all_gather", "h100-nvlink", 1536 * 1024, lang=lang
    ),
    "sweep": sweep_figure,
}


@pytest.mark.parametrize("name", FIGURES)
def test_a_turkish_figure_has_no_marked_english_label(name, turkish):
    fig = FIGURES[name]("tr")
    shown = texts(fig)
    plt.close(fig)
    if name == "sweep":  # the title is the sweep's own (data from its file), not a label
        shown.remove(sweeps.get_sweep(SWEEP).title)
    assert any("«" in t or t in TURKISH.values() for t in shown), shown
    english = {f: m for m in marked_labels() for f in english_fragments(m)}
    english.update((label, label) for label in ENGLISH_LABELS)
    left = [
        (t, english[f])
        for t in shown
        for f in english
        if re.search(rf"(?<!\w){re.escape(f)}(?!\w)", t)
    ]
    assert not left, f"{name}: English labels in the Turkish figure: {left}"


def test_turkish_labels_and_numbers(turkish):
    fig = draw_before_after("all_reduce", 3, lang="tr")
    assert [ax.get_title() for ax in fig.axes] == [
        "all_reduce: önce (girdiler)",
        "sonra (çıktılar)",
    ]
    # Numbers with the decimal comma: a size in a title, a switch point, tick labels.
    title = plot_time_vs_ranks("all_gather", "h100-nvlink", 1536 * 1024, lang="tr").axes[0]
    assert title.get_title() == "«{collective}, {size} ON {preset}»".format(
        collective="all_gather", size="1,5 MiB", preset="h100-nvlink"
    )
    comparison = texts(plot_algorithm_comparison("all_reduce", "ib-ndr-2node", lang="tr"))
    assert "rabenseifner\u2192ring\n3,97 MiB" in comparison and "0,1" in comparison
    # Turkish groups five or more digits with dots (10.000); an English decimal is a leftover
    assert not [t for t in comparison if leftovers(t, "tr")]


def test_english_is_unchanged():
    """The default is English, with the labels the figures had before they took a language."""
    fig = draw_before_after("gather", 4, root=1)
    assert [ax.get_title() for ax in fig.axes] == ["gather: before (inputs)", "after (outputs)"]
    assert "(no output)" in texts(fig)
    assert "(no input)" in texts(draw_before_after("scatter", 3))
    step = draw_schedule(build_schedule("all_reduce", "ring", 4), step=1).axes[0]
    assert (
        step.get_title() == "all_reduce / ring, p=4\nstep 2 of 6: transfers (data before the step)"
    )
    legend = [t.get_text() for t in step.get_legend().get_texts()]
    assert legend == ["copy", "reduce (+)", "written this step"]
    assert last_step("en").axes[0].get_title() == (
        "all_reduce / ring, p=4, k=2\nafter the last step (6 steps)"
    )
    overview = draw_schedule(build_schedule("all_to_all", "pairwise", 70)).axes[0]
    assert overview.get_title() == (
        "all_to_all / pairwise, p=70: messages per step (first 60 of 69 steps)\n"
        "solid blue: copy, dashed orange: reduce"
    )
    assert (overview.get_xlabel(), overview.get_ylabel()) == ("rank", "step")
    small = draw_schedule(build_schedule("broadcast", "binomial_tree", 8)).axes[0]
    assert small.get_title() == (
        "broadcast / binomial_tree, p=8: messages per step\nsolid blue: copy, dashed orange: reduce"
    )
    t, b = plot_algorithm_comparison("all_reduce", "h100-nvlink").axes
    assert (t.get_title(), t.get_xlabel(), t.get_ylabel()) == (
        "all_reduce on h100-nvlink, 8 ranks: time",
        "size (bytes, nccl-tests convention)",
        "time (us)",
    )
    assert (b.get_title(), b.get_xlabel(), b.get_ylabel()) == (
        "bus bandwidth (nccl-tests factor)",
        "size (bytes)",
        "busbw (GB/s)",
    )
    assert "recursive_doubling\u2192rabenseifner\n622 KiB" in texts(t.figure)
    ranks = plot_time_vs_ranks("all_gather", "h100-nvlink", 1536 * 1024).axes[0]
    assert (ranks.get_title(), ranks.get_xlabel(), ranks.get_ylabel()) == (
        "all_gather, 1.5 MiB on h100-nvlink",
        "ranks",
        "time (us)",
    )
    sweep = sweep_figure("en")
    ax = sweep.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("size (bytes)", "busbw (GB/s)")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["published", "model"]
    plt.close(sweep)
    html = animation_html(build_schedule("all_reduce", "ring", 3), dpi=30)
    assert 'title="Play" aria-label="Play"' in html and ">Once</label>" in html


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.found: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict]]:
    parser = _Elements()
    parser.feed(html)
    return parser.found


def test_show_holds_one_png_per_language(turkish):
    before = plt.get_fignums()
    out = show(draw_before_after, "all_reduce", 3)
    bundle = out._repr_mimebundle_()
    assert set(bundle) == {"text/html", "text/plain"}
    assert bundle["text/html"] == out._repr_html_()
    assert "all_reduce: before (inputs)" in bundle["text/plain"]
    found = elements(bundle["text/html"])
    figures = [a for tag, a in found if tag == "figure"]
    assert [a["class"] for a in figures] == ["nccl-bilingual"]
    images = [a for tag, a in found if tag == "img"]
    assert [(a["class"], a["lang"]) for a in images] == [(f"nccl-lang-{x}", x) for x in LANGUAGES]
    for a in images:
        prefix = "data:image/png;base64,"
        assert a["src"].startswith(prefix)
        assert base64.b64decode(a["src"][len(prefix) :]).startswith(b"\x89PNG\r\n\x1a\n")
    alts = {a["lang"]: a["alt"] for a in images}
    assert alts["en"] == "all_reduce: before (inputs); after (outputs)"
    assert alts["tr"] == "all_reduce: önce (girdiler); sonra (çıktılar)"
    # Without the book's stylesheet (a Jupyter session) the output's own style hides Turkish.
    assert ".nccl-bilingual>.nccl-lang-tr{display:none}" in bundle["text/html"]
    assert plt.get_fignums() == before


def test_show_closes_pyplot_figures_and_passes_keywords(turkish):
    before = plt.get_fignums()
    seen = []

    def two_panels(collective, *, p, lang="en"):
        seen.append((collective, p, lang))
        fig, axes = plt.subplots(1, 2)
        draw_schedule(build_schedule(collective, "ring", p), ax=axes[0], lang=lang)
        plt.figure()  # a stray figure the function made: closed too
        return fig

    out = show(two_panels, "all_gather", p=3)
    assert seen == [("all_gather", 3, lang) for lang in LANGUAGES]
    assert plt.get_fignums() == before
    assert len(re.findall(r"<img ", out._repr_html_())) == len(LANGUAGES)


def test_show_puts_each_animation_in_its_language(turkish):
    out = show(animate_schedule, build_schedule("all_reduce", "ring", 2), dpi=30)
    html = out._repr_html_()
    parts = [a for tag, a in elements(html) if tag == "div" and "lang" in a]
    assert [(a["class"], a["lang"]) for a in parts] == [(f"nccl-lang-{x}", x) for x in LANGUAGES]
    english, turkish_part = html.split('<div class="nccl-lang-tr" lang="tr">')
    assert 'title="Play"' in english and 'title="«PLAY»"' in turkish_part
    assert ">«ONCE»</label>" in turkish_part and ">Once</label>" not in turkish_part


def test_show_refuses_what_it_cannot_show():
    with pytest.raises(TypeError, match="Figure"):
        show(lambda lang: 42)
    with pytest.raises(ValueError, match="unknown language"):
        draw_before_after("all_reduce", 2, lang="xx")
