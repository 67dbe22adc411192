"""RDF Dataset Canonicalization (RDFC-1.0) of JSON-LD documents, offline, safe and bounded.

pyld's ``URDNA2015`` is the algorithm W3C standardised as RDFC-1.0 (the names differ, the
output is the same for these documents; the published eddsa-rdfc-2022 vectors check it).

Safe mode: a JSON-LD processor silently drops a property that no context defines, so a
signature would not cover it and an attacker could add one. Here a dropped property is an
error instead (VC Data Integrity 1.0 asks for this behaviour when canonicalizing).

Bounded: RDFC-1.0 is exponential on "poison graphs" (blank nodes that all look alike: each
one's hash needs every permutation of its look-alike neighbours, recursively; the
specification asks implementations to guard against this). pyld has no such guard, so
:class:`BoundedURDNA2015` adds one: the document is first turned into an RDF dataset whose
quads and blank nodes are counted, then the algorithm runs with a work budget (Hash N-Degree
Quads calls and the permutations they will try, counted *before* trying them) and a CPU-time
budget (this thread's CPU time, checked at every step). Past either one it raises
:class:`CanonicalizationLimitError`. A credential the course issues has about 60 quads and 7
blank nodes, each unique after one round, so it spends none of that budget.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from pyld.canon import URDNA2015
from pyld.context_resolver import ContextResolver
from pyld.jsonld import JsonLdError, JsonLdProcessor

from nccl_course.certs.bounds import CredentialFormatError, Limits, check_bounds
from nccl_course.certs.loader import ContextNotAvailable, OfflineDocumentLoader, default_loader


class CanonicalizationError(ValueError):
    """The document cannot be canonicalized: an unknown context, an undefined term, bad JSON-LD."""


class CanonicalizationLimitError(CanonicalizationError):
    """The document needs more canonicalization work than the limits allow (a poison graph)."""


@dataclass(frozen=True)
class CanonLimits:
    """Bounds on one canonicalization. The defaults are far above what a credential needs."""

    max_quads: int = 2000
    max_blank_nodes: int = 64
    # Steps of Hash N-Degree Quads: per call and per permutation tried, weighted by the size of
    # the identifier issuer copied each time (a credential needs 0; one step is ~0.1 ms).
    max_work: int = 2_000
    # Largest set of look-alike neighbours whose permutations are tried (8! = 40,320).
    max_group: int = 7
    # CPU seconds of this thread for the RDFC-1.0 step.
    max_cpu_seconds: float = 0.5


DEFAULT_CANON_LIMITS = CanonLimits()
# JSON bounds for any document canonicalized (a status list may be larger than a credential;
# the verifier applies its tighter per-document limits before getting here).
CANON_JSON_LIMITS = Limits(max_bytes=1024 * 1024)


class BoundedURDNA2015(URDNA2015):
    """pyld's URDNA2015 with a work budget and a CPU-time deadline (see the module docstring)."""

    def __init__(self, limits: CanonLimits):
        super().__init__()
        self.limits = limits
        self.work = 0
        self.deadline = time.thread_time() + limits.max_cpu_seconds

    def _spend(self, units: int) -> None:
        self.work += units
        if self.work > self.limits.max_work:
            raise CanonicalizationLimitError(
                "canonicalization needs more than its work limit "
                f"({self.limits.max_work:,} steps): the document's blank nodes are too alike "
                "(a poison graph)"
            )
        if time.thread_time() > self.deadline:
            raise CanonicalizationLimitError(
                f"canonicalization took more than {self.limits.max_cpu_seconds} s of CPU time"
            )

    def hash_first_degree_quads(self, id_):
        if "hash" not in self.blank_node_info[id_]:
            self._spend(0)  # the deadline only: first-degree hashing is linear
        return super().hash_first_degree_quads(id_)

    def create_hash_to_related(self, id_, issuer):
        # Called once per Hash N-Degree Quads call; the permutation loop that follows copies
        # ``issuer`` once per permutation, so both are charged here, before any is tried.
        self._spend(1 + len(issuer.existing) + len(self.blank_node_info[id_]["quads"]) // 8)
        related = super().create_hash_to_related(id_, issuer)
        for nodes in related.values():
            if len(nodes) > self.limits.max_group:
                raise CanonicalizationLimitError(
                    f"a blank node has {len(nodes)} look-alike neighbours; canonicalizing it "
                    f"would try {len(nodes)}! orderings (the limit is {self.limits.max_group})"
                )
            if len(nodes) > 1:
                self._spend(math.factorial(len(nodes)) * (1 + len(issuer.existing)))
        return related


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


def _blank_nodes(dataset: dict) -> set[str]:
    found = set()
    for graph_name, triples in dataset.items():
        if graph_name.startswith("_:"):
            found.add(graph_name)
        for triple in triples:
            for key in ("subject", "object"):
                component = triple[key]
                if component["type"] == "blank node":
                    found.add(component["value"])
    return found


def canonicalize(
    document: dict,
    loader: OfflineDocumentLoader | None = None,
    *,
    limits: CanonLimits = DEFAULT_CANON_LIMITS,
) -> str:
    """The RDFC-1.0 canonical N-Quads of a JSON-LD document, as a string.

    Raises :class:`CanonicalizationError` for a context the loader does not hold (the message
    names its URL), a property no context defines, or invalid JSON-LD, and
    :class:`CanonicalizationLimitError` past ``limits``. The document must also be within the
    JSON bounds of :func:`nccl_course.certs.bounds.check_bounds` (depth, size, numbers).
    """
    try:
        check_bounds(document, CANON_JSON_LIMITS, what="JSON-LD document")
    except CredentialFormatError as exc:
        raise CanonicalizationLimitError(exc.what) from None
    loader = loader or default_loader()
    dropped: list[str | None] = []
    processor = JsonLdProcessor(on_property_dropped=dropped.append)
    # What pyld's normalize() does, split in two so that the dataset is measured before the
    # canonicalization algorithm runs on it.
    options = {
        "algorithm": "URDNA2015",
        "documentLoader": loader,
        "contextResolver": ContextResolver(loader.cache, loader),
        "base": None,
        "extractAllScripts": True,
        "processingMode": "json-ld-1.1",
        "produceGeneralizedRdf": False,
    }
    try:
        dataset = processor.to_rdf(document, options)
    except JsonLdError as exc:
        cause = _root_cause(exc)
        if isinstance(cause, ContextNotAvailable):
            raise CanonicalizationError(str(cause)) from None
        raise CanonicalizationError(f"invalid JSON-LD: {cause}") from None
    except ContextNotAvailable as exc:
        raise CanonicalizationError(str(exc)) from None
    except RecursionError:
        raise CanonicalizationLimitError("the JSON-LD document is nested too deeply") from None
    if dropped:
        names = ", ".join(sorted({repr(name) for name in dropped}))
        raise CanonicalizationError(
            f"property {names} is not defined by the document's JSON-LD contexts, so a "
            "signature could not cover it (safe mode)"
        )
    quads = sum(len(triples) for triples in dataset.values())
    if quads > limits.max_quads:
        raise CanonicalizationLimitError(
            f"the document has {quads:,} RDF statements; the limit is {limits.max_quads:,}"
        )
    blanks = len(_blank_nodes(dataset))
    if blanks > limits.max_blank_nodes:
        raise CanonicalizationLimitError(
            f"the document has {blanks:,} blank nodes; the limit is {limits.max_blank_nodes:,}"
        )
    return BoundedURDNA2015(limits).main(dataset, {"format": "application/n-quads"})
