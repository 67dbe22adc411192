"""The exam's credentials: issuing one for each passed attempt, its status lists in the
database (``status_registry``), and verifying credentials in worker processes under a CPU-time
cap (``verifier``). Built on ``nccl_course.certs`` (which knows nothing of exams or
databases) and ``nccl_course.store``.
"""
