"""What each collective means: its numpy definition, and how its buffers map onto chunk ids.

Everything this module knows about a collective comes from its entry in the registry
(:mod:`nccl_course.collectives`): its ``layout`` (how its data is cut into blocks), which blocks
a rank holds before (``holds``) and needs after (``needs``), whose inputs count and who gets an
output (``root_role``), and whether blocks held by several ranks are summed (``reduces``). The
module names no collective: a new one is a registry entry. The registry's docstring tabulates
the input and output of each collective; sizes follow NCCL (and nccl-tests): ``count`` is
elements per rank in the smaller buffer, and each block is ``count`` elements.

Chunk ids (k = the schedule's ``chunks``):

* layout "buffer" (all_reduce, reduce, broadcast): the one buffer is cut into ``num_chunks``
  equal consecutive pieces; the algorithm chooses num_chunks (p * k for a ring, k for a tree).
* layout "blocks" (all_gather, reduce_scatter, gather, scatter, send_recv): block b (the part
  that belongs to rank b) is chunks b*k .. b*k + k - 1.
* layout "pair_blocks" (all_to_all): the block rank i sends to rank j is block i*p + j, chunks
  (i*p + j)*k .. (i*p + j)*k + k - 1.
* layout "tokens" (barrier): chunk t is the token of rank t (zero bytes; its value is t).

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


def _pieces(info: collectives.Collective, k: int, num_chunks: int) -> int:
    """Chunks per block: a buffer is one block of ``num_chunks`` chunks, a token one chunk,
    any other block k chunks."""
    if info.layout == "buffer":
        return num_chunks
    if info.layout == "tokens":
        return 1
    return k


def input_count(collective: str, p: int, count: int) -> int | None:
    """Elements in each rank's input buffer (None: no input)."""
    return collectives.get(collective).input_count(p, count)


def reference(collective: str, inputs: list, root: int = 0) -> list:
    """The collective computed directly with numpy: the outputs of every rank (None where the
    collective gives a rank no output). ``inputs``: one 1-D array per rank, shaped as in the
    registry's table (tokens ignore them).

    Each input is cut into the blocks its rank holds; a block's value is the sum over the ranks
    that hold it (a reducing collective) or the block of the one rank that holds it; a rank's
    output is its needed blocks, concatenated."""
    info = collectives.get(collective)
    p = len(inputs)
    if p < 1:
        raise ValueError("need at least one rank")
    receivers = set(info.output_ranks(p, root))
    if info.layout == "tokens":
        tokens = np.arange(p)
        return [
            tokens[list(info.needed_blocks(r, p))] if r in receivers else None for r in range(p)
        ]
    parts: dict[int, list] = {}
    for r in info.input_ranks(p, root):
        held = info.held_blocks(r, p)
        for b, values in zip(held, np.split(np.asarray(inputs[r]), len(held)), strict=True):
            parts.setdefault(b, []).append(values)

    def value(b: int) -> np.ndarray:
        if info.reduces:
            stack = np.stack(parts[b])
            return np.sum(stack, axis=0, dtype=stack.dtype)
        if len(parts[b]) != 1:
            raise AssertionError(f"{collective}: {len(parts[b])} ranks hold copied block {b}")
        return parts[b][0]

    return [
        np.concatenate([value(b) for b in info.needed_blocks(r, p)]) if r in receivers else None
        for r in range(p)
    ]


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
    info = collectives.get(collective)
    pieces = _pieces(info, k, num_chunks)
    sources = info.input_ranks(p, root)
    if info.layout == "tokens":
        data = np.zeros((p, num_chunks, 1), dtype=np.int64)
        held = np.zeros((p, num_chunks), dtype=bool)
        for r in sources:
            tokens = block_chunks(info.held_blocks(r, p), pieces)
            data[r, tokens, 0] = tokens
            held[r, tokens] = True
        return data, held, 0
    arrays = {r: np.asarray(inputs[r]) for r in sources}
    sizes = {a.size for a in arrays.values()}
    if len(sizes) != 1:
        raise ValueError(f"every rank must pass the same count; got sizes {sorted(sizes)}")
    sample = arrays[sources[0]]
    per_rank, dtype = sample.size, sample.dtype
    blocks_in = info.input_count(p, 1)  # blocks in one rank's input
    if per_rank % blocks_in:
        what = "p" if blocks_in == p else str(blocks_in)
        raise ValueError(f"{collective} input must hold {what} * count elements; got {per_rank}")
    count = per_rank // blocks_in
    m = -(-count // pieces) if pieces else 0
    data = np.zeros((p, num_chunks, m), dtype=dtype)
    held = np.zeros((p, num_chunks), dtype=bool)
    for r, a in arrays.items():
        blocks = info.held_blocks(r, p)
        for b, values in zip(blocks, a.reshape(len(blocks), count), strict=True):
            data[r, b * pieces : (b + 1) * pieces] = _pad_split(values, pieces)
            held[r, b * pieces : (b + 1) * pieces] = True
    return data, held, count


def required(collective: str, p: int, k: int, num_chunks: int, root: int) -> np.ndarray:
    """needed[rank, chunk]: the chunks each rank must hold at the end for its output."""
    info = collectives.get(collective)
    pieces = _pieces(info, k, num_chunks)
    needed = np.zeros((p, num_chunks), dtype=bool)
    for r in info.output_ranks(p, root):
        needed[r, block_chunks(info.needed_blocks(r, p), pieces)] = True
    return needed


def extract(collective: str, data: np.ndarray, count: int, k: int, root: int) -> list:
    """Each rank's output buffer from the final state (None where there is no output)."""
    info = collectives.get(collective)
    p, num_chunks = data.shape[:2]
    pieces = _pieces(info, k, num_chunks)
    receivers = set(info.output_ranks(p, root))
    if info.layout == "tokens":
        return [
            data[r, block_chunks(info.needed_blocks(r, p), pieces), 0] if r in receivers else None
            for r in range(p)
        ]

    def block(r: int, b: int) -> np.ndarray:
        return data[r, b * pieces : (b + 1) * pieces].reshape(-1)[:count]

    return [
        np.concatenate([block(r, b) for b in info.needed_blocks(r, p)]) if r in receivers else None
        for r in range(p)
    ]
