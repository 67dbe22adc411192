"""The quiz package's modules depend one way: model <- objectives <- parsing <- banks, and model
on keys (when called): keys reads an instance without importing model.

Checked on the imports each module makes when it is loaded. ``QuestionInstance.key()`` in
``model`` imports ``keys`` when called, not when ``model`` is loaded.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import nccl_course.quiz

QUIZ = Path(nccl_course.quiz.__file__).parent
LAYERS = ("model", "objectives", "parsing", "banks", "keys")
# The modules of the package each one may import when loaded.
ALLOWED = {
    "model": set(),
    "objectives": {"model"},
    "parsing": {"model", "objectives"},
    "banks": {"model", "objectives", "parsing"},
    "keys": {"model"},
}


def load_time_imports(name: str) -> set[str]:
    """Sibling modules among LAYERS that ``name`` imports at module level."""
    tree = ast.parse((QUIZ / f"{name}.py").read_text())
    found = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("nccl_course.quiz."):
                found.add(node.module.rsplit(".", 1)[1])
            elif node.module == "nccl_course.quiz":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(
                a.name.rsplit(".", 1)[1] for a in node.names if "nccl_course.quiz." in a.name
            )
    return found & set(LAYERS)


@pytest.mark.parametrize("name", LAYERS)
def test_modules_import_only_the_layers_below(name):
    assert load_time_imports(name) <= ALLOWED[name]


@pytest.mark.parametrize("name", LAYERS)
def test_each_module_says_its_concept_and_stays_short(name):
    path = QUIZ / f"{name}.py"
    assert ast.get_docstring(ast.parse(path.read_text())), name
    assert len(path.read_text().splitlines()) <= 500, name
