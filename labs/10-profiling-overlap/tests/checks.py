"""The worker the lab 10 tests launch. Each rank records one step with every gradient in one
bucket and one step with the learner's DDP, using the learner's record_step, into the folder the
test gives, and measures both traces with the learner's exposed_communication. Each part catches
what the learner's code raises, so the tests can say which step failed."""

from __future__ import annotations

import json
from pathlib import Path

import torch.distributed as dist

from nccl_course.launcher.launch import load_file_module


def _attempt(fn, *args) -> dict:
    try:
        return {"value": fn(*args), "error": None}
    except Exception as exc:
        return {"value": None, "error": f"{type(exc).__name__}: {exc}"[:2000]}


def run_checks(lab_file: str, out_dir: str) -> dict:
    lab = load_file_module(lab_file)
    rank = dist.get_rank()
    out: dict = {}
    for label, wrap in (("serialized", lab.make_serial_ddp), ("fixed", lab.make_ddp)):
        path = Path(out_dir) / f"{label}-rank{rank}.json"
        recorded = _attempt(lambda w=wrap, p=path: str(lab.record_step(w(lab.build_model()), p)))
        out[f"{label}_trace"] = recorded
        if recorded["error"] is None and Path(recorded["value"]).is_file():
            trace = json.loads(Path(recorded["value"]).read_text())
            out[f"{label}_measured"] = _attempt(lab.exposed_communication, trace)
        else:
            out[f"{label}_measured"] = {"value": None, "error": "no trace was recorded"}
        # Both ranks finish a configuration before either starts the next one.
        dist.barrier()
    return out
