"""The data the book's in-page explorers compute with, exported from the package as JSON.

The explorers run in the reader's browser with no kernel (``viz/static/cost-model.js``). They
never restate a preset, a list of algorithms or a schedule: the Sphinx extension
(:mod:`nccl_course.viz.sphinx_explorers`) writes this module's :func:`explorer_data` into the
build, and the JavaScript evaluates it. Each top-level key is made by one function of
:data:`SECTIONS`; a new model (for instance NCCL's own tuner) is one more function and one more
entry there, plus its functions in the JavaScript.

What is exported:

* ``presets``, ``algorithms``, ``collectives``: the hardware presets with their sources, the
  algorithms the model prices per collective, the busbw formula key of each collective.
* ``stepCosts``: for every preset topology, collective, algorithm, rank count in
  :data:`RANK_CHOICES` and pipeline depth, the affine step costs the Python model sums
  (:meth:`nccl_course.cost.topology.StepCosts.time`), with identical steps merged and counted.
* ``schedules``: bytes each rank sends and receives per step, in chunks, for the simulator's
  schedules on :data:`SCHEDULE_RANKS` ranks.
* ``training``: DDP's bucket defaults and a few transformer shapes.
* ``nccl``: NCCL's tuner constants and cost tables per preset and rank count, and the
  call-cost model's constants (:mod:`nccl_course.cost.nccl.call_cost`).

Units: bytes, seconds, bytes/s.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from nccl_course import collectives
from nccl_course.cost import training
from nccl_course.cost.formulas import CLOSED_FORMS
from nccl_course.cost.model import PIPELINE_DEPTHS, pipeline_depths, step_costs_for
from nccl_course.cost.presets import PRESETS, Preset
from nccl_course.sim.registry import ALGORITHMS, PIPELINED, build_schedule
from nccl_course.viz.plots import DEFAULT_SIZES

#: Rank counts a reader can choose in the explorers (every preset, its own count included).
RANK_CHOICES = (2, 3, 4, 6, 8, 12, 16, 24, 32)

#: Rank counts and pipeline depths of the schedules the bytes-per-step explorer shows.
SCHEDULE_RANKS = (3, 4, 5, 8)
SCHEDULE_CHUNKS = (1, 4)


def topology_key(preset: Preset) -> str:
    """The name of the first preset with the same links: presets that differ only in name or
    in the algorithms they enable (``*-nvls``) share their step costs."""
    links = _links(preset)
    return next(p.name for p in PRESETS.values() if _links(p) == links)


def _links(preset: Preset) -> tuple:
    return (
        preset.alpha_s,
        preset.bandwidth_Bps,
        preset.gamma_s_per_byte,
        preset.ranks_per_node,
        preset.inter_alpha_s,
        preset.inter_bandwidth_Bps,
    )


def presets_section() -> dict:
    return {name: {**p.as_dict(), "topology": topology_key(p)} for name, p in PRESETS.items()}


def model_section() -> dict:
    return {
        "rankChoices": list(RANK_CHOICES),
        "pipelineDepths": list(PIPELINE_DEPTHS),
        "defaultSizes": [float(s) for s in DEFAULT_SIZES],
        "algorithms": {c: list(a) for c, a in ALGORITHMS.items()},
        "pipelined": sorted([c, a] for c, a in PIPELINED),
        "collectives": {
            c.name: {"display": c.display_name, "busbwFormula": c.busbw_formula}
            for c in collectives.COLLECTIVES.values()
        },
        "closedForms": {f"{c}/{a}": form.latex for (c, a), form in CLOSED_FORMS.items()},
    }


def compress_step_costs(costs) -> list:
    """``[gamma_total, [[count, lat0, slope0, lat1, slope1, ...], ...]]``: the step lines of a
    :class:`~nccl_course.cost.topology.StepCosts`, each distinct step once with its count.
    time(S) = sum of count x max_i(lat_i + slope_i S) + gamma_total x S."""
    bounds = list(costs.starts.tolist()) + [int(costs.latency.size)]
    # (latency, slope) pairs as Python floats once: slicing numpy arrays per step cost more
    # than the rest of the export
    pairs = list(zip(costs.latency.tolist(), costs.slope.tolist(), strict=True))
    groups: dict[tuple, int] = {}
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        key = tuple(x for pair in pairs[a:b] for x in pair)
        groups[key] = groups.get(key, 0) + 1
    return [float(np.sum(costs.gamma_slope)), [[n, *lines] for lines, n in groups.items()]]


def step_costs_section() -> dict:
    """{topology: {collective: {algorithm: {ranks: {depth: compressed step costs}}}}}."""
    out: dict = {}
    for preset in PRESETS.values():
        key = topology_key(preset)
        if key in out:
            continue
        table = out[key] = {}
        for collective, algorithms in ALGORITHMS.items():
            for algorithm in algorithms:
                per_rank = table.setdefault(collective, {}).setdefault(algorithm, {})
                for p in RANK_CHOICES:
                    per_rank[str(p)] = {
                        str(k): compress_step_costs(
                            step_costs_for(collective, algorithm, preset, p, k)
                        )
                        for k in pipeline_depths(collective, algorithm)
                    }
    return out


def schedules_section() -> dict:
    """{collective: {algorithm: {ranks: {chunks: {sizeChunks, steps, sent, received}}}}}; sent
    and received are chunk counts per step and rank (bytes = count x S / sizeChunks)."""
    out: dict = {}
    for collective, algorithms in ALGORITHMS.items():
        for algorithm in algorithms:
            depths = SCHEDULE_CHUNKS if (collective, algorithm) in PIPELINED else (1,)
            per_rank = out.setdefault(collective, {}).setdefault(algorithm, {})
            for p in SCHEDULE_RANKS:
                entry = per_rank[str(p)] = {}
                for k in depths:
                    s = build_schedule(collective, algorithm, p, chunks=k)
                    entry[str(k)] = {
                        "sizeChunks": s.size_chunks,
                        "sent": [np.bincount(st.src, minlength=p).tolist() for st in s.step_arrays],
                        "received": [
                            np.bincount(st.dst, minlength=p).tolist() for st in s.step_arrays
                        ],
                    }
    return out


def training_section() -> dict:
    return {
        "ddpBucketBytes": training.DDP_DEFAULT_BUCKET_BYTES,
        "ddpFirstBucketBytes": training.DDP_DEFAULT_FIRST_BUCKET_BYTES,
        "shapes": [
            {
                "name": s.name,
                "layers": s.layers,
                "hidden": s.hidden,
                "vocab": s.vocab,
                "seq_len": s.seq_len,
                "micro_batch": s.micro_batch,
            }
            for s in training.GPT3_SHAPES
        ],
    }


def p2p_section(system) -> dict:
    """What an all_to_all's plan (:func:`nccl_course.cost.nccl.p2p.plan`) takes from ``system``
    whatever the size: the channels (all, most per peer), the chunk, each path's rate (GB/s,
    0 where there is no such path) and one step's latency per protocol (us), read from the plans
    of the smallest size (LL) and a large one (Simple)."""
    from nccl_course.cost.nccl import p2p

    n_channels, n_max = p2p.p2p_channels(system)
    small, large = p2p.plan(system, 0), p2p.plan(system, 1 << 34)
    assert (small.protocol, large.protocol) == ("LL", "Simple")
    return {
        "channels": n_channels,
        "maxPerPeer": n_max,
        "chunk": large.chunk_bytes,
        "intraGBps": large.intra_GBps,
        "interGBps": large.inter_GBps,
        "latency_us": {"LL": small.latency_us, "Simple": large.latency_us},
    }


def hop_extra_table(system) -> list:
    """[function][algorithm][protocol]: what Blackwell's NVLink hops add to a call's latency
    (:func:`nccl_course.cost.nccl.hop_latency.extra_latency_us`), us; zeros before Blackwell."""
    from nccl_course.cost.nccl import tables as T
    from nccl_course.cost.nccl.hop_latency import extra_latency_us
    from nccl_course.cost.nccl.releases import CURRENT

    return [
        [[extra_latency_us(f, a, p, system, CURRENT) for p in T.PROTOCOLS] for a in T.ALGORITHMS]
        for f in T.FUNCTIONS
    ]


def nccl_section() -> dict:
    """NCCL's tuner (:mod:`nccl_course.cost.nccl`): its constants, and for every preset and
    rank count it accepts, the system's figures and the cost table it chooses from."""
    from nccl_course.cost.nccl import call_cost as CC
    from nccl_course.cost.nccl import p2p, system_for, table_for
    from nccl_course.cost.nccl import tables as T
    from nccl_course.cost.nccl.estimate import P2P_COLLECTIVES, node_nvls_busbw

    systems: dict = {}
    for name in PRESETS:
        for p in RANK_CHOICES:
            try:
                system, table = system_for(name, p), table_for(name, p)
                p2p_plan = p2p_section(system)
            except ValueError:  # not whole nodes, or more GPUs than a node without a network
                continue
            systems.setdefault(name, {})[str(p)] = {
                "ranks": system.ranks,
                "nodes": system.nodes,
                "gpusPerNode": system.gpus_per_node,
                "cc": system.cc,
                "commChannels": system.comm_channels,
                "nvlsChannels": system.nvls_channels,
                "nvlsSupport": system.nvls_support,
                "latency_us": table.latency_us,
                "bandwidth_GBps": table.bandwidth_GBps,
                "networkBound": table.network_bound,
                "nodeNvlsBusbw": node_nvls_busbw(system),
                "hopExtraUs": hop_extra_table(system),
                "maxThreads": table.max_threads,
                "threadThreshold": table.thread_threshold,
                "network": PRESETS[name].network,
                "p2p": p2p_plan,
            }
    return {
        "version": T.NCCL_VERSION,
        "functions": list(T.FUNCTIONS),
        "algorithms": list(T.ALGORITHMS),
        "protocols": list(T.PROTOCOLS),
        "courseToFunction": dict(T.COURSE_TO_FUNCTION),
        "treeCorrection": T.TREE_CORRECTION,
        "maxNvlsArity": T.MAX_NVLS_ARITY,
        "warpSize": T.WARP_SIZE,
        "maxNthreads": T.MAX_NTHREADS,
        "systems": systems,
        # all_to_all: grouped sends and receives, priced by cost.nccl.p2p, not by the tuner
        "p2pCollectives": list(P2P_COLLECTIVES),
        "p2pLlThreshold": p2p.P2P_LL_THRESHOLD,
        "llDataShare": p2p.LL_DATA_SHARE,
        "callCost": {
            "bufferBytes": dict(CC.BUFFER_BYTES),
            "fillFraction": dict(CC.FILL_FRACTION),
            "harnesses": {name: h.fixed_us for name, h in CC.HARNESSES.items()},
            "defaultHarness": CC.DEFAULT_HARNESS,
            "networks": {
                name: {"efficiency": n.efficiency, "latency_us": n.latency_us}
                for name, n in CC.NETWORKS.items()
            },
        },
    }


