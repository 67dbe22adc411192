"""Reading YAML: PyYAML's safe loader on libyaml's C parser where PyYAML was built with it.

The pure-Python parser is about ten times slower, and the course reads a lot of YAML: the quiz
banks (about 2 MB, in the server, the book's build and the tests), the blueprint, the labs'
lab.yaml, the presets and the published sweeps. Both parsers build the same plain data (the
safe loader's types) and raise ``yaml.YAMLError`` with the line and column of a fault.
"""

from __future__ import annotations

from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: What either parser raises on text that is not YAML (with the fault's line and column).
YAMLError = yaml.YAMLError


def safe_load(text: str) -> Any:
    """The YAML document in ``text`` as plain data (dicts, lists, str, int, float, bool, None,
    dates), like ``yaml.safe_load``."""
    return yaml.load(text, Loader=_LOADER)  # a safe loader (CSafeLoader or SafeLoader)
