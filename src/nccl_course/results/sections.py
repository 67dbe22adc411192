"""The report's sections as HTML fragments: header, what is missing, steps, the doctor's
findings, each benchmark against the model, and the text files (topology, model vs log).

Every value from the bundle goes through :func:`esc` (HTML-escaped, quotes too) and every link
through :func:`link`, which points only at a regular file inside the bundle, by a path
relative to the page and percent-encoded (so no bundle text can become a ``javascript:`` URL
or leave the folder).

Units: seconds, bytes, microseconds, GB/s (1e9 bytes/s), percent.
"""

from __future__ import annotations

import base64
import html
import math
import os
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from nccl_course.results.bundle import Bundle
from nccl_course.units import format_size

#: Findings in this order: what needs doing first.
FINDING_ORDER = {"fail": 0, "warn": 1}
STEP_STATUSES = ("pass", "fail", "skip")


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def link(bundle: Bundle, name: str | None, page_dir: Path, text: str | None = None) -> str:
    """A link to the bundle's file ``name`` relative to the page, or the name as plain text
    with "(missing)" when it is not a regular file of the folder."""
    if not name:
        return ""
    path = bundle.file(name)
    if path is None:
        return f'{esc(name)} <span class="missing">(missing)</span>'
    href = quote(Path(os.path.relpath(path.resolve(), page_dir.resolve())).as_posix(), safe="/")
    return f'<a href="{esc(href)}">{esc(text or name)}</a>'


def _number(value: float | None, spec: str) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return format(value, spec)


def _bandwidth(value: float) -> str:
    """GB/s with three decimals, or three significant digits below 0.01 (CPU runs)."""
    if math.isfinite(value) and 0 < abs(value) < 0.01:
        return format(value, ".3g")
    return _number(value, ".3f")


