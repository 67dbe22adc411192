"""Who issued a document, and whether it is theirs: the issuer is a trusted (pinned) one,
the proof's key belongs to the issuer, and the signature holds.

- :func:`check_issuer`: the issuer the credential states is one of the trusted issuers (the
  course's own DIDs); not pinned (``None``): not checked. A signature alone proves nothing
  about *who* issued a credential: anyone can make a key and call themselves the course.
- :func:`check_key`: the proof's verification method is a key of the issuer: the did:key
  itself, or an ``assertionMethod`` of the issuer's DID document (did:web), given or fetched
  through :class:`Keys`; not checked without it.
- :func:`check_signature`: DataIntegrityProof, eddsa-rdfc-2022, Ed25519.

The status list check uses the last two for the status list credential too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nccl_course.certs import did as dids
from nccl_course.certs import eddsa
from nccl_course.certs.bounds import DEFAULT_LIMITS, CredentialFormatError, check_bounds
from nccl_course.certs.canon import CanonicalizationError
from nccl_course.certs.credential import parse_datetime
from nccl_course.certs.fetch import Fetch, FetchError, local_http
from nccl_course.certs.fields import is_uri, issuer_id, issuer_name, short, signer
from nccl_course.certs.loader import OfflineDocumentLoader
from nccl_course.certs.result import CheckFailed, Message, NotChecked
from nccl_course.i18n.interface import N_


class SignerNotBound(NotChecked):
    """The key check's ``not checked`` when the key is known (a did:key) but nothing binds it
    to the issuer: the signature can still be checked with :attr:`key`."""

    def __init__(self, key, message: str):
        super().__init__(message)
        self.key = key


def check_issuer(credential: dict, trusted: frozenset[str] | None) -> str:
    """Check 1: the stated issuer is one of ``trusted``; ``None``: not pinned, not checked."""
    stated = issuer_id(credential)
    if not is_uri(stated):
        raise CheckFailed(
            Message(N_("the credential names no issuer (issuer is {issuer})"), issuer=short(stated))
        )
    if trusted is None:
        raise NotChecked(
            f"issuer {stated} is not pinned (no trusted issuer was given), so who issued this "
            "credential is unknown"
        )
    if stated not in trusted:
        named = issuer_name(credential)
        called = Message(N_(" (named {name})"), name=short(named, 80)) if named else ""
        course = ", ".join(sorted(trusted)) or Message(N_("none"))
        signed_by = signer(credential)
        by = ""
        if signed_by and signed_by != stated:
            by = Message(N_("; its proof is signed by {signer}"), signer=signed_by)
        raise CheckFailed(
            Message(
                N_(
                    "issued by {issuer}{named}, which is not a trusted issuer (trusted: {trusted}){by}"
                ),
                issuer=stated,
                named=called,
                trusted=course,
                by=by,
            )
        )
    return Message(N_("{issuer} is a trusted issuer"), issuer=stated)


@dataclass
class Keys:
    """The issuer's DID document, as given or fetched, and what happened when fetching it."""

    given: dict | None
    fetch: Fetch | None
    fetched: dict[str, object] = field(default_factory=dict)

    def document_for(self, did: str) -> dict | None:
        if self.given is not None:
            return self.given
        if self.fetch is None or not did.startswith("did:web:"):
            return None
        if did not in self.fetched:
            try:
                url = local_http(dids.did_web_url(did))
            except ValueError as exc:
                self.fetched[did] = FetchError(str(exc))
            else:
                try:
                    document = self.fetch(url)
                    check_bounds(document, DEFAULT_LIMITS, what="DID document")
                    self.fetched[did] = document
                except (FetchError, CredentialFormatError) as exc:
                    self.fetched[did] = FetchError(f"could not fetch {url}: {exc}")
        found = self.fetched[did]
        if isinstance(found, FetchError):
            raise NotChecked(f"the DID document of {did} is not at hand: {found}")
        return found  # type: ignore[return-value]


def check_key(document: dict, keys: Keys, what: str = "", trusted: frozenset[str] | None = None):
    """(key, detail) for the document's proof; CheckFailed or NotChecked otherwise."""
    proof = document.get("proof")
    if not isinstance(proof, dict):
        raise CheckFailed(f"{what}'proof' must be a single JSON object")
    method = proof.get("verificationMethod")
    if not isinstance(method, str) or not method:
        raise CheckFailed(f"{what}proof has no verificationMethod")
    if proof.get("proofPurpose") != "assertionMethod":
        raise CheckFailed(
            f"{what}proofPurpose is {short(proof.get('proofPurpose'))}, not 'assertionMethod'"
        )
    issuer = issuer_id(document)
    method_did = dids.did_of(method)
    try:
        try:
            key = dids.resolve_key(method, issuer=issuer, did_doc=keys.given)
        except dids.DidDocumentMissing:
            document_found = keys.document_for(method_did)
            if document_found is None:
                raise NotChecked(
                    f"{what}the DID document of {method_did} was not supplied, so the key "
                    f"{method} cannot be looked up"
                ) from None
            key = dids.resolve_key(method, issuer=issuer, did_doc=document_found)
    except dids.KeyResolutionError as exc:
        raise CheckFailed(f"{what}{exc}") from None
    if not (issuer or "").startswith("did:"):
        # A URL issuer has no DID document here, so nothing ties the did:key to it: anyone
        # could sign with a fresh did:key and name that URL. Only a pinned signer counts; the
        # signature itself is still checked (the key is known), and reported apart.
        if trusted is None or method_did not in trusted:
            raise SignerNotBound(
                key,
                f"{what}the issuer {issuer} is not a DID, so nothing binds the signer "
                f"{method_did} to it (pin the signer's DID as a trusted issuer to accept it)",
            )
        return key, Message(
            N_("{method}, a trusted signer (the issuer {issuer} is not a DID)"),
            method=method,
            issuer=issuer,
        )
    if method_did.startswith("did:key:"):
        return key, Message(N_("{method} (a did:key: the key is the identifier)"), method=method)
    return key, Message(
        N_("{method} is an assertionMethod key in the DID document of {did}"),
        method=method,
        did=method_did,
    )


def check_signature(document: dict, key, loader: OfflineDocumentLoader, what: str = "") -> str:
    """Check 4: the proof is an eddsa-rdfc-2022 DataIntegrityProof whose signature holds."""
    try:
        proof = eddsa.check_proof_shape(document.get("proof"))
    except eddsa.ProofError as exc:
        raise CheckFailed(f"{what}{exc}") from None
    for name in ("created", "expires"):
        if name in proof:
            try:
                parse_datetime(proof[name])
            except ValueError:
                raise CheckFailed(
                    f"{what}proof {name} {short(proof[name])} is not a dateTime"
                ) from None
    try:
        eddsa.verify_proof(document, key, loader)
    except (eddsa.ProofError, CanonicalizationError) as exc:
        raise CheckFailed(f"{what}{exc}") from None
    return Message(N_("eddsa-rdfc-2022 signature valid"))
