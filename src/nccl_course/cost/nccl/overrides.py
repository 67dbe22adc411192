"""NCCL_ALGO and NCCL_PROTO strings as NCCL 2.30.7 reads them (``parseList``,
src/graph/tuning.cc lines 36-136; documented at
https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-algo).

A string is one or more entries separated by ``;``. An entry is ``[function:]list``: the list is
comma-separated names (case-insensitive), or ``^`` and names to *exclude*. Without a function
the entry applies to every function, and only the first entry may omit it. Each entry resets
the functions it names: ``"ring"`` enables only Ring everywhere, ``"^nvls"`` everything but NVLS,
``"ring,tree;allreduce:nvls"`` Ring and Tree everywhere but only NVLS for all-reduce. Function
names are NCCL's (``AllReduce``, ``AllGather``, ``ReduceScatter``, ``Broadcast``, ``Reduce``,
any case). Errors are NCCL's messages, raised as :class:`NcclInvalidUsage`.

Protocols start enabled, LL128 as "2" (enabled where the hardware allows it, see
:mod:`~nccl_course.cost.nccl.tuner`); naming LL128 explicitly forces it on.
"""

from __future__ import annotations

from dataclasses import dataclass

from nccl_course.cost.nccl import tables as T


class NcclInvalidUsage(ValueError):
    """What NCCL reports as ncclInvalidUsage (a bad NCCL_ALGO / NCCL_PROTO, or an override that
    leaves a collective with no algorithm); the message is NCCL's WARN line."""


def parse_list(text: str, prefixes: tuple[str, ...], elements: tuple[str, ...], start) -> list:
    """``start`` (one row per prefix, one int per element) updated by ``text``; see the module
    docstring. Returns new rows; raises NcclInvalidUsage with NCCL's message."""
    rows = [list(r) for r in start]
    entries = [e for e in text.split(";") if e]
    for position, entry in enumerate(entries):
        parts = [p for p in entry.split(":") if p]
        if not parts:
            continue
        if len(parts) == 1:
            if position != 0:
                raise NcclInvalidUsage(f'All entries except the first must have a prefix: "{text}"')
            prefix, names = None, parts[0]
        else:
            prefix, names = parts[0], parts[1]
        value = 1
        if names.startswith("^"):
            value, names = 0, names[1:]
        matched = False
        for i, candidate in enumerate(prefixes):
            if prefix is not None and prefix.lower() != candidate.lower():
                continue
            matched = True
            rows[i] = [1 - value] * len(elements)
            for name in (n for n in names.split(",") if n):
                lookup = [e.lower() for e in elements]
                if name.lower() not in lookup:
                    raise NcclInvalidUsage(
                        f'Unrecognized element token "{name}" when parsing "{text}"'
                    )
                rows[i][lookup.index(name.lower())] = value
        if not matched:
            raise NcclInvalidUsage(f'Unrecognized prefix token "{prefix}" when parsing "{text}"')
    return rows


@dataclass(frozen=True)
class Enablement:
    """Which algorithms and protocols the user allows per function: ``algorithms[f][a]`` 0/1,
    ``protocols[f][p]`` 0/1, or 2 for LL128 left to NCCL. ``algo`` and ``proto`` keep the
    strings for error messages."""

    algorithms: tuple
    protocols: tuple
    algo: str | None = None
    proto: str | None = None

    @classmethod
    def defaults(cls) -> Enablement:
        return cls.parse(None, None)

    @classmethod
    def parse(cls, algo: str | None, proto: str | None) -> Enablement:
        """From NCCL_ALGO / NCCL_PROTO strings (None: not set)."""
        algos = [[1] * len(T.ALGORITHMS) for _ in T.FUNCTIONS]
        protos = [[2 if p == "LL128" else 1 for p in T.PROTOCOLS] for _ in T.FUNCTIONS]
        if proto:
            protos = parse_list(proto, T.FUNCTIONS, T.PROTOCOLS, protos)
        if algo:
            algos = parse_list(algo, T.FUNCTIONS, T.ALGORITHMS, algos)
        return cls(tuple(tuple(r) for r in algos), tuple(tuple(r) for r in protos), algo, proto)

    def algorithm(self, function: str, algorithm: str) -> int:
        return self.algorithms[T.FUNCTIONS.index(function)][T.ALGORITHMS.index(algorithm)]

    def protocol(self, function: str, protocol: str) -> int:
        return self.protocols[T.FUNCTIONS.index(function)][T.PROTOCOLS.index(protocol)]
