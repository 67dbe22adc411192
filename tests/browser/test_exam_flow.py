"""The exam end to end in Debian's chromium: register, answer every question through the page,
pass, download the credential and the certificate, verify it on the verify page (valid), revoke
it with the admin command, verify again (revoked). The server is a real subprocess on the
repository's question banks and blueprint; the test reads the correct answers from the
server's database, as the brief allows, and the page itself never sees them."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from nccl_course.quiz.keys import correct_response
from tests.support.server_process import ServerProcess

REPO = Path(__file__).resolve().parents[2]
ADMIN_TOKEN = "browser-test-admin-token"


def stored_keys(db_path: Path, attempt_id: str) -> list[dict]:
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute(
            "SELECT q.key FROM attempt_questions q JOIN attempts a ON a.id = q.attempt_id "
            "WHERE a.public_id = ? ORDER BY q.position",
            (attempt_id,),
        ).fetchall()
    return [json.loads(r[0]) for r in rows]


def register_and_start(page, url: str, name: str, email: str) -> str:
    """Sign up on the exam page at ``url`` and start an attempt, as a learner clicks; the
    attempt's id."""
    page.goto(url)
    page.wait_for_selector("#auth:not([hidden])")
    page.fill("#name", name)
    page.fill("#email", email)
    page.click("#register")
    page.wait_for_selector("#home:not([hidden])")
    page.click("#start")
    page.wait_for_selector("#attempt:not([hidden])")
    return page.evaluate("state.attempt.id")


def answer(page, index: int, key: dict) -> None:
    li = page.locator(f'li.question[data-index="{index}"]')
    response = correct_response(key)
    kind = key["type"]
    if kind == "single":
        li.locator(f'input[value="{response}"]').check()
    elif kind == "multiple":
        for choice in response:
            li.locator(f'input[value="{choice}"]').check()
    elif kind in ("numeric", "text"):
        box = li.locator("input.answer-input")
        box.fill(repr(response) if kind == "numeric" else str(response))
        box.dispatch_event("change")
    elif kind == "ordering":
        # by index (option 0 is the "choose" placeholder): this Playwright/Chromium pair
        # matches select_option(value=...) against labels too, and labels here are digits
        for position, item in enumerate(response):
            li.locator(f'select[data-item="{item}"]').select_option(index=position + 1)
    elif kind == "matching":
        for left, right in enumerate(response):
            li.locator(f'select[name="q{index}-left{left}"]').select_option(index=right + 1)
    else:
        raise AssertionError(f"no way to answer a {kind} question")
    try:
        page.wait_for_selector(
            f'li.question[data-index="{index}"][data-saved="yes"]', timeout=60_000
        )
    except Exception as exc:
        status = li.locator(".save-status").inner_text()
        raise AssertionError(f"question {index} ({kind}) not saved: {status!r}; key {key}") from exc


def check_choice_labels(page, keys: list[dict]) -> None:
    """Choices carry the names the grader's feedback uses: Choice 1, Choice 2, ..."""
    for index, key in enumerate(keys):
        if key["type"] in ("single", "multiple"):
            labels = page.locator(f'li.question[data-index="{index}"] .choice-label')
            expected = [f"Choice {i + 1}" for i in range(key["n_choices"])]
            assert labels.all_inner_texts() == expected


# An ordering question with one item long enough to wrap, drawn by the page's own renderer in a
# scratch list; returns [select left, select width, select top - text top] per item.
ORDERING_GEOMETRY = """() => {
  const scratch = document.createElement("ol");
  document.querySelector("main").appendChild(scratch);
  const long = "a long item whose text wraps onto several lines of the page ".repeat(6);
  scratch.appendChild(renderQuestion({ index: 999, response: null, question: {
    type: "ordering", prompt: "Order these", items: ["short", long, "$p - 1$ steps"] } }));
  const rows = [...scratch.querySelectorAll("label.option")].map((label) => {
    const select = label.querySelector("select").getBoundingClientRect();
    const text = label.querySelector("span").getBoundingClientRect();
    return [select.left, select.width, select.top - text.top, text.height];
  });
  scratch.remove();
  return rows;
}"""


