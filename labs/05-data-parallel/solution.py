"""Lab 05 (solution): data parallel from scratch.

Gradients are grouped into buckets in reverse parameter order; a hook on every parameter notices
when its gradient is ready, and as soon as a bucket is complete its all-reduce starts
asynchronously while backward keeps computing the earlier layers. ``finish_gradient_sync`` waits
for the outstanding all-reduces and writes the averaged gradients back into ``param.grad``.

Run it:  torchrun --nproc-per-node 4 labs/05-data-parallel/solution.py
    or:  python labs/05-data-parallel/solution.py --nproc 4      (gloo on CPU without GPUs)
"""

from __future__ import annotations

import time

import torch
import torch.distributed as dist
from torch import nn

from nccl_course.launcher import device, script_main

#: Bucket size used by main(): small, so the lab's little model is split into several buckets.
#: (DistributedDataParallel's default is 25 MiB, ``bucket_cap_mb=25``.)
LAB_BUCKET_CAP_BYTES = 2048


def assign_buckets(param_bytes: list[int], bucket_cap_bytes: int) -> list[list[int]]:
    """Group parameters into buckets; return the parameter indices of each bucket.

    ``param_bytes[i]`` is the size in bytes of parameter i (in registration order). Parameters are
    taken in *reverse* order, because backward produces the gradients of the last layers first. A
    bucket is closed as soon as it holds at least ``bucket_cap_bytes`` bytes (the rule
    DistributedDataParallel uses), so a parameter larger than the cap gets a bucket of its own.
    """
    if bucket_cap_bytes <= 0:
        raise ValueError(f"bucket_cap_bytes must be positive, got {bucket_cap_bytes}")
    buckets: list[list[int]] = []
    current: list[int] = []
    filled = 0
    for index in reversed(range(len(param_bytes))):
        current.append(index)
        filled += param_bytes[index]
        if filled >= bucket_cap_bytes:
            buckets.append(current)
            current, filled = [], 0
    if current:
        buckets.append(current)
    return buckets


class _Bucket:
    """One bucket: its parameters, a flat buffer for their gradients, and the in-flight work."""

    def __init__(self, params: list[nn.Parameter]):
        self.params = params
        self.numels = [p.numel() for p in params]
        self.ready = 0
        self.buffer: torch.Tensor | None = None
        self.work = None


class BucketedDataParallel(nn.Module):
    """Data parallel training: every rank holds the whole model and averages gradients.

    ``overlap=True``: each bucket's all-reduce starts from a gradient hook during backward.
    ``overlap=False``: all buckets are reduced after backward (the baseline to time against).
    After ``loss.backward()`` call :meth:`finish_gradient_sync` before the optimizer step.
    """

    def __init__(
        self,
        module: nn.Module,
        bucket_cap_bytes: int = 25 * 2**20,
        overlap: bool = True,
        group=None,
    ):
        super().__init__()
        self.module = module
        self.overlap = overlap
        self.group = group
        self.world_size = dist.get_world_size(group)
        params = [p for p in module.parameters() if p.requires_grad]
        # Start from identical replicas, as DDP does: rank 0's values win.
        with torch.no_grad():
            for p in params:
                dist.broadcast(p, src=dist.get_global_rank(group, 0) if group else 0, group=group)
        layout = assign_buckets([p.numel() * p.element_size() for p in params], bucket_cap_bytes)
        self.bucket_indices = layout
        self.buckets = [_Bucket([params[i] for i in indices]) for indices in layout]
        self._bucket_of = {}
        for b, bucket in enumerate(self.buckets):
            for p in bucket.params:
                self._bucket_of[p] = b
        self.num_params = len(params)
        for p in params:
            p.register_post_accumulate_grad_hook(self._on_grad_ready)
        self._reset()

    def _reset(self) -> None:
        for bucket in self.buckets:
            bucket.ready, bucket.buffer, bucket.work = 0, None, None
        self._next_to_launch = 0
        self._hooks_fired = 0
        self._fired: set[int] = set()  # id() of parameters whose gradient is ready
        #: (bucket index, number of gradient hooks that had fired when it was launched)
        self.launch_log: list[tuple[int, int]] = []

    def forward(self, *args, **kwargs):
        self._reset()
        return self.module(*args, **kwargs)

    def _on_grad_ready(self, param: nn.Parameter) -> None:
        self._hooks_fired += 1
        self._fired.add(id(param))
        bucket = self.buckets[self._bucket_of[param]]
        bucket.ready += 1
        if self.overlap:
            self._launch_ready_buckets()

    def _launch_ready_buckets(self) -> None:
        # Launch strictly in bucket order: every rank must issue the all-reduces in the same
        # order, or they would pair bucket 0 on one rank with bucket 1 on another.
        while self._next_to_launch < len(self.buckets):
            bucket = self.buckets[self._next_to_launch]
            if bucket.ready < len(bucket.params):
                return
            self._launch(self._next_to_launch)
            self._next_to_launch += 1

    def _launch(self, index: int) -> None:
        bucket = self.buckets[index]
        flat = torch.cat([p.grad.reshape(-1) for p in bucket.params])
        # Scale before summing, like DDP (it multiplies by 1/world_size while copying into its
        # bucket): the sum of the scaled gradients is the average.
        bucket.buffer = flat.mul_(1.0 / self.world_size)
        bucket.work = dist.all_reduce(bucket.buffer, group=self.group, async_op=True)
        self.launch_log.append((index, self._hooks_fired))

    def finish_gradient_sync(self) -> None:
        """Wait for every bucket's all-reduce and copy the averages into ``param.grad``."""
        if not self.overlap:
            self._launch_ready_buckets()
        if self._next_to_launch < len(self.buckets):
            names = {p: name for name, p in self.module.named_parameters()}
            missing = [names[p] for b in self.buckets for p in b.params if id(p) not in self._fired]
            raise RuntimeError(
                f"bucket {self._next_to_launch} never became ready: some parameters got no "
                f"gradient in this backward {missing or ''}. Every parameter must take part in "
                "the loss (DistributedDataParallel needs find_unused_parameters=True otherwise)."
            )
        for bucket in self.buckets:
            bucket.work.wait()
            offset = 0
            for p, n in zip(bucket.params, bucket.numels, strict=True):
                p.grad.copy_(bucket.buffer[offset : offset + n].view_as(p))
                offset += n


