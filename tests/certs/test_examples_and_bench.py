"""The published examples keep verifying; random damage never crashes the verifier; the benchmark runs."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from nccl_course.certs import verify
from nccl_course.certs.credential import parse_datetime

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "certificates" / "examples"


def load(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text())


def course() -> list[str]:
    """The examples' issuer, pinned as the one trusted issuer."""
    return [load("did.json")["id"]]


def published():
    """When the example status list was signed: the examples are verified as of then, as the
    list is stale a day later (its validUntil)."""
    return parse_datetime(load("status-list.json")["validFrom"])


def test_example_credential_verifies():
    result = verify(
        load("credential.json"),
        trusted_issuers=course(),
        did_document=load("did.json"),
        status_list=load("status-list.json"),
        now=published(),
    )
    assert result.ok, result.reason
    # A day on, the saved list is stale: the credential can no longer be shown VALID with it.
    later = verify(
        load("credential.json"),
        trusted_issuers=course(),
        did_document=load("did.json"),
        status_list=load("status-list.json"),
        now=parse_datetime(load("status-list.json")["validUntil"]) + timedelta(seconds=1),
    )
    assert later.verdict == "CANNOT CHECK" and "stale" in later.reason


def test_example_revoked_credential_is_revoked():
    revoked = load("revoked-credential.json")
    result = verify(
        revoked,
        trusted_issuers=course(),
        did_document=load("did.json"),
        status_list=load("status-list.json"),
        now=published(),
    )
    index = revoked["credentialStatus"]["statusListIndex"]
    assert result.reason.startswith(f"status: revoked: bit {index} ")


def test_examples_hold_no_private_key():
    for path in EXAMPLES.parent.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".md", ".py"):
            text = path.read_text()
            assert 'secretKeyMultibase":' not in text and 'privateKeyMultibase":' not in text


def _mutations(document: dict, rng: random.Random, count: int):
    """Random damage: delete a key, replace a value, shorten a string or wrap a value in a list."""
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                paths.append((*path, key))
                walk(value, (*path, key))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                paths.append((*path, i))
                walk(value, (*path, i))

    walk(document, ())
    for _ in range(count):
        doc = copy.deepcopy(document)
        path = rng.choice(paths)
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        action = rng.choice(["delete", "replace", "shorten"])
        if action == "delete":
            del parent[path[-1]]
        elif action == "replace":
            parent[path[-1]] = rng.choice([None, 7, 1.5, True, [], {}, "x"])
        elif isinstance(parent[path[-1]], str):
            parent[path[-1]] = parent[path[-1]][:-1]
        else:
            action = "wrap"
            parent[path[-1]] = [parent[path[-1]]]
        yield path, action, doc


@pytest.mark.parametrize("seed", [1, 2])
def test_random_damage_is_rejected_without_crashing(seed):
    original = load("credential.json")
    did_document, status_list = load("did.json"), load("status-list.json")
    for path, action, damaged in _mutations(original, random.Random(seed), 40):
        result = verify(
            damaged,
            trusted_issuers=course(),
            did_document=did_document,
            status_list=status_list,
            now=published(),
        )
        assert isinstance(result.reason, str) and result.reason
        # Only a change that leaves the signed RDF data identical may pass: wrapping a value
        # in a one-element array is the same JSON-LD value.
        assert not result.ok or action == "wrap", (path, action, result.reason)


def test_benchmark_runs_and_verification_costs_more_than_a_signature_check():
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "benchmarks" / "bench_verify.py"),
            "--seconds",
            "0.2",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr
    figures = json.loads(proc.stdout)["figures"]
    assert all(value > 0 for value in figures.values())
    assert figures["ed25519_verify_per_s"] > figures["verify_with_status_per_s"]
    assert figures["raw_over_full_ratio"] > 1