def check_ordering_alignment(page) -> None:
    page.set_viewport_size({"width": 480, "height": 800})
    rows = page.evaluate(ORDERING_GEOMETRY)
    page.set_viewport_size({"width": 1280, "height": 720})
    assert len(rows) == 3
    assert rows[1][3] > 2 * rows[0][3], f"the long item did not wrap: {rows}"
    assert len({round(left) for left, *_ in rows}) == 1, f"selects not in one column: {rows}"
    assert len({round(width) for _, width, *_ in rows}) == 1, f"selects differ in width: {rows}"
    for _, _, offset, _ in rows:
        assert abs(offset) <= 6, f"a select is not level with the first line of its item: {rows}"


# A question with an exhibit, drawn by the page's own renderer in a scratch list.
EXHIBIT_VIEW = """() => {
  const scratch = document.createElement("ol");
  document.querySelector("main").appendChild(scratch);
  const long = "[rank0]:[E1206] Watchdog caught collective operation timeout ".repeat(5);
  const li = renderQuestion({ index: 998, response: null, question: {
    type: "single", prompt: "Which line?", choices: ["Line 2", "Line 3"],
    exhibit: { kind: "log", caption: "rank 0 <b>", text: "first\\nsecond\\n" + long } } });
  scratch.appendChild(li);
  const pre = li.querySelector("figure.exhibit pre");
  const caption = li.querySelector("figure.exhibit figcaption");
  pre.focus();
  const view = { caption: caption.textContent, labelled: pre.getAttribute("aria-labelledby") === caption.id,
    role: pre.getAttribute("role"), focused: document.activeElement === pre, text: pre.textContent,
    scrolls: pre.scrollWidth > pre.clientWidth, overflow: getComputedStyle(pre).overflowX,
    before: li.firstElementChild.tagName };
  scratch.remove();
  return view;
}"""


def check_exhibit_view(page) -> None:
    view = page.evaluate(EXHIBIT_VIEW)
    assert view["caption"] == "NCCL log: rank 0 <b>"  # text, never markup
    assert view["labelled"] and view["role"] == "region" and view["focused"]
    assert view["text"].startswith("1  first\n2  second\n3  [rank0]")
    assert view["scrolls"] and view["overflow"] == "auto"
    assert view["before"] == "FIGURE"  # the exhibit comes before the prompt


# Markdown and math in a choice, as the result page shows the learner's answer.
ANSWER_HTML = """() => describeResponse(
  { type: "single", choices: ["a", "Call `ncclAllReduce` for **$2(p-1)$** steps"] }, 1)"""


def check_result_page(page, keys: list[dict]) -> None:
    # the score is in view after submitting from the bottom of the page
    top = page.evaluate("document.querySelector('#result').getBoundingClientRect().top")
    assert 0 <= top < 200, f"the result starts {top}px from the top of the window"
    assert page.evaluate(ANSWER_HTML) == (
        "Choice 2: Call <code>ncclAllReduce</code> for <strong>$2(p-1)$</strong> steps"
    )
    # every answer is rendered: no Markdown backticks, and math is typeset, not left as $...$
    page.wait_for_function(
        "() => !document.querySelector('#feedback .your-answer .MathJax_Preview')"
    )
    for index, key in enumerate(keys):
        li = page.locator(f'#feedback li.question[data-index="{index}"]')
        shown = li.locator(".your-answer").inner_text()
        assert "`" not in shown, shown
        if "$" in li.locator(".your-answer").inner_html():
            li.locator(".your-answer mjx-container").first.wait_for(timeout=60_000)
        if key["type"] in ("single", "multiple"):
            labels = li.locator(".choices .choice-label").all_inner_texts()
            assert labels == [f"Choice {i + 1}" for i in range(key["n_choices"])]
        if key["type"] == "multiple":
            # one list item per correct choice (all picked): wrapped feedback stays in its item
            items = li.locator(".feedback ul").first.locator("li").all_inner_texts()
            assert len(items) == len(key["correct"]), items
            assert all(item.startswith("Choice ") for item in items), items


def verify_on_page(page, url: str, credential_text: str) -> str:
    page.goto(url + "/exam/verify")
    page.fill("#credential-text", credential_text)
    page.click("#verify")
    page.wait_for_selector("#verdict-panel:not([hidden])")
    page.wait_for_function("() => document.querySelector('#verdict').textContent.length > 0")
    return page.inner_text("#verdict")


