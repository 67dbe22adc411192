"""One small module per collective, as nccl-tests has one small file per collective.

Each module's ``build`` takes the reported count (elements, as nccl-tests reports it: for
all-gather, reduce-scatter, gather and scatter the total over all ranks; for all-to-all what each
rank sends in all; otherwise the buffer; see :mod:`nccl_course.collectives`), makes the buffers,
and returns ``run`` (one torch.distributed call) and ``check`` (refill, run, count the wrong
elements this rank holds). The harness owns timing, checking and output.

``SPECS`` holds one :class:`CollectiveSpec` for every collective of the registry that nccl-tests
measures, in the registry's order; the module of collective ``name`` is
``nccl_course.bench.collectives.<name>``.
"""

from __future__ import annotations

import importlib

from nccl_course import collectives
from nccl_course.bench.collectives.common import (
    DTYPES,
    REDOPS,
    CollectiveSpec,
    Prepared,
    count_wrong,
    pattern,
    reduce_patterns,
)

SPECS: dict[str, CollectiveSpec] = {
    name: CollectiveSpec(collectives.get(name), importlib.import_module(f"{__name__}.{name}").build)
    for name in collectives.names(lambda c: c.nccl_tests_binary is not None)
}

__all__ = [
    "DTYPES",
    "REDOPS",
    "SPECS",
    "CollectiveSpec",
    "Prepared",
    "count_wrong",
    "pattern",
    "reduce_patterns",
]
