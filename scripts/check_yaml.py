"""Fail with file and line when a YAML file does not parse (used by pre-commit)."""

import sys

import yaml

status = 0
for path in sys.argv[1:]:
    try:
        with open(path, encoding="utf-8") as handle:
            list(yaml.safe_load_all(handle))
    except yaml.YAMLError as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        status = 1
sys.exit(status)
