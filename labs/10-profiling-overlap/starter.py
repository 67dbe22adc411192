"""Lab 10 (starter): find the exposed communication in a profiler trace, then hide it.

Fill in the TODO(step N) parts, in order.

A DistributedDataParallel step is recorded with torch.profiler into a Chrome trace. Reading the
trace's events shows when each gradient all-reduce ran and whether backward was still computing
beside it. With every gradient in one bucket, the single all-reduce can only start once backward
has produced the last gradient: all of it is exposed. Your fix should let the all-reduce of the
last layers run while backward computes the earlier ones.

Run it:  torchrun --nproc-per-node 2 labs/10-profiling-overlap/starter.py
    or:  python labs/10-profiling-overlap/starter.py --nproc 2      (gloo on CPU without GPUs)
It writes one trace per configuration and rank to ./lab10-traces/ (open them in
https://ui.perfetto.dev or chrome://tracing) and prints what each trace shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: F401 (step 1)

from nccl_course.launcher import device, script_main

#: The model: LAYERS linear layers of WIDTH x WIDTH float32 (1 MiB of weights each), on a batch
#: of BATCH rows, so that one layer's backward takes about as long as one layer's all-reduce.
LAYERS, WIDTH, BATCH = 8, 512, 512
#: The starting configuration's bucket cap (MiB): larger than the whole model (8 MiB), so DDP
#: puts every gradient into one bucket.
SERIAL_CAP_MB = 100.0
#: Steps run before the profiled one: DDP rebuilds its buckets in the order gradients arrived
#: during the first step, so only later steps show the buckets it keeps.
WARMUP_STEPS = 2
#: Name prefixes of the events a process group records while a collective runs (PyTorch 2.13:
#: ProcessGroupGloo's worker thread, "gloo:all_reduce"; ProcessGroupNCCL, "nccl:all_reduce").
COMM_PREFIXES = ("gloo:", "nccl:")
#: The autograd engine's event for each backward node; AccumulateGrad only adds a gradient into
#: .grad (and runs DDP's hook that launches a bucket's all-reduce), so it is not compute.
AUTOGRAD_PREFIX = "autograd::engine::evaluate_function: "


def build_model() -> nn.Module:
    """The same model on every rank (seeded), on this rank's device."""
    torch.manual_seed(0)
    layers: list[nn.Module] = []
    for _ in range(LAYERS):
        layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
    return nn.Sequential(*layers).to(device())


def make_serial_ddp(model: nn.Module) -> DDP:
    """The starting point: one bucket for every gradient."""
    return DDP(model, bucket_cap_mb=SERIAL_CAP_MB)


# --- step 1: record a step -----------------------------------------------------------------------


def record_step(ddp: DDP, trace_path: str | Path) -> Path:
    """Run WARMUP_STEPS training steps, then one more under torch.profiler, and write that step's
    Chrome trace to ``trace_path``. The step is annotated ``train_step``, and its backward
    ``backward``, with ``record_function``. Returns the path."""
    raise NotImplementedError(
        "TODO(step 1): make a batch x = torch.randn(BATCH, WIDTH, device=device()); run "
        "WARMUP_STEPS steps (forward, loss = output.square().mean(), backward, zero_grad), then one "
        "more inside `with profile(activities=[ProfilerActivity.CPU]) as prof:` (add "
        "ProfilerActivity.CUDA on a GPU), wrapping the step in record_function('train_step') and "
        "its backward in record_function('backward'); prof.export_chrome_trace(str(path))"
    )


# --- step 2: measure the exposed communication ---------------------------------------------------


def exposed_communication(trace: dict) -> dict:
    """From a Chrome trace (the parsed JSON), the communication and how much of it is exposed.

    Returns ``{"calls", "comm_us", "overlapped_us", "exposed_us"}``: the number of communication
    events, the time covered by communication, the part of it with compute running beside it, and
    the rest (microseconds). On a GPU trace (events with ``cat`` "kernel") communication is the
    kernels whose name starts with "nccl" and compute the other kernels; otherwise communication is
    the events named ``gloo:...``/``nccl:...`` and compute the ``autograd::engine::evaluate_function``
    events except AccumulateGrad's.
    """
    raise NotImplementedError(
        "TODO(step 2): take the complete events (ph == 'X') of trace['traceEvents'], sort them "
        "into communication and compute intervals (ts, ts + dur), merge each kind where they "
        "overlap (two all-reduces at once count once), and measure the time covered by both"
    )


# --- step 3: hide it -----------------------------------------------------------------------------


def make_ddp(model: nn.Module) -> DDP:
    """DDP whose gradient all-reduces overlap backward."""
    # TODO(step 3): the trace of this configuration shows one all-reduce, after backward has
    # finished. Choose bucket_cap_mb so that each layer's gradients get a bucket of their own.
    return DDP(model, bucket_cap_mb=SERIAL_CAP_MB)


# --- demonstration -------------------------------------------------------------------------------


def main() -> None:
    """Record a step with one bucket and with the fix; print what each trace shows."""
    rank = dist.get_rank()
    out = Path("lab10-traces")
    results = {}
    for label, wrap in (("serialized", make_serial_ddp), ("overlapped", make_ddp)):
        path = record_step(wrap(build_model()), out / f"{label}-rank{rank}.json")
        results[label] = exposed_communication(json.loads(path.read_text()))
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, results)
    if rank == 0:
        print(f"torch {torch.__version__}, backend {dist.get_backend()}, traces in {out}/")
        for r, res in enumerate(gathered):
            for label, m in res.items():
                print(
                    f"rank {r} {label:>10}: {m['calls']} all-reduce(s), communication "
                    f"{m['comm_us'] / 1e3:6.1f} ms, overlapped {m['overlapped_us'] / 1e3:6.1f} ms, "
                    f"exposed {m['exposed_us'] / 1e3:6.1f} ms"
                )
            saved = res["serialized"]["exposed_us"] - res["overlapped"]["exposed_us"]
            print(f"rank {r}: the fix hides {saved / 1e3:.1f} ms of exposed communication per step")


if __name__ == "__main__":
    script_main(main)
