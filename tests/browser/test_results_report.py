"""The GPU-check report opened from file:// in chromium: the plot (an inline PNG) decodes, the
size table has a row per measured size, and the page asks for nothing outside file://."""

from __future__ import annotations

from nccl_course.cli import main
from nccl_course.cost.sweeps import get_sweep
from tests.results.bundles import SWEEP, nccl_bundle


def test_the_report_works_offline_from_a_file(browser, tmp_path, capsys):
    folder = nccl_bundle(tmp_path / "results")
    assert main(["report", str(folder)]) == 0, capsys.readouterr().err
    page_path = folder / "report.html"

    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.goto(page_path.as_uri())
    page.wait_for_load_state("load")

    plot = page.locator("img.plot")
    assert plot.count() == 1
    assert plot.evaluate("img => img.complete && img.naturalWidth") > 0
    assert plot.evaluate("img => img.naturalHeight") > 0
    rows = page.locator("table.sizes tbody tr")
    assert rows.count() == len(get_sweep(SWEEP).rows) == 31
    assert page.locator("table.steps tbody tr").count() == 3
    # following a step's log link stays on file://, inside the folder
    page.click("text=lab03-run.txt")
    page.wait_for_load_state("load")
    assert page.url == (folder / "lab03-run.txt").as_uri()
    assert "ring all-reduce ok" in page.content()

    assert requests and all(url.startswith(("file://", "data:")) for url in requests), requests
    assert errors == []
    context.close()