def assert_linkedin_link(page, credential: dict) -> None:
    """The result and verify pages offer "Add to LinkedIn" for a valid credential."""
    link = page.locator("#share a.share-linkedin")
    link.wait_for()
    href = link.get_attribute("href")
    assert href.startswith("https://www.linkedin.com/profile/add?startTask=CERTIFICATION_NAME&")
    assert "certId=" + quote(credential["id"], safe="") in href


def test_exam_end_to_end(offline_page, tmp_path):
    page = offline_page.page
    data = tmp_path / "data"
    server = ServerProcess(
        data,
        quizzes=REPO / "quizzes",
        book=tmp_path / "no-book",
        admin_token=ADMIN_TOKEN,
    )
    with server:
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(server.url + "/exam")
        page.wait_for_selector("#auth:not([hidden])")
        page.fill("#name", "Grace Hopper")
        page.fill("#email", "grace@example.org")
        page.click("#register")
        page.wait_for_selector("#home:not([hidden])")
        assert page.inner_text("#learner-name") == "Grace Hopper"
        page.click("#start")
        page.wait_for_selector("#attempt:not([hidden])")
        assert page.is_visible("#timer")
        attempt_id = page.evaluate("state.attempt.id")
        count = page.locator("#questions li.question").count()
        keys = stored_keys(data / "course.db", attempt_id)
        assert count == len(keys) > 0
        # math in prompts is typeset by the MathJax the server ships (no CDN)
        prompts = page.evaluate("state.attempt.questions.map((q) => q.question.prompt)")
        if any("$" in p for p in prompts):
            page.wait_for_selector("#questions mjx-container", timeout=60_000)
        check_choice_labels(page, keys)
        check_ordering_alignment(page)
        check_exhibit_view(page)
        for index, key in enumerate(keys):
            answer(page, index, key)
        assert "Every question has a saved answer" in page.inner_text("#unanswered")

        page.click("#submit")
        page.wait_for_selector("#result:not([hidden])")
        score = page.inner_text("#score")
        assert "100.0 %" in score and "passed" in score and "not passed" not in score
        assert page.locator("#feedback li.question").count() == count
        check_result_page(page, keys)

        with page.expect_download() as info:
            page.click("#download-json")
        credential_path = tmp_path / "credential.json"
        info.value.save_as(credential_path)
        credential = json.loads(credential_path.read_text())
        assert "OpenBadgeCredential" in credential["type"]
        assert_linkedin_link(page, credential)
        with page.expect_download() as info:
            page.click("#download-pdf")
        pdf_path = tmp_path / "certificate.pdf"
        info.value.save_as(pdf_path)
        assert pdf_path.read_bytes().startswith(b"%PDF-")

        text = credential_path.read_text()
        assert verify_on_page(page, server.url, text) == "VALID"
        assert "Grace Hopper" in page.inner_text("#summary")
        assert_linkedin_link(page, credential)

        revoked = subprocess.run(
            [
                sys.executable,
                "-m",
                "nccl_course.server.admin",
                "revoke",
                credential["id"],
                "--server",
                server.url,
                "--token",
                ADMIN_TOKEN,
                "--reason",
                "browser test",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert revoked.returncode == 0, revoked.stderr
        # this time through the file picker (upload) instead of pasting
        page.goto(server.url + "/exam/verify")
        page.set_input_files("#credential-file", str(credential_path))
        page.wait_for_function("() => document.querySelector('#credential-text').value.length > 0")
        page.click("#verify")
        page.wait_for_function("() => document.querySelector('#verdict').textContent.length > 0")
        assert page.inner_text("#verdict") == "REVOKED"
        assert "revoked" in page.inner_text("#reason")
        assert not page.locator("#share").is_visible()
        # the QR-code link form (?id=...) shows the same verdict
        page.goto(f"{server.url}/exam/verify?id={credential['id']}")
        page.wait_for_function("() => document.querySelector('#verdict').textContent.length > 0")
        assert page.inner_text("#verdict") == "REVOKED"

    assert offline_page.external == []
    assert offline_page.console_errors == []
