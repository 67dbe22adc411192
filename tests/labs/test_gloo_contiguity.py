"""What gloo does with non-contiguous tensors on the installed torch (pinned: 2.13).

ProcessGroupNCCL rejects them ("Tensors must be contiguous"); gloo checks nothing and works on
the tensor's memory as if it were contiguous. A transpose (a permutation of a dense block) then
gives the right answer, and a column slice silently gives a wrong one. The book's debugging
chapter shows the same run; if a torch upgrade changes gloo's behaviour, this test says so.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nccl_course.launcher import launch

WORKERS = str(Path(__file__).with_name("contiguity_workers.py"))
NPROC = 2


def rank_tensor(shape, rank):
    """The tensor rank ``rank`` starts from, as the worker builds it."""
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 100 * rank


@pytest.fixture(scope="module")
def results():
    return launch((WORKERS, "strided_views"), NPROC, backend="gloo", timeout_s=120)


def test_the_views_are_not_contiguous(results):
    for r in results:
        assert r["transpose_contiguous"] is False
        assert r["column_contiguous"] is False


def test_all_reduce_of_a_transpose_is_correct(results):
    expected = sum(rank_tensor((2, 3), rank) for rank in range(NPROC))
    for r in results:
        assert np.array_equal(np.array(r["all_reduce_transpose"]), expected)


def test_all_reduce_of_a_column_reduces_the_wrong_elements(results):
    # Right answer: column 1 summed over ranks, the rest of each rank's tensor unchanged.
    for rank, r in enumerate(results):
        got = np.array(r["all_reduce_column"])
        right = rank_tensor((3, 4), rank)
        right[:, 1] = sum(rank_tensor((3, 4), q)[:, 1] for q in range(NPROC))
        assert not np.array_equal(got, right)
        # What gloo does: it reduces the 3 elements that follow the view's first one in memory
        # (row 0, columns 1..3) and leaves the rest of the column alone.
        flat_sum = sum(rank_tensor((3, 4), q).ravel()[1:4] for q in range(NPROC))
        wrong = rank_tensor((3, 4), rank)
        wrong.ravel()[1:4] = flat_sum
        assert np.array_equal(got, wrong)


def test_broadcast_of_a_column_overwrites_its_neighbours(results):
    root = rank_tensor((3, 4), 0)
    for rank, r in enumerate(results):
        got = np.array(r["broadcast_column"])
        expected = rank_tensor((3, 4), rank)
        expected.ravel()[1:4] = root.ravel()[1:4]  # the root's contiguous elements 1..3
        assert np.array_equal(got, expected)
    # On rank 1 the column is not the root's column: rows 1 and 2 keep rank 1's values.
    assert results[1]["broadcast_column"][1][1] == 105.0
