"""The simulator's layout (nccl_course.sim.layout) asks the registry, and behaves as it always did.

* Characterisation: every function of the layout (input sizes, the initial state, the chunks a
  rank needs, the outputs read back, the numpy reference, the size nccl-tests reports) and the
  executor built on it (every schedule run on real data, the provenance the drawings use) are
  run over every collective x rank counts x chunk counts x sizes x roots, and each collective's
  results are hashed. The hashes were recorded from the layout as it was before its facts moved
  into the registry (when it still switched on collective names); a change of behaviour changes
  a hash. A readable excerpt (which chunks each rank holds and needs on 3 ranks) is spelled out.
* The layout names no collective: what it knows about one comes from the registry entry.
"""

from __future__ import annotations

import ast
import hashlib
import inspect

import numpy as np
import pytest

from nccl_course import collectives
from nccl_course.sim import ALGORITHMS, build_node_ring_schedule, build_schedule, layout
from nccl_course.sim.execute import provenance_states, run_schedule
from nccl_course.sim.rings_trees import MULTI_RING_COLLECTIVES

RANKS = (1, 2, 3, 4, 5, 8)
PIECES = (1, 2, 3)
COUNTS = (0, 1, 4, 7)
DTYPES = (np.float32, np.int64)


class _Digest:
    """sha256 over a canonical rendering of arrays, None, numbers, strings and exceptions."""

    def __init__(self):
        self._h = hashlib.sha256()

    def add(self, *values) -> None:
        for value in values:
            self._add(value)

    def _add(self, value) -> None:
        if value is None:
            self._h.update(b"N;")
        elif isinstance(value, np.ndarray):
            self._h.update(f"A{value.dtype.str}{value.shape};".encode())
            self._h.update(np.ascontiguousarray(value).tobytes())
        elif isinstance(value, (list, tuple)):
            self._h.update(f"L{len(value)}(".encode())
            for v in value:
                self._add(v)
            self._h.update(b")")
        elif isinstance(value, (bool, int, float, str, np.integer)):
            self._h.update(f"{type(value).__name__}:{value!r};".encode())
        else:
            raise TypeError(type(value))

    def call(self, fn, *args, message: bool = True) -> object:
        """Add fn(*args), or the exception it raises (its type, and its message unless
        ``message`` is false); return the result (None on raising)."""
        try:
            result = fn(*args)
        except Exception as e:  # noqa: BLE001 - the error is part of the behaviour
            self.add("raises", type(e).__name__, str(e) if message else "")
            return None
        self.add(result)
        return result

    def hexdigest(self) -> str:
        return self._h.hexdigest()[:16]


def _num_chunks_choices(info, p: int, k: int) -> tuple[int, ...]:
    """The chunk counts schedules use for the layout (a buffer: k for a tree, p * k for a ring)."""
    return {
        "buffer": (k, p * k),
        "blocks": (p * k,),
        "pair_blocks": (p * p * k,),
        "tokens": (p,),
    }[info.layout]


#: Written out here, not taken from the registry: only the root's input counts.
ROOT_INPUT_ONLY = {"broadcast", "scatter"}


def _inputs(info, p: int, n: int, dtype, root: int, others: str) -> list:
    """One input per rank of n distinct elements; others: "same" (every rank real data),
    "negative" (non-root ranks -1 where only the root's input counts) or "none" (None there)."""
    if info.layout == "tokens":
        return [None] * p
    inputs = [(np.arange(n) + 1 + 100 * r).astype(dtype) for r in range(p)]
    if info.name in ROOT_INPUT_ONLY and others != "same":
        for r in range(p):
            if r != root:
                inputs[r] = None if others == "none" else np.full(n, -1, dtype=dtype)
    return inputs


