"""Fitting the call-cost model (:mod:`~nccl_course.cost.nccl.call_cost`) to measurements.

The fits use the same pieces:

* :func:`fit_constants`: the course's fitted constants (the fill fraction per protocol and the
  fixed cost per harness) on published sweeps, by a grid search that minimises the mean over
  sweeps of the median |busbw error| (the figure the book reports). ``scripts/fit_call_cost.py``
  runs it and prints the result beside the constants in the module.
* :func:`fit_network`: a network's latency and achievable share on the sweeps of that
  network, and :func:`fit_hop_scale`: how many times NCCL's NVLink hop latencies Blackwell's
  hops take (:mod:`~nccl_course.cost.nccl.hop_latency`), on its one-node sweep;
* :func:`calibrate`: a learner's own constants from one measurement, the fixed cost per call
  and the efficiency of the links the measurement exercised, by least squares on the relative
  time error (weighted linear least squares: the model is linear in ``fixed`` and
  ``1 / efficiency`` once NCCL's choice is fixed).

A row's busbw error is ``model busbw / measured busbw - 1 = measured time / model time - 1``.

Units: bytes, microseconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

import numpy as np

from nccl_course.cost.nccl import call_cost as C


@dataclass(frozen=True)
class Observation:
    """One measured size with the model's pieces for it: NCCL's latency and transfer time
    (``latency_us``, ``transfer_us``: the tuner's estimate split, network efficiency applied),
    ``fill_unit_us`` (the fill term for a fill fraction of 1), the network latency, the
    harness, the protocol and the link class ("intra" one node, "inter" several)."""

    size: int
    measured_us: float
    protocol: str
    harness: str
    latency_us: float
    transfer_us: float
    fill_unit_us: float
    network_us: float
    link_class: str
    network_bound: bool = False

    def model_us(self, fill: dict, fixed: dict) -> float:
        return (
            fixed[self.harness]
            + self.network_us
            + self.latency_us
            + fill[self.protocol] * self.fill_unit_us
            + self.transfer_us
        )


def observe(
    collective: str,
    size: int,
    measured_us: float,
    preset,
    *,
    ranks: int | None = None,
    algo: str | None = None,
    proto: str | None = None,
    harness: str | None = None,
    nccl_version: str | None = None,
) -> Observation:
    """The model's pieces for one measured size on ``preset`` (a name or a Preset, whose own
    calibration is ignored: a fit starts from the course's model)."""
    from dataclasses import replace

    from nccl_course.cost.nccl.estimate import predict
    from nccl_course.cost.presets import get_preset

    base = get_preset(preset)
    if base.calibration is not None:
        base = replace(base, calibration=None)
    p = predict(
        collective,
        size,
        base,
        ranks=ranks,
        algo=algo,
        proto=proto,
        harness=harness,
        nccl_version=nccl_version,
    )
    terms = p.call_terms_us
    transfer = terms["transfer_us"]
    cap = max(1, p.channels) * C.BUFFER_BYTES[p.protocol]
    in_flight = size * cap / (size + cap) if size > 0 else 0
    return Observation(
        size=size,
        measured_us=float(measured_us),
        protocol=p.protocol,
        harness=p.harness,
        latency_us=terms["latency_us"],
        transfer_us=transfer,
        fill_unit_us=transfer * in_flight / size if size > 0 else 0.0,
        network_us=terms["network_us"],
        link_class="inter" if p.nodes > 1 else "intra",
        network_bound=p.network_bound,
    )


def median_abs_error(observations, fill: dict, fixed: dict) -> float:
    """Median |busbw error| of the model with these constants over ``observations``."""
    return median(abs(o.measured_us / o.model_us(fill, fixed) - 1) for o in observations)


#: The grids the course's constants are searched on: fill fractions and fixed costs (us).
FILL_GRID = tuple(round(0.05 * i, 2) for i in range(0, 61))
FIXED_GRID = tuple(float(x) for x in range(0, 61))


def fit_constants(groups: dict[str, list[Observation]]) -> tuple[dict, dict]:
    """(fill fraction per protocol, fixed us per harness) minimising the mean over ``groups``
    (one list of observations per sweep) of each sweep's median |busbw error|. Coordinate
    descent over :data:`FILL_GRID` and :data:`FIXED_GRID` from zero, until nothing changes."""
    fill = dict.fromkeys(C.BUFFER_BYTES, 0.0)
    fixed = dict.fromkeys(C.HARNESSES, 0.0)
    used_protocols = {o.protocol for obs in groups.values() for o in obs}
    used_harnesses = {o.harness for obs in groups.values() for o in obs}

    def score(fl, fx) -> float:
        return float(np.mean([median_abs_error(obs, fl, fx) for obs in groups.values()]))

    best = score(fill, fixed)
    for _ in range(6):
        changed = False
        for target, keys, grid in (
            (fill, sorted(used_protocols), FILL_GRID),
            (fixed, sorted(used_harnesses), FIXED_GRID),
        ):
            for key in keys:
                for value in grid:
                    trial = dict(target, **{key: value})
                    s = score(trial, fixed) if target is fill else score(fill, trial)
                    if s < best - 1e-12:
                        best, changed = s, True
                        target[key] = value
        if not changed:
            break
    return fill, fixed


def calibrate(observations: list[Observation], fitted_on: str) -> C.Calibration:
    """The learner's :class:`~nccl_course.cost.nccl.call_cost.Calibration` from one
    measurement, for the link class it ran on: ``fixed_us``, ``efficiency`` and
    ``fill_fraction`` minimising the sum of |relative time error| (iteratively reweighted
    least squares: the model is linear in ``fixed``, ``1 / efficiency`` and
    ``fill_fraction / efficiency`` once NCCL's choice is fixed, and absolute errors keep one
    odd size, such as a first call that paid for a warm-up, from pulling the fit). ValueError
    for fewer than three usable sizes or sizes that show no bandwidth."""
    usable = [o for o in observations if o.measured_us > 0 and o.size > 0]
    if len(usable) < 3:
        raise ValueError(
            "calibration needs at least three sizes with a measured time above 0; give a "
            "sweep (nccl-tests -b 8 -e 1G -f 2)"
        )
    classes = {o.link_class for o in usable}
    if len(classes) != 1:
        raise ValueError("a calibration measurement must run on one layout (one or several nodes)")
    link_class = classes.pop()
    # measured - latency = fixed + transfer / efficiency + fill_unit x fill / efficiency
    y = np.array([o.measured_us - o.latency_us for o in usable])
    transfer = np.array([o.transfer_us for o in usable])
    fill_unit = np.array([o.fill_unit_us for o in usable])
    measured = np.array([o.measured_us for o in usable])
    if not np.any(transfer > 0.05 * measured):
        raise ValueError(
            "the measurement's sizes do not show a bandwidth (every size is latency-bound): "
            "extend the sweep to 1 GiB or more (nccl-tests -e 1G)"
        )
    protocols = [p for p in C.BUFFER_BYTES if any(o.protocol == p for o in usable)]
    fills = [fill_unit * np.array([o.protocol == p for o in usable]) for p in protocols]
    columns = np.column_stack([np.ones_like(y), transfer, *fills])
    floor = np.array([0.0, 1e-6] + [0.0] * len(protocols))  # no negative cost or fill
    weights = 1.0 / measured
    for _ in range(30):
        coef, *_ = np.linalg.lstsq(columns * weights[:, None], y * weights, rcond=None)
        coef = np.maximum(coef, floor)
        residual = np.abs(columns @ coef - y) / measured
        weights = 1.0 / (measured * np.maximum(residual, 1e-3))
    fixed, inverse = float(coef[0]), float(coef[1])
    fill = {p: round(float(c) / inverse, 4) for p, c in zip(protocols, coef[2:], strict=True)}
    return C.Calibration(
        fixed_us=round(fixed, 3),
        efficiency=round(1.0 / inverse, 4),
        link_class=link_class,
        fitted_on=fitted_on,
        fill_fraction=fill,
    )


def sweep_observations(sweep, harness: str | None = None) -> list[Observation]:
    """The observations of a published sweep (:class:`nccl_course.cost.sweeps.PublishedSweep`)
    with its own harness, rows without a time or busbw skipped."""
    out = []
    for row in sweep.rows:
        seconds, _ = sweep.measured_time_s(row)
        if not seconds:
            continue
        out.append(
            observe(
                sweep.collective,
                row.size_bytes,
                seconds * 1e6,
                sweep.model_preset,
                ranks=sweep.ranks,
                algo=sweep.algo,
                proto=sweep.proto,
                harness=harness or sweep.harness,
            )
        )
    return out


#: The grids a network's constants are searched on: latency added per call (us), efficiency.
NETWORK_LATENCY_GRID = tuple(float(x) for x in range(0, 400))
NETWORK_EFFICIENCY_GRID = tuple(round(0.3 + 0.02 * i, 2) for i in range(0, 61))


def fit_network(sweeps, network: str) -> tuple[float, float]:
    """(latency_us, efficiency) of ``network`` minimising the mean over ``sweeps`` (published
    sweeps on presets of that network) of each sweep's median |busbw error|, the other
    constants as they are: a grid search over :data:`NETWORK_LATENCY_GRID` x
    :data:`NETWORK_EFFICIENCY_GRID`."""
    fixed = {name: h.fixed_us for name, h in C.HARNESSES.items()}
    current = C.NETWORKS[network]
    # the model at efficiency 1 and latency 0, split so that the grid only rescales
    pieces = []
    for sweep in sweeps:
        rows = []
        for o in sweep_observations(sweep):
            scale = current.efficiency if o.network_bound else 1.0
            moved = (o.transfer_us + C.FILL_FRACTION[o.protocol] * o.fill_unit_us) * scale
            base = fixed[o.harness] + o.latency_us
            rows.append((o.measured_us, base, moved, o.link_class == "inter", o.network_bound))
        pieces.append(rows)
    best = None
    for latency in NETWORK_LATENCY_GRID:
        for efficiency in NETWORK_EFFICIENCY_GRID:
            score = np.mean(
                [
                    median(
                        abs(
                            m / (b + (latency if inter else 0) + (x / efficiency if bound else x))
                            - 1
                        )
                        for m, b, x, inter, bound in rows
                    )
                    for rows in pieces
                ]
            )
            if best is None or score < best[0] - 1e-12:
                best = (score, latency, efficiency)
    return best[1], best[2]


#: The grid the Blackwell NVLink hop scale (hop_latency) is searched on.
HOP_SCALE_GRID = tuple(round(1.0 + 0.1 * i, 1) for i in range(0, 31))


def hop_points(sweep) -> list[tuple[float, float, float]]:
    """(measured us, the call-cost model's us with NCCL's own hop latencies, the extra at
    scale 2) for each size of a published one-node ``sweep``, where the extra grows linearly
    with the scale less one (the node's hops are NCCL's only latency steps)."""
    from nccl_course.cost.nccl.estimate import function_name, predict, system_for
    from nccl_course.cost.nccl.hop_latency import BLACKWELL_NVLINK_HOP_SCALE, extra_latency_us
    from nccl_course.cost.nccl.releases import release

    system = system_for(sweep.model_preset, sweep.ranks)
    points = []
    for row in sweep.rows:
        measured, _ = sweep.measured_time_s(row)
        if not measured:
            continue
        p = predict(
            sweep.collective,
            row.size_bytes,
            sweep.model_preset,
            ranks=sweep.ranks,
            algo=sweep.algo,
            proto=sweep.proto,
            harness=sweep.harness,
        )
        unit = 0.0
        if p.algorithm != "P2P":
            unit = extra_latency_us(
                function_name(sweep.collective),
                p.algorithm,
                p.protocol,
                system,
                release(p.nccl_version),
                2.0,
            )
        model = p.call_time_s * 1e6 - (BLACKWELL_NVLINK_HOP_SCALE - 1) * unit
        points.append((measured * 1e6, model, unit))
    return points


def fit_hop_scale(points) -> float:
    """The scale of :data:`HOP_SCALE_GRID` minimising the median |busbw error| of ``points``
    (:func:`hop_points`): :data:`nccl_course.cost.nccl.hop_latency.BLACKWELL_NVLINK_HOP_SCALE`
    refitted."""
    from statistics import median

    def error(scale: float) -> float:
        return median(abs(m / (base + (scale - 1) * unit) - 1) for m, base, unit in points)

    return min(HOP_SCALE_GRID, key=lambda s: (error(s), s))
