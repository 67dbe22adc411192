"""The ``nccl-course`` command line.

Each subcommand lives in its own module under ``nccl_course.commands`` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` (called with the parsed
namespace, returning an exit code). New commands need no edit here: they are discovered.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import re
import sys

from nccl_course import __version__, commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nccl-course",
        description=(
            "An interactive course on collective communication and NCCL. "
            "Run 'nccl-course COMMAND --help' for the options of each command."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(subparsers)
    return parser


# Import names that differ from their distribution's name.
_DISTRIBUTION_OF_IMPORT = {"markdown_it": "markdown-it-py", "yaml": "pyyaml"}


# The extra each subcommand lives in, preferred when several extras bring a missing module.
_EXTRA_OF_COMMAND = {
    "serve": "server",
    "exam": "server",
    "backup": "server",
    "restore": "server",
    "cert": "certs",
    "lab": "labs",
    "narrate": "narration",
}


def extra_providing(module: str, command: str | None = None) -> str | None:
    """The extra of ``pyproject.toml`` (as installed) that brings the top-level ``module`` (the
    one of ``command`` if it does), or None when no extra declares it (or the package metadata
    is not installed)."""
    from importlib import metadata

    wanted = _DISTRIBUTION_OF_IMPORT.get(module, module).lower().replace("_", "-")
    try:
        requirements = metadata.requires("nccl-course") or []
    except metadata.PackageNotFoundError:
        return None
    found = []
    for line in requirements:
        name, _, marker = line.partition(";")
        dist = re.split(r"[\s\[<>=!~]", name.strip(), maxsplit=1)[0].lower().replace("_", "-")
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if dist == wanted and extra and extra.group(1) != "all":
            found.append(extra.group(1))
    if _EXTRA_OF_COMMAND.get(command) in found:
        return _EXTRA_OF_COMMAND[command]
    # The smallest extra that brings it: `certs` rather than `server`, which includes it.
    order = ("certs", "labs", "book", "narration", "server", "postgres")
    return min(found, key=lambda e: order.index(e) if e in order else len(order), default=None)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except ModuleNotFoundError as exc:
        # A part installed without its extra (pip install nccl-course, then `serve`): say what
        # to install rather than print a traceback.
        extra = extra_providing((exc.name or "").split(".")[0], args.command)
        if extra is None:
            raise
        print(
            f"nccl-course {args.command}: the Python package {exc.name!r} is missing; install "
            f'this part with: pip install "nccl-course[{extra}]" (or run `make setup`)',
            file=sys.stderr,
        )
        return 1
    except BrokenPipeError:
        # The reader went away (`nccl-course quiz list | head`): not an error of ours. Point
        # stdout at /dev/null so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
