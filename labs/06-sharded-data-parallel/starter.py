"""Lab 06 (starter): sharded data parallel (ZeRO stage 3 / FSDP style) from scratch.

Fill in the TODO(step N) parts, in order.

Every rank keeps only its 1/world_size slice of the parameters, of the gradients and of the Adam
state. Before forward the full parameters are all-gathered; after backward the gradients are
reduce-scattered, so each rank receives the averaged gradient of its own slice, updates that slice
and frees the full copies again.

Run it:  torchrun --nproc-per-node 4 labs/06-sharded-data-parallel/starter.py
    or:  python labs/06-sharded-data-parallel/starter.py --nproc 4   (gloo on CPU without GPUs)
"""

from __future__ import annotations

import math  # noqa: F401 (steps 1 and 5 need it)

import torch
import torch.distributed as dist
from torch import nn

from nccl_course.launcher import device, script_main

# PyTorch 2.13 renamed all_gather_into_tensor / reduce_scatter_tensor to *_single and warns about
# the old names; the old names are what PyTorch 2.4-2.12 have.
_all_gather = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_reduce_scatter = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


def shard_layout(total_numel: int, world_size: int) -> tuple[int, int]:
    """(elements per shard, padded total): the flat parameter vector is padded with zeros to a
    multiple of the world size so every rank holds a shard of the same length, which all-gather
    and reduce-scatter require."""
    raise NotImplementedError(
        "TODO(step 1): return the shard length, total_numel / world_size rounded up, and the "
        "padded total, that length times world_size"
    )


def state_bytes(total_numel: int, world_size: int, element_size: int) -> dict:
    """Bytes of parameters + gradients + Adam state (2 tensors) held between steps, per rank.

    ``replica``: every rank holds all four for every parameter (plain data parallel).
    ``sharded``: each rank holds one shard of each (ZeRO stage 3 / FSDP full sharding).
    ``sharded_peak``: adds the full parameters and full gradients that exist transiently during
    forward and backward in this simple implementation (real FSDP gathers one unit at a time).
    """
    raise NotImplementedError(
        "TODO(step 2): return the dict of 'replica', 'sharded' and 'sharded_peak' bytes"
    )


def _storage_bytes(*tensors: torch.Tensor) -> int:
    """Bytes of the memory behind these tensors, counting a shared storage once."""
    seen, total = set(), 0
    for t in tensors:
        storage = t.untyped_storage()
        if storage.data_ptr() not in seen:
            seen.add(storage.data_ptr())
            total += storage.nbytes()
    return total


class ShardedDataParallel:
    """Train ``module`` with its parameters, gradients and Adam state sharded over the ranks.

    Between steps the module's own parameters hold no memory (empty tensors); ``train_step``
    gathers them, runs forward and backward, reduce-scatters the gradients and updates the shard.
    """

    def __init__(
        self,
        module: nn.Module,
        lr: float = 1e-2,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        group=None,
    ):
        self.module = module
        self.group = group
        self.world_size = dist.get_world_size(group)
        self.rank = dist.get_rank(group)
        self.lr, self.betas, self.eps = lr, betas, eps
        self.params = list(module.parameters())
        self.shapes = [p.shape for p in self.params]
        self.numels = [p.numel() for p in self.params]
        self.total_numel = sum(self.numels)
        self.shard_numel, self.padded_numel = shard_layout(self.total_numel, self.world_size)
        dev = self.params[0].device
        dtype = self.params[0].dtype
        flat = torch.zeros(self.padded_numel, dtype=dtype, device=dev)
        with torch.no_grad():
            flat[: self.total_numel] = torch.cat([p.detach().reshape(-1) for p in self.params])
        # Everyone starts from rank 0's values, as in data parallel.
        dist.broadcast(flat, src=dist.get_global_rank(group, 0) if group else 0, group=group)
        start = self.rank * self.shard_numel
        # clone(): the shard must own its memory, or the full flat vector would stay alive.
        self.param_shard = flat[start : start + self.shard_numel].clone()
        self.grad_shard = torch.zeros_like(self.param_shard)
        self.exp_avg = torch.zeros_like(self.param_shard)
        self.exp_avg_sq = torch.zeros_like(self.param_shard)
        self.steps = 0
        del flat
        self._free_full_parameters()

    def _free_full_parameters(self) -> None:
        for p in self.params:
            p.data = torch.empty(0, dtype=p.dtype, device=p.device)
            p.grad = None

    def gather_parameters(self) -> None:
        """All-gather the shards into one full flat vector and point every parameter at its
        slice of it (views, no copies)."""
        raise NotImplementedError(
            "TODO(step 3): all-gather the shards into a new padded flat tensor with _all_gather "
            "and set each p.data to a view of its slice"
        )

    def reduce_gradients(self) -> None:
        """Reduce-scatter the full gradients: this rank receives the average of its shard."""
        raise NotImplementedError(
            "TODO(step 4): flatten the full gradients into a zero-padded vector, scale by "
            "1/world_size, reduce-scatter into self.grad_shard, then free the full parameters"
        )

    @torch.no_grad()
    def adam_step(self) -> None:
        """Adam (Kingma & Ba) on this rank's shard only, in the form torch.optim.Adam uses."""
        raise NotImplementedError(
            "TODO(step 5): update self.exp_avg, self.exp_avg_sq and self.param_shard with Adam, "
            "using self.grad_shard and self.steps (count this step first)"
        )

    def train_step(self, loss_fn, *inputs) -> float:
        """One step: gather, forward, backward, reduce-scatter, update; returns the local loss."""
        self.gather_parameters()
        loss = loss_fn(self.module(*inputs))
        loss.backward()
        self.reduce_gradients()
        self.adam_step()
        return float(loss.detach())

    def full_parameters(self) -> torch.Tensor:
        """The whole flat parameter vector (unpadded), gathered for inspection."""
        full = torch.empty(
            self.padded_numel, dtype=self.param_shard.dtype, device=self.param_shard.device
        )
        _all_gather(full, self.param_shard, group=self.group)
        return full[: self.total_numel]

    def held_bytes(self) -> int:
        """Bytes this rank holds between steps, measured from the tensors themselves: parameter
        shard, gradient shard, Adam's two state shards, and whatever the module's own
        parameters and gradients still hold (nothing, once freed)."""
        raise NotImplementedError(
            "TODO(step 6): add up the storage bytes of the four shards and of whatever the "
            "module's parameters and gradients still hold (use _storage_bytes)"
        )


