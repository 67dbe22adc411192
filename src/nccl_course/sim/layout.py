"""What each collective means: its numpy definition, and how its buffers map onto chunk ids.

Buffer shapes follow NCCL (and nccl-tests): ``count`` is elements per rank in the smaller buffer.

================  =====================  ===================================================
collective        input per rank         output per rank
================  =====================  ===================================================
all_reduce        count                  count: the element-wise sum over ranks
reduce            count                  root only: the sum (other ranks: None)
broadcast         count (root's used)    count: the root's input
all_gather        count                  p * count: inputs concatenated in rank order
reduce_scatter    p * count              count: block ``rank`` of the sum
all_to_all        p * count              p * count: block i is block ``rank`` of rank i's input
gather            count                  root only: p * count, inputs in rank order
scatter           p * count (root's)     count: block ``rank`` of the root's input
send_recv         count                  count: the input of rank (rank - 1) mod p (a ring
                                         shift, as nccl-tests' sendrecv_perf does)
barrier           (none)                 the tokens 0..p-1: rank r holds token r at the start
                                         and must have heard from every rank at the end
================  =====================  ===================================================

Chunk ids (k = the schedule's ``chunks``):

* ``buffer`` collectives (all_reduce, reduce, broadcast): the buffer is cut into ``num_chunks``
  equal consecutive pieces; the algorithm chooses num_chunks (p * k for a ring, k for a tree).
* ``block`` collectives (all_gather, reduce_scatter, gather, scatter, send_recv): block b (the
  part that belongs to rank b) is chunks b*k .. b*k + k - 1.
* all_to_all: the block rank i sends to rank j is chunks (i*p + j)*k .. (i*p + j)*k + k - 1.
* barrier: chunk t is the token of rank t (zero bytes).

Pieces that do not divide evenly are padded with zeros, which no sum or copy can disturb.
"""

from __future__ import annotations

import numpy as np

from nccl_course import collectives

#: Every collective the simulator runs: all of the registry (:mod:`nccl_course.collectives`).
SIMULATED_COLLECTIVES = collectives.names()
#: Cut into ``num_chunks`` equal pieces of one buffer (layout "buffer").
BUFFER_COLLECTIVES = collectives.names(lambda c: c.layout == "buffer")
#: Cut into one block of k chunks per rank (layout "blocks").
BLOCK_COLLECTIVES = collectives.names(lambda c: c.layout == "blocks")
REDUCING_COLLECTIVES = collectives.names(lambda c: c.reduces)
ROOTED_COLLECTIVES = collectives.names(lambda c: c.rooted)


def check_collective(collective: str) -> None:
    """ValueError naming the known collectives if ``collective`` is not one."""
    collectives.get(collective)


def block_chunks(blocks, k: int) -> np.ndarray:
    """Chunk ids of the given blocks (k pieces each), in block order."""
    blocks = np.asarray(blocks, dtype=np.int64).reshape(-1, 1)
    return (blocks * k + np.arange(k)).reshape(-1)


def pair_chunks(src, dst, p: int, k: int) -> np.ndarray:
    """Chunk ids [..., k] of the all-to-all blocks ``src`` sends to ``dst``."""
    base = (np.asarray(src) * p + np.asarray(dst)) * k
    return base[..., None] + np.arange(k)


def input_count(collective: str, p: int, count: int) -> int | None:
    """Elements in each rank's input buffer (None: no input)."""
    if collective in ("reduce_scatter", "all_to_all", "scatter"):
        return p * count
    if collective == "barrier":
        return None
    return count


def reference(collective: str, inputs: list, root: int = 0) -> list:
    """The collective computed directly with numpy: the outputs of every rank (None where the
    collective gives a rank no output). ``inputs``: one 1-D array per rank, shaped as in the
    module docstring (barrier ignores them)."""
    check_collective(collective)
    p = len(inputs)
    if p < 1:
        raise ValueError("need at least one rank")
    if collective == "barrier":
        return [np.arange(p) for _ in range(p)]
    arrays = [None if a is None else np.asarray(a) for a in inputs]
    if collective == "broadcast":
        return [arrays[root].copy() for _ in range(p)]
    if collective == "scatter":
        return list(np.split(arrays[root].copy(), p))
    if collective == "send_recv":
        return [arrays[(r - 1) % p].copy() for r in range(p)]
    stack = np.stack(arrays)
    if collective in REDUCING_COLLECTIVES:
        total = np.sum(stack, axis=0, dtype=stack.dtype)
        if collective == "all_reduce":
            return [total.copy() for _ in range(p)]
        if collective == "reduce":
            return [total if r == root else None for r in range(p)]
        return list(np.split(total, p))  # reduce_scatter
    if collective == "all_gather":
        return [stack.reshape(-1).copy() for _ in range(p)]
    if collective == "gather":
        return [stack.reshape(-1).copy() if r == root else None for r in range(p)]
    if collective == "all_to_all":
        blocks = stack.reshape(p, p, -1)  # [sender, receiver, element]
        return [blocks[:, r, :].reshape(-1).copy() for r in range(p)]
    raise AssertionError(collective)


def size_chunks(collective: str, p: int, k: int, num_chunks: int) -> int:
    """How many chunks make up the size nccl-tests reports for the collective: the whole buffer,
    p blocks when the size counts all ranks (``size_counts_all_ranks``), one block for
    send/recv, nothing for the barrier."""
    info = collectives.get(collective)
    if info.layout == "buffer":
        return num_chunks
    if info.size_counts_all_ranks:
        return p * k  # for all_to_all: everything one rank sends, its own block included
    if info.layout == "tokens":
        return 0  # barrier: no data
    return k  # send_recv: one rank's buffer


