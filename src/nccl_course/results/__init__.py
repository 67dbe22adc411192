"""The GPU-check results bundle (the folder ``labs/gpu_check.sh`` writes) as one HTML page.

``bundle`` reads what the folder holds (steps, the doctor's environment and findings, the
benchmark's JSON record, NCCL's logs) and says what is missing; ``gpus`` matches GPU names to
a hardware preset; ``model_choice`` decides which system NCCL's tuner model
(:mod:`nccl_course.cost.nccl`) prices the benchmark on, rank 0's NCCL log first, else a
preset; ``comparison`` sets the measurement against it, size by size; ``plot`` draws busbw
against size; ``sections`` and ``page`` write the self-contained page (``nccl-course report``).

Everything read from a bundle is untrusted text from another machine: it is escaped where it
enters the page, links point only at regular files inside the folder, and the page loads
nothing (inline CSS, the plot as a data URI, no script).
"""

from nccl_course.results.bundle import Bundle, BundleError, read_bundle
from nccl_course.results.page import render_report

__all__ = ["Bundle", "BundleError", "read_bundle", "render_report"]
