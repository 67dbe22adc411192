# Thin wrappers: the logic lives in scripts/ and in the nccl_course package.
PY      := .venv/bin/python
STAMP   := .venv/.setup-done
HOST    ?= 127.0.0.1
PORT    ?= 8000
PYTEST_ARGS ?=
# pytest-xdist workers; JOBS=0 runs in one process (for --pdb, or to read the output in order).
JOBS    ?= 2

.PHONY: setup setup-labs serve test test-fast book translations lint format pytest clean lock

setup: $(STAMP)

$(STAMP): requirements/lock.txt pyproject.toml package.json package-lock.json scripts/install_torch.py
	test -x $(PY) || python3 -m venv .venv
	@$(PY) -c 'import sys; sys.exit(sys.version_info < (3, 11) and "make setup needs Python 3.11+ (requirements/lock.txt); on a GPU node, make setup-labs runs the labs on 3.10")'
	$(PY) -m pip install --disable-pip-version-check -q -r requirements/lock.txt
	$(PY) scripts/install_torch.py
	$(PY) -m pip install --disable-pip-version-check -q --no-deps -e .
	npm ci --no-audit --no-fund --loglevel=error
	touch $(STAMP)

# A GPU node: only what the labs, the benchmark, the doctor and the report need (Python 3.10+,
# no Node). A new .venv sees the image's packages, so a CUDA torch already there is kept.
LABS_STAMP := .venv/.setup-labs-done
setup-labs: $(LABS_STAMP)

$(LABS_STAMP): requirements/labs.txt pyproject.toml scripts/install_torch.py
	test -x $(PY) || python3 -m venv --system-site-packages .venv
	$(PY) -m pip install --disable-pip-version-check -q -r requirements/labs.txt
	$(PY) scripts/install_torch.py
	$(PY) -m pip install --disable-pip-version-check -q --no-deps -e .
	touch $(LABS_STAMP)

serve: setup book
	.venv/bin/nccl-course serve --host $(HOST) --port $(PORT)

# The full suite: lint, the book build, every test in tests/ and labs/.
test: setup lint
	$(PY) scripts/run_tests.py --jobs $(JOBS) -- $(PYTEST_ARGS)

# The inner loop: lint and the tests that start no process, browser or book build. Which tests
# are slow is decided by rule in the root conftest.py, not here.
test-fast: setup lint
	$(PY) -m pytest -n $(JOBS) -m "not slow" $(PYTEST_ARGS)

# Both editions: English at _build/html, Turkish at _build/html/tr (after checking its catalogs).
book: setup
	$(PY) scripts/build_book.py

# After changing English text: merge it into locales/tr (changed entries become fuzzy).
translations: setup
	$(PY) scripts/update_translations.py

lint: setup
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	node_modules/.bin/eslint --max-warnings 0 .

format: setup
	.venv/bin/ruff format .
	.venv/bin/ruff check --fix .

pytest: setup
	$(PY) -m pytest -n $(JOBS) $(PYTEST_ARGS)

lock: setup
	$(PY) scripts/freeze_lock.py > requirements/lock.txt

clean:
	rm -rf _build .pytest_cache .ruff_cache

# The cloud launchers of labs/cloud/ (see labs/cloud/README.md). `cloud`: Modal's client in .venv,
# pinned to resolve with the lock (requirements/cloud.txt). `skypilot`: SkyPilot in a venv of its
# own, .venv-sky, because it needs click<8.2 and the lock pins a newer click.
.PHONY: cloud skypilot
CLOUD_STAMP := .venv/.cloud-done
SKY_STAMP   := .venv-sky/.setup-done

cloud: $(CLOUD_STAMP)

$(CLOUD_STAMP): $(STAMP) requirements/cloud.txt
	$(PY) -m pip install --disable-pip-version-check -q -r requirements/cloud.txt
	touch $(CLOUD_STAMP)

skypilot: $(SKY_STAMP)

$(SKY_STAMP): requirements/skypilot.txt
	python3 -m venv .venv-sky
	.venv-sky/bin/python -m pip install --disable-pip-version-check -q -r requirements/skypilot.txt
	touch $(SKY_STAMP)
