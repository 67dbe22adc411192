"""Fixtures for the credential tests: a did:web issuer in a temporary data folder."""

from __future__ import annotations

import copy
from datetime import datetime, timezone
from pathlib import Path

import pytest

from nccl_course.certs import Issuer

VECTORS = Path(__file__).resolve().parent / "vectors"
ISSUER_ID = "did:web:127.0.0.1%3A8000"
VERIFY_URL = "http://127.0.0.1:8000/verify"
PASSED_AT = datetime(2026, 3, 14, 15, 9, 26, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def issuer(tmp_path_factory) -> Issuer:
    data = tmp_path_factory.mktemp("issuer-data")
    return Issuer.load_or_create(data, ISSUER_ID, "NCCL Course Test Issuer", VERIFY_URL)


@pytest.fixture(scope="module")
def signed(issuer) -> dict:
    return issuer.issue(
        learner_name="Ada Lovelace",
        learner_email="Ada@Example.org",
        exam_id="attempt-17",
        score=0.85,
        passed_at=PASSED_AT,
    )


@pytest.fixture
def credential(signed) -> dict:
    """A fresh deep copy each test may tamper with."""
    return copy.deepcopy(signed)
