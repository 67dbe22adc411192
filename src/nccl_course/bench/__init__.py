"""An nccl-tests-like benchmark harness for every torch.distributed collective.

``nccl-course bench all_reduce --nproc 4 -b 8 -e 64MiB -f 2`` (or, on a cluster,
``torchrun ... -m nccl_course.bench all_reduce ...``) sweeps sizes, times warm calls, checks
every result, prints nccl-tests' columns, and writes a JSON record (with the environment:
versions, GPUs, topology, NCCL_* variables) and a busbw plot with a model overlaid.

Importing this package does not import torch: the harness modules do.
"""

from nccl_course.bench.report import (
    AlphaBetaFit,
    fit_alpha_beta,
    fit_result,
    format_table,
    model_busbw,
    plot,
    write_json,
)

__all__ = [
    "AlphaBetaFit",
    "fit_alpha_beta",
    "fit_result",
    "format_table",
    "model_busbw",
    "plot",
    "write_json",
]
