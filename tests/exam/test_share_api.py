"""Sharing from the server: the Add to LinkedIn link of an issued credential, the credential
download as OB 3.0 wants it (.json, application/vc+ld+json), and the certificate PNG with the
credential baked in."""

from __future__ import annotations

import io
import json
from urllib.parse import parse_qs, urlsplit

from PIL import Image

from tests.support.exam_credentials import passed_attempt


def test_share_download_and_baked_png(client, learner, attempt_keys, settings):
    result = passed_attempt(learner, attempt_keys)
    url = f"/exam/api/attempts/{result['id']}"
    download = client.get(url + "/credential", headers=learner.headers)
    assert download.headers["content-type"] == "application/vc+ld+json"
    assert download.headers["content-disposition"] == (
        'attachment; filename="nccl-course-credential.json"'
    )
    credential = download.json()
    cid = credential["id"]

    share = client.get(f"/exam/api/credentials/{cid}/share")
    assert share.status_code == 200, share.text
    body = share.json()
    assert body["verify_url"] == f"{settings.verify_url}?id={cid.replace(':', '%3A')}"
    link = urlsplit(body["linkedin_url"])
    assert (link.scheme, link.netloc, link.path) == ("https", "www.linkedin.com", "/profile/add")
    year, month = credential["validFrom"][:4], str(int(credential["validFrom"][5:7]))
    assert parse_qs(link.query) == {
        "startTask": ["CERTIFICATION_NAME"],
        "name": [credential["credentialSubject"]["achievement"]["name"]],
        "organizationName": [credential["issuer"]["name"]],
        "issueYear": [year],
        "issueMonth": [month],
        "certUrl": [body["verify_url"]],
        "certId": [cid],
    }

    png = client.get(url + "/certificate.png", headers=learner.headers)
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    baked = Image.open(io.BytesIO(png.content)).text["openbadgecredential"]
    assert json.loads(baked) == credential
    # what a wallet extracts verifies
    assert client.post("/exam/api/verify", json=json.loads(baked)).json()["ok"] is True

    assert client.get("/exam/api/credentials/urn:uuid:nope/share").status_code == 404
    admin = {"Authorization": "Bearer test-admin-token"}
    revoke = {"credential_id": cid, "reason": "test"}
    assert client.post("/exam/api/admin/revoke", json=revoke, headers=admin).status_code == 200
    gone = client.get(f"/exam/api/credentials/{cid}/share")
    assert gone.status_code == 404 and gone.json()["error"] == "revoked"
