"""The certificate PNG a learner downloads carries the signed credential (Open Badges 3.0
baking), and what the verify page reads out of it verifies on this server: VALID, with the
learner's claims; the same text changed is NOT VALID."""

from __future__ import annotations

import json

from nccl_course.certs.baking import credential_from_png
from tests.support.exam_credentials import passed_attempt, verdict


def test_the_downloaded_png_carries_a_credential_that_verifies(client, learner, attempt_keys):
    result = passed_attempt(learner, attempt_keys)
    base = f"/exam/api/attempts/{result['id']}"
    png = client.get(f"{base}/certificate.png", headers=learner.headers)
    assert png.status_code == 200
    assert png.content.count(b"iTXtopenbadgecredential") == 1
    baked = json.loads(credential_from_png(png.content))
    assert baked == client.get(f"{base}/credential", headers=learner.headers).json()

    answer = verdict(client, {"credential": baked})
    assert answer["verdict"] == "VALID" and answer["ok"] is True, answer["reason"]
    assert answer["summary"]["learner"] == "Ada Lovelace"

    baked["credentialSubject"]["achievement"]["name"] = "Something else"
    changed = verdict(client, {"credential": baked})
    assert changed["verdict"] == "NOT VALID"
    assert changed["reason"].startswith("signature: ")
