"""Time NCCL's model over 50 sizes x every collective it prices (the tuner's five and
all_to_all) x every preset (target < 1 s).

Run: PYTHONPATH=src python benchmarks/bench_nccl_model.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from nccl_course.cost import PRESETS
from nccl_course.cost.nccl import predict
from nccl_course.cost.nccl.estimate import PRICED_COLLECTIVES


def sweep() -> int:
    sizes = [int(8 * 2 ** (i * 31 / 49)) for i in range(50)]  # 8 B .. 16 GiB
    n = 0
    for preset in PRESETS:
        for collective in PRICED_COLLECTIVES:
            for size in sizes:
                predict(collective, size, preset)
                n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        n = sweep()
        times.append(time.perf_counter() - start)
    print(f"{n} predictions per sweep; median {statistics.median(times):.3f} s of {times}")


if __name__ == "__main__":
    main()
