"""Subcommands of ``nccl-course``; one module each, discovered by ``nccl_course.cli``.

A command module defines ``register(subparsers)`` and keeps heavy imports (torch, matplotlib,
FastAPI) inside the function that runs the command, so ``nccl-course --help`` stays fast.
"""
