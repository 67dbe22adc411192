"""Acceptance: the exam taken in Turkish on the course's own banks and catalogs. Every drawn
question reads in Turkish, numeric answers are typed with a decimal comma, the attempt passes,
and the certificate is Turkish while its credential verifies."""

from __future__ import annotations

import warnings
from pathlib import Path

from pypdf import PdfReader

from nccl_course.certs.verify import verify
from nccl_course.i18n.numbers import localize_decimals
from nccl_course.quiz import load_banks
from nccl_course.quiz.keys import correct_response
from nccl_course.server.app import create_app
from nccl_course.server.settings import Settings
from tests.exam.conftest import RAISED_RATE_LIMITS, Learner, keys_of

REPO = Path(__file__).resolve().parents[2]
NAME = "Işıl Güneş Çağlayan"


def test_exam_in_turkish_on_the_real_banks(tmp_path):
    english = load_banks(REPO / "quizzes")
    settings = Settings(
        data_dir=tmp_path / "data",
        quizzes_dir=REPO / "quizzes",
        book_dir=tmp_path / "no-book",
        admin_token="test-admin-token",
        rate_limits=RAISED_RATE_LIMITS,
        email_confirmation=False,
    )
    app = create_app(settings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    try:
        with TestClient(app) as client:
            info = client.get("/exam/api/exam?lang=tr").json()
            assert not [p for p in info["problems"] if "tr" in p.lower()], info["problems"]
            learner = Learner(client, name=NAME, email="isil@example.org")
            learner.headers["Accept-Language"] = "tr-TR,tr;q=0.9,en;q=0.5"
            attempt = learner.start().json()
            assert attempt["language"] == "tr"
            keys = keys_of(app, attempt["id"])
            numeric_typed = 0
            for q, key in zip(attempt["questions"], keys, strict=True):
                source = english[q["chapter"]].question(key["id"])
                assert q["question"]["prompt"] != source.prompt or not any(
                    c.isalpha() for c in source.prompt
                ), f"{key['uid']} is drawn in English"
                response = correct_response(key)
                if key["type"] == "numeric":
                    response = localize_decimals(repr(float(response)), "tr")
                    numeric_typed += "," in response
                assert learner.save(attempt["id"], q["index"], response).status_code == 200
            assert numeric_typed > 0, "no numeric answer with a decimal comma was drawn"
            result = learner.submit(attempt["id"]).json()
            assert result["passed"] is True and result["score"] == 1.0, result

            url = f"/exam/api/attempts/{result['id']}"
            pdf = client.get(url + "/certificate.pdf", headers=learner.headers)
            assert pdf.status_code == 200
            (tmp_path / "c.pdf").write_bytes(pdf.content)
            text = " ".join(
                "".join(p.extract_text() for p in PdfReader(tmp_path / "c.pdf").pages).split()
            )
            assert "Başarı Sertifikası" in text and NAME in text, text[:300]

            credential = client.get(url + "/credential", headers=learner.headers).json()
            did = client.get("/.well-known/did.json").json()
            status_url = credential["credentialStatus"]["statusListCredential"]
            status = client.get(status_url.split("127.0.0.1:8000", 1)[1]).json()
            checked = verify(
                credential, trusted_issuers=[did["id"]], did_document=did, status_list=status
            )
            assert checked.verdict == "VALID", checked
    finally:
        app.state.db.dispose()
