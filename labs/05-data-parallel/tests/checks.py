"""Workers the lab 05 tests launch. They drive the learner's BucketedDataParallel on a model of
their own, next to torch's DistributedDataParallel, and return plain lists for exact checks."""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from nccl_course.launcher import device
from nccl_course.launcher.launch import load_file_module

#: Layer sizes of the check model: parameters (registration order) have 60, 10, 80, 8, 32, 4
#: elements, i.e. 480, 80, 640, 64, 256, 32 bytes in float64. 4 outputs x BATCH 4 rows: the
#: mean in mse_loss divides by 16, a power of two, so it is exact too.
CHECK_SIZES = (6, 10, 8, 4)
#: With this cap the reverse-order layout is [[5, 4], [3, 2], [1, 0]] (see the tests).
CHECK_CAP_BYTES = 200
LR = 0.25
BATCH = 4


def check_model(seed: int = 1) -> nn.Module:
    """float64 MLP with weights that are multiples of 1/8: forward and backward are exact."""
    gen = torch.Generator().manual_seed(seed)
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


class WithUnusedHead(nn.Module):
    """The check model plus a layer the loss never uses (a common bug in real models)."""

    def __init__(self):
        super().__init__()
        self.body = check_model()
        self.unused_head = nn.Linear(CHECK_SIZES[-1], 2, dtype=torch.float64)

    def forward(self, x):
        return self.body(x)


def check_batch(step: int, rank: int):
    gen = torch.Generator().manual_seed(777 + 100 * step + rank)
    x = torch.randint(-4, 5, (BATCH, CHECK_SIZES[0]), generator=gen).to(torch.float64) / 2
    y = torch.randint(-4, 5, (BATCH, CHECK_SIZES[-1]), generator=gen).to(torch.float64) / 2
    return x, y


def _flat_grads(module: nn.Module) -> list[float]:
    return torch.cat([p.grad.detach().reshape(-1).cpu() for p in module.parameters()]).tolist()


def run_checks(lab_file: str, steps: int = 3) -> dict:
    """Everything the tests look at, from one launch."""
    lab = load_file_module(lab_file)
    dev = device()
    rank = dist.get_rank()
    out: dict = {}

    # Replicas must start equal even if the ranks built different models.
    skewed = check_model(seed=100 + rank).to(dev)
    lab.BucketedDataParallel(skewed, bucket_cap_bytes=CHECK_CAP_BYTES)
    out["params_after_wrap"] = torch.cat(
        [p.detach().reshape(-1).cpu() for p in skewed.parameters()]
    ).tolist()

    ours = lab.BucketedDataParallel(check_model().to(dev), bucket_cap_bytes=CHECK_CAP_BYTES)
    ddp = DDP(
        check_model().to(dev),
        device_ids=[dev.index] if dev.type == "cuda" else None,
        bucket_cap_mb=CHECK_CAP_BYTES / 2**20,
    )
    out["bucket_indices"] = [list(b) for b in ours.bucket_indices]
    out["num_params"] = len(list(ours.module.parameters()))
    out["ours"], out["ddp"], out["launch_logs"] = [], [], []
    # Each part records its own error, so a test reports the step that is missing. Every rank
    # raises the same TODO error at the same point, so no rank is left waiting in a collective.
    out["train_error"] = _attempt(_train, lab, ours, ddp, dev, rank, steps, out)

    x, y = (t.to(dev) for t in check_batch(0, rank))
    out["no_overlap_error"] = _attempt(_no_overlap, lab, dev, x, y, out)

    # A parameter outside the loss: its bucket never fills; that must be an error, not a hang.
    def unused() -> None:
        partial = lab.BucketedDataParallel(
            WithUnusedHead().to(dev), bucket_cap_bytes=CHECK_CAP_BYTES
        )
        nn.functional.mse_loss(partial(x), y).backward()
        partial.finish_gradient_sync()

    out["unused_error"] = _attempt(unused)

    def timing() -> None:
        measured = lab.measure_overlap(width=64, depth=4, batch_size=8, repeats=2, bucket_mib=1)
        out["timing"] = {k: float(v) for k, v in measured.items()}

    out["timing"] = None
    out["timing_error"] = _attempt(timing)
    return out


def _attempt(fn, *args) -> str | None:
    """Run one part; return None, or the exception as "Type: message"."""
    try:
        fn(*args)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _train(lab, ours, ddp, dev, rank, steps, out) -> None:
    for step in range(steps):
        x, y = (t.to(dev) for t in check_batch(step, rank))
        nn.functional.mse_loss(ours(x), y).backward()
        ours.finish_gradient_sync()
        nn.functional.mse_loss(ddp(x), y).backward()
        out["ours"].append(_flat_grads(ours.module))
        out["ddp"].append(_flat_grads(ddp.module))
        out["launch_logs"].append([list(entry) for entry in ours.launch_log])
        with torch.no_grad():
            for model in (ours.module, ddp.module):
                for p in model.parameters():
                    p -= LR * p.grad
                    p.grad = None


def _no_overlap(lab, dev, x, y, out) -> None:
    """The baseline: nothing may be launched before backward has produced every gradient."""
    later = lab.BucketedDataParallel(
        check_model().to(dev), bucket_cap_bytes=CHECK_CAP_BYTES, overlap=False
    )
    nn.functional.mse_loss(later(x), y).backward()
    later.finish_gradient_sync()
    out["no_overlap_log"] = [list(entry) for entry in later.launch_log]
    out["no_overlap_grads"] = _flat_grads(later.module)
