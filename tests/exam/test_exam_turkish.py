"""The exam in Turkish: pages in the learner's language (``?lang=``, the ``nccl_lang`` cookie,
``Accept-Language``), attempts drawn from the banks in that language (a bank without a complete
catalog stays English and the server says so), Turkish grading words and decimal commas, mails
in the language of the registration, the certificate in the attempt's language, and the
``attempts.language`` migration.

The Turkish banks come from a locale folder written here: catalogs for the small banks of
``tests/exam/conftest.py`` (and a numeric one), so these tests do not wait on the translators of
the real banks; the interface's words are the repository's own ``interface.po``.
"""

from __future__ import annotations

import json
import re
import shutil
import textwrap
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po
from pypdf import PdfReader
from sqlalchemy import create_engine, text

from nccl_course.certs.render import date_text, render_certificate
from nccl_course.certs.verify import verify
from nccl_course.i18n import html_pages
from nccl_course.i18n.interface import translator
from nccl_course.quiz.keys import correct_response
from nccl_course.quiz.parsing import load_bank
from nccl_course.quiz.translation import catalog_path
from nccl_course.quiz.translation import template as bank_template
from nccl_course.server.app import create_app
from nccl_course.server.settings import Settings
from nccl_course.store.db import Database, current_revision, head_revision, sqlite_url, upgrade
from tests.exam.conftest import (
    RAISED_RATE_LIMITS,
    Learner,
    client_for,
    keys_of,
    running_app,
    write_quizzes,
)
from tests.support.smtp_sink import SmtpSink

REPO = Path(__file__).resolve().parents[2]
INTERFACE_PO = REPO / "locales" / "tr" / "LC_MESSAGES" / "interface.po"
TR = translator("tr")
NAME = "Ayşe İlgün Doğan"  # İ, ş and ğ: letters a certificate must print

DELTA = """
chapter: delta
title: Delta
questions:
  - id: d-ring-share
    type: numeric
    difficulty: 1
    tags: [t]
    prompt: In a ring all-reduce over 4 ranks, each rank sends 2(p-1)/p buffers. How many?
    answer: 1.5
    tolerance: {abs: 0.01}
    feedback: {correct: Right., incorrect: Put p = 4 into 2(p-1)/p.}
"""

BLUEPRINT = """
exam:
  id: test-exam-tr
  title: Test exam
  time_limit_minutes: 30
  max_attempts: 3
  pass_score: 0.7
zones:
  - {chapter: alpha, draw: 5}
  - {chapter: delta, draw: 1}
  - {chapter: beta, draw: 1}
"""

