"""Catch, on a laptop, the tensors that would sit on the wrong device under NCCL.

NCCL moves only GPU memory: a collective on the NCCL default group given a CPU tensor fails with
"No backend type associated with device type cpu" (PyTorch 2.x). On gloo every tensor is on the
CPU, so a lab that forgets ``device=`` passes every gloo test and fails on its first GPU run.

This module tells the two kinds of CPU tensor apart while the code runs on gloo. A tensor is
*host-bound* when, on a GPU rank, it would still be on the CPU:

- a factory (``torch.tensor``, ``torch.zeros``, ``torch.from_numpy``, ...) called without
  ``device=`` (or with ``device=None`` or ``device="cpu"``) makes a host-bound tensor; given a
  ``torch.device`` (what ``device()`` and ``x.device`` return) it makes a device-bound one;
- ``t.to(device)``, ``t.cuda()`` and friends make it device-bound again (``t.cpu()`` or
  ``t.to("cpu")`` make it host-bound);
- any other operation makes a host-bound result only if all its tensor inputs are host-bound,
  as CUDA would (a CPU op on CPU inputs stays on the CPU; mixing in a GPU tensor gives a GPU
  result or an error);
- in-place operations keep their target's mark.

Every collective and point-to-point call of ``torch.distributed`` is wrapped to refuse a
host-bound tensor with :class:`PlacementError`, which names the call. Groups created with
``backend="gloo"`` (CPU groups by design, e.g. for metadata) are exempt.

Enabled in a rank by :func:`install` (``launch(..., check_placement=True)`` calls it when the
backend is gloo; the labs' tests and ``nccl-course lab run`` do). It costs a Python call per torch operation, so it is for checks, not timing.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

_MARK = "_nccl_course_host_bound"

#: Factories whose result lives on the device they are given, the CPU by default.
_FACTORY_NAMES = (
    "tensor",
    "as_tensor",
    "asarray",
    "from_numpy",
    "zeros",
    "ones",
    "empty",
    "full",
    "rand",
    "randn",
    "randint",
    "randperm",
    "arange",
    "range",
    "linspace",
    "logspace",
    "eye",
    "empty_strided",
    "scalar_tensor",
)

#: Factories that copy their input's device unless given one.
_LIKE_NAMES = ("zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like")

#: Tensor methods that choose a device: to(...) and the shortcuts.
_MOVE_TO_GPU = ("cuda",)
_MOVE_TO_CPU = ("cpu", "numpy")

#: The torch.distributed calls that move tensors, by name; checked in every rank.
COLLECTIVE_CALLS = (
    "all_reduce",
    "broadcast",
    "reduce",
    "all_gather",
    "all_gather_into_tensor",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "all_to_all",
    "all_to_all_single",
    "gather",
    "scatter",
    "send",
    "recv",
    "isend",
    "irecv",
    "batch_isend_irecv",
)


class PlacementError(RuntimeError):
    """A collective got a tensor that would be on the CPU on a GPU rank."""


def is_host_bound(tensor) -> bool:
    return bool(getattr(tensor, _MARK, False))


def _set_mark(value, host_bound: bool) -> None:
    import torch

    if isinstance(value, torch.Tensor):
        try:
            setattr(value, _MARK, host_bound)
        except (AttributeError, RuntimeError):  # some C-level tensors take no attributes
            pass
    elif isinstance(value, (list, tuple)):
        for item in value:
            _set_mark(item, host_bound)


def _tensors_in(values) -> list:
    import torch

    found = []
    for value in values:
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(_tensors_in(value))
    return found


def _names_cpu(device) -> bool:
    """True when a ``device=`` value would still mean the CPU on a GPU rank.

    On gloo, ``nccl_course.launcher.device()`` and ``x.device`` are ``torch.device("cpu")`` too,
    so a ``torch.device`` is taken for the rank's device; only no device at all and the CPU
    named as a string (``"cpu"``) are the CPU whatever the backend.
    """
    if device is None:
        return True
    if isinstance(device, str):
        return device.split(":")[0] == "cpu"
    return False


def _device_in_to_args(args, kwargs):
    """The target device of ``t.to(...)``, or None when it keeps the device (dtype only)."""
    import torch

    if "device" in kwargs:
        return kwargs["device"]
    for value in args[1:]:
        if isinstance(value, torch.Tensor):
            return value  # to(other): the other tensor's device
        if isinstance(value, (str, torch.device, int)):
            return value
    return None


def _mode_class():
    import torch
    from torch.overrides import TorchFunctionMode

    factories = {getattr(torch, n) for n in _FACTORY_NAMES if hasattr(torch, n)}
    likes = {getattr(torch, n) for n in _LIKE_NAMES if hasattr(torch, n)}
    to_methods = {torch.Tensor.to}
    to_gpu = {getattr(torch.Tensor, n) for n in _MOVE_TO_GPU}
    to_cpu = {getattr(torch.Tensor, n) for n in _MOVE_TO_CPU}

    class HostBoundTracker(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            if func in factories:
                _set_mark(out, _names_cpu(kwargs.get("device")))
            elif func in likes and kwargs.get("device") is not None:
                _set_mark(out, _names_cpu(kwargs["device"]))
            elif func in to_methods:
                target = _device_in_to_args(args, kwargs)
                if isinstance(target, torch.Tensor):
                    _set_mark(out, is_host_bound(target))
                elif target is not None:
                    _set_mark(out, _names_cpu(target))
                else:
                    _set_mark(out, is_host_bound(args[0]))
            elif func in to_gpu:
                _set_mark(out, False)
            elif func in to_cpu:
                _set_mark(out, True)
            elif args and out is args[0]:
                pass  # in place: the target keeps its mark
            else:
                inputs = _tensors_in(list(args) + list(kwargs.values()))
                _set_mark(out, bool(inputs) and all(is_host_bound(t) for t in inputs))
            return out

    return HostBoundTracker


def _group_is_cpu_by_design(group, cpu_groups: set[int]) -> bool:
    return group is not None and id(group) in cpu_groups


def _wrap_collective(name: str, original, cpu_groups: set[int]):
    signature = inspect.signature(original)

    @functools.wraps(original)
    def checked(*args, **kwargs):
        try:
            bound = signature.bind_partial(*args, **kwargs).arguments
        except TypeError:
            return original(*args, **kwargs)  # let torch report its own usage error
        group = bound.get("group")
        values: list[Any] = []
        for key, value in bound.items():
            if key == "p2p_op_list":  # batch_isend_irecv: a list of P2POp
                for op in value:
                    values.append(op.tensor)
                    if _group_is_cpu_by_design(getattr(op, "group", None), cpu_groups):
                        return original(*args, **kwargs)
            elif key not in ("group", "op", "async_op", "src", "dst", "tag"):
                values.append(value)
        if not _group_is_cpu_by_design(group, cpu_groups):
            for tensor in _tensors_in(values):
                if is_host_bound(tensor):
                    raise PlacementError(
                        f"dist.{name} got a {tuple(tensor.shape)} {tensor.dtype} tensor that "
                        "would be on the CPU on a GPU rank, and NCCL only moves GPU memory "
                        "('No backend type associated with device type cpu'). Create it with "
                        "device=nccl_course.launcher.device() or move it with .to(device)."
                    )
        return original(*args, **kwargs)

    return checked


def _wrap_new_group(original, cpu_groups: set[int]):
    @functools.wraps(original)
    def recording(*args, **kwargs):
        group = original(*args, **kwargs)
        backend = kwargs.get("backend")
        if backend is not None and str(backend).lower() == "gloo":
            cpu_groups.add(id(group))
        return group

    return recording


_installed = False


def install() -> None:
    """Track host-bound tensors in this process and make collectives refuse them (idempotent)."""
    global _installed
    if _installed:
        return
    import torch.distributed as dist

    # Only the public namespace: torch's own helpers (all_gather_object and the like) call the
    # module-level functions of distributed_c10d, and choose the right device themselves.
    import torch.distributed.distributed_c10d as c10d

    cpu_groups: set[int] = set()
    for name in COLLECTIVE_CALLS:
        original = getattr(dist, name, None)
        if original is not None:
            setattr(dist, name, _wrap_collective(name, original, cpu_groups))
    # P2POp(dist.isend, ...) checks its op against distributed_c10d's own isend and irecv, so
    # those two are replaced there too (torch calls them only through a P2POp).
    for name in ("isend", "irecv"):
        setattr(c10d, name, getattr(dist, name))
    dist.new_group = _wrap_new_group(dist.new_group, cpu_groups)
    # Entered for the life of the process: the rank exits when its work is done.
    _mode_class()().__enter__()
    _installed = True
