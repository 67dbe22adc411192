"""Findings (b) and (c): hostile inputs are refused quickly, with a clear error, never a crash.

(b) cost: a long proofValue (quadratic base58 decoding), blank nodes that all link to each
other (RDFC-1.0 tries every ordering), long chains of blank nodes, a GZIP bomb in a status
list. (c) crashes: credentialSubject.result of the wrong type, NaN/Infinity, deep nesting.
"""

from __future__ import annotations

import copy
import gzip
import json
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from nccl_course.certs import eddsa, verify
from nccl_course.certs.canon import (
    CanonicalizationError,
    CanonicalizationLimitError,
    CanonLimits,
    canonicalize,
)
from nccl_course.certs.credential import (
    CredentialFormatError,
    Limits,
    check_bounds,
    check_credential_types,
    parse_json,
)
from nccl_course.certs.multibase import (
    MultibaseError,
    b58decode,
    decode_base58btc,
    encode_base64url,
)
from nccl_course.certs.statuslist import StatusListError, decode_bitstring
from nccl_course.certs.verify import FAILED, NOT_VALID, parse_credential

REPO = Path(__file__).resolve().parents[2]
ISSUER_ID = "did:web:127.0.0.1%3A8000"
PASSED_AT = datetime(2026, 3, 14, 15, 9, 26, tzinfo=timezone.utc)
LATER = PASSED_AT + timedelta(days=30)
VC_V2 = "https://www.w3.org/ns/credentials/v2"
LINKED = {"link": {"@id": "https://example.org/vocab#link", "@type": "@id"}}
CPU_BUDGET_S = 1.0


def run(issuer, credential, **kwargs):
    kwargs.setdefault("trusted_issuers", [ISSUER_ID])
    kwargs.setdefault("did_document", issuer.did_document())
    kwargs.setdefault("status_list", issuer.status_list_credential())
    kwargs.setdefault("now", LATER)
    return verify(credential, **kwargs)


def cpu(fn):
    """(result or exception, CPU seconds) of fn()."""
    start = time.process_time()
    try:
        out = fn()
    except Exception as exc:  # noqa: BLE001 - the test inspects it
        out = exc
    return out, time.process_time() - start


def linked(issuer, nodes: list[dict]) -> dict:
    """A credential claiming the course's issuer whose subject is ``nodes``, with a
    well-formed (wrong) proof: it gets past every check up to canonicalization."""
    return {
        "@context": [VC_V2, LINKED],
        "id": "urn:uuid:00000000-0000-4000-8000-000000000000",
        "type": ["VerifiableCredential"],
        "issuer": ISSUER_ID,
        "validFrom": "2026-03-14T15:09:26Z",
        "credentialSubject": nodes,
        "proof": {
            "type": "DataIntegrityProof",
            "cryptosuite": "eddsa-rdfc-2022",
            "created": "2026-03-14T15:09:26Z",
            "verificationMethod": issuer.verification_method(),
            "proofPurpose": "assertionMethod",
            "proofValue": "z" + "3" * 87,
        },
    }


# -- (b) a long proofValue ----------------------------------------------------------------------
@pytest.mark.parametrize("length", [10_000, 60_000])
def test_a_long_proof_value_is_refused_before_decoding(issuer, credential, length):
    credential["proof"]["proofValue"] = "z" + "2" * length
    result, seconds = cpu(lambda: run(issuer, credential))
    assert seconds < 0.1, seconds
    assert result.verdict == NOT_VALID
    assert result.reason.startswith(f"signature: proofValue has {length + 1:,} characters")


def test_a_proof_value_over_the_size_limit_is_a_format_error(issuer, credential):
    credential["proof"]["proofValue"] = "z" + "2" * 300_000
    with pytest.raises(CredentialFormatError, match="the limit is 65,536"):
        verify(json.dumps(credential), trusted_issuers=[ISSUER_ID])
    with pytest.raises(CredentialFormatError, match="larger than 65,536 bytes"):
        verify(credential, trusted_issuers=[ISSUER_ID])


