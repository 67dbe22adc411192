"""``python -m nccl_course.bench`` / ``torchrun --nproc-per-node 8 -m nccl_course.bench ...``."""

import sys

from nccl_course.bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
