"""The public documents a verifier in another web page fetches carry
``Access-Control-Allow-Origin: *``: the DID document, the status lists and a credential's share
links. What belongs to a learner (their credential download) does not."""

from __future__ import annotations

from tests.support.exam_credentials import passed_attempt

ANY = "*"


def test_public_documents_may_be_read_from_any_origin(client, learner, attempt_keys):
    result = passed_attempt(learner, attempt_keys)
    own = client.get(f"/exam/api/attempts/{result['id']}/credential", headers=learner.headers)
    credential = own.json()
    assert "access-control-allow-origin" not in own.headers

    origin = {"Origin": "https://wallet.example"}
    did = client.get("/.well-known/did.json", headers=origin)
    assert did.status_code == 200
    assert did.headers["access-control-allow-origin"] == ANY

    path = "/" + credential["credentialStatus"]["statusListCredential"].split("/", 3)[3]
    status = client.get(path, headers=origin)
    assert status.status_code == 200
    assert status.headers["access-control-allow-origin"] == ANY
    assert status.headers["cache-control"] == "no-store"  # the route's own headers stay

    share = client.get(f"/exam/api/credentials/{credential['id']}/share", headers=origin)
    assert share.status_code == 200
    assert share.headers["access-control-allow-origin"] == ANY
