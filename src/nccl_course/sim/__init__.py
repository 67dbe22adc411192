"""Exact-data simulator: collectives as schedules of chunk transfers between simulated ranks.

>>> from nccl_course.sim import build_schedule, verify_schedule
>>> s = build_schedule("all_reduce", "ring", 4)
>>> s.num_steps, verify_schedule(s)
(6, True)
"""

from nccl_course.sim.execute import (
    check_schedule,
    make_inputs,
    run_schedule,
    verify_schedule,
)
from nccl_course.sim.layout import SIMULATED_COLLECTIVES, reference
from nccl_course.sim.registry import (
    ALGORITHMS,
    PIPELINED,
    build_node_ring_schedule,
    build_schedule,
)
from nccl_course.sim.schedule import Schedule, ScheduleError, Step, Transfer

__all__ = [
    "ALGORITHMS",
    "PIPELINED",
    "SIMULATED_COLLECTIVES",
    "Schedule",
    "ScheduleError",
    "Step",
    "Transfer",
    "build_node_ring_schedule",
    "build_schedule",
    "check_schedule",
    "make_inputs",
    "reference",
    "run_schedule",
    "verify_schedule",
]
