"""How much CPU does ``verify()`` spend on hostile credentials? (Target: < 1 s each, <= 64 KB.)

Each input claims the course's own issuer (a throwaway did:web issuer made here), so it gets
past the issuer check, and the issuer's DID document and status list are supplied: the worst
case, where every later check would run. The inputs:

- a proofValue of 60,000 characters (base58 decoding is quadratic in the length);
- 8 blank nodes that all link to each other (a "poison graph": RDFC-1.0 tries n! orderings);
- a chain of 400 blank nodes (each looks like the next: Hash N-Degree Quads recursion);
- the same chain as 400 levels of nesting, and 900 levels of nested arrays (recursion);
- NaN and Infinity; credentialSubject.result as an object, ``true`` and a number;
- a forged credential: a fresh did:key that calls itself "nccl-course".

For each one it prints the CPU seconds (``time.process_time``) of one ``verify()`` call on
the JSON text, and what came out (a verdict or ``CredentialFormatError``).

Usage: ``python benchmarks/bench_verify_hostile.py [--json]``. Single process, one core.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

TARGET_SECONDS = 1.0
LINK = "https://example.org/vocab#link"


def _sign_like(issuer, document: dict) -> dict:
    """``document`` with a well-formed (but wrong) proof by the issuer's current key."""
    out = copy.deepcopy(document)
    out["proof"] = {
        "type": "DataIntegrityProof",
        "cryptosuite": "eddsa-rdfc-2022",
        "created": "2026-03-14T15:09:26Z",
        "verificationMethod": issuer.verification_method(),
        "proofPurpose": "assertionMethod",
        "proofValue": "z" + "3" * 87,
    }
    return out


def _linked_document(issuer, nodes: list[dict]) -> dict:
    return {
        "@context": [
            "https://www.w3.org/ns/credentials/v2",
            {"link": {"@id": LINK, "@type": "@id"}},
        ],
        "id": "urn:uuid:00000000-0000-4000-8000-000000000000",
        "type": ["VerifiableCredential"],
        "issuer": issuer.issuer_id,
        "validFrom": "2026-03-14T15:09:26Z",
        "credentialSubject": nodes,
    }


def hostile_inputs(issuer, credential: dict) -> dict[str, str]:
    """name -> JSON text of each hostile input."""
    out: dict[str, str] = {}

    long_proof = copy.deepcopy(credential)
    long_proof["proof"]["proofValue"] = "z" + "2" * 60_000
    out["proofValue of 60,000 characters"] = json.dumps(long_proof)
    huge_proof = copy.deepcopy(credential)
    huge_proof["proof"]["proofValue"] = "z" + "2" * 300_000
    out["proofValue of 300,000 characters (over the size limit)"] = json.dumps(huge_proof)

    for n in (8, 12):
        nodes = [
            {"id": f"_:n{i}", "link": [f"_:n{j}" for j in range(n) if j != i]} for i in range(n)
        ]
        out[f"{n} blank nodes all linked to each other"] = json.dumps(
            _sign_like(issuer, _linked_document(issuer, nodes))
        )
    chain = [{"id": f"_:c{i}", "link": f"_:c{i + 1}"} for i in range(400)]
    out["chain of 400 blank nodes (flat)"] = json.dumps(
        _sign_like(issuer, _linked_document(issuer, chain))
    )
    ring = [{"id": f"_:r{i}", "link": f"_:r{(i + 1) % 60}"} for i in range(60)]
    out["ring of 60 blank nodes (under the blank node limit)"] = json.dumps(
        _sign_like(issuer, _linked_document(issuer, ring))
    )
    nested: dict = {"link": "_:end"}
    for _ in range(400):
        nested = {"link": nested}
    out["chain of 400 blank nodes (nested)"] = json.dumps(
        _sign_like(issuer, _linked_document(issuer, [nested]))
    )
    deep = copy.deepcopy(credential)
    text = json.dumps(deep)
    out["900 levels of nested arrays"] = text.replace(
        '"evidence": [', '"evidence": [' + "[" * 900 + "]" * 900 + ", ", 1
    )
    out["NaN in the subject"] = json.dumps(credential).replace(
        '"activityEndDate"', '"x": NaN, "activityEndDate"', 1
    )
    out["Infinity as the score"] = json.dumps(credential).replace(
        '"value": "85.0"', '"value": Infinity', 1
    )
    for label, value in (("an object", {"type": ["Result"], "value": "100"}), ("true", True)):
        bad = copy.deepcopy(credential)
        bad["credentialSubject"]["result"] = value
        out[f"credentialSubject.result as {label}"] = json.dumps(bad)
    bad = copy.deepcopy(credential)
    bad["credentialSubject"]["result"] = 100
    out["credentialSubject.result as a number"] = json.dumps(bad)

    many = copy.deepcopy(credential)
    many["evidence"] = [
        {"type": ["Evidence"], "name": f"Exam {i}", "genre": "Exam"} for i in range(480)
    ]
    out["480 evidence objects (near the object limit)"] = json.dumps(many)
    return out


