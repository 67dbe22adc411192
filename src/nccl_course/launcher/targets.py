"""What :func:`nccl_course.launcher.launch` runs in each rank: a function, named so that a freshly
spawned process can find it (a file path or a module name, never a pickled function)."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Target = Callable[..., Any] | tuple[str | os.PathLike, str] | str


def target_spec(target: Target) -> tuple[str, str, str]:
    """Describe ``target`` as ("file", path, name) or ("module", module, qualname): plain strings
    travel to a spawned process even when the function itself could not be pickled."""
    if isinstance(target, tuple):
        if len(target) != 2:
            raise TypeError("a file target is a pair (path_to_py_file, function_name)")
        path, name = target
        path = Path(path).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
        return ("file", str(path), str(name))
    if isinstance(target, str):
        module, sep, name = target.partition(":")
        if not sep or not module or not name:
            raise ValueError(f"a string target is 'package.module:function', got {target!r}")
        return ("module", module, name)
    if callable(target):
        module = getattr(target, "__module__", None)
        qualname = getattr(target, "__qualname__", None)
        if not module or not qualname or "<locals>" in qualname or "<lambda>" in qualname:
            raise TypeError(
                f"{target!r} is not importable by name: define the worker at the top level of a "
                ".py file (a function defined in a notebook or inside another function cannot "
                "reach a spawned process)"
            )
        if module in ("__main__", "__mp_main__"):
            main_file = getattr(sys.modules.get(module), "__file__", None)
            if main_file is None:
                raise TypeError(
                    f"{qualname} is defined in an interactive session: put it in a .py file and "
                    "pass (path, name) or import it from there"
                )
            return ("file", str(Path(main_file).resolve()), qualname)
        return ("module", module, qualname)
    raise TypeError(f"cannot launch {target!r}: pass a function, (path, name) or 'module:function'")


def load_file_module(path: str | os.PathLike):
    """Import a .py file that is not in a package, under a name unique to its path; the same file
    is imported once per process."""
    path = Path(path).resolve()
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"_nccl_course_file_{path.stem.replace('-', '_')}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def resolve_target(spec: tuple[str, str, str]) -> Callable[..., Any]:
    kind, where, name = spec
    obj: Any = load_file_module(where) if kind == "file" else importlib.import_module(where)
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AttributeError(f"{where} has no function {name!r}") from None
    return obj
