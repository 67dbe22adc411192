"""Learner progress in the browser (nccl_course.book.progress), in Debian's chromium, offline:
visits, a practice-quiz answer and a lab marked done survive a reload and show on the progress
page; export -> clear -> import restores them; a bad file changes nothing and says why."""

from __future__ import annotations

import json
from pathlib import Path

from nccl_course.quiz import load_bank

REPO = Path(__file__).resolve().parents[2]
INTRO = load_bank(REPO / "quizzes" / "intro.yml")
PROGRESS = "/book/quizzes/progress.html"
CHAPTER = "/book/collectives/03-all-reduce.html"
LAB = "/labs/03-ring-allreduce/README.html"
KEY = "nccl-course-progress"
THEME_NOISE = "Got invalid theme mode"


def row(page, doc: str):
    return page.locator(f'tr[data-doc="{doc}"]')


def open_progress(page, book_url):
    page.goto(book_url + PROGRESS)
    page.wait_for_selector('.nccl-progress[data-state="ready"]')


def stored(page) -> dict | None:
    text = page.evaluate(f"localStorage.getItem('{KEY}')")
    return None if text is None else json.loads(text)


def test_progress_survives_exports_imports_and_clears(offline_page, book_url, tmp_path):
    page = offline_page.page
    open_progress(page, book_url)
    intro_questions = json.loads(row(page, "book/intro").get_attribute("data-questions"))
    assert "intro/gather-shards-everywhere" in intro_questions
    assert row(page, "book/intro").locator(".nccl-progress-visited").inner_text() == "—"
    assert row(page, "labs/03-ring-allreduce/README").get_attribute("data-lab") == "true"
    assert row(page, "book/intro").get_attribute("data-lab") == "false"
    # every page of the toc is listed (the progress page itself excepted)
    assert page.locator("tr[data-doc]").count() >= 30

    # answer one practice question right on the home page
    page.goto(book_url + "/book/intro.html")
    inst = INTRO.question("gather-shards-everywhere").instantiate(0)
    variant = page.locator("#nq-intro-gather-shards-everywhere-0")
    variant.locator(f'input[value="{inst.correct_response()}"]').check()
    variant.locator(".nccl-quiz-check").click()
    assert variant.locator(".nccl-quiz-result").inner_text() == "Correct."

    # mark a lab done; it stays ticked after a reload
    page.goto(book_url + LAB)
    box = page.locator(".nccl-progress-lab-done")
    assert not box.is_checked()
    box.check()
    page.reload()
    assert page.locator(".nccl-progress-lab-done").is_checked()

    # a chapter, then home: "continue where you left off" points at the chapter
    page.goto(book_url + CHAPTER)
    page.goto(book_url + "/book/intro.html")
    cont = page.locator(".nccl-progress-continue")
    assert cont.is_visible()
    link = cont.locator("a")
    assert link.get_attribute("href") == "../book/collectives/03-all-reduce.html"
    assert "All-reduce" in link.inner_text() or "all-reduce" in link.inner_text().lower()
    link.click()
    assert page.url == book_url + CHAPTER

    open_progress(page, book_url)
    n = len(intro_questions)
    expected_quiz = f"1 of {n} answered, score {round(100 / n)} %"
    visited = {"book/intro", "book/collectives/03-all-reduce", "labs/03-ring-allreduce/README"}
    assert_shown(page, visited, expected_quiz)
    before = stored(page)
    assert before["quiz"] == {"intro/gather-shards-everywhere": 1}
    assert set(before["labs"]) == {"labs/03-ring-allreduce/README"}
    assert before["last"]["doc"] == "book/collectives/03-all-reduce"

    # export
    with page.expect_download() as info:
        page.locator(".nccl-progress-export").click()
    download = info.value
    assert download.suggested_filename == "nccl-course-progress.json"
    exported = tmp_path / "progress.json"
    download.save_as(exported)
    data = json.loads(exported.read_text())
    assert data.pop("exported").endswith("Z")
    assert data == before

    # clear (after a confirm)
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(".nccl-progress-clear").click()
    assert page.locator(".nccl-progress-message").inner_text() == "Progress cleared."
    assert stored(page) is None
    assert row(page, "book/intro").locator(".nccl-progress-visited").inner_text() == "—"
    page.reload()
    page.wait_for_selector('.nccl-progress[data-state="ready"]')
    # only the progress page itself was visited since
    assert set(stored(page)["visited"]) == {"book/quizzes/progress"}
    assert stored(page)["quiz"] == {} and stored(page)["labs"] == {}

    # import restores it
    page.locator(".nccl-progress-import").set_input_files(str(exported))
    page.wait_for_function(
        "document.querySelector('.nccl-progress-message').textContent.startsWith('Imported')"
    )
    assert stored(page) == before
    assert_shown(page, visited, expected_quiz)

    # bad files: a clear message, nothing changes
    bad_files = {
        "not-json.json": "this is { not json",
        "other.json": json.dumps({"hello": "world"}),
        "bad-doc.json": json.dumps(
            dict(before, visited={"../../etc/passwd": "2026-01-01T00:00:00Z"})
        ),
        "bad-score.json": json.dumps(dict(before, quiz={"intro/gather-shards-everywhere": 7})),
        "array.json": "[1, 2, 3]",
    }
    for name, text in bad_files.items():
        path = tmp_path / name
        path.write_text(text)
        page.locator(".nccl-progress-import").set_input_files(str(path))
        page.wait_for_function(
            "document.querySelector('.nccl-progress-message').textContent.startsWith('Not imported')"
        )
        message = page.locator(".nccl-progress-message").inner_text()
        assert message.endswith("Nothing was changed."), message
        assert stored(page) == before, name
        assert_shown(page, visited, expected_quiz)
        # reset the message for the next file
        page.evaluate("document.querySelector('.nccl-progress-message').textContent = ''")

    assert offline_page.external == [], offline_page.external
    errors = [e for e in offline_page.console_errors if not e.startswith(THEME_NOISE)]
    assert errors == [], errors


def assert_shown(page, visited: set[str], expected_quiz: str) -> None:
    for doc in visited:
        assert row(page, doc).locator(".nccl-progress-visited").inner_text() == "✓ visited", doc
    assert (
        row(page, "book/collectives/01-broadcast").locator(".nccl-progress-visited").inner_text()
        == "—"
    )
    assert row(page, "book/intro").locator(".nccl-progress-quiz").inner_text() == expected_quiz
    lab = row(page, "labs/03-ring-allreduce/README").locator(".nccl-progress-lab")
    assert lab.inner_text() == "✓ done"
    other_lab = row(page, "labs/04-measuring/README").locator(".nccl-progress-lab")
    assert other_lab.inner_text() == "not yet"
