"""The verify page never presents a failed credential's claims as facts: a credential that is
NOT VALID (here: issued by an issuer this course does not trust) shows its learner and score
greyed and marked "unverified", apart from the verdict, and nothing under the verified
summary. The server is a real subprocess; the page loads nothing from the network."""

from __future__ import annotations

import io
import json
from datetime import datetime, timezone

from PIL import Image

from nccl_course.certs import Issuer
from nccl_course.certs.baking import bake_credential
from tests.exam.conftest import write_quizzes
from tests.support.server_process import ServerProcess


def foreign_credential(folder) -> dict:
    issuer = Issuer.load_or_create(
        folder, "did:web:course.example.org", "nccl-course", "https://course.example.org/verify"
    )
    return issuer.issue(
        learner_name="Mallory Claims",
        learner_email="mallory@example.org",
        exam_id="test-exam",
        score=1.0,
        passed_at=datetime(2026, 3, 14, tzinfo=timezone.utc),
    )


def test_failed_credential_claims_are_shown_as_unverified(offline_page, tmp_path):
    page = offline_page.page
    credential = foreign_credential(tmp_path / "elsewhere")
    server = ServerProcess(
        tmp_path / "data", quizzes=write_quizzes(tmp_path / "quizzes"), book=tmp_path / "no-book"
    )
    with server:
        page.goto(server.url + "/exam/verify")
        page.fill("#credential-text", json.dumps(credential))
        page.click("#verify")
        page.wait_for_function("() => document.querySelector('#verdict').textContent.length > 0")
        assert page.inner_text("#verdict") == "NOT VALID"
        assert "which is not a trusted issuer" in page.inner_text("#reason")
        assert "Mallory" not in page.inner_text("#summary")
        assert page.is_visible("#unverified")
        claims = page.inner_text("#unverified")
        assert "Mallory Claims" in claims and "unverified" in claims.lower()
        assert "100 %" in claims  # the score as the page formats numbers

        # not JSON at all: a message, no claims
        page.fill("#credential-text", "{")
        page.click("#verify")
        page.wait_for_function(
            "() => /not JSON/.test(document.querySelector('#reason').textContent)"
        )
        assert page.is_hidden("#unverified")
    assert offline_page.external == []
    assert offline_page.console_errors == []


def plain_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (250, 250, 250)).save(out, format="PNG")
    return out.getvalue()


def test_a_baked_png_is_read_in_the_browser_and_malformed_ones_are_named(offline_page, tmp_path):
    """The file input takes the certificate's PNG: the page reads the credential out of its
    openbadgecredential chunk and the server verifies it; a PNG without one, with two, or cut
    short gets a message of its own."""
    page = offline_page.page
    credential = foreign_credential(tmp_path / "elsewhere")
    baked = bake_credential(plain_png(), credential)
    itxt = baked.index(b"iTXtopenbadgecredential") - 4
    chunk = baked[itxt : baked.index(b"IEND") - 4]
    files = {
        "baked.png": baked,
        "plain.png": plain_png(),
        "twice.png": baked[:itxt] + chunk + baked[itxt:],
        "cut.png": baked[: len(baked) - 40],
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    server = ServerProcess(
        tmp_path / "data", quizzes=write_quizzes(tmp_path / "quizzes"), book=tmp_path / "no-book"
    )
    with server:
        page.goto(server.url + "/exam/verify")
        page.set_input_files("#credential-file", str(tmp_path / "baked.png"))
        page.wait_for_function("() => document.querySelector('#credential-text').value.length > 0")
        assert json.loads(page.input_value("#credential-text")) == credential
        page.click("#verify")
        page.wait_for_function("() => document.querySelector('#verdict').textContent.length > 0")
        assert page.inner_text("#verdict") == "NOT VALID"
        assert "which is not a trusted issuer" in page.inner_text("#reason")
        assert "Mallory Claims" in page.inner_text("#unverified")

        for name, message in (
            ("plain.png", "This PNG holds no credential."),
            ("twice.png", "This PNG holds 2 credentials; Open Badges 3.0 allows one."),
            ("cut.png", "This PNG is damaged or cut short; download the certificate again."),
        ):
            page.set_input_files("#credential-file", str(tmp_path / name))
            page.wait_for_function(
                "m => document.querySelector('#reason').textContent.startsWith(m)", arg=message
            )
            assert page.input_value("#credential-text") == ""
    assert offline_page.external == []
    assert offline_page.console_errors == []


def test_the_course_certificate_png_verifies_on_the_page(offline_page, tmp_path):
    """A learner passes (through the API), downloads the certificate PNG, and the verify page
    reads the credential out of it: VALID, with the learner's claims as facts."""
    import httpx

    from tests.browser.test_exam_flow import stored_keys
    from tests.exam.conftest import Learner
    from tests.support.exam_credentials import passed_attempt

    page = offline_page.page
    data = tmp_path / "data"
    server = ServerProcess(data, quizzes=write_quizzes(tmp_path / "quizzes"), book=tmp_path / "b")
    with server, httpx.Client(base_url=server.url, timeout=60) as client:
        learner = Learner(client, name="Grace Hopper", email="grace@example.org")
        result = passed_attempt(learner, lambda attempt: stored_keys(data / "course.db", attempt))
        png = client.get(
            f"/exam/api/attempts/{result['id']}/certificate.png", headers=learner.headers
        )
        assert png.status_code == 200
        (tmp_path / "certificate.png").write_bytes(png.content)
        page.goto(server.url + "/exam/verify")
        page.set_input_files("#credential-file", str(tmp_path / "certificate.png"))
        page.wait_for_function("() => document.querySelector('#credential-text').value.length > 0")
        page.click("#verify")
        page.wait_for_function("() => document.querySelector('#verdict').textContent.length > 0")
        assert page.inner_text("#verdict") == "VALID", page.inner_text("#reason")
        assert "Grace Hopper" in page.inner_text("#summary")
    assert offline_page.external == []
    assert offline_page.console_errors == []