def forged(credential: dict) -> str:
    """A credential signed by a fresh did:key that calls itself 'nccl-course' (really signed)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from nccl_course.certs import eddsa
    from nccl_course.certs.did import did_key_from_public, did_key_method

    key = Ed25519PrivateKey.generate()
    did = did_key_from_public(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))
    unsigned = {k: v for k, v in credential.items() if k != "proof"}
    unsigned["issuer"] = {**unsigned["issuer"], "id": did, "name": "nccl-course"}
    signed = eddsa.sign(
        unsigned, key, verification_method=did_key_method(did), created="2026-03-14T15:09:26Z"
    )
    return json.dumps(signed)


def measure(text: str, **kwargs) -> tuple[float, str]:
    from nccl_course.certs.verify import CredentialFormatError, verify

    start = time.process_time()
    try:
        result = verify(text, **kwargs)
        outcome = f"{result.verdict}: {result.reason}"
    except CredentialFormatError as exc:
        outcome = f"CredentialFormatError: {exc}"
    return time.process_time() - start, outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    from nccl_course.certs import Issuer

    with tempfile.TemporaryDirectory() as tmp:
        issuer = Issuer.load_or_create(
            Path(tmp), "did:web:127.0.0.1%3A8000", "nccl-course", "http://127.0.0.1:8000/verify"
        )
        credential = issuer.issue(
            learner_name="Mallory",
            learner_email="mallory@example.org",
            exam_id="bench-hostile",
            score=0.85,
            passed_at=datetime(2026, 3, 14, 15, 9, 26, tzinfo=timezone.utc),
        )
        context = {
            "trusted_issuers": [issuer.issuer_id],
            "did_document": issuer.did_document(),
            "status_list": issuer.status_list_credential(),
        }
        inputs = hostile_inputs(issuer, credential)
        inputs["forged: fresh did:key named 'nccl-course'"] = forged(credential)
        inputs["the genuine credential (for comparison)"] = json.dumps(credential)
        measure(inputs["the genuine credential (for comparison)"], **context)  # warm-up
        rows = []
        for name, text in inputs.items():
            seconds, outcome = measure(text, **context)
            rows.append(
                {
                    "input": name,
                    "bytes": len(text.encode()),
                    "cpu_s": round(seconds, 4),
                    "outcome": outcome,
                }
            )

    slow = [r for r in rows if r["cpu_s"] >= TARGET_SECONDS and r["bytes"] <= 64 * 1024]
    if args.json:
        print(json.dumps({"target_s": TARGET_SECONDS, "rows": rows, "slow": slow}, indent=2))
    else:
        print(f"{'input':<56} {'bytes':>8} {'CPU s':>8}  outcome")
        for row in rows:
            print(
                f"{row['input']:<56} {row['bytes']:>8,} {row['cpu_s']:>8.3f}  "
                f"{row['outcome'][:110]}"
            )
        print(
            f"{len(slow)} input(s) of at most 64 KB took {TARGET_SECONDS} s of CPU or more"
            if slow
            else f"every input of at most 64 KB took under {TARGET_SECONDS} s of CPU"
        )
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
