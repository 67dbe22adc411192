"""NCCL itself: the transports a log shows, and the settings NCCL reads from its config files."""

from __future__ import annotations

from nccl_course.preflight.check import Finding, fail, not_applicable, ok, warn
from nccl_course.preflight.context import Context
from nccl_course.preflight.probe import Probe

SYSTEM_CONF = "/etc/nccl.conf"


def nccl_transport(ctx: Context) -> Finding:
    log = ctx.log
    if log is None:
        return not_applicable("no NCCL log given (doctor --nccl-log FILE)")
    if not log.found_anything:
        return warn(
            "the log has no NCCL INIT lines",
            "run the job with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and pass that output",
        )
    summary = log.summary()
    if log.uses_socket and ctx.rdma:
        devices = ", ".join(str(d) for d in ctx.rdma)
        why = " because NCCL_IB_DISABLE=1" if log.ib_disabled else ""
        return fail(
            f"{summary}: NCCL used TCP sockets{why} although this machine has RDMA devices {devices}",
            "unset NCCL_IB_DISABLE, pass /dev/infiniband into the container (EFA: aws-ofi-nccl on "
            "LD_LIBRARY_PATH); NCCL_NET=IB (or the plugin's network name) makes a fallback an error",
        )
    if log.channels.get("SHM"):
        matrix = ctx.p2p
        if matrix and any(status != "OK" for status in matrix.values()):
            return ok(f"{summary} (SHM where peer access is not supported)")
        seen = " although nvidia-smi reports peer access OK" if matrix else ""
        return warn(
            f"{summary}: GPUs of one node exchange data through host memory (SHM){seen}",
            "unset NCCL_P2P_DISABLE and NCCL_P2P_LEVEL, and run the node's ranks in one "
            "container (or with --ipc=host) so CUDA IPC between them works",
        )
    return ok(summary)


def conf_files(probe: Probe) -> list[str]:
    """The files NCCL reads, first one first (src/misc/param.cc): $NCCL_CONF_FILE if set, else
    ~/.nccl.conf; then /etc/nccl.conf. NCCL sets a variable from a file only when it is not set
    yet (setenv without overwrite), so the environment beats both and the first file beats
    /etc/nccl.conf."""
    user = probe.env("NCCL_CONF_FILE")
    if not user:
        home = probe.env("HOME")
        user = f"{home}/.nccl.conf" if home else None
    return [p for p in (user, SYSTEM_CONF) if p]


def parse_conf(text: str) -> list[tuple[str, str]]:
    """(name, value) pairs as NCCL reads them: ``NAME=VALUE`` lines, ``#`` lines skipped."""
    pairs = []
    for line in text.splitlines():
        line = line.rstrip("\r")
        if line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        pairs.append((name, value))
    return pairs


def nccl_conf(ctx: Context) -> Finding:
    read = [(path, ctx.probe.read_text(path)) for path in conf_files(ctx.probe)]
    read = [(path, text) for path, text in read if text is not None]
    if not read:
        return not_applicable(f"no {' or '.join(conf_files(ctx.probe))}")
    shown, conflicts, first = [], [], {}
    for path, text in read:
        pairs = parse_conf(text)
        shown.append(f"{path}: " + (", ".join(f"{k}={v}" for k, v in pairs) or "no settings"))
        for name, value in pairs:
            current = ctx.probe.env(name)
            if current is not None and current != value:
                conflicts.append(
                    f"{name}={value} in {path} is ignored: the environment sets {current!r}"
                )
            elif name in first and first[name][1] != value:
                conflicts.append(
                    f"{name}={value} in {path} is ignored: {first[name][0]} sets {first[name][1]!r}"
                )
            first.setdefault(name, (path, value))
    detail = "; ".join(shown)
    if conflicts:
        return warn(
            f"{detail}; {'; '.join(conflicts)}",
            "keep each NCCL_* setting in one place: NCCL uses the environment first and the files "
            "only for variables still unset",
        )
    return ok(f"{detail} (NCCL applies them to every run)")