def _utc(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _environment(bundle: Bundle) -> dict:
    """The doctor's environment, else the first benchmark's."""
    if bundle.environment:
        return bundle.environment
    return next((b.environment for b in bundle.benches if b.environment), {})


def _gpus(env: dict) -> str:
    names = env.get("gpu_names")
    if isinstance(names, list) and names:
        counts: dict[str, int] = {}
        for name in map(str, names):
            counts[name] = counts.get(name, 0) + 1
        return ", ".join(f"{n} x {name}" for name, n in counts.items())
    count = env.get("gpu_count")
    return f"{count} (no names recorded)" if count else "none (CPU only)"


def header(bundle: Bundle, now: datetime) -> str:
    env = _environment(bundle)

    def fact(key: str) -> str:
        value = env.get(key)
        return esc(value) if value not in (None, "") else '<span class="none">not recorded</span>'

    runs = (
        "; ".join(
            f"{esc(b.collective)} on {esc(b.backend)}, {b.nranks} rank(s) ({esc(b.file)})"
            for b in bundle.benches
        )
        or '<span class="none">no benchmark record</span>'
    )
    rows = [
        ("Host", fact("host")),
        ("GPUs", esc(_gpus(env))),
        ("torch", fact("torch")),
        ("CUDA", fact("cuda_version")),
        ("Driver", fact("driver_version")),
        ("NCCL", fact("nccl_version")),
        ("Python", f"{fact('python')} on {fact('platform')}"),
        ("Benchmark", runs),
        ("Results written", esc(_utc(bundle.newest_mtime)) if bundle.newest_mtime else "?"),
        ("Report made", esc(now.strftime("%Y-%m-%d %H:%M UTC"))),
    ]
    facts = "\n".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return (
        f"<header><h1>GPU check results: {fact('host')}</h1>\n"
        f'<p class="folder">from {esc(bundle.folder.name)}/</p>\n'
        f'<table class="facts">\n{facts}\n</table></header>'
    )


def missing(bundle: Bundle) -> str:
    if not bundle.missing and not bundle.skipped:
        return ""
    items = [f"<li>{esc(name)}: not in the folder</li>" for name in bundle.missing] + [
        f"<li>{esc(name)}: a symbolic link, not read</li>" for name in bundle.skipped
    ]
    return (
        '<section id="missing"><h2>Missing</h2>\n<p>The check did not leave these files (the '
        "node may have gone away mid-run); the rest is shown below.</p>\n<ul>\n"
        + "\n".join(items)
        + "\n</ul></section>"
    )


def steps(bundle: Bundle, page_dir: Path) -> str:
    head = '<section id="steps"><h2>Steps</h2>\n'
    if bundle.steps is None:
        if bundle.summary is not None:
            return (
                head + "<p>No steps.jsonl; summary.txt says:</p>\n"
                f"<pre>{esc(bundle.summary)}</pre></section>"
            )
        return head + '<p class="none">No steps.jsonl and no summary.txt.</p></section>'
    counts = {s: sum(step.status == s for step in bundle.steps) for s in STEP_STATUSES}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    rows = []
    for step in bundle.steps:
        status = step.status if step.status in STEP_STATUSES else "other"
        rows.append(
            f'<tr class="{status}"><td class="status">{esc(step.status)}</td>'
            f'<td>{esc(step.name)}</td><td class="num">{_number(step.seconds, ".0f")}</td>'
            f"<td>{link(bundle, step.log, page_dir)}</td></tr>"
        )
    return (
        head + f"<p>{len(bundle.steps)} steps: {summary}.</p>\n"
        '<table class="steps"><thead><tr><th>status</th><th>step</th><th>seconds</th>'
        "<th>log</th></tr></thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table></section>"
    )


def findings(bundle: Bundle) -> str:
    head = '<section id="findings"><h2>The doctor\'s findings</h2>\n'
    if bundle.environment is None:
        return head + '<p class="none">No environment.json.</p></section>'
    if bundle.findings is None:
        return head + (
            '<p class="none">environment.json has no checks (written by a doctor from before '
            "<code>checks</code>): the environment is in the header.</p></section>"
        )
    ordered = sorted(bundle.findings, key=lambda f: FINDING_ORDER.get(f.status, 2))
    rows = []
    for f in ordered:
        status = {"n/a": "na"}.get(f.status, f.status)
        status = status if status in ("ok", "warn", "fail", "na") else "other"
        fix = f'<div class="fix">Fix: {esc(f.fix)}</div>' if f.fix else ""
        rows.append(
            f'<tr class="{status}"><td class="status">{esc(f.status)}</td>'
            f"<td>{esc(f.title)}</td><td>{esc(f.detail)}{fix}</td></tr>"
        )
    bad = sum(f.status in FINDING_ORDER for f in bundle.findings)
    return (
        head + f"<p>{len(bundle.findings)} checks, {bad} to act on (failures and warnings "
        "first).</p>\n"
        '<table class="findings"><thead><tr><th>status</th><th>check</th><th>detail</th></tr>'
        "</thead>\n<tbody>\n" + "\n".join(rows) + "\n</tbody></table></section>"
    )


def benchmark(bundle: Bundle, index: int) -> str:
    """One benchmark record against NCCL's tuner model: the system, the plot, the table."""
    from nccl_course.results.comparison import compare
    from nccl_course.results.model_choice import choose_model
    from nccl_course.results.plot import busbw_png

    bench = bundle.benches[index]
    outcome = choose_model(bundle, bench)
    model = outcome.model
    parts = [
        f'<section class="bench" id="bench-{index}"><h2>{esc(bench.collective)}: measured '
        f"busbw{' against the NCCL tuner model' if model else ''} ({esc(bench.file)})</h2>",
        f"<p>{esc(bench.collective)} on {bench.nranks} rank(s), backend {esc(bench.backend)}, "
        f"{len(bench.rows)} sizes.</p>",
    ]
    if model is not None:
        parts.append(f'<p class="model">Model: {esc(model.source)}.</p>')
    else:
        parts.append(f'<p class="no-model">No model: {esc(outcome.reason)}.</p>')
    if outcome.notes:
        parts.append(
            '<ul class="notes">' + "".join(f"<li>{esc(n)}</li>" for n in outcome.notes) + "</ul>"
        )
    png = busbw_png(bench, model)
    if png is not None:
        data = base64.b64encode(png).decode("ascii")
        parts.append(
            f'<img class="plot" alt="busbw against size: measured'
            f'{" and the model" if model else ""}" src="data:image/png;base64,{data}">'
        )
    else:
        parts.append('<p class="none">The record has no rows to plot.</p>')
    parts.append(_sizes_table(compare(bench, model), model))
    parts.append("</section>")
    return "\n".join(parts)


def _sizes_table(rows, model) -> str:
    logged = model is not None and any(r.logged for r in rows)
    head = ["size (B)", "size", "time (us)", "algbw (GB/s)", "busbw (GB/s)"]
    if model is not None:
        head += [
            "model time (us)",
            "model busbw (GB/s)",
            "error %",
            "model algorithm/protocol",
            "model channels",
        ]
        if logged:
            head.append("NCCL logged")
    head.append("wrong")
    lines = []
    for r in rows:
        m = r.measured
        cells = [
            str(m.size),
            esc(format_size(m.size)),
            _number(m.time_us, ".2f"),
            _bandwidth(m.algbw),
            _bandwidth(m.busbw),
        ]
        if model is not None:
            p = r.model
            cells += [
                _number(p.time_us, ".2f"),
                _number(p.busbw_GBps, ".3f"),
                _number(r.error_pct, "+.1f"),
                esc(f"{p.algorithm}/{p.protocol}"),
                str(p.channels),
            ]
            if logged:
                cells.append(esc(r.logged or ""))
        cells.append(str(m.wrong))
        tds = "".join(f"<td>{c}</td>" for c in cells)
        lines.append(f'<tr data-size="{m.size}">{tds}</tr>')
    error = (
        '<p class="legend">error % = (model busbw - measured busbw) / measured busbw: positive '
        "where the model is faster than the machine.</p>\n"
        if model is not None
        else ""
    )
    return (
        error
        + '<table class="sizes"><thead><tr>'
        + "".join(f"<th>{esc(h)}</th>" for h in head)
        + "</tr></thead>\n<tbody>\n"
        + "\n".join(lines)
        + "\n</tbody></table>"
    )


def text_file(section_id: str, title: str, text: str | None, intro: str = "") -> str:
    if text is None:
        return ""
    return (
        f'<section id="{section_id}"><h2>{esc(title)}</h2>\n'
        + (f"<p>{intro}</p>\n" if intro else "")
        + f"<pre>{esc(text)}</pre></section>"
    )


def files(bundle: Bundle, page_dir: Path) -> str:
    names = [
        n
        for n in ("summary.txt", "environment.json", "topology.txt", "model-vs-nccl-log.txt")
        if bundle.file(n)
    ]
    names += [b.file for b in bundle.benches] + list(bundle.nccl_logs)
    if not names:
        return ""
    items = []
    for name in names:
        note = " (rank 0)" if name == bundle.rank0_log else ""
        items.append(f"<li>{link(bundle, name, page_dir)}{note}</li>")
    return '<section id="files"><h2>Files</h2>\n<ul>\n' + "\n".join(items) + "\n</ul></section>"