# The Turkish of every text of the banks alpha (tests/exam/conftest.py) and delta; beta has no
# catalog, so its questions stay English.
TURKISH = {
    "Alpha": "Alfa",
    "Delta": "Delta",
    "After an all-reduce with SUM over 4 ranks, what does each rank hold?": (
        "4 rank üzerinde SUM ile yapılan bir all-reduce'tan sonra her rank ne tutar?"
    ),
    "The sum of all four buffers.": "Dört arabelleğin toplamını.",
    "Right, every rank holds the same sum.": "Doğru, her rank aynı toplamı tutar.",
    "Its own buffer.": "Kendi arabelleğini.",
    "That is what a barrier leaves.": "Bir bariyerden sonra kalan budur.",
    "A quarter of the sum.": "Toplamın dörtte birini.",
    "That is a reduce-scatter shard.": "Bu, reduce-scatter'ın bir parçasıdır.",
    "Which collectives move data between ranks?": "Hangi kolektifler rank'ler arasında veri taşır?",
    "all-gather": "all-gather",
    "It concatenates shards from every rank.": "Her rank'in parçalarını art arda ekler.",
    "reduce-scatter": "reduce-scatter",
    "It reduces and scatters.": "İndirger ve dağıtır.",
    "a local memcpy": "yerel bir memcpy",
    "That stays on one device.": "O, tek bir cihazda kalır.",
    "Name the collective that leaves the same reduced buffer on every rank.": (
        "Her rank'te aynı indirgenmiş arabelleği bırakan kolektifin adını yazın."
    ),
    "Yes.": "Evet.",
    "Think of reduce followed by broadcast.": "Ardından broadcast gelen bir reduce düşünün.",
    "Order the phases of a ring all-reduce.": "Bir halka all-reduce'un aşamalarını sıralayın.",
    "Right order.": "Doğru sıra.",
    "Reduce-scatter comes first.": "Önce reduce-scatter gelir.",
    "reduce-scatter phase": "reduce-scatter aşaması",
    "all-gather phase": "all-gather aşaması",
    "result on every rank": "her rank'te sonuç",
    "Match each collective with its result.": "Her kolektifi sonucuyla eşleştirin.",
    "All pairs right.": "Bütün eşler doğru.",
    "Look at where the result lands.": "Sonucun nereye düştüğüne bakın.",
    "broadcast": "broadcast",
    "one rank's buffer everywhere": "bir rank'in arabelleği her yerde",
    "every shard everywhere": "her parça her yerde",
    "reduce": "reduce",
    "the sum on one root": "toplam tek bir kökte",
    "In a ring all-reduce over 4 ranks, each rank sends 2(p-1)/p buffers. How many?": (
        "4 rank üzerinde halka all-reduce'ta her rank 2(p-1)/p arabellek gönderir. Kaç tane?"
    ),
    "Right.": "Doğru.",
    "Put p = 4 into 2(p-1)/p.": "2(p-1)/p ifadesinde p = 4 alın.",
    "all-reduce": "all-reduce | tümüyle indirgeme",  # a text question's accepted answers
}
PROMPTS_TR = set(TURKISH.values())


def write_locale(folder: Path, quizzes: Path) -> Path:
    """A locale folder: the repository's interface catalog, and complete Turkish catalogs for
    the banks alpha and delta (none for beta)."""
    messages = folder / "tr" / "LC_MESSAGES"
    messages.mkdir(parents=True)
    shutil.copy(INTERFACE_PO, messages / "interface.po")
    for chapter in ("alpha", "delta"):
        bank = load_bank(quizzes / f"{chapter}.yml")
        catalog = Catalog(locale="tr")
        for message in bank_template(bank):
            if message.id:
                catalog.add(message.id, TURKISH[message.id], context=message.context)
        path = catalog_path(folder, "tr", chapter)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            write_po(f, catalog, width=0)
    return folder


@pytest.fixture()
def tr_settings(tmp_path):
    quizzes = write_quizzes(tmp_path / "quizzes", BLUEPRINT)
    (quizzes / "delta.yml").write_text(textwrap.dedent(DELTA))
    return Settings(
        data_dir=tmp_path / "data",
        quizzes_dir=quizzes,
        book_dir=tmp_path / "no-book",
        admin_token="test-admin-token",
        rate_limits=RAISED_RATE_LIMITS,
        email_confirmation=False,
        locale_dir=write_locale(tmp_path / "locales", quizzes),
    )


@pytest.fixture()
def tr_app(tr_settings):
    yield from running_app(tr_settings)


@pytest.fixture()
def tr_client(tr_app):
    yield from client_for(tr_app)


