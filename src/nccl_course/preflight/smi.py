"""Reading ``nvidia-smi``'s outputs: the header's driver and CUDA versions, the GPU list, and the
``topo -p2p`` matrix. Terminal escapes are stripped first (``environment.strip_ansi``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from nccl_course.environment import strip_ansi

_DRIVER = re.compile(r"Driver Version:\s*([0-9][0-9.]*)")
_CUDA = re.compile(r"CUDA Version:\s*([0-9]+\.[0-9]+)")
_GPU_LINE = re.compile(r"^GPU (\d+): ")
_MATRIX_ROW = re.compile(r"^\s*GPU(\d+)\s")


@dataclass(frozen=True)
class SmiHeader:
    """The first lines of plain ``nvidia-smi``: the driver, and the newest CUDA it supports."""

    driver: str | None
    cuda: str | None


def parse_header(text: str) -> SmiHeader:
    text = strip_ansi(text)
    driver = _DRIVER.search(text)
    cuda = _CUDA.search(text)
    return SmiHeader(driver.group(1) if driver else None, cuda.group(1) if cuda else None)


def count_gpus(listing: str) -> int:
    """GPUs in ``nvidia-smi -L`` output (one ``GPU n: name (UUID: ...)`` line each; MIG devices
    are indented lines under their GPU and are not counted)."""
    return sum(1 for line in strip_ansi(listing).splitlines() if _GPU_LINE.match(line))


def parse_p2p_matrix(text: str) -> dict[tuple[int, int], str]:
    """``nvidia-smi topo -p2p r`` (or ``w``, ``rw``, ``p``...) as {(row GPU, column GPU): status}
    for every pair of different GPUs. Statuses as the legend prints them: OK, CNS (chipset not
    supported), GNS (GPU not supported), TNS (topology not supported), NS, DR, U."""
    pairs: dict[tuple[int, int], str] = {}
    header: list[int] | None = None
    for line in strip_ansi(text).splitlines():
        cells = line.split()
        if not cells:
            continue
        if header is None and all(re.fullmatch(r"GPU\d+", c) for c in cells):
            header = [int(c[3:]) for c in cells]
            continue
        row = _MATRIX_ROW.match(line)
        if header is None or row is None:
            continue
        gpu = int(row.group(1))
        for column, status in zip(header, cells[1:], strict=False):
            if column != gpu:
                pairs[(gpu, column)] = status
    return pairs
