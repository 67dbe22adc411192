"""RDF Dataset Canonicalization (RDFC-1.0) of JSON-LD documents, offline and in safe mode.

pyld's ``URDNA2015`` is the algorithm W3C standardised as RDFC-1.0 (the names differ, the
output is the same for these documents; the published eddsa-rdfc-2022 vectors check it).

Safe mode: a JSON-LD processor silently drops a property that no context defines, so a
signature would not cover it and an attacker could add one. Here a dropped property is an
error instead (VC Data Integrity 1.0 asks for this behaviour when canonicalizing).
"""

from __future__ import annotations

from pyld.context_resolver import ContextResolver
from pyld.jsonld import JsonLdError, JsonLdProcessor

from nccl_course.certs.loader import ContextNotAvailable, OfflineDocumentLoader, default_loader


class CanonicalizationError(ValueError):
    """The document cannot be canonicalized: an unknown context, an undefined term, bad JSON-LD."""


def _root_cause(exc: BaseException) -> BaseException:
    seen = set()
    while id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, ContextNotAvailable):
            return exc
        nxt = exc.__cause__ or exc.__context__
        if isinstance(exc, JsonLdError) and getattr(exc, "cause", None) is not None:
            nxt = exc.cause
        if nxt is None:
            return exc
        exc = nxt
    return exc


def canonicalize(document: dict, loader: OfflineDocumentLoader | None = None) -> str:
    """The RDFC-1.0 canonical N-Quads of a JSON-LD document, as a string.

    Raises :class:`CanonicalizationError` for a context the loader does not hold (the message
    names its URL), a property no context defines, or invalid JSON-LD.
    """
    loader = loader or default_loader()
    dropped: list[str | None] = []
    processor = JsonLdProcessor(on_property_dropped=dropped.append)
    options = {
        "algorithm": "URDNA2015",
        "format": "application/n-quads",
        "documentLoader": loader,
        "contextResolver": ContextResolver(loader.cache, loader),
        "base": None,
    }
    try:
        nquads = processor.normalize(document, options)
    except JsonLdError as exc:
        cause = _root_cause(exc)
        if isinstance(cause, ContextNotAvailable):
            raise CanonicalizationError(str(cause)) from None
        raise CanonicalizationError(f"invalid JSON-LD: {cause}") from None
    except ContextNotAvailable as exc:
        raise CanonicalizationError(str(exc)) from None
    if dropped:
        names = ", ".join(sorted({repr(name) for name in dropped}))
        raise CanonicalizationError(
            f"property {names} is not defined by the document's JSON-LD contexts, so a "
            "signature could not cover it (safe mode)"
        )
    return nquads