def strings_of(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="nccl-strings">(.*?)</script>', page)
    assert found, "the page has no strings for its scripts"
    return json.loads(found.group(1))


# ---- pages ---------------------------------------------------------------------------------
def test_pages_in_turkish_by_accept_language(client):
    english = (REPO / "src/nccl_course/server/static/exam.html").read_text(encoding="utf-8")
    for path, source in (("/exam", "exam.html"), ("/exam/verify", "verify.html")):
        page = client.get(path, headers={"Accept-Language": "tr-TR,tr;q=0.9,en;q=0.5"})
        assert page.status_code == 200
        assert page.headers["content-language"] == "tr"
        assert {"Accept-Language", "Cookie"} <= {v.strip() for v in page.headers["vary"].split(",")}
        assert "set-cookie" not in page.headers  # only ?lang= sets the cookie
        assert '<html lang="tr">' in page.text
        english_texts = html_pages.page_texts(
            (REPO / "src/nccl_course/server/static" / source).read_text(encoding="utf-8")
        )
        assert not set(english_texts) & set(html_pages.page_texts(page.text))
    exam = client.get("/exam", headers={"Accept-Language": "tr"}).text
    assert TR("Start the exam") in exam and "Sınava başla" in exam
    body = exam.split("</head>")[1]  # (the head's strings table has the English as keys)
    assert "Start the exam" in english and "Start the exam" not in body
    table = strings_of(exam)
    assert table["language"] == "tr" and table["decimal"] == ","
    assert table["strings"]["Attempt {number}"] == TR("Attempt {number}") != "Attempt {number}"
    assert table["strings"]["{value} %"] == "%{value}"
    assert '<a href="?lang=en" hreflang="en" lang="en"' in exam  # the way back to English


def test_pages_in_turkish_by_lang_and_then_by_cookie(client):
    page = client.get("/exam?lang=tr", headers={"Accept-Language": "en"})
    assert page.status_code == 200 and '<html lang="tr">' in page.text
    assert "nccl_lang=tr" in page.headers["set-cookie"]
    # the cookie keeps the language on the next page, over the browser's own
    verify_page = client.get("/exam/verify?id=urn:uuid:1", headers={"Accept-Language": "en"})
    assert '<html lang="tr">' in verify_page.text and "Belge doğrulama" in verify_page.text
    # the switcher keeps the page's other parameters
    assert 'href="?id=urn%3Auuid%3A1&amp;lang=en"' in verify_page.text
    back = client.get("/exam?lang=en")
    assert '<html lang="en">' in back.text and "nccl_lang=en" in back.headers["set-cookie"]
    assert "Start the exam" in client.get("/exam").text


def test_english_by_default(client):
    page = client.get("/exam")
    assert page.status_code == 200 and page.headers["content-language"] == "en"
    assert '<html lang="en">' in page.text and "Start the exam" in page.text
    assert strings_of(page.text) == {"language": "en", "decimal": ".", "strings": {}}
    assert "Sınav" not in page.text.replace("Türkçe", "")
    # an Accept-Language the course does not have is English too
    assert '<html lang="en">' in client.get("/exam", headers={"Accept-Language": "de"}).text


def test_an_unknown_language_is_a_400_that_says_which_there_are(client):
    for path in ("/exam?lang=xx", "/exam/verify?lang=klingon", "/exam/confirm?lang=xx"):
        page = client.get(path)
        assert page.status_code == 400, path
        assert "lang=en" in page.text and "lang=tr" in page.text
        assert "set-cookie" not in page.headers
    turkish = client.get("/exam?lang=xx", headers={"Accept-Language": "tr"})
    assert turkish.status_code == 400 and "bilinmeyen dil" in turkish.text
    api = client.post("/exam/api/attempts?lang=xx")
    assert api.status_code == 400 and api.json()["error"] == "unknown_language"
    # a cookie the course does not know is ignored, not refused
    client.cookies.set("nccl_lang", "xx")
    assert client.get("/exam").status_code == 200


def test_refusals_are_in_the_request_language(client):
    english = client.get("/exam/api/me")
    turkish = client.get("/exam/api/me", headers={"Accept-Language": "tr"})
    assert english.status_code == turkish.status_code == 401
    assert english.json()["error"] == turkish.json()["error"] == "no_token"
    assert english.json()["detail"] == "sign in first (register to get a learner key)"
    assert turkish.json()["detail"] == TR("sign in first (register to get a learner key)")
    assert turkish.json()["detail"] != english.json()["detail"]


# ---- attempts -----------------------------------------------------------------------------
def by_chapter(attempt: dict, chapter: str) -> list[dict]:
    return [q for q in attempt["questions"] if q["chapter"] == chapter]


def test_an_attempt_in_turkish(tr_client, tr_app):
    info = tr_client.get("/exam/api/exam?lang=tr").json()
    assert any("bank beta is drawn in English" in p for p in info["problems"])
    assert not any("bank alpha" in p or "bank delta" in p for p in info["problems"])
    assert not any(
        "drawn in English" in p for p in tr_client.get("/exam/api/exam").json()["problems"]
    )

    learner = Learner(tr_client, name=NAME, email="ayse@example.org")
    attempt = tr_client.post("/exam/api/attempts?lang=tr", headers=learner.headers)
    assert attempt.status_code == 201, attempt.text
    attempt = attempt.json()
    assert attempt["language"] == "tr"
    # where the bank's catalog is complete the questions are Turkish; beta stays English
    for q in by_chapter(attempt, "alpha") + by_chapter(attempt, "delta"):
        assert q["question"]["prompt"] in PROMPTS_TR, q["question"]["prompt"]
        for choice in q["question"].get("choices", []):
            assert choice in PROMPTS_TR
    [beta] = by_chapter(attempt, "beta")
    assert beta["question"]["prompt"] not in PROMPTS_TR
    # resuming keeps the attempt's language, whatever the request's
    again = tr_client.post("/exam/api/attempts?lang=en", headers=learner.headers).json()
    assert again["id"] == attempt["id"] and again["language"] == "tr"

    keys = keys_of(tr_app, attempt["id"])
    [delta] = by_chapter(attempt, "delta")
    assert keys[delta["index"]]["decimal"] == ","
    multiple = next(q for q in attempt["questions"] if q["question"]["type"] == "multiple")
    one_right = keys[multiple["index"]]["correct"][:1]
    assert learner.save(attempt["id"], delta["index"], "2,5").status_code == 200
    assert learner.save(attempt["id"], multiple["index"], one_right).status_code == 200
    result = learner.submit(attempt["id"]).json()
    assert result["passed"] is False
    feedback = {q["index"]: q["feedback"] for q in result["questions"]}
    assert "Beklenen: 1,5" in feedback[delta["index"]]
    assert feedback[multiple["index"]].startswith("Kısmen doğru: puan 0,50.")
    assert "(seçilmesi doğru)" in feedback[multiple["index"]]  # the grader's words, in Turkish
    unanswered = [
        q for q in result["questions"] if q["index"] not in (delta["index"], multiple["index"])
    ]
    assert unanswered and all(q["feedback"] == "Cevaplanmadı." for q in unanswered)


def test_a_turkish_attempt_with_decimal_commas_passes_and_prints_a_turkish_certificate(
    tr_client, tr_app, tmp_path
):
    learner = Learner(tr_client, name=NAME, email="ayse@example.org")
    learner.headers["Accept-Language"] = "tr-TR,tr;q=0.8"  # the browser's language, no ?lang=
    attempt = learner.start().json()
    assert attempt["language"] == "tr"
    for q, key in zip(attempt["questions"], keys_of(tr_app, attempt["id"]), strict=True):
        response = correct_response(key)
        if q["chapter"] == "delta":
            response = "1,5"  # as a Turkish learner writes it
        assert learner.save(attempt["id"], q["index"], response).status_code == 200
    result = learner.submit(attempt["id"]).json()
    assert result["passed"] is True and result["score"] == 1.0, result
    [delta] = by_chapter(result, "delta")
    assert delta["correct"] is True and delta["response"] == "1,5"

    url = f"/exam/api/attempts/{result['id']}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdf = tr_client.get(url + "/certificate.pdf", headers=learner.headers)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    assert not [w for w in caught if "missing from font" in str(w.message)]
    (tmp_path / "cert.pdf").write_bytes(pdf.content)
    printed = "".join(page.extract_text() for page in PdfReader(tmp_path / "cert.pdf").pages)
    flat = " ".join(printed.split())
    for words in (
        "Başarı Sertifikası",
        "Bu belge,",
        NAME,
        "sınavı başarıyla geçtiğini onaylar",
        "Puan: %100",  # a whole score prints without decimals (i18n.numbers)
        "Doğrulamak için tarayın",
        "Doğrulama:",
        "Tarih:",
        "Veren:",
    ):
        assert words in flat, (words, flat[:500])
    assert "%100.0" not in flat and "%100,0" not in flat
    today = datetime.now(timezone.utc)
    days = (today, today - timedelta(days=1))
    assert any(date_text(day, TR) in flat for day in days), flat[:500]
    assert any(
        month in flat
        for month in (
            "Aralık",
            "Ocak",
            "Şubat",
            "Mart",
            "Nisan",
            "Mayıs",
            "Haziran",
            "Temmuz",
            "Ağustos",
            "Eylül",
            "Ekim",
            "Kasım",
        )
    )
    assert "Certificate of Achievement" not in flat and "Scan to verify" not in flat
    png = tr_client.get(url + "/certificate.png", headers=learner.headers)
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG\r\n\x1a\n")

    # the credential keeps the English it was signed with, and verifies
    credential = tr_client.get(url + "/credential", headers=learner.headers).json()
    assert credential["name"].startswith("Collective Communication and NCCL")
    did = tr_client.get("/.well-known/did.json").json()
    status_url = credential["credentialStatus"]["statusListCredential"]
    status = tr_client.get(status_url.split("127.0.0.1:8000", 1)[1]).json()
    checked = verify(credential, trusted_issuers=[did["id"]], did_document=did, status_list=status)
    assert checked.verdict == "VALID", checked
    server = tr_client.post("/exam/api/verify", json=credential).json()
    assert server["ok"] is True and server["summary"]["learner"] == NAME


def test_an_english_attempt_stays_english(tr_client, tr_app, tmp_path):
    learner = Learner(tr_client, name="Ada Lovelace", email="ada@example.org")
    attempt = learner.start().json()
    assert attempt["language"] == "en"
    assert not any(q["question"]["prompt"] in PROMPTS_TR for q in attempt["questions"])
    keys = keys_of(tr_app, attempt["id"])
    [delta] = by_chapter(attempt, "delta")
    assert keys[delta["index"]].get("decimal", ".") == "."
    for q, key in zip(attempt["questions"], keys, strict=True):
        response = "1,5" if q["chapter"] == "delta" else correct_response(key)
        learner.save(attempt["id"], q["index"], response)
    result = learner.submit(attempt["id"]).json()
    [delta] = by_chapter(result, "delta")
    assert delta["correct"] is False  # "1,5" is no English number
    assert result["passed"] is True  # 6 of 7
    pdf = tr_client.get(
        f"/exam/api/attempts/{result['id']}/certificate.pdf", headers=learner.headers
    )
    (tmp_path / "en.pdf").write_bytes(pdf.content)
    printed = " ".join(
        "".join(p.extract_text() for p in PdfReader(tmp_path / "en.pdf").pages).split()
    )
    assert "Certificate of Achievement" in printed and "Başarı" not in printed


def test_turkish_certificate_glyphs_and_the_missing_glyph_warning(tr_client, tr_app, tmp_path):
    learner = Learner(tr_client, name=NAME, email="ayse@example.org")
    learner.headers["Accept-Language"] = "tr"
    from tests.support.exam_credentials import passed_credential

    credential = passed_credential(tr_client, learner, lambda a: keys_of(tr_app, a))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        render_certificate(credential, tmp_path / "tr.png", "http://x/exam/verify", language="tr")
    assert not [w for w in caught if "missing from font" in str(w.message)]

    # A page word no font has is reported (the check would catch a Turkish letter DejaVu lacked);
    # the same character in the learner's name only draws a box.
    odd = "\U000f0000"
    catalog = Catalog(locale="tr")
    catalog.add("Scan to verify", f"Tarayın {odd}")
    folder = tmp_path / "odd" / "tr" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "interface.po").open("wb") as f:
        write_po(f, catalog)
    with pytest.warns(UserWarning, match="missing from font"):
        render_certificate(
            credential,
            tmp_path / "odd.png",
            "http://x/exam/verify",
            language="tr",
            locale_dir=tmp_path / "odd",
        )
    named = json.loads(json.dumps(credential))
    named["credentialSubject"]["identifier"][1]["identityHash"] = f"Ayşe {odd}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        render_certificate(named, tmp_path / "named.png", "http://x/exam/verify", language="tr")
    assert not [w for w in caught if "missing from font" in str(w.message)]


