"""The offline JSON-LD loader: vendored contexts only, extra local folders, clear errors."""

from __future__ import annotations

import hashlib
import json
from urllib.parse import quote

import pytest

from nccl_course.certs.canon import CanonicalizationError, canonicalize
from nccl_course.certs.loader import (
    CONTEXTS_DIR,
    VENDORED,
    ContextNotAvailable,
    OfflineDocumentLoader,
)

# SHA-256 of the vendored copies in src/nccl_course/certs/contexts/ (see VENDORED in loader.py).
PINNED = {
    "credentials-v2.jsonld": "59955ced6697d61e03f2b2556febe5308ab16842846f5b586d7f1f7adec92734",
    "data-integrity-v1.jsonld": "c6e5073f4bd4bf6d08f245736e6f32c29b012860b18583644b2d71e1de862669",
    "did-v1.jsonld": "adefa50311393eb1bd788a38ac9fe2696c65367928f6996812cd54577394f4da",
    "ob-v3p0-context-3.0.3.json": "ef2fa9c7846dce233cc166b43639027278be4ee44f00bb1d45c75de2dd0cd761",
}


def test_vendored_contexts_are_unchanged():
    assert sorted(VENDORED.values()) == sorted(PINNED)
    for name, digest in PINNED.items():
        assert hashlib.sha256((CONTEXTS_DIR / name).read_bytes()).hexdigest() == digest


def test_unknown_url_names_the_url():
    loader = OfflineDocumentLoader()
    with pytest.raises(ContextNotAvailable) as info:
        loader("https://example.org/ctx/v1", {})
    assert "https://example.org/ctx/v1" in str(info.value)
    assert info.value.url == "https://example.org/ctx/v1"


def test_canonicalize_with_an_unknown_context_names_the_url():
    doc = {"@context": "https://example.org/ctx/v1", "name": "x"}
    with pytest.raises(CanonicalizationError, match="https://example.org/ctx/v1"):
        canonicalize(doc)


def test_extra_folder_with_url_named_files(tmp_path):
    url = "https://example.org/ctx/v1"
    (tmp_path / (quote(url, safe="") + ".jsonld")).write_text(
        json.dumps({"@context": {"color": "https://example.org/vocab#color"}})
    )
    loader = OfflineDocumentLoader(tmp_path)
    assert loader.has(url)
    doc = {"@context": url, "@id": "urn:x:1", "color": "green"}
    assert canonicalize(doc, loader) == '<urn:x:1> <https://example.org/vocab#color> "green" .\n'


def test_loaders_do_not_share_processed_contexts(tmp_path):
    url = "https://example.org/ctx/v1"
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, iri in ((a, "https://a.example/color"), (b, "https://b.example/color")):
        folder.mkdir()
        (folder / "ctx.jsonld").write_text(json.dumps({"@context": {"color": iri}}))
        (folder / "index.json").write_text(json.dumps({url: "ctx.jsonld"}))
    doc = {"@context": url, "@id": "urn:x:1", "color": "green"}
    assert "https://a.example/color" in canonicalize(doc, OfflineDocumentLoader(a))
    assert "https://b.example/color" in canonicalize(doc, OfflineDocumentLoader(b))


def test_an_empty_or_missing_folder_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="supplies no context"):
        OfflineDocumentLoader(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        OfflineDocumentLoader(tmp_path / "nope")


def test_documents_are_copies():
    loader = OfflineDocumentLoader()
    doc = loader("https://www.w3.org/ns/credentials/v2", {})["document"]
    doc["@context"]["id"] = "tampered"
    assert loader("https://www.w3.org/ns/credentials/v2", {})["document"]["@context"]["id"] == "@id"
