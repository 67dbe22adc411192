"""A JSON-LD document loader that never touches the network.

It serves the contexts vendored in ``nccl_course/certs/contexts/`` and, optionally, those of
local folders given by the user. Any other URL raises :class:`ContextNotAvailable`, whose
message names the URL. A signature check must not depend on what a web server returns today,
and a verifier must work offline, so this is the only loader the credential code uses.

A folder of extra contexts maps URLs to files in one of two ways:

- an ``index.json`` object ``{"https://example.org/ctx/v1": "ctx-v1.jsonld", ...}``, or
- file names that are the URL percent-encoded (``urllib.parse.quote(url, safe="")``) plus
  ``.json`` or ``.jsonld``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote

from cachetools import LRUCache

CONTEXTS_DIR = Path(__file__).resolve().parent / "contexts"

VC_V2 = "https://www.w3.org/ns/credentials/v2"
OB_V3_0_3 = "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json"
DATA_INTEGRITY_V1 = "https://w3id.org/security/data-integrity/v1"
DID_V1 = "https://www.w3.org/ns/did/v1"
MULTIKEY_V1 = "https://w3id.org/security/multikey/v1"

# URL -> vendored file: copies of the documents published at these URLs (W3C Verifiable
# Credentials 2.0, 1EdTech Open Badges 3.0.3, W3C Data Integrity 1.0, W3C DID 1.0), kept
# unchanged. Their SHA-256 digests are pinned in tests/certs/test_loader.py so an accidental edit
# cannot pass unnoticed; to update one, save the document its URL serves and update the digest.
VENDORED = {
    VC_V2: "credentials-v2.jsonld",
    OB_V3_0_3: "ob-v3p0-context-3.0.3.json",
    DATA_INTEGRITY_V1: "data-integrity-v1.jsonld",
    DID_V1: "did-v1.jsonld",
}


class ContextNotAvailable(LookupError):
    """The loader was asked for a URL it does not hold; it never fetches one."""

    def __init__(self, url: str):
        self.url = url
        super().__init__(
            f"JSON-LD context {url} is not available offline: it is not vendored and no "
            "--contexts folder supplies it (the loader never uses the network)"
        )


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read JSON-LD context file {path}: {exc}") from None


def contexts_in_folder(folder: Path) -> dict[str, dict]:
    """The contexts a user folder supplies, as {URL: document}."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"contexts folder {folder} does not exist or is not a folder")
    found: dict[str, dict] = {}
    index = folder / "index.json"
    if index.exists():
        mapping = _read_json(index)
        if not isinstance(mapping, dict):
            raise ValueError(f"{index} must be a JSON object mapping context URLs to file names")
        for url, name in mapping.items():
            found[url] = _read_json(folder / name)
    for path in sorted(folder.iterdir()):
        if path.name == "index.json" or path.suffix not in (".json", ".jsonld"):
            continue
        url = unquote(path.name[: -len(path.suffix)])
        if url.startswith(("http://", "https://")) and url not in found:
            found[url] = _read_json(path)
    if not found:
        raise ValueError(
            f"contexts folder {folder} supplies no context: add an index.json mapping URLs to "
            "files, or name files after their percent-encoded URL"
        )
    return found


class OfflineDocumentLoader:
    """Callable with pyld's loader signature ``loader(url, options) -> RemoteDocument``.

    Each instance keeps its own cache of processed contexts, so two loaders that serve
    different documents for the same URL never see each other's results.
    """

    def __init__(self, extra: Iterable[Path] | Path | None = None):
        self._documents: dict[str, dict] = {}
        for url, name in VENDORED.items():
            self._documents[url] = _read_json(CONTEXTS_DIR / name)
        if extra is not None:
            folders = [extra] if isinstance(extra, (str, Path)) else list(extra)
            for folder in folders:
                self._documents.update(contexts_in_folder(Path(folder)))
        self.cache: LRUCache = LRUCache(maxsize=100)

    def has(self, url: str) -> bool:
        return url in self._documents

    def document(self, url: str) -> dict:
        try:
            return copy.deepcopy(self._documents[url])
        except KeyError:
            raise ContextNotAvailable(url) from None

    def __call__(self, url: str, options: dict | None = None) -> dict:
        return {
            "contentType": "application/ld+json",
            "contextUrl": None,
            "documentUrl": url,
            "document": self.document(url),
            # 'static' lets pyld keep the processed context in this loader's cache: the
            # documents never change for the loader's lifetime.
            "tag": "static",
        }


_DEFAULT: OfflineDocumentLoader | None = None


def default_loader() -> OfflineDocumentLoader:
    """The loader with vendored contexts only (built once per process)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = OfflineDocumentLoader()
    return _DEFAULT


def loader_for(extra_contexts: Path | None) -> OfflineDocumentLoader:
    return default_loader() if extra_contexts is None else OfflineDocumentLoader(extra_contexts)
