"""The verification's reason and check details in the language of the request: Turkish for
``?lang=tr`` (what the verify page sends in Turkish), English otherwise; the course's
achievement named in that language; ``revoked`` the same in both."""

from __future__ import annotations

from nccl_course.certs.credential import COURSE_NAME, LOCAL_TEST_MARK
from nccl_course.i18n.english_text import is_english
from nccl_course.i18n.interface import translator
from tests.support.exam_credentials import passed_attempt

TR = translator("tr")


def verdicts(client, body) -> tuple[dict, dict]:
    english = client.post("/exam/api/verify", json=body)
    turkish = client.post("/exam/api/verify?lang=tr", json=body)
    assert english.status_code == turkish.status_code == 200, (english.text, turkish.text)
    return english.json(), turkish.json()


def test_valid_failed_and_revoked_in_turkish(client, learner, attempt_keys):
    result = passed_attempt(learner, attempt_keys)
    credential = client.get(
        f"/exam/api/attempts/{result['id']}/credential", headers=learner.headers
    ).json()
    english, turkish = verdicts(client, credential)
    assert english["ok"] is turkish["ok"] is True and turkish["revoked"] is False
    assert english["reason"].startswith("issued by ") and "issuer ok" in english["reason"]
    assert turkish["reason"].startswith("veren: ") and f"{TR('issuer')} tamam" in turkish["reason"]
    for en, tr in zip(english["checks"], turkish["checks"], strict=True):
        assert (en["name"], en["status"]) == (tr["name"], tr["status"])
        assert en["detail"] != tr["detail"] and not is_english(tr["detail"]), tr
    # a development server's credential: the course's name and the local-test mark
    assert english["summary"]["achievement"] == f"{COURSE_NAME} {LOCAL_TEST_MARK}"
    shown = f"{TR(COURSE_NAME)} {TR(LOCAL_TEST_MARK)}"
    assert turkish["summary"]["achievement"] == shown and not is_english(shown)

    expired = dict(credential, validUntil="2020-01-01T00:00:00Z")  # the signature breaks first
    english, turkish = verdicts(client, {"credential": expired})
    assert english["reason"].startswith("signature: ")
    assert turkish["reason"].startswith(f"{TR('signature')}: ")
    later = [c for c in turkish["checks"] if c["status"] == "not checked"]
    assert later and {c["detail"] for c in later} == {"daha önceki bir denetim başarısız oldu"}

    admin = {"Authorization": "Bearer test-admin-token"}
    revoke = {"credential_id": credential["id"], "reason": "test"}
    assert client.post("/exam/api/admin/revoke", json=revoke, headers=admin).status_code == 200
    english, turkish = verdicts(client, credential)
    assert english["revoked"] is turkish["revoked"] is True
    assert "revoked: bit" in english["reason"] and "iptal edildi: " in turkish["reason"]


def test_a_document_that_is_no_credential_is_refused_in_turkish(client):
    english, turkish = verdicts(client, {"credential": {"name": "not a credential"}})
    assert english["reason"].startswith("issuer: the credential names no issuer")
    assert turkish["reason"].startswith(f"{TR('issuer')}: ") and not is_english(turkish["reason"])
    refused = client.post("/exam/api/verify?lang=tr", json={"credential": "text"})
    assert refused.status_code == 422
    assert refused.json()["detail"] == TR("'credential' must be the credential, a JSON object")
    assert not is_english(refused.json()["detail"])
