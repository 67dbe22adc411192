"""Pre-flight checks for a rented GPU node: can NCCL run well here, and if not, what to change.

``run_checks(probe, options)`` runs every check of the catalog (``CHECK_IDS``, in report order)
and returns :class:`Check` records (id, title, status ok/warn/fail/n/a, detail, fix). Checks read
the machine only through a :class:`Probe`: :class:`SystemProbe` for the real one, a fake built
from captured outputs in the tests. ``transports_in_log`` reads an NCCL INFO log and says which
transports it used.
"""

from nccl_course.preflight.catalog import CATALOG, CHECK_IDS
from nccl_course.preflight.check import STATUSES, Check
from nccl_course.preflight.context import Options, parse_master
from nccl_course.preflight.nccl_log import LogTransports, transports_in_log
from nccl_course.preflight.probe import Connection, FsStats, Probe, SystemProbe, TorchInfo
from nccl_course.preflight.runner import any_failed, format_checks, run_checks

__all__ = [
    "CATALOG",
    "CHECK_IDS",
    "STATUSES",
    "Check",
    "Connection",
    "FsStats",
    "LogTransports",
    "Options",
    "Probe",
    "SystemProbe",
    "TorchInfo",
    "any_failed",
    "format_checks",
    "parse_master",
    "run_checks",
    "transports_in_log",
]
