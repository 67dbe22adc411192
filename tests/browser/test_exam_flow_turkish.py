"""The real exam in the Turkish edition, in Debian's chromium, as a Turkish learner takes it:
register on the Turkish exam page, answer every question of the course's blueprint through the
page (numbers typed with a decimal comma, every question kind the attempt draws, exhibits
included), submit, and get the verdict in Turkish. The English end to end (credential,
certificate, verification, revocation) is tests/browser/test_exam_flow.py; the correct answers
come from the server's database, as there."""

from __future__ import annotations

from pathlib import Path

from nccl_course.quiz.keys import correct_response
from tests.browser.test_exam_flow import EXHIBIT_VIEW, answer, register_and_start, stored_keys
from tests.support.server_process import ServerProcess

REPO = Path(__file__).resolve().parents[2]


def typed_in_turkish(value) -> str:
    """A number as a Turkish learner types it: a decimal comma, no grouping."""
    text = repr(value) if isinstance(value, float) else str(value)
    return text.replace(".", ",")


def test_the_real_exam_in_turkish(offline_page, tmp_path):
    page = offline_page.page
    data = tmp_path / "data"
    with ServerProcess(data, quizzes=REPO / "quizzes", book=tmp_path / "no-book") as server:
        page.on("dialog", lambda dialog: dialog.accept())
        attempt_id = register_and_start(
            page, server.url + "/exam?lang=tr", "Cahit Arf", "cahit@example.org"
        )
        assert page.evaluate("document.documentElement.lang") == "tr"
        keys = stored_keys(data / "course.db", attempt_id)
        assert page.locator("#questions li.question").count() == len(keys) > 0
        kinds = {key["type"] for key in keys}
        assert {"single", "numeric"} <= kinds, kinds
        exhibit = page.evaluate(EXHIBIT_VIEW)  # an exhibit as the page draws one, in Turkish
        assert exhibit["caption"] == "NCCL log’u: rank 0 <b>", exhibit["caption"]
        assert exhibit["labelled"] and exhibit["role"] == "region"
        decimals = 0
        for index, key in enumerate(keys):
            if key["type"] != "numeric":
                answer(page, index, key)
                continue
            typed = typed_in_turkish(correct_response(key))
            decimals += "," in typed
            box = page.locator(f'li.question[data-index="{index}"] input.answer-input')
            box.fill(typed)
            box.dispatch_event("change")
            page.wait_for_selector(
                f'li.question[data-index="{index}"][data-saved="yes"]', timeout=60_000
            )
        assert decimals > 0, "no numeric answer of this attempt had a decimal comma to type"

        page.click("#submit")
        page.wait_for_selector("#result:not([hidden])")
        score = page.locator("#score")
        text = score.inner_text()
        assert "good" in (score.get_attribute("class") or ""), text
        assert "başarılı" in text and "başarısız" not in text, text
        assert "passed" not in text, f"the verdict is in English: {text}"
        assert page.locator("#feedback li.question").count() == len(keys)