def _layout_digest(name: str) -> str:
    info = collectives.get(name)
    d = _Digest()
    for p in RANKS:
        roots = sorted({0, p - 1, p // 2})
        for count in COUNTS:
            d.add("input_count", p, count)
            d.call(layout.input_count, name, p, count)
        for k in PIECES:
            for num_chunks in _num_chunks_choices(info, p, k):
                d.add("size_chunks", p, k, num_chunks)
                d.call(layout.size_chunks, name, p, k, num_chunks)
                for root in roots:
                    d.add("required", p, k, num_chunks, root)
                    d.call(layout.required, name, p, k, num_chunks, root)
                for count, dtype, root, others in (
                    (c, t, r, o)
                    for c in COUNTS
                    for t in DTYPES
                    for r in roots
                    for o in (
                        ("same", "negative", "none") if name in ROOT_INPUT_ONLY else ("same",)
                    )
                ):
                    n = layout.input_count(name, p, count) or 0
                    inputs = _inputs(info, p, n, dtype, root, others)
                    d.add("load", p, k, num_chunks, count, np.dtype(dtype).str, root, others)
                    state = d.call(layout.load, name, p, k, num_chunks, inputs, root)
                    d.add("reference")
                    d.call(layout.reference, name, inputs, root)
                    if state is None:
                        continue
                    data, _, loaded_count = state
                    final = np.arange(data.size, dtype=data.dtype).reshape(data.shape) + 1
                    d.add("extract")
                    d.call(layout.extract, name, final, loaded_count, k, root)
        # a per-rank input whose size is not p * count (an error for p * count inputs)
        if p > 1:
            bad = [np.arange(p + 1, dtype=np.float32) for _ in range(p)]
            d.add("load-bad", p)
            d.call(layout.load, name, p, 1, _num_chunks_choices(info, p, 1)[0], bad, 0)
            d.add("reference-bad", p)
            d.call(layout.reference, name, bad, 0, message=False)
            uneven = [np.arange(p * (2 + (r == p - 1)), dtype=np.float32) for r in range(p)]
            d.add("load-uneven", p)
            d.call(layout.load, name, p, 1, _num_chunks_choices(info, p, 1)[0], uneven, 0)
    return d.hexdigest()


def _execution_digest(name: str) -> str:
    """Every algorithm's schedule run on real data, and the provenance the drawings show."""
    info = collectives.get(name)
    d = _Digest()
    for algorithm in ALGORITHMS[name]:
        for p in (1, 2, 3, 4, 5, 7, 8):
            for k in (1, 2):
                for root in sorted({0, p - 1}):
                    s = build_schedule(name, algorithm, p, chunks=k, root=root)
                    pieces = s.num_chunks if info.layout == "buffer" else s.chunks
                    n = layout.input_count(name, p, 3 * pieces - 1) or 0
                    inputs = _inputs(info, p, n, np.float32, s.root, "negative")
                    d.add(algorithm, p, k, root)
                    d.call(run_schedule, s, inputs)
                    if p <= 4:
                        d.call(lambda s=s: [list(state) for state in provenance_states(s)])
    if name in MULTI_RING_COLLECTIVES:
        s = build_node_ring_schedule(name, 8, 4, chunks=2)
        pieces = s.num_chunks if info.layout == "buffer" else s.chunks
        n = layout.input_count(name, 8, 3 * pieces - 1)
        d.add("node_rings")
        d.call(run_schedule, s, _inputs(info, 8, n, np.float64, 0, "same"))
    return d.hexdigest()


# Recorded from the layout before the refactor (sim/layout.py switching on collective names).
LAYOUT_DIGESTS = {
    "broadcast": "14baa6adfc5b4e72",
    "reduce": "761495ae1bb5a024",
    "all_reduce": "602ad315ca545d2e",
    "all_gather": "9d139f6151f05dcc",
    "reduce_scatter": "5ff567fe8083bba8",
    "all_to_all": "a0759566d984c208",
    "gather": "7f62fd87a4f04c77",
    "scatter": "e9518b52f02f0540",
    "send_recv": "1b0e6dfbe347f66d",
    "barrier": "418b371630d53df3",
}

EXECUTION_DIGESTS = {
    "broadcast": "3176637ff0562c91",
    "reduce": "40b35e98b2b9617a",
    "all_reduce": "a8bc057047986543",
    "all_gather": "0e0f858b3782f7b2",
    "reduce_scatter": "f2ef027396a12a2a",
    "all_to_all": "d760482fb72b7e8c",
    "gather": "2b54a1fb75c4204f",
    "scatter": "6e00decca3bbda22",
    "send_recv": "46d45ff09b091e7a",
    "barrier": "1dbc805d30a0b281",
}


@pytest.mark.parametrize("name", collectives.names())
def test_layout_functions_behave_as_recorded(name):
    assert _layout_digest(name) == LAYOUT_DIGESTS[name]


@pytest.mark.parametrize("name", collectives.names())
def test_schedules_run_as_recorded(name):
    assert _execution_digest(name) == EXECUTION_DIGESTS[name]


def _rows(matrix: np.ndarray) -> str:
    return " ".join("".join("x" if v else "." for v in row) for row in matrix)


# On 3 ranks, k = 1, root 1 (the chunks of a buffer: 3): the chunks each rank holds before the
# collective (load) and must hold after it (required), one group per rank.
HELD_AND_NEEDED = {
    "broadcast": ("... xxx ...", "xxx xxx xxx"),
    "reduce": ("xxx xxx xxx", "... xxx ..."),
    "all_reduce": ("xxx xxx xxx", "xxx xxx xxx"),
    "all_gather": ("x.. .x. ..x", "xxx xxx xxx"),
    "reduce_scatter": ("xxx xxx xxx", "x.. .x. ..x"),
    "all_to_all": ("xxx...... ...xxx... ......xxx", "x..x..x.. .x..x..x. ..x..x..x"),
    "gather": ("x.. .x. ..x", "... xxx ..."),
    "scatter": ("... xxx ...", "x.. .x. ..x"),
    "send_recv": ("x.. .x. ..x", "..x x.. .x."),
    "barrier": ("x.. .x. ..x", "xxx xxx xxx"),
}


@pytest.mark.parametrize("name", collectives.names())
def test_held_and_needed_chunks_on_three_ranks(name):
    p, k, root = 3, 1, 1
    num_chunks = _num_chunks_choices(collectives.get(name), p, k)[-1]
    n = layout.input_count(name, p, 3) or 0
    inputs = _inputs(collectives.get(name), p, n, np.float32, root, "none")
    _, held, _ = layout.load(name, p, k, num_chunks, inputs, root)
    needed = layout.required(name, p, k, num_chunks, root)
    assert (_rows(held), _rows(needed)) == HELD_AND_NEEDED[name]


def test_held_and_needed_table_covers_the_registry():
    assert tuple(HELD_AND_NEEDED) == collectives.names()


def _code_strings(source: str) -> list[tuple[int, str]]:
    """(line, value) of every string constant in the code, docstrings left out."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_layout_names_no_collective():
    """Adding a collective is a registry entry: the layout asks the registry, never a name."""
    named = [
        (line, value)
        for line, value in _code_strings(inspect.getsource(layout))
        if value in collectives.names()
        or value in {c.display_name for c in collectives.COLLECTIVES.values()}
    ]
    assert named == [], f"sim/layout.py names collectives (line, name): {named}"


def test_the_no_names_check_would_catch_a_name():
    source = 'x = 1\nif collective == "all_to_all":\n    """not a docstring"""\n'
    assert [v for _, v in _code_strings(source) if v in collectives.names()] == ["all_to_all"]


# ----------------------------------------------------------- the registry's facts are coherent


@pytest.mark.parametrize("name", collectives.names())
def test_every_needed_block_has_a_source(name):
    """Each block a rank needs is held by some input rank; by exactly one where the collective
    copies (a reducing one sums every holder's), so the numpy reference is well defined."""
    info = collectives.get(name)
    for p in range(1, 7):
        for root in range(p):
            holders = {}
            for r in info.input_ranks(p, root):
                for b in info.held_blocks(r, p):
                    holders.setdefault(b, []).append(r)
            for r in info.output_ranks(p, root):
                for b in info.needed_blocks(r, p):
                    assert b in holders, (p, root, r, b)
                    if not info.reduces and info.layout != "tokens":
                        assert len(holders[b]) == 1, (p, root, b, holders[b])


@pytest.mark.parametrize("name", collectives.names())
def test_size_counting_all_ranks_is_a_buffer_of_p_blocks(name):
    """nccl-tests' S counts all ranks exactly when the larger buffer is p blocks of count."""
    info = collectives.get(name)
    if info.layout in ("buffer", "tokens"):
        assert not info.size_counts_all_ranks
        return
    for p in range(2, 7):
        larger = max(len(info.held_blocks(0, p)), len(info.needed_blocks(0, p)))
        assert info.size_counts_all_ranks == (larger == p), p


def test_the_registry_rejects_unknown_roles_and_selections():
    base = dict(display_name="x", busbw_formula=None, nccl_tests_binary=None, torch_calls=())
    with pytest.raises(ValueError, match="root_role"):
        collectives.Collective(name="x", root_role="leader", **base)
    with pytest.raises(ValueError, match="needs 'sent'"):
        collectives.Collective(name="x", needs="sent", **base)  # a pair selection on blocks
    with pytest.raises(ValueError, match="holds 'own'"):
        collectives.Collective(name="x", layout="buffer", holds="own", **base)
    assert collectives.Collective(name="x", root_role="source", **base).rooted
