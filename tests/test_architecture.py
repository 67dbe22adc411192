"""The package's shape, as docs/ARCHITECTURE.md states it: small modules of one concept each,
and imports that go one way.

Imports are read from the source (``ast``), so the test sees every import, also those made
inside functions to keep start-up fast: a cycle between parts of the package is a cycle whether
or not Python happens to tolerate it at load time.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import nccl_course

PACKAGE = Path(nccl_course.__file__).parent
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "migrations" not in p.parts)
MAX_LINES = 500


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part_of(module: str) -> str:
    """The part of the package a module belongs to: ``nccl_course.cost.model`` -> ``cost``;
    top-level modules (``units``, ``collectives``) are parts of their own."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "__init__"


def is_module(name: str) -> bool:
    """Whether ``name`` (``cost`` or ``nccl_course.cost.model``) is a module or package of ours."""
    parts = name.split(".")
    if parts[0] == "nccl_course":
        parts = parts[1:]
    path = PACKAGE.joinpath(*parts)
    return path.is_dir() or path.with_suffix(".py").is_file()


def imported_modules(path: Path) -> set[str]:
    """Every ``nccl_course`` module that ``path`` imports anywhere in its body."""
    tree = ast.parse(path.read_text())
    this = module_name(path)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("nccl_course"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.startswith("nccl_course"):
                # `from nccl_course import cost` imports the part `cost`, and
                # `from nccl_course.quiz import keys` the module `keys`: not the package's
                # __init__ (Python loads it first for every submodule; that is no dependency on
                # what it holds), unless a name that is no module is imported from it too.
                submodules = {
                    f"{target}.{a.name}" for a in node.names if is_module(f"{target}.{a.name}")
                }
                found |= submodules
                if len(submodules) < len(node.names):
                    found.add(target)
    return found


def part_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in MODULES:
        source = part_of(module_name(path))
        for target in imported_modules(path):
            dest = part_of(target)
            if dest not in (source, "__init__"):
                graph[source].add(dest)
    return graph


def module_graph(modules: list[Path] = MODULES) -> dict[str, set[str]]:
    """Which module of the package imports which, anywhere in its body (a package is its
    ``__init__``)."""
    names = {module_name(p) for p in modules}
    graph: dict[str, set[str]] = defaultdict(set)
    for path in modules:
        source = module_name(path)
        graph[source].update(t for t in imported_modules(path) if t in names and t != source)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_package_has_modules_to_check():
    names = {module_name(p) for p in MODULES}
    assert {"nccl_course.collectives", "nccl_course.cost.model", "nccl_course.exam.app"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_is_short_and_says_what_it_is(path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_LINES, f"{path.name}: {lines} lines; split it along a concept"
    if lines > 5:  # an empty __init__ needs no docstring
        assert ast.get_docstring(ast.parse(path.read_text())), f"{path.name} has no docstring"


def test_parts_of_the_package_import_one_way():
    cycle = find_cycle(part_graph())
    assert cycle is None, "import cycle between parts of the package: " + " -> ".join(cycle)


def test_modules_import_one_way():
    """No two (or more) modules import each other, not even inside a function: a shared piece
    goes below both (``launcher.ports`` under ``launch`` and ``process_group``), and a method that
    delegates imports the module it delegates to, not the other way round (``quiz.model`` ->
    ``quiz.keys``)."""
    cycle = find_cycle(module_graph())
    assert cycle is None, "import cycle between modules: " + " -> ".join(cycle)


def test_the_foundation_imports_nothing_of_the_course():
    """The registry and the unit helpers sit at the bottom: everything may import them."""
    for name in ("collectives", "units", "intmath"):
        assert not imported_modules(PACKAGE / f"{name}.py"), name


def test_models_do_not_import_the_layers_that_use_them():
    graph = part_graph()
    assert not graph["cost"] & {"quiz", "exam", "commands", "bench", "certs", "labs"}
    assert not graph["sim"] & {"cost", "quiz", "exam", "commands", "viz"}
    assert not graph["quiz"] & {"exam", "commands"}
    assert not graph["certs"] & {"exam", "commands"}


def test_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}}) is None


def test_module_cycle_finder_finds_a_made_up_cycle(tmp_path, monkeypatch):
    """Two modules of a made-up part import each other, one of them inside a function and by a
    relative import; importing a module from its package does not count as importing the
    package's ``__init__``, and importing a name that is no module does."""
    part = tmp_path / "nccl_course" / "part"
    part.mkdir(parents=True)
    sources = {
        tmp_path / "nccl_course" / "__init__.py": "",
        part / "__init__.py": "from nccl_course.part.a import A\n",
        part / "a.py": "from nccl_course.part import b\n\nA = 1\n",
        part / "b.py": "def f():\n    from .a import A\n\n    return A\n",
        part / "c.py": "from nccl_course.part import A\n",
    }
    for path, text in sources.items():
        path.write_text(text)
    monkeypatch.setitem(globals(), "PACKAGE", tmp_path / "nccl_course")
    modules = sorted(sources)
    graph = module_graph(modules)
    assert graph["nccl_course.part"] == {"nccl_course.part.a"}
    assert graph["nccl_course.part.c"] == {"nccl_course.part"}
    assert find_cycle(graph) == ["nccl_course.part.a", "nccl_course.part.b", "nccl_course.part.a"]

    (part / "b.py").write_text("def f():\n    return 1\n")
    assert find_cycle(module_graph(modules)) is None
