"""The course's own achievement is named in the certificate's language; the credential keeps
the English it was signed with, and another achievement is printed as its credential says."""

from __future__ import annotations

import copy

from pypdf import PdfReader

from nccl_course.certs.credential import COURSE_NAME
from nccl_course.certs.render import render_certificate
from nccl_course.i18n.interface import translator
from tests.certs.conftest import VERIFY_URL


def printed(credential, path, language) -> str:
    render_certificate(credential, path, VERIFY_URL, language=language)
    return " ".join("".join(p.extract_text() for p in PdfReader(path).pages).split())


def achievement(credential) -> dict:
    return credential["credentialSubject"]["achievement"]


def test_the_course_name_in_the_certificates_language(signed, tmp_path):
    turkish = translator("tr")(COURSE_NAME)
    assert achievement(signed)["name"] == COURSE_NAME and turkish != COURSE_NAME
    text = printed(signed, tmp_path / "tr.pdf", "tr")
    assert turkish in text and COURSE_NAME not in text
    assert COURSE_NAME in printed(signed, tmp_path / "en.pdf", "en")
    assert achievement(signed)["name"] == COURSE_NAME  # the credential is not changed

    other = copy.deepcopy(signed)
    achievement(other)["name"] = "Collective Communication and NCCL, advanced"
    assert "Collective Communication and NCCL, advanced" in printed(other, tmp_path / "o.pdf", "tr")
