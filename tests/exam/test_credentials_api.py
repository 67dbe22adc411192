"""Passing issues a signed credential; it verifies, downloads, revokes (with the token)."""

from __future__ import annotations

from nccl_course.certs.verify import CHECK_NAMES
from tests.support.exam_credentials import passed_attempt


def test_pass_issue_verify_revoke(client, learner, attempt_keys, settings):
    result = passed_attempt(learner, attempt_keys)
    url = f"/exam/api/attempts/{result['id']}"
    download = client.get(url + "/credential", headers=learner.headers)
    assert download.status_code == 200
    assert "attachment" in download.headers["content-disposition"]
    credential = download.json()
    assert credential["id"] == result["credential_id"]
    assert "OpenBadgeCredential" in credential["type"]
    assert credential["issuer"]["id"] == settings.issuer_did == "did:web:127.0.0.1%3A8000"
    assert credential["proof"]["cryptosuite"] == "eddsa-rdfc-2022"
    # the same credential on every request (issued once)
    again = client.get(url + "/credential", headers=learner.headers).json()
    assert again == credential

    verdict = client.post("/exam/api/verify", json=credential).json()
    assert verdict["ok"] is True, verdict
    assert [c["name"] for c in verdict["checks"]] == list(CHECK_NAMES)
    assert verdict["summary"]["learner"] == "Ada Lovelace"
    assert verdict["summary"]["score_percent"] == "100.0"
    assert client.post("/exam/api/verify", json={"id": credential["id"]}).json()["ok"] is True

    tampered = dict(credential, validFrom="2020-01-01T00:00:00Z")
    bad = client.post("/exam/api/verify", json={"credential": tampered}).json()
    assert bad["ok"] is False and bad["reason"].startswith("signature")

    did = client.get("/.well-known/did.json").json()
    assert did["id"] == settings.issuer_did
    status_url = credential["credentialStatus"]["statusListCredential"]
    assert status_url.startswith("http://127.0.0.1:8000/credentials/status/")
    status = client.get(status_url.replace("http://127.0.0.1:8000", ""))
    assert status.status_code == 200
    assert status.json()["type"][-1] == "BitstringStatusListCredential"

    revoke = {"credential_id": credential["id"], "reason": "test"}
    assert client.post("/exam/api/admin/revoke", json=revoke).status_code == 403
    wrong = {"Authorization": "Bearer not-the-token"}
    assert client.post("/exam/api/admin/revoke", json=revoke, headers=wrong).status_code == 403
    admin = {"Authorization": "Bearer test-admin-token"}
    done = client.post("/exam/api/admin/revoke", json=revoke, headers=admin)
    assert done.status_code == 200 and done.json()["revoked"] is True
    after = client.post("/exam/api/verify", json=credential).json()
    assert after["ok"] is False and "revoked" in after["reason"]
    view = client.get(url, headers=learner.headers).json()
    assert view["revoked"] is True
    unknown = client.post(
        "/exam/api/admin/revoke", json={"credential_id": "urn:uuid:nope"}, headers=admin
    )
    assert unknown.status_code == 404


def test_printable_certificates(client, learner, attempt_keys):
    result = passed_attempt(learner, attempt_keys)
    url = f"/exam/api/attempts/{result['id']}/certificate"
    pdf = client.get(url + ".pdf", headers=learner.headers)
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF-")
    png = client.get(url + ".png", headers=learner.headers)
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG\r\n\x1a\n")
    assert client.get(url + ".pdf").status_code == 401
    assert client.get(url + ".svg", headers=learner.headers).status_code == 404


def test_generated_admin_token_is_kept(tmp_path):
    from nccl_course.server.settings import Settings

    first = Settings(data_dir=tmp_path).resolved_admin_token()
    assert len(first) >= 32
    assert Settings(data_dir=tmp_path).resolved_admin_token() == first
    assert (tmp_path / "admin-token").stat().st_mode & 0o777 == 0o600
