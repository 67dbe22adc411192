"""Names through the HTTP API: a byte-order mark is removed and the certificate still prints, a
name that is nothing but invisible characters is refused with the API's 422 envelope, and a
right-to-left override cannot reverse the name on the certificate or on the verify page."""

from __future__ import annotations

import copy
import io

from PIL import Image
from pypdf import PdfReader

from tests.support.exam_credentials import passed_attempt, verdict

BOM = "\ufeff"
RLO = "\u202e"


def register(client, name: str, email: str):
    return client.post("/exam/api/register", json={"name": name, "email": email})


def credential_name(credential: dict) -> str:
    (ident,) = [
        i for i in credential["credentialSubject"]["identifier"] if i["identityType"] == "name"
    ]
    return ident["identityHash"]


def certificates(client, learner, attempt_keys) -> tuple[str, bytes, dict]:
    """The PDF's text, the PNG and the credential of an attempt ``learner`` passes."""
    url = f"/exam/api/attempts/{passed_attempt(learner, attempt_keys)['id']}"
    pdf = client.get(url + "/certificate.pdf", headers=learner.headers)
    png = client.get(url + "/certificate.png", headers=learner.headers)
    credential = client.get(url + "/credential", headers=learner.headers)
    assert (pdf.status_code, png.status_code, credential.status_code) == (200, 200, 200)
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages)
    assert Image.open(io.BytesIO(png.content)).size[0] > 0
    return text, png.content, credential.json()


def test_a_byte_order_mark_is_removed_and_the_certificate_prints(
    client, make_learner, attempt_keys
):
    learner = make_learner(name=f"{BOM}Ada{BOM} Love{BOM}lace", email="bom@example.org")
    me = client.get("/exam/api/me", headers=learner.headers).json()
    assert me["learner"]["name"] == "Ada Lovelace"
    text, _png, credential = certificates(client, learner, attempt_keys)
    assert "Ada Lovelace" in text and BOM not in text
    assert credential_name(credential) == "Ada Lovelace"
    assert verdict(client, credential)["summary"]["learner"] == "Ada Lovelace"


def test_a_name_of_only_a_byte_order_mark_is_refused(client):
    for name in (BOM, f" {BOM} ", f"{BOM}\u200b{RLO}\u2066"):
        response = register(client, name, "nobody@example.org")
        assert response.status_code == 422, response.text
        body = response.json()
        assert body["error"] == "bad_name"
        assert "nothing to print" in body["detail"] and "letters or digits" in body["detail"]
    # Nothing was stored: the address is still free.
    assert register(client, "Nobody", "nobody@example.org").status_code == 201


def test_a_right_to_left_override_does_not_reverse_the_name(client, make_learner, attempt_keys):
    learner = make_learner(name=f"Alice {RLO}gnp.exe Evil", email="rlo@example.org")
    me = client.get("/exam/api/me", headers=learner.headers).json()
    assert me["learner"]["name"] == "Alice gnp.exe Evil"
    text, _png, credential = certificates(client, learner, attempt_keys)
    # Printed in the order typed: "gnp.exe" stays as typed, not turned into "exe.png".
    assert "Alice gnp.exe Evil" in text and "exe.png" not in text
    assert credential_name(credential) == "Alice gnp.exe Evil"


def test_a_hostile_name_in_a_credential_from_elsewhere_is_shown_cleaned(
    client, learner, attempt_keys
):
    """A credential this server did not sign (here: ours, its name changed after signing) is
    still read for the verify page: its claims come cleaned, never as a server error."""
    url = f"/exam/api/attempts/{passed_attempt(learner, attempt_keys)['id']}/credential"
    forged = copy.deepcopy(client.get(url, headers=learner.headers).json())
    for ident in forged["credentialSubject"]["identifier"]:
        if ident["identityType"] == "name":
            ident["identityHash"] = f"{BOM}Mallory {RLO}gnp.exe{BOM}"
    answer = verdict(client, forged)
    assert answer["ok"] is False
    assert answer["unverified_claims"]["learner"] == "Mallory gnp.exe"
