"""A free TCP port for a rendezvous (MASTER_PORT), picked on 127.0.0.1.

It sits below :mod:`nccl_course.launcher.launch` (which gives each launch a port and retries on
a taken one) and :mod:`nccl_course.launcher.process_group` (which gives a lone process a world
of one on a port of its own), so neither has to import the other for it.
"""

from __future__ import annotations

import socket


def free_port() -> int:
    """A TCP port that was free on 127.0.0.1 a moment ago (someone may take it before you do:
    :func:`nccl_course.launcher.launch` retries when that happens)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
