"""Cost model: alpha-beta-gamma closed forms, schedule costs on topologies, bus-bandwidth factors,
hardware presets, predictions and the comparison with published measurements.

:func:`predict` here is the *textbook* model (closed forms and schedules, the fastest classic
algorithm, lower bounds). NCCL's own model, the one NCCL uses to choose, is
:func:`nccl_course.cost.nccl.predict`."""

from nccl_course.cost.busbw import BUSBW_COLLECTIVES, algbw, busbw, busbw_factor
from nccl_course.cost.formulas import CLOSED_FORMS, closed_form_time
from nccl_course.cost.model import (
    Prediction,
    algorithms_for,
    crossovers,
    nvls_allreduce_time,
    predict,
    sweep_times,
)
from nccl_course.cost.presets import PRESETS, Preset, get_preset
from nccl_course.cost.topology import StepCosts, Topology, schedule_time, step_costs

__all__ = [
    "BUSBW_COLLECTIVES",
    "CLOSED_FORMS",
    "PRESETS",
    "Prediction",
    "Preset",
    "StepCosts",
    "Topology",
    "algbw",
    "algorithms_for",
    "busbw",
    "busbw_factor",
    "closed_form_time",
    "crossovers",
    "get_preset",
    "nvls_allreduce_time",
    "predict",
    "schedule_time",
    "step_costs",
    "sweep_times",
]