def _pad_split(buffer: np.ndarray, pieces: int) -> np.ndarray:
    """A 1-D buffer as (pieces, m) with zero padding at the end."""
    m = -(-buffer.size // pieces) if pieces else 0
    padded = np.zeros(pieces * m, dtype=buffer.dtype)
    padded[: buffer.size] = buffer
    return padded.reshape(pieces, m)


def load(collective: str, p: int, k: int, num_chunks: int, inputs: list, root: int):
    """Initial state: (data[p, num_chunks, m], held[p, num_chunks], count)."""
    if collective == "barrier":
        data = np.zeros((p, p, 1), dtype=np.int64)
        held = np.zeros((p, p), dtype=bool)
        data[np.arange(p), np.arange(p), 0] = np.arange(p)
        held[np.arange(p), np.arange(p)] = True
        return data, held, 0
    sample = inputs[root] if collective in ("broadcast", "scatter") else inputs[0]
    sample = np.asarray(sample)
    if collective in ("broadcast", "scatter"):
        arrays = {root: sample}
    else:
        arrays = {r: np.asarray(inputs[r]) for r in range(p)}
        sizes = {a.size for a in arrays.values()}
        if len(sizes) != 1:
            raise ValueError(f"every rank must pass the same count; got sizes {sorted(sizes)}")
    per_rank = sample.size
    dtype = sample.dtype
    if collective in BUFFER_COLLECTIVES:
        count = per_rank
        m = -(-count // num_chunks) if num_chunks else 0
        data = np.zeros((p, num_chunks, m), dtype=dtype)
        held = np.zeros((p, num_chunks), dtype=bool)
        for r, a in arrays.items():
            data[r] = _pad_split(a.ravel(), num_chunks)
            held[r] = True
        return data, held, count
    if collective in ("reduce_scatter", "all_to_all", "scatter"):
        if per_rank % p:
            raise ValueError(f"{collective} input must hold p * count elements; got {per_rank}")
        count = per_rank // p
    else:
        count = per_rank
    m = -(-count // k)
    if collective == "all_to_all":
        data = np.zeros((p, num_chunks, m), dtype=dtype)
        held = np.zeros((p, num_chunks), dtype=bool)
        for r, a in arrays.items():
            blocks = a.reshape(p, count)
            for j in range(p):
                lo = (r * p + j) * k
                data[r, lo : lo + k] = _pad_split(blocks[j], k)
            held[r, r * p * k : (r + 1) * p * k] = True
        return data, held, count
    data = np.zeros((p, num_chunks, m), dtype=dtype)
    held = np.zeros((p, num_chunks), dtype=bool)
    for r, a in arrays.items():
        if collective in ("reduce_scatter", "scatter"):
            blocks = a.reshape(p, count)
            for b in range(p):
                data[r, b * k : (b + 1) * k] = _pad_split(blocks[b], k)
            held[r] = True
        else:  # all_gather, gather, send_recv: each rank owns its block
            data[r, r * k : (r + 1) * k] = _pad_split(a.ravel(), k)
            held[r, r * k : (r + 1) * k] = True
    return data, held, count


def required(collective: str, p: int, k: int, num_chunks: int, root: int) -> np.ndarray:
    """needed[rank, chunk]: the chunks each rank must hold at the end for its output."""
    needed = np.zeros((p, num_chunks), dtype=bool)
    ranks = np.arange(p)
    if collective in ("all_reduce", "broadcast", "all_gather", "barrier"):
        needed[:] = True
    elif collective in ("reduce", "gather"):
        needed[root] = True
    elif collective in ("reduce_scatter", "scatter"):
        for r in ranks:
            needed[r, r * k : (r + 1) * k] = True
    elif collective == "send_recv":
        for r in ranks:
            b = (r - 1) % p
            needed[r, b * k : (b + 1) * k] = True
    elif collective == "all_to_all":
        for r in ranks:
            for i in ranks:
                lo = (i * p + r) * k
                needed[r, lo : lo + k] = True
    return needed


def extract(collective: str, data: np.ndarray, count: int, k: int, root: int) -> list:
    """Each rank's output buffer from the final state (None where there is no output)."""
    p = data.shape[0]
    if collective == "barrier":
        return [data[r, :, 0].copy() for r in range(p)]
    if collective in BUFFER_COLLECTIVES:
        outs = [data[r].reshape(-1)[:count].copy() for r in range(p)]
        if collective == "reduce":
            return [o if r == root else None for r, o in enumerate(outs)]
        return outs

    def block(r: int, chunk_lo: int) -> np.ndarray:
        return data[r, chunk_lo : chunk_lo + k].reshape(-1)[:count]

    if collective in ("all_gather", "gather"):
        outs = [np.concatenate([block(r, b * k) for b in range(p)]) for r in range(p)]
        if collective == "gather":
            return [o if r == root else None for r, o in enumerate(outs)]
        return outs
    if collective in ("reduce_scatter", "scatter"):
        return [block(r, r * k).copy() for r in range(p)]
    if collective == "send_recv":
        return [block(r, ((r - 1) % p) * k).copy() for r in range(p)]
    if collective == "all_to_all":
        return [np.concatenate([block(r, (i * p + r) * k) for i in range(p)]) for r in range(p)]
    raise AssertionError(collective)