# --- a model and data on which float64 arithmetic is exact ----------------------------------


def build_model(seed: int = 0, sizes: tuple[int, ...] = (8, 16, 16, 4)) -> nn.Module:
    """A float64 MLP (Linear + ReLU) whose weights are multiples of 1/16 in [-1/2, 1/2].

    With inputs that are multiples of 1/4, every product and sum in forward and backward needs
    far fewer than float64's 53 significant bits, so the arithmetic is exact and the order in
    which numbers are added cannot change the result.
    """
    gen = torch.Generator().manual_seed(seed)
    layers: list[nn.Module] = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        linear = nn.Linear(fan_in, fan_out, dtype=torch.float64)
        with torch.no_grad():
            linear.weight.copy_(torch.randint(-8, 9, (fan_out, fan_in), generator=gen) / 16)
            linear.bias.copy_(torch.randint(-8, 9, (fan_out,), generator=gen) / 16)
        layers.append(linear)
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def make_batch(step: int, rank: int, batch_size: int = 8, sizes=(8, 4)):
    """This rank's shard of the global batch for a step: (inputs, targets), multiples of 1/4."""
    gen = torch.Generator().manual_seed(10_000 * step + rank)
    x = torch.randint(-4, 5, (batch_size, sizes[0]), generator=gen).to(torch.float64) / 4
    y = torch.randint(-4, 5, (batch_size, sizes[1]), generator=gen).to(torch.float64) / 4
    return x, y


# --- measuring the overlap -------------------------------------------------------------------


