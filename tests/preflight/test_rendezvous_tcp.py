"""The rendezvous check over real TCP on 127.0.0.1: a listening socket answers, a closed port
does not."""

from __future__ import annotations

import socket

from nccl_course.preflight import Options, SystemProbe, run_checks
from nccl_course.preflight.checks_network import rendezvous
from nccl_course.preflight.context import Context


def test_a_listening_master_passes():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        found = rendezvous(Context(SystemProbe(), Options(master=("127.0.0.1", port))))
    assert found.status == "ok"
    assert found.detail.startswith(f"127.0.0.1:{port} accepts TCP connections (")


def test_a_closed_port_fails(port):
    found = rendezvous(Context(SystemProbe(), Options(master=("127.0.0.1", port))))
    assert found.status == "fail"
    assert found.detail == f"cannot connect to 127.0.0.1:{port}: Connection refused"


def test_run_checks_on_this_machine_reports_the_closed_port(port):
    checks = {c.id: c for c in run_checks(options=Options(master=("127.0.0.1", port)))}
    assert checks["rendezvous"].status == "fail"
