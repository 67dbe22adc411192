"""The server's side of credentials: one issuer (keys and status list in the data folder),
verification against it, and rendered certificates cached on disk.

All the cryptography and the credential format live in ``nccl_course.certs``; this module only
decides where files go and serialises access (the issuer allocates status-list indices and
rewrites its status list, so one thread at a time).
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from nccl_course.certs import Issuer, render_certificate, verify

CERTIFICATE_DIR = "certificates"


class CredentialDesk:
    def __init__(self, settings):
        self.settings = settings
        self._lock = threading.RLock()
        self.issuer = Issuer.load_or_create(
            Path(settings.data_dir),
            settings.issuer_did,
            settings.issuer_name,
            settings.verify_url,
        )

    def issue(self, **fields) -> dict:
        with self._lock:
            return self.issuer.issue(**fields)

    def revoke(self, credential) -> None:
        with self._lock:
            self.issuer.revoke(credential)

    def did_document(self) -> dict:
        with self._lock:
            return self.issuer.did_document()

    def status_list_credential(self, list_number: int = 1) -> dict:
        with self._lock:
            return self.issuer.status_list_credential(list_number)

    def status_list_numbers(self) -> list[int]:
        with self._lock:
            return self.issuer.status_lists()

    def status_list_for_credential(self, credential: dict) -> dict | None:
        """This issuer's status list that the credential points at, or None if it points
        elsewhere (verification then reports the status check as failed)."""
        status = credential.get("credentialStatus") if isinstance(credential, dict) else None
        entries = status if isinstance(status, list) else [status]
        for entry in entries:
            url = entry.get("statusListCredential") if isinstance(entry, dict) else None
            for number in self.status_list_numbers():
                if url == self.issuer.status_list_url(number):
                    return self.status_list_credential(number)
        return None

    def verify(self, credential: dict) -> dict:
        """Verify against this issuer's DID document and current status list (no network)."""
        result = verify(
            credential,
            did_document=self.did_document(),
            status_list=self.status_list_for_credential(credential),
        )
        return json.loads(json.dumps(result.as_dict(), default=str))

    def render(self, credential: dict, fmt: str) -> Path:
        """The certificate as .pdf or .png, rendered once per credential and kept."""
        name = hashlib.sha256(str(credential["id"]).encode()).hexdigest()[:32]
        folder = Path(self.settings.data_dir) / CERTIFICATE_DIR
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.{fmt}"
        if not path.exists():
            partial = folder / f"{name}.partial.{fmt}"
            written = render_certificate(credential, partial, self.settings.verify_url)
            Path(written).replace(path)
        return path
