# The two commands a newcomer needs are `make demo` and `make test`; both bootstrap
# the environment first (uv through pip when missing, then the workspace from uv.lock).
SHELL := /bin/bash
PYTHON ?= python3
export UV_PYTHON_DOWNLOADS := never
# Recursive so that a uv installed by `bootstrap` is found by the later recipes.
UV = $(shell command -v uv 2>/dev/null || echo "$(PYTHON) -m uv")
RUN = $(UV) run --no-sync

.PHONY: bootstrap demo test bench lint mutation clean

bootstrap:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "agentkit needs Python 3.11 or newer: run make with PYTHON=/path/to/python3.11")'
	@command -v uv >/dev/null 2>&1 || $(PYTHON) -m uv --version >/dev/null 2>&1 \
		|| $(PYTHON) -m pip install --quiet --disable-pip-version-check uv \
		|| $(PYTHON) -m pip install --quiet --disable-pip-version-check --user uv
	@$(UV) sync --all-packages --locked --quiet --python $(PYTHON)

demo: bootstrap
	@$(RUN) agentkit demo

# One worker per core (docs/decisions/0010-tests-run-in-parallel.md); `-p no:xdist` runs them in one process.
test: bootstrap
	@command -v initdb >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1 || test -x "$$(pg_config --bindir 2>/dev/null)/initdb" \
		|| { echo "The PostgreSQL store's tests start a real server: install PostgreSQL 14 or newer (Debian/Ubuntu: apt install postgresql; macOS: brew install postgresql; Fedora: dnf install postgresql-server) or put its bin directory on PATH"; exit 1; }
	$(RUN) pytest -n auto --dist worksteal

bench: bootstrap
	$(RUN) python bench/run.py

# ruff for style, then mypy (configured in pyproject.toml: strict on plugin_api and host).
lint: bootstrap
	$(RUN) ruff check .
	$(RUN) mypy

# Not part of `make test`: mutmut over the loop, the batch, the repair, hook calling
# and the wire decoders, then the kill ratio per module (see docs/mutation.md).
# MODULES="_batch wire/sse" narrows it; results are kept in .mutation/ between runs.
mutation: bootstrap
	$(UV) run --locked --all-packages --group mutation python mutation/run.py $(MODULES)

clean:
	rm -rf .venv .pytest_cache .hypothesis .mutation
