"""Regenerate the example credentials in ``certificates/examples/``.

The issuer key is created in a temporary folder and deleted when the script ends: the examples
carry only public data (a DID document, a status list, credentials). Run from the repo root:
``.venv/bin/python certificates/make_examples.py``.
"""

from __future__ import annotations

import json
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from nccl_course.certs import Issuer, render_certificate
from nccl_course.certs.render import render_certificate as draw_page

HERE = Path(__file__).resolve().parent / "examples"
ISSUER_ID = "did:web:127.0.0.1%3A8000"
VERIFY_URL = "http://127.0.0.1:8000/exam/verify"


def write(name: str, data: dict) -> None:
    (HERE / name).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    HERE.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        issuer = Issuer.load_or_create(Path(tmp), ISSUER_ID, "nccl-course (example)", VERIFY_URL)
        valid = issuer.issue(
            learner_name="Ada Lovelace",
            learner_email="ada@example.org",
            exam_id="attempt-0001",
            score=0.875,
            passed_at=datetime(2026, 6, 1, 9, 30, 0, tzinfo=timezone.utc),
        )
        revoked = issuer.issue(
            learner_name="Charles Babbage",
            learner_email="charles@example.org",
            exam_id="attempt-0002",
            score=0.8,
            passed_at=datetime(2026, 6, 2, 14, 0, 0, tzinfo=timezone.utc),
        )
        issuer.revoke(revoked)
        write("credential.json", valid)
        write("revoked-credential.json", revoked)
        write("did.json", issuer.did_document())
        write("status-list.json", issuer.status_list_credential())
        # The printable page as drawn, and the same page with the credential baked in (Open
        # Badges 3.0): the image a wallet imports and `nccl-course cert verify` checks.
        draw_page(valid, HERE / "certificate.png", VERIFY_URL)
        render_certificate(valid, HERE / "certificate-baked.png", VERIFY_URL)


if __name__ == "__main__":
    main()