def test_base58_decoding_is_bounded():
    start = time.process_time()
    with pytest.raises(MultibaseError, match="at most"):
        b58decode("2" * 300_000)
    with pytest.raises(MultibaseError, match="at most 88"):
        decode_base58btc("z" + "2" * 89, max_bytes=64)
    assert time.process_time() - start < 0.1
    with pytest.raises(eddsa.ProofError, match="proofValue has 100,001 characters"):
        eddsa.signature_bytes("z" + "2" * 100_000)


# -- (b) blank nodes ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [6, 7, 8, 12])
def test_interlinked_blank_nodes_are_refused_quickly(issuer, n):
    nodes = [{"id": f"_:n{i}", "link": [f"_:n{j}" for j in range(n) if j != i]} for i in range(n)]
    result, seconds = cpu(lambda: run(issuer, linked(issuer, nodes)))
    assert seconds < CPU_BUDGET_S, seconds
    assert result.verdict == NOT_VALID
    check = result.check("signature")
    assert check.status == FAILED
    assert "poison graph" in check.detail or "look-alike neighbours" in check.detail


@pytest.mark.parametrize("n", [64, 400])
def test_a_chain_of_blank_nodes_is_refused_quickly(issuer, n):
    chain = [{"id": f"_:c{i}", "link": f"_:c{i + 1}"} for i in range(n)]
    result, seconds = cpu(lambda: run(issuer, linked(issuer, chain)))
    assert seconds < CPU_BUDGET_S, seconds
    assert result.verdict == NOT_VALID
    assert result.check("signature").status == FAILED
    assert "blank nodes" in result.check("signature").detail


def test_a_nested_chain_of_blank_nodes_is_refused_before_json_ld(issuer):
    nested: dict = {"link": "_:end"}
    for _ in range(400):
        nested = {"link": nested}
    with pytest.raises(CredentialFormatError, match="nested more than 32 levels"):
        run(issuer, linked(issuer, [nested]))


def test_canonicalization_limits_directly():
    ring = {
        "@context": LINKED,
        "@graph": [{"@id": f"_:r{i}", "link": f"_:r{(i + 1) % 20}"} for i in range(20)],
    }
    with pytest.raises(CanonicalizationLimitError, match="poison graph"):
        canonicalize(ring)
    with pytest.raises(CanonicalizationLimitError, match="22 blank nodes; the limit is 8"):
        canonicalize(
            {**ring, "@graph": ring["@graph"] + [{"link": "_:x"}]},
            limits=CanonLimits(max_blank_nodes=8),
        )
    assert issubclass(CanonicalizationLimitError, CanonicalizationError)
    # A document with a few look-alike blank nodes is within the limits and still canonical.
    small = {
        "@context": LINKED,
        "@graph": [{"@id": "_:a", "link": "_:b"}, {"@id": "_:b", "link": "_:a"}],
    }
    assert canonicalize(small).count("\n") == 2


def test_a_cpu_deadline_backs_the_work_budget():
    clique = {
        "@context": LINKED,
        "@graph": [
            {"@id": f"_:n{i}", "link": [f"_:n{j}" for j in range(6) if j != i]} for i in range(6)
        ],
    }
    limits = CanonLimits(max_work=10**9, max_cpu_seconds=0.05)
    out, seconds = cpu(lambda: canonicalize(clique, limits=limits))
    assert isinstance(out, CanonicalizationLimitError) and "CPU time" in str(out)
    assert seconds < 0.5


def test_a_gzip_bomb_status_list_is_refused():
    bomb = encode_base64url(gzip.compress(bytes(64 * 1024 * 1024)))
    start = time.process_time()
    with pytest.raises(StatusListError, match="expands to more than"):
        decode_bitstring(bomb)
    assert time.process_time() - start < CPU_BUDGET_S


