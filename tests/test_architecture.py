"""The package's shape, as docs/ARCHITECTURE.md states it: small modules of one concept each,
and imports that go one way.

Imports are read from the source (``ast``), so the test sees every import, also those made
inside functions to keep start-up fast: a cycle between parts of the package is a cycle whether
or not Python happens to tolerate it at load time.
"""

from __future__ import annotations

import ast
import re
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
    assert {"nccl_course.collectives", "nccl_course.cost.model", "nccl_course.server.app"} <= names


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
    server_side = {"exam", "server", "store", "issuing"}
    assert not graph["cost"] & {"quiz", "commands", "bench", "certs", "labs", *server_side}
    assert not graph["sim"] & {"cost", "quiz", "commands", "viz", *server_side}
    assert not graph["quiz"] & {"commands", *server_side}
    assert not graph["certs"] & {"commands", *server_side}


def third_party_imports(path: Path) -> set[str]:
    """The top-level names of every absolute import outside ``nccl_course`` that ``path`` makes
    anywhere in its body (``from sqlalchemy.orm import Session`` -> ``sqlalchemy``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found - {"nccl_course"}


WEB = {"fastapi", "starlette", "uvicorn"}
SQL = {"sqlalchemy", "alembic"}
# What each part of the course server may not import: its own parts above it, and for the exam
# the web and the database. server -> issuing -> store -> exam (and certs, quiz, i18n below).
SERVER_LAYERS = {
    "exam": ({"server", "store", "issuing", "commands"}, WEB | SQL),
    "store": ({"server", "issuing", "commands"}, WEB),
    "issuing": ({"server", "commands"}, WEB),
    "certs": ({"server", "store", "issuing", "exam", "commands"}, WEB | SQL),
}


def layering_violations(modules: list[Path] = MODULES) -> list[str]:
    """Each import of a module of ``exam``, ``store``, ``issuing`` or ``certs`` that goes up
    (``SERVER_LAYERS``), ours or a third party's, as ``module -> what it imports``."""
    found = []
    for path in modules:
        source = module_name(path)
        part = part_of(source)
        if part not in SERVER_LAYERS:
            continue
        parts_above, libraries = SERVER_LAYERS[part]
        ours = {t for t in imported_modules(path) if part_of(t) in parts_above}
        theirs = third_party_imports(path) & libraries
        found += [f"{source} -> {name}" for name in sorted(ours | theirs)]
    return found


def test_the_exam_server_is_layered():
    """``exam`` is the exam's rules with no web and no SQL; ``store`` (SQLAlchemy, migrations,
    backups) knows nothing of the server or of issuing; ``issuing`` knows nothing of the server;
    ``certs`` knows nothing of any of them (it can be audited alone). Imports inside functions
    count, and so do third-party ones (``fastapi``, ``starlette``, ``sqlalchemy``...)."""
    assert layering_violations() == []
    assert {"server", "store", "issuing", "exam"} <= {part_of(module_name(p)) for p in MODULES}


def test_layering_check_finds_a_made_up_violation(tmp_path, monkeypatch):
    """A made-up exam module that imports SQLAlchemy inside a function, and one that imports
    the server by a relative import, are both found; a pure one is not."""
    package = tmp_path / "nccl_course"
    (package / "exam").mkdir(parents=True)
    (package / "server").mkdir()
    sources = {
        package / "__init__.py": "",
        package / "exam" / "__init__.py": "",
        package / "server" / "__init__.py": "",
        package / "server" / "app.py": "APP = 1\n",
        package / "exam" / "rules.py": "import json\n\nfrom nccl_course.exam import pure\n",
        package / "exam" / "pure.py": "def f():\n    return 1\n",
        package / "exam" / "sql.py": "def f():\n    from sqlalchemy.orm import Session\n",
        package / "exam" / "web.py": "from ..server.app import APP\nimport starlette.requests\n",
    }
    for path, text in sources.items():
        path.write_text(text)
    monkeypatch.setitem(globals(), "PACKAGE", package)
    assert layering_violations(sorted(sources)) == [
        "nccl_course.exam.sql -> sqlalchemy",
        "nccl_course.exam.web -> nccl_course.server.app",
        "nccl_course.exam.web -> starlette",
    ]


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


ARCHITECTURE = PACKAGE.parents[1] / "docs" / "ARCHITECTURE.md"
ARROW = re.compile(r"([\w*/]+) ──> ([\w, ]+?)(?=\s{2,}|\s*\(|$)")


def drawn_graph(text: str) -> tuple[dict[str, set[str]], set[str], set[str]]:
    """(arrows, bottom, every part named) of the diagram under "Imports go one way"."""
    block = text.split("### Imports go one way", 1)[1].split("```", 2)[1]
    arrows: dict[str, set[str]] = defaultdict(set)
    bottom: set[str] = set()
    named: set[str] = set()
    for line in block.splitlines():
        if "(bottom" in line:
            bottom = {p.strip() for p in line.split("(", 1)[0].split(",") if p.strip()}
            named |= bottom
            continue
        for source, targets in ARROW.findall(line):
            arrows[source] |= {t.strip() for t in targets.split(",") if t.strip()}
            named |= {source} | arrows[source]
        named |= set(re.findall(r"^(\w+)\s{2,}\(", line.strip()))
    return arrows, bottom, named


def reachable(arrows: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in arrows.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_architecture_diagram_is_the_imports():
    """Every import between parts is drawn (an arrow, a path of arrows, or a part of the
    bottom row), every part is named, and every arrow is an import that exists."""
    arrows, bottom, named = drawn_graph(ARCHITECTURE.read_text(encoding="utf-8"))
    real = part_graph()
    top = {"commands", "cli", "__main__"}
    parts = {part_of(module_name(p)) for p in MODULES} - top - {"__init__"}
    assert parts <= named, f"parts not in docs/ARCHITECTURE.md's diagram: {parts - named}"
    missing = [
        f"{source} -> {target}"
        for source, targets in real.items()
        if source not in top
        for target in targets
        if target not in bottom and target not in reachable(arrows, source)
    ]
    assert not missing, f"imports the diagram does not draw: {missing}"
    invented = [
        f"{source} -> {target}"
        for source, targets in arrows.items()
        for target in targets
        if target not in real.get(source, set())
    ]
    assert not invented, f"arrows with no import behind them: {invented}"


def test_the_diagram_reader_sees_arrows_and_the_bottom_row():
    text = "### Imports go one way\n\n```\na ──> b, c          d ──> e\nb  (nothing)\n"
    text += "c, e   (bottom: the standard library)\n```\n"
    arrows, bottom, named = drawn_graph(text)
    assert arrows == {"a": {"b", "c"}, "d": {"e"}}
    assert bottom == {"c", "e"} and named == {"a", "b", "c", "d", "e"}
    assert reachable({"a": {"b"}, "b": {"c"}}, "a") == {"b", "c"}
