"""Refit the call-cost model's fitted constants on the published sweeps it names as its fit
set (nccl_course.cost.nccl.call_cost.FITTED_ON, NETWORK_FITTED_ON and
nccl_course.cost.nccl.hop_latency.FITTED_ON) and print them beside the module's, with the
median |busbw error| of every published sweep, fitted and held out.

    python scripts/fit_call_cost.py
"""

from __future__ import annotations

import sys

from nccl_course.cost.measured.comparison import SIZE_RANGES
from nccl_course.cost.nccl import call_cost as C
from nccl_course.cost.nccl import hop_latency as H
from nccl_course.cost.nccl.call_fit import (
    fit_constants,
    fit_hop_scale,
    fit_network,
    hop_points,
    median_abs_error,
    sweep_observations,
)
from nccl_course.cost.presets import get_preset
from nccl_course.cost.sweeps import load_sweeps


def main() -> int:
    groups, skipped = {}, []
    for sweep in load_sweeps():
        try:
            groups[sweep.id] = sweep_observations(sweep)
        except ValueError as exc:
            skipped.append(f"{sweep.id}: {exc}")
    fit_set = {k: v for k, v in groups.items() if k in C.FITTED_ON}
    missing = set(C.FITTED_ON) - set(fit_set)
    if missing:
        print(f"error: fit sweeps not found: {', '.join(sorted(missing))}", file=sys.stderr)
        return 2
    fill, fixed = fit_constants(fit_set)
    module_fixed = {name: h.fixed_us for name, h in C.HARNESSES.items()}
    print("constant                         refitted   in call_cost.py")
    for proto in C.BUFFER_BYTES:
        print(
            f"FILL_FRACTION[{proto!r:9}]          {fill[proto]:8.2f}   {C.FILL_FRACTION[proto]:8.2f}"
        )
    for name in C.HARNESSES:
        print(f"fixed_us[{name!r:21}] {fixed[name]:8.1f}   {module_fixed[name]:8.1f}")
    by_id = {sweep.id: sweep for sweep in load_sweeps()}
    for network, net in C.NETWORKS.items():
        fitted_on = [
            by_id[i]
            for i in C.NETWORK_FITTED_ON
            if i in by_id and get_preset(by_id[i].preset).network == network
        ]
        if fitted_on:
            latency, efficiency = fit_network(fitted_on, network)
            print(f"NETWORKS[{network!r:10}] latency_us   {latency:8.1f}   {net.latency_us:8.1f}")
            print(
                f"NETWORKS[{network!r:10}] efficiency   {efficiency:8.2f}   {net.efficiency:8.2f}"
            )
    hop_fit = [by_id[i] for i in H.FITTED_ON if i in by_id]
    if hop_fit:
        scale = fit_hop_scale([p for sweep in hop_fit for p in hop_points(sweep)])
        print(f"BLACKWELL_NVLINK_HOP_SCALE      {scale:8.1f}   {H.BLACKWELL_NVLINK_HOP_SCALE:8.1f}")
    print()
    print(
        "median |busbw error| with the module's constants (fit: F, network fit: N, held out: H), in %"
    )
    print(f"  {'':42} " + " ".join(f"{label:>10}" for label, _, _ in SIZE_RANGES))
    for sweep_id, obs in groups.items():
        fitted = sweep_id in C.FITTED_ON or sweep_id in H.FITTED_ON
        mark = "F" if fitted else "N" if sweep_id in C.NETWORK_FITTED_ON else "H"
        cells = []
        for _, low, high in SIZE_RANGES:
            band = [
                o
                for o in obs
                if (low is None or o.size >= low) and (high is None or o.size <= high)
            ]
            err = median_abs_error(band, C.FILL_FRACTION, module_fixed) if band else None
            cells.append("-" if err is None else f"{100 * err:.1f}")
        print(f"  {mark} {sweep_id:40} " + " ".join(f"{c:>10}" for c in cells))
    for line in skipped:
        print(f"  skipped {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
