"""The bootstrap stagger against a hand computation from src/bootstrap.cc (NCCL 2.30.7)."""

import pytest

from nccl_course.cost.nccl.bootstrap import ranks_per_root, stagger_delay_s


def test_ranks_spread_over_roots():
    assert ranks_per_root(16384, 1) == 16384
    assert ranks_per_root(16384, 16) == 1024
    # 1000 ranks on 3 roots: 334, 333, 333 (the first root takes the remainder)
    assert ranks_per_root(1000, 3) == 334


def test_stagger_only_past_threshold():
    assert stagger_delay_s(256) == 0.0
    assert stagger_delay_s(257) == pytest.approx(256 / 7000)
    # 16,384 ranks on one root: the last one waits 16,383 / 7,000 s
    assert stagger_delay_s(16384) == pytest.approx(2.340428, rel=1e-6)
    assert stagger_delay_s(16384, 64) == 0.0


def test_more_roots_than_ranks_is_refused():
    with pytest.raises(ValueError, match="roots <= ranks"):
        ranks_per_root(4, 8)
