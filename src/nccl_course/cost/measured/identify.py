"""Which collective an nccl-tests table measured, when the file does not name its binary.

The registry (:mod:`nccl_course.collectives`) says what each collective is; the columns say
what was run: a reduction operator other than "none" (the tests of the reducing collectives
print one, and so does sendrecv_perf, src/sendrecv.cu), a root other than -1 (the rooted
ones), and ``size / (count x element size)``: 1 where the size is one rank's buffer, the rank
count where it is every rank's block. With the ranks known, the printed busbw / algbw must be
the collective's bus factor. What is left after these tests is the answer when it is one
collective; all_gather and all_to_all (and gather and scatter) look alike, and the user must
name them.
"""

from __future__ import annotations

from nccl_course import collectives
from nccl_course.cost.measured.measurement import MeasurementError, Row, rounding_slack

#: Bytes per element of nccl-tests' type names (src/common.cu, test_typenames).
WORD_BYTES = {
    "int8": 1,
    "uint8": 1,
    "char": 1,
    "f8e4m3": 1,
    "f8e5m2": 1,
    "half": 2,
    "bfloat16": 2,
    "int32": 4,
    "uint32": 4,
    "int": 4,
    "float": 4,
    "int64": 8,
    "uint64": 8,
    "double": 8,
}

#: The collectives whose nccl-tests binary prints a reduction operator.
PRINTS_OPERATOR = frozenset({"all_reduce", "reduce_scatter", "reduce", "send_recv"})


def word_bytes(dtype: str | None) -> int | None:
    """Bytes per element of an nccl-tests type name; None for a name it does not print."""
    return WORD_BYTES.get((dtype or "").lower())


def binary_collectives() -> dict[str, str]:
    """{nccl-tests binary: course collective}, e.g. "alltoall_perf": "all_to_all"."""
    registry = collectives.COLLECTIVES.values()
    return {c.nccl_tests_binary: c.name for c in registry if c.nccl_tests_binary}


def blocks_per_count(rows: tuple[Row, ...] | list[Row]) -> int | None:
    """``size / (count x element size)``, the same for every row (1: one rank's buffer; the
    rank count: every rank's block); None when a type is unknown or the rows disagree."""
    found = set()
    for row in rows:
        per_element = word_bytes(row.dtype)
        if not per_element or not row.count:
            return None
        blocks, rest = divmod(row.size, row.count * per_element)
        if rest:
            return None
        found.add(blocks)
    return found.pop() if len(found) == 1 else None


def _factor_fits(name: str, ranks: int, rows) -> bool:
    """The printed busbw is algbw x the collective's factor, where algbw has digits to tell."""
    factor = collectives.get(name).busbw_factor(ranks)
    for row in rows:
        t = row.timing
        if t is None or t.algbw < 1.0:
            continue
        slack = (
            rounding_slack(t.busbw_step, t.busbw) + rounding_slack(t.algbw_step, t.algbw) * factor
        )
        if abs(t.busbw - t.algbw * factor) > slack + 1e-12:
            return False
    return True


def candidates(rows, leading: tuple[str, ...], ranks: int | None) -> list[str]:
    """The collectives with an nccl-tests binary that the table's columns allow."""
    operators = {row.redop for row in rows} - {None, "", "none"}
    rooted = any(row.root is not None and row.root >= 0 for row in rows)
    blocks = blocks_per_count(rows)
    found = []
    for c in collectives.COLLECTIVES.values():
        if c.nccl_tests_binary is None or c.busbw_formula is None:
            continue
        if "redop" in leading:
            if bool(operators) != (c.name in PRINTS_OPERATOR):
                continue
        elif c.reduces:  # every reducing test has printed its operator, in all versions
            continue
        if c.rooted != rooted:
            continue
        if blocks is not None and ranks != 1 and c.size_counts_all_ranks != (blocks > 1):
            continue
        if ranks and not _factor_fits(c.name, ranks, rows):
            continue
        found.append(c.name)
    return found


def identify(
    rows,
    leading: tuple[str, ...],
    path: str,
    *,
    named: str | None,
    binary: str | None,
    ranks: int | None,
) -> tuple[str, int | None]:
    """(collective, size / (count x element size)) of a table: ``named`` by the user, else
    the ``binary``'s, else the one collective the columns allow. MeasurementError otherwise."""
    blocks = blocks_per_count(rows)
    if named:
        try:
            collectives.get(named)
        except ValueError as exc:
            raise MeasurementError(str(exc)) from None
        if binary and binary != named:
            program = collectives.get(binary).nccl_tests_binary
            raise MeasurementError(
                f"{path} is {program} output ({binary}), not {named}: drop the collective "
                "or name the right one"
            )
        return named, blocks
    if binary:
        return binary, blocks
    found = candidates(rows, leading, ranks)
    if len(found) == 1:
        return found[0], blocks
    choices = ", ".join(found) or "no collective nccl-tests measures"
    raise MeasurementError(
        f"{path} does not say which collective it measured (no *_perf command line; its "
        f"columns fit {choices}): name it, e.g. nccl-course model "
        f"{found[0] if found else 'all_reduce'} --compare {path}"
    )