# --- a model and data on which float64 arithmetic is exact -----------------------------------


def build_model(seed: int = 0, sizes: tuple[int, ...] = (5, 7, 6, 4)) -> nn.Module:
    """float64 MLP with weights that are multiples of 1/16 (118 parameters: not a multiple of 3
    or 4, so the shards need padding)."""
    gen = torch.Generator().manual_seed(seed)
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        linear = nn.Linear(a, b, dtype=torch.float64)
        with torch.no_grad():
            linear.weight.copy_(torch.randint(-8, 9, (b, a), generator=gen) / 16)
            linear.bias.copy_(torch.randint(-8, 9, (b,), generator=gen) / 16)
        layers.append(linear)
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def make_batch(step: int, rank: int, batch_size: int = 8, sizes=(5, 4)):
    gen = torch.Generator().manual_seed(20_000 * step + rank)
    x = torch.randint(-4, 5, (batch_size, sizes[0]), generator=gen).to(torch.float64) / 4
    y = torch.randint(-4, 5, (batch_size, sizes[1]), generator=gen).to(torch.float64) / 4
    return x, y


def squared_error(prediction: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Sum of squared errors / 16: a power of two, so the scaling is exact."""
    return (prediction - target).square().sum() / 16


def main() -> None:
    """Train sharded and replicated side by side; print differences and bytes per rank."""
    dev = device()
    rank, world = dist.get_rank(), dist.get_world_size()
    lr = 1e-2
    sharded = ShardedDataParallel(build_model().to(dev), lr=lr)
    replica = build_model().to(dev)
    adam = torch.optim.Adam(replica.parameters(), lr=lr, foreach=False)
    for step in range(5):
        x, y = (t.to(dev) for t in make_batch(step, rank))
        sharded.train_step(lambda out, y=y: squared_error(out, y), x)
        # The replica sees the global batch on every rank: the same update plain DDP makes.
        xs, ys = zip(*(make_batch(step, r) for r in range(world)), strict=True)
        adam.zero_grad()
        (squared_error(replica(torch.cat(xs).to(dev)), torch.cat(ys).to(dev)) / world).backward()
        adam.step()
        want = torch.cat([p.detach().reshape(-1) for p in replica.parameters()])
        diff = (sharded.full_parameters() - want).abs().max().item()
        if rank == 0:
            print(f"step {step}: largest |sharded - replica| parameter difference {diff:.3g}")
    expected = state_bytes(sharded.total_numel, world, sharded.param_shard.element_size())
    measured = sharded.held_bytes()
    if rank == 0:
        print(
            f"{sharded.total_numel} float64 parameters, {world} ranks, shard of "
            f"{sharded.shard_numel} (padded total {sharded.padded_numel})"
        )
        print(f"per rank, replica (params + grads + Adam state): {expected['replica']} bytes")
        print(f"per rank, sharded, computed: {expected['sharded']} bytes; measured: {measured}")
        print(f"per rank, sharded, peak during a step: {expected['sharded_peak']} bytes")
    if dev.type == "cuda":
        # GPU only: what the caching allocator says, for a model large enough to see.
        big = nn.Sequential(*[nn.Linear(2048, 2048) for _ in range(4)]).to(dev)
        numel = sum(p.numel() for p in big.parameters())
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated(dev)
        big_sharded = ShardedDataParallel(big)
        torch.cuda.synchronize()
        after = torch.cuda.memory_allocated(dev)
        big_expected = state_bytes(numel, world, 4)
        if rank == 0:
            print(
                f"GPU: {numel} float32 parameters; torch.cuda.memory_allocated changed by "
                f"{after - before} bytes = sharded state {big_expected['sharded']} minus the "
                f"freed full parameters {numel * 4}, up to the allocator's 512-byte rounding; "
                f"held_bytes() measures {big_sharded.held_bytes()}"
            )


if __name__ == "__main__":
    script_main(main)
