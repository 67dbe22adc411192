"""Worker for test_gloo_contiguity: collectives on non-contiguous views, run on every rank.

Rank r's tensors hold ``arange + 100 * r`` so every element says where it came from.
"""

import torch
import torch.distributed as dist


def strided_views():
    """Call all_reduce and broadcast on a transpose and on a column slice; return what each rank holds."""
    rank = dist.get_rank()
    out = {}
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3) + 100 * rank
    view = x.t()  # a dense permutation of x's memory: not contiguous, no gaps
    out["transpose_contiguous"] = view.is_contiguous()
    dist.all_reduce(view)
    out["all_reduce_transpose"] = x.tolist()

    y = torch.arange(12, dtype=torch.float32).reshape(3, 4) + 100 * rank
    column = y[:, 1]  # stride 4: the view skips three elements between its own
    out["column_contiguous"] = column.is_contiguous()
    dist.all_reduce(column)
    out["all_reduce_column"] = y.tolist()

    z = torch.arange(12, dtype=torch.float32).reshape(3, 4) + 100 * rank
    dist.broadcast(z[:, 1], src=0)
    out["broadcast_column"] = z.tolist()
    return out