def test_the_hostile_benchmark_meets_its_target():
    proc = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_verify_hostile.py"), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["slow"] == []
    outcomes = {row["input"]: row["outcome"] for row in report["rows"]}
    assert outcomes["the genuine credential (for comparison)"].startswith("VALID")
    assert outcomes["forged: fresh did:key named 'nccl-course'"].startswith("NOT VALID: issuer:")
    assert all(not o.startswith("VALID") for name, o in outcomes.items() if "genuine" not in name)


# -- (c) wrong types, NaN, deep nesting ------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "kind"),
    [({"type": ["Result"], "value": "100"}, "an object"), (True, "a boolean"), (100, "a number")],
)
def test_result_of_the_wrong_type_is_a_clean_verdict(issuer, credential, value, kind):
    credential["credentialSubject"]["result"] = value
    result = run(issuer, credential)
    assert result.verdict == NOT_VALID
    assert result.reason == (
        f"schema: malformed credential: credentialSubject.result must be an array, not {kind}"
    )
    with pytest.raises(CredentialFormatError, match="credentialSubject.result must be an array"):
        check_credential_types(credential)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("credentialSubject", "result", 0), 7),
        (("credentialSubject", "result", 0, "value"), ["85"]),
        (("credentialSubject", "identifier"), "me"),
        (("credentialSubject", "identifier", 1, "identityHash"), {"name": "x"}),
        (("issuer", "name"), 42),
        (("validFrom",), 2026),
        (("validFrom",), "yesterday"),
        (("credentialSubject", "achievement"), "NCCL"),
    ],
)
def test_other_wrong_types_are_clean_verdicts(issuer, credential, path, value):
    target = credential
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    result = run(issuer, credential)
    assert result.verdict == NOT_VALID
    assert result.reason.startswith("schema: malformed credential: "), result.reason


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_nan_and_infinity_are_refused(signed, constant):
    text = json.dumps(signed).replace('"activityEndDate"', f'"x": {constant}, "activityEndDate"')
    with pytest.raises(
        CredentialFormatError, match="^malformed credential: .*(NaN|Infinity|range)"
    ):
        verify(text, trusted_issuers=[ISSUER_ID])
    parsed = copy.deepcopy(signed)
    parsed["credentialSubject"]["x"] = float("nan")
    with pytest.raises(CredentialFormatError, match="not a JSON number"):
        verify(parsed, trusted_issuers=[ISSUER_ID])


@pytest.mark.parametrize("depth", [33, 900, 100_000])
def test_deep_nesting_is_refused_without_recursion(signed, depth):
    text = json.dumps(signed).replace(
        '"evidence": [', '"evidence": [' + "[" * depth + "]" * depth + ", "
    )
    # Refused before parsing: for its depth, or (100,000 levels) already for its size.
    with pytest.raises(CredentialFormatError, match="nested more than 32 levels|limit is 65,536"):
        parse_credential(text)
    nested: list = []
    for _ in range(depth):
        nested = [nested]
    deep = {**signed, "evidence": nested}
    with pytest.raises(CredentialFormatError, match="nested more than 32 levels deep"):
        verify(deep, trusted_issuers=[ISSUER_ID])


def test_parse_json_refuses_what_json_should_not_hold():
    for text, message in [
        ('{"a": 1, "a": 2}', "appears twice"),
        ('{"a": ' + "9" * 5000 + "}", "not valid JSON"),
        ("{", "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
    ]:
        with pytest.raises(CredentialFormatError, match=message):
            parse_json(text)
    with pytest.raises(CredentialFormatError, match="more than 3 JSON objects"):
        check_bounds([{}, {}, {}, {}], Limits(max_objects=3))
    with pytest.raises(CredentialFormatError, match="not a JSON value"):
        check_bounds({"a": {1, 2}})
    with pytest.raises(CredentialFormatError, match="non-string key"):
        check_bounds({1: "a"})


def test_not_an_object_is_a_format_error():
    for value in ("[]", "3", b'"x"'):
        with pytest.raises(CredentialFormatError, match="a credential is a JSON object"):
            verify(value)
    assert issubclass(CredentialFormatError, ValueError)
    assert str(CredentialFormatError("x")) == "malformed credential: x"