def _synchronize(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def measure_overlap(
    width: int = 1024, depth: int = 6, batch_size: int = 64, repeats: int = 5, bucket_mib: int = 4
) -> dict:
    """Time one backward pass plus gradient averaging, with and without overlap (seconds).

    Returns the median over ``repeats`` (after one warm-up) of: ``backward_s`` (backward alone, no
    communication), ``comm_s`` (all-reduce of every bucket alone), ``sequential_s`` (backward,
    then all buckets) and ``overlapped_s`` (buckets reduced during backward). Each time is the
    maximum over ranks, because a step is as slow as its slowest rank. float32, on this rank's
    device (a GPU under NCCL, the CPU under gloo).
    """
    dev = device()
    sizes = (width,) * depth
    params_bytes = sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:], strict=True)) * 4

    def fresh(overlap: bool | None):
        torch.manual_seed(0)
        layers: list[nn.Module] = []
        for a, b in zip(sizes[:-1], sizes[1:], strict=True):
            layers += [nn.Linear(a, b), nn.ReLU()]
        model = nn.Sequential(*layers[:-1]).to(dev)
        if overlap is None:
            return model, model
        wrapped = BucketedDataParallel(model, bucket_mib * 2**20, overlap=overlap)
        return wrapped, model

    x = torch.randn(batch_size, width, device=dev)
    times: dict[str, list[float]] = {
        k: [] for k in ("backward", "comm", "sequential", "overlapped")
    }
    variants = {"backward": fresh(None), "sequential": fresh(False), "overlapped": fresh(True)}
    for repeat in range(repeats + 1):
        for name, (runner, model) in variants.items():
            model.zero_grad(set_to_none=True)
            loss = runner(x).square().mean()
            _synchronize(dev)
            dist.barrier()
            start = time.perf_counter()
            loss.backward()
            if name != "backward":
                runner.finish_gradient_sync()
            _synchronize(dev)
            if repeat:
                times[name].append(time.perf_counter() - start)
        flat = torch.zeros(params_bytes // 4, device=dev)
        buckets = flat.split(bucket_mib * 2**20 // 4)
        _synchronize(dev)
        dist.barrier()
        start = time.perf_counter()
        works = [dist.all_reduce(b, async_op=True) for b in buckets]
        for work in works:
            work.wait()
        _synchronize(dev)
        if repeat:
            times["comm"].append(time.perf_counter() - start)
    # On the rank's device: NCCL reduces GPU memory only.
    medians = torch.tensor([_median(times[k]) for k in times], dtype=torch.float64, device=dev)
    dist.all_reduce(medians, op=dist.ReduceOp.MAX)
    result = {f"{k}_s": float(v) for k, v in zip(times, medians, strict=True)}
    result["params_bytes"] = params_bytes
    result["buckets"] = len(variants["overlapped"][0].buckets)
    return result


# --- the run: train a few steps next to DDP, then time the overlap ---------------------------


def train_and_compare(steps: int = 3, lr: float = 0.125) -> list[float]:
    """Train our data-parallel model and DistributedDataParallel side by side with plain SGD;
    return, per step, the largest absolute difference between their averaged gradients."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    dev = device()
    rank = dist.get_rank()
    ours = BucketedDataParallel(build_model().to(dev), bucket_cap_bytes=LAB_BUCKET_CAP_BYTES)
    ddp = DDP(
        build_model().to(dev),
        device_ids=[dev.index] if dev.type == "cuda" else None,
        bucket_cap_mb=LAB_BUCKET_CAP_BYTES / 2**20,
    )
    differences = []
    for step in range(steps):
        x, y = (t.to(dev) for t in make_batch(step, rank))
        for model in (ours, ddp):
            nn.functional.mse_loss(model(x), y).backward()
        ours.finish_gradient_sync()
        diff = max(
            (a.grad - b.grad).abs().max().item()
            for a, b in zip(ours.module.parameters(), ddp.module.parameters(), strict=True)
        )
        differences.append(diff)
        with torch.no_grad():
            for model in (ours.module, ddp.module):
                for p in model.parameters():
                    p -= lr * p.grad
                    p.grad = None
    return differences


def main() -> None:
    """Train next to DistributedDataParallel, then time backward + all-reduce with and
    without overlap."""
    rank, world = dist.get_rank(), dist.get_world_size()
    differences = train_and_compare()
    timing = measure_overlap()
    if rank == 0:
        print(f"world size {world}, backend {dist.get_backend()}, torch {torch.__version__}")
        for step, diff in enumerate(differences):
            print(f"step {step}: largest |our grad - DDP grad| = {diff:.3g}")
        print(
            f"model {timing['params_bytes'] / 2**20:.1f} MiB of float32 parameters in "
            f"{timing['buckets']} buckets; medians over ranks' maxima:"
        )
        for key in ("backward_s", "comm_s", "sequential_s", "overlapped_s"):
            print(f"  {key[:-2]:>10}: {timing[key] * 1e3:8.2f} ms")
        hidden = timing["sequential_s"] - timing["overlapped_s"]
        print(f"  overlap saved {hidden * 1e3:.2f} ms per step")


if __name__ == "__main__":
    script_main(main)
