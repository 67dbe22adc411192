"""The admin's item statistics page in a browser, on a real server process whose database holds
the simulated class (``tests/support/simulated_class``): a wrong token gets the server's
refusal, the right one the tables with the planted bad item flagged, in English and in
Turkish (decimal comma); the page loads nothing from the network and logs no error (no inline
script for a Content-Security-Policy to block)."""

from __future__ import annotations

from tests.exam.conftest import write_quizzes
from tests.support.server_process import ServerProcess
from tests.support.simulated_class import BAD, class_database

TOKEN = "browser-admin-token"


def show(page, token: str) -> None:
    page.fill("#admin-token", token)
    page.fill("#min-responses", "30")
    page.click("#load")


def test_the_admin_sees_the_item_statistics(offline_page, tmp_path):
    page = offline_page.page
    data, _ = class_database(tmp_path / "data", learners=300, exam_id="test-exam")
    server = ServerProcess(
        data,
        quizzes=write_quizzes(tmp_path / "quizzes"),
        book=tmp_path / "no-book",
        admin_token=TOKEN,
    )
    with server:
        page.goto(server.url + "/exam/admin/stats")
        show(page, "not-the-token")
        page.wait_for_selector("#message.error")
        assert page.is_hidden("#results")
        show(page, TOKEN)
        page.wait_for_selector("#items tr >> nth=24")
        assert page.is_hidden("#message")
        rows = page.locator("#items tr").all_inner_texts()
        bad = next(r for r in rows if r.startswith(BAD))
        assert bad.rstrip().endswith("negative_discrimination")
        assert "KR-20" in page.inner_text("#reliability")
        assert "negative_discrimination" in page.inner_text("#flags")

        page.goto(server.url + "/exam/admin/stats?lang=tr")
        show(page, TOKEN)
        page.wait_for_selector("#items tr >> nth=24")
        assert page.inner_text("h1") == "Soru istatistikleri"
        assert page.inner_text("#reliability").startswith("Güvenirlik (")
        assert "," in page.locator("#items tr >> nth=1 >> td >> nth=3").inner_text()
    assert offline_page.external == []
    assert offline_page.console_errors == [
        "Failed to load resource: the server responded with a status of 403 (Forbidden)"
    ]
