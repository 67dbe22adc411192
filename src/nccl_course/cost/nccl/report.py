"""Text layouts of NCCL's tables as NCCL 2.30.7 logs them with NCCL_DEBUG_SUBSYS=TUNING
(src/graph/tuning.cc lines 543-585): blocks of three algorithms, a "Max NThreads" row, then one
row per function of ``latency/bandwidth`` (us / GB/s, "%8.1f/%6.1f"). :func:`candidates_table`
uses the same layout for the times of one operation (us, -1 where disabled).
"""

from __future__ import annotations

from nccl_course.cost.nccl import tables as T
from nccl_course.cost.nccl.tuner import CostTable


def _blocks(algorithms=T.ALGORITHMS):
    for start in range(0, len(algorithms), 3):
        yield algorithms[start : start + 3]


def _header(algos) -> list[str]:
    line = "  Algorithm   |" + "".join(f" {'':>14}   {a:>14}   {'':>14} |" for a in algos)
    # NCCL prints three algorithms' protocols in every block, even the last, shorter one
    protos = "  Protocol    |" + "".join(f" {p:>14} |" for _ in range(3) for p in T.PROTOCOLS)
    return [line, protos]


def tuning_table(table: CostTable, functions=T.FUNCTIONS) -> str:
    """The latency/bandwidth table NCCL prints at init (every function by default)."""
    lines = []
    for algos in _blocks(table.release.algorithms):
        lines += _header(algos)
        threads = " Max NThreads |"
        for a in algos:
            i = T.ALGORITHMS.index(a)
            threads += "".join(f" {table.max_threads[i][p]:>14d} |" for p in range(3))
        lines.append(threads)
        for function in functions:
            f = T.FUNCTIONS.index(function)
            row = f"{function:>13} |"
            for a in algos:
                i = T.ALGORITHMS.index(a)
                for p in range(3):
                    lat, bw = table.latency_us[f][i][p], table.bandwidth_GBps[f][i][p]
                    row += f"{lat:8.1f}/{bw:6.1f} |"
            lines.append(row)
    return "\n".join(lines)


def candidates_table(function: str, candidates: dict, algorithms=T.ALGORITHMS) -> str:
    """The time of every algorithm/protocol for one operation, in the TUNING layout (us);
    ``algorithms``: the columns (the release's algorithms)."""
    lines = []
    for algos in _blocks(algorithms):
        lines += _header(algos)
        row = f"{function:>13} |"
        for a in algos:
            row += "".join(f" {candidates[f'{a}/{p}']:14.1f} |" for p in T.PROTOCOLS)
        lines.append(row)
    return "\n".join(lines)