# ---- e-mail --------------------------------------------------------------------------------
def test_mails_in_the_language_of_the_registration(tmp_path, quizzes_dir):
    from fastapi.testclient import TestClient

    with SmtpSink() as sink:
        settings = Settings(
            data_dir=tmp_path / "data",
            quizzes_dir=quizzes_dir,
            book_dir=tmp_path / "no-book",
            admin_token="test-admin-token",
            rate_limits=RAISED_RATE_LIMITS,
            smtp_host="127.0.0.1",
            smtp_port=sink.port,
            smtp_security="none",
            mail_from="Course <course@example.org>",
        )
        app = create_app(settings)
        try:
            with TestClient(app) as client:
                body = {"name": NAME, "email": "ayse@example.org"}
                reply = client.post("/exam/api/register?lang=tr", json=body)
                assert reply.status_code == 202
                assert reply.json()["detail"].startswith("ayse@example.org adresine")
                key = {"Authorization": f"Bearer {reply.json()['token']}"}
                english = client.post(
                    "/exam/api/register", json={"name": "Ada", "email": "ada@example.org"}
                )
                assert english.status_code == 202
                [turkish_mail, english_mail] = sink.wait(2)

                assert turkish_mail["Subject"] == TR(
                    "Confirm your e-mail address for the nccl-course exam"
                )
                assert turkish_mail["Subject"] != english_mail["Subject"]
                assert turkish_mail["Content-Language"] == "tr"
                content = turkish_mail.get_content()
                assert content.startswith("Merhaba,") and "24 saat" in content
                link = re.search(r"https?://\S+/exam/confirm\?lang=tr#([A-Za-z0-9_-]+)", content)
                assert link, content
                assert english_mail["Content-Language"] == "en"
                assert english_mail.get_content().startswith("Hello,")
                assert re.search(r"/exam/confirm#[A-Za-z0-9_-]+", english_mail.get_content())

                # until the link is opened, the refusal says so in Turkish
                waiting = client.get("/exam/api/me", headers={**key, "Accept-Language": "tr"})
                assert waiting.status_code == 403
                assert waiting.json()["detail"].startswith("önce e-posta adresinizi doğrulayın")

                page = client.get("/exam/confirm?lang=tr")
                assert '<html lang="tr">' in page.text and "E-posta adresimi doğrula" in page.text
                confirmed = client.post("/exam/api/confirm?lang=tr", json={"token": link.group(1)})
                assert confirmed.status_code == 200

                resent = client.post(
                    "/exam/api/resend?lang=tr",
                    headers={"Authorization": f"Bearer {english.json()['token']}"},
                )
                assert resent.status_code == 202 and "yeni bir bağlantı" in resent.json()["detail"]
                assert sink.wait(3)[2]["Content-Language"] == "tr"
        finally:
            app.state.db.dispose()


# ---- the migration -------------------------------------------------------------------------
def test_migration_0006_gives_every_earlier_attempt_english(tmp_path):
    url = sqlite_url(tmp_path / "old.db")
    engine = create_engine(url)
    upgrade(engine, "0005")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO learners (id, public_id, name, email, token_hash, created_at) "
                "VALUES (1, 'p1', 'Ada', 'ada@example.org', :h, '2026-01-01 10:00:00')"
            ),
            {"h": "a" * 64},
        )
        conn.execute(
            text(
                "INSERT INTO attempts (id, public_id, learner_id, exam_id, number, seed, "
                "blueprint_digest, status, started_at, deadline_at) VALUES (1, 'att1', 1, 'e', "
                "1, 7, :d, 'open', '2026-01-01 10:00:00', '2026-01-01 10:45:00')"
            ),
            {"d": "b" * 64},
        )
    engine.dispose()
    db = Database(url)
    db.upgrade()
    assert current_revision(db.engine) == head_revision() == "0006"
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT language FROM attempts")).scalar_one() == "en"
    db.dispose()
