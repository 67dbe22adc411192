"""NCCL's own performance model (NCCL 2.30.7; torch 2.13's PyPI wheel ships 2.29.7), next to the
textbook one in :mod:`nccl_course.cost`: constants (``tables``), the graphs its topology search
finds (``system``), the latency/bandwidth table (``tuner``), NCCL_ALGO / NCCL_PROTO
(``overrides``), the choice of algorithm, protocol and channels (``select``), the public
:func:`predict` (module ``estimate``) and NCCL_DEBUG_SUBSYS=TUNING-style text (``report``).

``predict`` and friends are loaded on first use: :mod:`nccl_course.cost.presets` imports
:class:`~nccl_course.cost.nccl.system.NcclHardware` from here, and ``predict`` imports presets.
"""

from __future__ import annotations

from importlib import import_module

_LAZY = {
    "predict": "estimate",
    "NcclPrediction": "estimate",
    "system_for": "estimate",
    "table_for": "estimate",
    "function_name": "estimate",
    "NcclInvalidUsage": "overrides",
    "Enablement": "overrides",
    "NcclHardware": "system",
    "NcclSystem": "system",
    "tuning_table": "report",
    "candidates_table": "report",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
