"""Verifiable credentials: Open Badges 3.0 on W3C VC 2.0, signed with eddsa-rdfc-2022.

Public API (used by the exam server):

- :class:`Issuer` (``load_or_create``, ``issue``, ``did_document``, ``status_list_credential``,
  ``revoke``, ``rotate``);
- :func:`verify` returning a :class:`VerificationResult`;
- :func:`render_certificate` (PDF or PNG with a QR code; the PNG with the credential baked in).

Everything works offline: JSON-LD contexts are vendored and the loader refuses other URLs.
"""

from __future__ import annotations

from pathlib import Path

from nccl_course.certs.credential import hash_identity, identity_matches, learner_name
from nccl_course.certs.issuer import Issuer, default_data_dir, verify_link
from nccl_course.certs.loader import ContextNotAvailable, OfflineDocumentLoader
from nccl_course.certs.verify import VerificationResult, verify


def render_certificate(credential: dict, out_path: Path, verify_url: str) -> Path:
    """Draw the printable certificate (PDF for .pdf, PNG for .png); see certs.render. A PNG
    also carries the credential, baked as Open Badges 3.0 says (certs.baking), so a wallet
    can import the image and a verifier can check it."""
    from nccl_course.certs.baking import bake_file
    from nccl_course.certs.render import render_certificate as _render

    written = Path(_render(credential, out_path, verify_url))
    if written.suffix.lower() == ".png":
        bake_file(written, credential)
    return written


__all__ = [
    "ContextNotAvailable",
    "Issuer",
    "OfflineDocumentLoader",
    "VerificationResult",
    "default_data_dir",
    "hash_identity",
    "identity_matches",
    "learner_name",
    "render_certificate",
    "verify",
    "verify_link",
]
