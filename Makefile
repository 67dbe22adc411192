# Thin wrappers: the logic lives in scripts/ and in the nccl_course package.
PY      := .venv/bin/python
STAMP   := .venv/.setup-done
HOST    ?= 127.0.0.1
PORT    ?= 8000
PYTEST_ARGS ?=

.PHONY: setup serve test book lint format pytest clean lock

setup: $(STAMP)

$(STAMP): requirements/lock.txt pyproject.toml package.json package-lock.json scripts/install_torch.py
	python3 -m venv .venv
	$(PY) -m pip install --disable-pip-version-check -q -r requirements/lock.txt
	$(PY) scripts/install_torch.py
	$(PY) -m pip install --disable-pip-version-check -q --no-deps -e .
	npm ci --no-audit --no-fund --loglevel=error
	touch $(STAMP)

serve: setup book
	.venv/bin/nccl-course serve --host $(HOST) --port $(PORT)

test: setup lint book pytest

book: setup
	.venv/bin/jupyter-book build . --warningiserror --nitpick --keep-going

lint: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

format: setup
	.venv/bin/ruff format .
	.venv/bin/ruff check --fix .

pytest: setup
	$(PY) -m pytest $(PYTEST_ARGS)

lock: setup
	$(PY) scripts/freeze_lock.py > requirements/lock.txt

clean:
	rm -rf _build .pytest_cache .ruff_cache
