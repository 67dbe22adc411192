"""Workers the lab 06 tests launch: drive the learner's ShardedDataParallel on a model of our own
and return plain lists; the tests compare them with a full replica trained on one process."""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch import nn

from nccl_course.launcher import device
from nccl_course.launcher.launch import load_file_module

#: 6*9 + 9 + 9*5 + 5 = 113 parameters: padding is needed for 2, 3 and 4 ranks.
CHECK_SIZES = (6, 9, 5)
LR = 0.01
BATCH = 4
STEPS = 3

_all_gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor


def check_model() -> nn.Module:
    gen = torch.Generator().manual_seed(3)
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(CHECK_SIZES[:-1], CHECK_SIZES[1:], strict=True)):
        linear = nn.Linear(a, b, dtype=torch.float64)
        with torch.no_grad():
            linear.weight.copy_(torch.randint(-4, 5, (b, a), generator=gen) / 8)
            linear.bias.copy_(torch.randint(-4, 5, (b,), generator=gen) / 8)
        layers.append(linear)
        if i < len(CHECK_SIZES) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def check_batch(step: int, rank: int):
    gen = torch.Generator().manual_seed(31 + 1000 * step + rank)
    x = torch.randint(-4, 5, (BATCH, CHECK_SIZES[0]), generator=gen).to(torch.float64) / 2
    y = torch.randint(-4, 5, (BATCH, CHECK_SIZES[-1]), generator=gen).to(torch.float64) / 2
    return x, y


def check_loss(prediction, target):
    return (prediction - target).square().sum() / 16


def _gather(shard: torch.Tensor) -> list[float]:
    """All-gather shards with our own call, not the learner's."""
    full = torch.empty(
        shard.numel() * dist.get_world_size(), dtype=shard.dtype, device=shard.device
    )
    _all_gather(full, shard.contiguous())
    return full.cpu().tolist()


def _held(sdp) -> int:
    seen, total = set(), 0
    tensors = [sdp.param_shard, sdp.grad_shard, sdp.exp_avg, sdp.exp_avg_sq]
    for p in sdp.module.parameters():
        tensors.append(p.data)
        if p.grad is not None:
            tensors.append(p.grad)
    for t in tensors:
        storage = t.untyped_storage()
        if storage.data_ptr() not in seen:
            seen.add(storage.data_ptr())
            total += storage.nbytes()
    return total


def run_checks(lab_file: str) -> dict:
    lab = load_file_module(lab_file)
    dev = device()
    rank = dist.get_rank()
    sdp = lab.ShardedDataParallel(check_model().to(dev), lr=LR)
    out: dict = {
        "shard_numel": int(sdp.param_shard.numel()),
        "shard_lengths": [int(t.numel()) for t in (sdp.grad_shard, sdp.exp_avg, sdp.exp_avg_sq)],
        "freed_after_init": all(p.numel() == 0 for p in sdp.module.parameters()),
        "gathered_init": _gather(sdp.param_shard),
        "held_measured": _held(sdp),
        "held_reported": None,
        "held_error": None,
        "step_error": None,
        "grad_shards": [],
        "params": [],
        "full_during_step": [],
        "freed_after_step": [],
    }
    try:
        out["held_reported"] = int(sdp.held_bytes())
    except Exception as exc:  # reported by the bytes test; the other steps are still checked
        out["held_error"] = f"{type(exc).__name__}: {exc}"
    # Every rank raises the same TODO error at the same point, so none is left waiting.
    try:
        for step in range(STEPS):
            x, y = (t.to(dev) for t in check_batch(step, rank))
            sdp.gather_parameters()
            out["full_during_step"].append(
                [list(p.shape) for p in sdp.module.parameters()]
                == [list(p.shape) for p in check_model().parameters()]
            )
            check_loss(sdp.module(x), y).backward()
            sdp.reduce_gradients()
            out["freed_after_step"].append(
                all(p.numel() == 0 and p.grad is None for p in sdp.module.parameters())
            )
            out["grad_shards"].append(_gather(sdp.grad_shard))
            sdp.adam_step()
            out["params"].append(_gather(sdp.param_shard))
        out["held_measured_after"] = _held(sdp)
        out["reported_full"] = sdp.full_parameters().cpu().tolist()
    except Exception as exc:
        out["step_error"] = f"{type(exc).__name__}: {exc}"
    return out