#: One function per top-level key of the exported data.
SECTIONS: dict[str, Callable[[], dict]] = {
    "presets": presets_section,
    "model": model_section,
    "stepCosts": step_costs_section,
    "schedules": schedules_section,
    "training": training_section,
    "nccl": nccl_section,
}


def explorer_data() -> dict:
    """Everything the explorers need, as plain JSON-able data."""
    return {name: make() for name, make in SECTIONS.items()}


def source_fingerprint() -> str:
    """SHA-256 over the package's Python sources: the exported data can only change with them."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def write_data(path: Path, cache_dir: Path | None = None) -> Path:
    """Write the data as a script that sets ``window.NCCL_COURSE_COST_DATA`` (a script, not a
    .json fetched at run time, so that pages opened from file:// work too). With ``cache_dir``,
    reuse the JSON made last time from the same sources (making it takes tens of seconds)."""
    text = None
    cached = None
    if cache_dir is not None:
        cached = cache_dir / f"explorer-data-{source_fingerprint()[:16]}.json"
        if cached.exists():
            text = cached.read_text()
    if text is None:
        text = json.dumps(explorer_data(), separators=(",", ":"))
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            # written whole or not at all: two editions' builds may share the folder
            partial = cached.with_suffix(f".{os.getpid()}.part")
            partial.write_text(text)
            os.replace(partial, cached)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"window.NCCL_COURSE_COST_DATA = {text};\n")
    return path
