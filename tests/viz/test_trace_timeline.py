"""The timeline of a profiler trace: one panel per configuration, two rows per rank, the exposed
part in its own colour, labels in the book's languages."""

from __future__ import annotations

import matplotlib.colors as mcolors
from matplotlib.figure import Figure

from nccl_course.i18n.interface import translator
from nccl_course.viz.trace_events import overlap
from nccl_course.viz.trace_timeline import (
    EXPOSED_COLOR,
    RECORDED_CONFIGS,
    plot_overlap_timeline,
    recorded_traces,
)


def _figure(lang="en"):
    return plot_overlap_timeline({c: recorded_traces(c) for c in RECORDED_CONFIGS}, lang=lang)


def test_one_panel_per_configuration_with_two_rows_per_rank():
    fig = _figure()
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    first, second = fig.axes
    labels = [t.get_text() for t in first.get_yticklabels()]
    assert labels == [
        "rank 0 backward",
        "rank 0 all-reduce",
        "rank 1 backward",
        "rank 1 all-reduce",
    ]
    assert first.get_title().startswith(
        "one bucket (bucket_cap_mb=100): exposed all-reduce per rank"
    )
    assert second.get_title().startswith("one bucket per layer (bucket_cap_mb=1):")


def test_titles_give_the_exposed_time_the_reader_measures():
    fig = _figure()
    for ax, config in zip(fig.axes, RECORDED_CONFIGS, strict=True):
        for trace in recorded_traces(config):
            assert f"{overlap(trace).exposed_us / 1e3:.1f}" in ax.get_title()


def test_exposed_bars_cover_the_exposed_time():
    fig = _figure()
    for ax, config in zip(fig.axes, RECORDED_CONFIGS, strict=True):
        red = [
            c
            for c in ax.collections
            if mcolors.to_hex(c.get_facecolor()[0]) == EXPOSED_COLOR.lower()
        ]
        drawn_ms = sum(path.get_extents().width for c in red for path in c.get_paths())
        want_ms = sum(overlap(t).exposed_us for t in recorded_traces(config)) / 1e3
        assert abs(drawn_ms - want_ms) < 1e-3 * max(1.0, want_ms)


def test_turkish_labels_and_decimal_comma():
    fig = _figure("tr")
    tr = translator("tr")
    labels = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    assert labels[0] == tr("{who} backward").format(who="rank 0") != "rank 0 backward"
    assert fig.axes[1].get_xlabel() == tr("time from the start of backward (ms)")
    value = f"{overlap(recorded_traces('overlapped')[0]).exposed_us / 1e3:.1f}".replace(".", ",")
    assert value in fig.axes[1].get_title()
