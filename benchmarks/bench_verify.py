"""How fast can this machine verify credentials, compared with raw Ed25519?

Prints, for one Open Badges 3.0 credential issued by a throwaway did:web issuer:

- the raw Ed25519 verification rate (``cryptography``, a 64-byte message as in eddsa-rdfc-2022);
- the rate of each stage of a full verification: RDFC-1.0 canonicalization of the document and
  of the proof configuration (pyld), the status list decode, and ``nccl_course.certs.verify``
  end to end (structure, contexts, proof, validity, status);
- the ratio: how many raw signature checks one full verification costs.

Usage: ``python benchmarks/bench_verify.py [--seconds 2] [--json]``. Single process, one core.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path


def rate(fn, seconds: float) -> tuple[float, int]:
    """Calls per second of ``fn`` over about ``seconds`` (after one warm-up call)."""
    fn()
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        fn()
        count += 1
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start), count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from nccl_course.certs import Issuer, verify
    from nccl_course.certs.canon import canonicalize
    from nccl_course.certs.eddsa import hash_data
    from nccl_course.certs.statuslist import bit_at, decode_bitstring

    with tempfile.TemporaryDirectory() as tmp:
        issuer = Issuer.load_or_create(
            Path(tmp), "did:web:bench.example", "Bench", "https://bench.example/verify"
        )
        credential = issuer.issue(
            learner_name="Ada Lovelace",
            learner_email="ada@example.org",
            exam_id="bench",
            score=0.9,
            passed_at=datetime.now(timezone.utc),
        )
        did_document = issuer.did_document()
        status_list = issuer.status_list_credential()
        issue_rate, _ = rate(
            lambda: issuer.issue(
                learner_name="Ada Lovelace",
                learner_email="ada@example.org",
                exam_id="bench",
                score=0.9,
                passed_at=datetime.now(timezone.utc),
            ),
            args.seconds,
        )

    key = Ed25519PrivateKey.generate()
    public = key.public_key()
    message = os.urandom(64)
    signature = key.sign(message)
    unsecured = {k: v for k, v in credential.items() if k != "proof"}
    options = {k: v for k, v in credential["proof"].items() if k != "proofValue"}
    index = int(credential["credentialStatus"]["statusListIndex"])
    encoded = status_list["credentialSubject"]["encodedList"]

    trusted = [issuer.issuer_id]

    def full_with_status():
        result = verify(
            credential, trusted_issuers=trusted, did_document=did_document, status_list=status_list
        )
        assert result.ok

    def full_without_status():
        # Revocation not checked: the verdict is CANNOT CHECK, the signature is still checked.
        result = verify(credential, trusted_issuers=trusted, did_document=did_document)
        assert result.check("signature").passed and result.check("status").status == "not checked"

    figures = {
        "ed25519_verify_per_s": rate(lambda: public.verify(signature, message), args.seconds)[0],
        "ed25519_sign_per_s": rate(lambda: key.sign(message), args.seconds)[0],
        "canonicalize_credential_per_s": rate(lambda: canonicalize(unsecured), args.seconds)[0],
        "hash_data_per_s": rate(lambda: hash_data(unsecured, options), args.seconds)[0],
        "status_decode_per_s": rate(lambda: bit_at(decode_bitstring(encoded), index), args.seconds)[
            0
        ],
        "verify_without_status_per_s": rate(full_without_status, args.seconds)[0],
        "verify_with_status_per_s": rate(full_with_status, args.seconds)[0],
        "issue_per_s": issue_rate,
    }
    figures["raw_over_full_ratio"] = (
        figures["ed25519_verify_per_s"] / figures["verify_with_status_per_s"]
    )
    machine = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "seconds_per_figure": args.seconds,
    }
    if args.json:
        print(json.dumps({"machine": machine, "figures": figures}, indent=2))
        return 0
    print(f"# credential verification on {machine['machine']}, Python {machine['python']}, 1 core")
    rows = [
        ("raw Ed25519 verify (64-byte message)", "ed25519_verify_per_s"),
        ("raw Ed25519 sign", "ed25519_sign_per_s"),
        ("RDFC-1.0 canonicalization of the credential", "canonicalize_credential_per_s"),
        ("hash data (both canonicalizations + SHA-256)", "hash_data_per_s"),
        ("status list decode + bit lookup", "status_decode_per_s"),
        ("verify(): credential, no status list", "verify_without_status_per_s"),
        ("verify(): credential + status list credential", "verify_with_status_per_s"),
        ("issue(): build, allocate index, sign", "issue_per_s"),
    ]
    for label, name in rows:
        value = figures[name]
        print(f"{label:<48} {value:>12,.1f} /s  {1e3 / value:>9.3f} ms")
    print(
        f"one full verification costs as much as {figures['raw_over_full_ratio']:,.0f} raw "
        "Ed25519 verifications: canonicalization, not the signature, is the bottleneck"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
