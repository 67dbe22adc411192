"""The report page: one self-contained HTML file.

Inline CSS, the plot as a PNG data URI, no script, and a Content-Security-Policy that lets the
page load nothing but its own styles and data images, so it works offline from ``file://`` and
makes no request even if escaping ever missed something. Links to the bundle's files are
relative to where the page is written (``page_path``), so the folder and the page can be
copied together.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from nccl_course.results import sections
from nccl_course.results.bundle import Bundle

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 75em;
       padding: 0 1em; color: #1b1b1b; }
h1 { font-size: 1.5em; margin-bottom: 0.1em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
.folder { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; vertical-align: top; text-align: left; }
table.sizes td, td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sizes td { white-space: nowrap; }
table.facts th { background: #f4f4f4; }
thead th { background: #eef; }
tr.pass td.status, tr.ok td.status { background: #dfd; }
tr.fail td.status { background: #fcc; font-weight: bold; }
tr.warn td.status { background: #ffe8a8; }
tr.skip td.status, tr.na td.status, tr.other td.status { background: #eee; }
.fix { margin-top: 0.3em; color: #124; }
.none, .missing { color: #888; font-style: italic; }
.no-model { background: #fff4d6; padding: 0.4em 0.6em; }
.legend, .notes { color: #444; font-size: 0.95em; }
img.plot { max-width: 100%; border: 1px solid #ddd; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 12px; }
#missing { background: #fff4d6; padding: 0.2em 1em; }
"""


def render_report(bundle: Bundle, page_path: str | Path, now: datetime | None = None) -> str:
    """The page for ``bundle``, to be written at ``page_path`` (links are relative to it)."""
    page_dir = Path(page_path).parent
    now = now or datetime.now(timezone.utc)
    env = bundle.environment or {}
    topology = bundle.topology
    topology_intro = "nvidia-smi topo -m (topology.txt)."
    if topology is None and env.get("topology_matrix"):
        topology = str(env["topology_matrix"])
        topology_intro = "nvidia-smi topo -m, as the doctor recorded it."
    body = [
        sections.header(bundle, now),
        sections.missing(bundle),
        sections.steps(bundle, page_dir),
        sections.findings(bundle),
        *(sections.benchmark(bundle, i) for i in range(len(bundle.benches))),
        sections.text_file(
            "model-vs-log",
            "NCCL's tuner against the model (model-vs-nccl-log.txt)",
            bundle.model_vs_log,
            "<code>nccl-course model --check-log</code> on rank 0's NCCL log: its printed "
            "cost table and choices next to the model's.",
        ),
        sections.text_file("topology", "GPU topology", topology, topology_intro),
        sections.files(bundle, page_dir),
    ]
    host = sections.esc(
        (bundle.environment or {}).get("host")
        or next((b.environment.get("host") for b in bundle.benches if b.environment), "")
        or bundle.folder.name
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>GPU check: {host}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(part for part in body if part)
        + "\n</body>\n</html>\n"
    )
