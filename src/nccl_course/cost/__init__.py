"""Cost model: alpha-beta-gamma closed forms, bus-bandwidth factors, hardware presets."""

from nccl_course.cost.busbw import COLLECTIVES, algbw, busbw, busbw_factor
from nccl_course.cost.formulas import CLOSED_FORMS, closed_form_time

__all__ = [
    "COLLECTIVES",
    "CLOSED_FORMS",
    "algbw",
    "busbw",
    "busbw_factor",
    "closed_form_time",
]
