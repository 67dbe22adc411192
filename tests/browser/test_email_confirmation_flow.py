"""The exam page with e-mail confirmation, in Debian's chromium: register, see "check your
e-mail", open the mailed link (from a real SMTP server, aiosmtpd on 127.0.0.1) in another tab
and confirm, and the exam page goes on by itself to a learner who can start."""

from __future__ import annotations

from pathlib import Path

from tests.support.server_process import ServerProcess
from tests.support.smtp_sink import SmtpSink, link_url

REPO = Path(__file__).resolve().parents[2]


def test_register_confirm_by_mail_then_start(offline_page, tmp_path):
    page = offline_page.page
    with SmtpSink() as sink:
        server = ServerProcess(
            tmp_path / "data",
            quizzes=REPO / "quizzes",
            book=tmp_path / "no-book",
            email_confirmation=True,
            env={
                "NCCL_COURSE_SMTP_HOST": "127.0.0.1",
                "NCCL_COURSE_SMTP_PORT": str(sink.port),
                "NCCL_COURSE_SMTP_SECURITY": "none",
            },
        )
        with server:
            page.goto(server.url + "/exam")
            page.wait_for_selector("#auth:not([hidden])")
            page.fill("#name", "Grace Hopper")
            page.fill("#email", "Grace@Example.org")
            page.click("#register")
            page.wait_for_selector("#confirm-email:not([hidden])")
            assert "grace@example.org" in page.inner_text("#confirm-text")
            assert page.is_hidden("#home")

            page.click("#resend")  # a second mail; only its link works
            page.wait_for_function(
                "() => document.querySelector('#message').textContent.includes('new link')"
            )
            first, second = sink.wait(2)
            assert first["To"] == second["To"] == "grace@example.org"

            assert link_url(second).startswith(server.url + "/exam/confirm#")
            tab = page.context.new_page()
            tab.goto(link_url(first))
            tab.click("#confirm")
            tab.wait_for_selector("#message.error")
            assert "not valid" in tab.inner_text("#message")
            tab.close()

            tab = page.context.new_page()
            tab.goto(link_url(second))
            tab.click("#confirm")
            tab.wait_for_selector("#to-exam:not([hidden])")
            assert "Confirmed: grace@example.org" in tab.inner_text("#message")
            tab.close()

            # The exam page notices by itself (it asks every 5 s).
            page.wait_for_selector("#home:not([hidden])", timeout=20_000)
            assert page.inner_text("#learner-name") == "Grace Hopper"
            page.click("#start")
            page.wait_for_selector("#attempt:not([hidden])")
            assert page.locator("#questions li.question").count() > 0
    assert offline_page.external == []
