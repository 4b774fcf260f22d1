# The two commands a newcomer needs are `make demo` and `make test`; both bootstrap
# the environment first (uv through pip when missing, then the workspace from uv.lock),
# saying what each step does, and skip it when .venv is already in step with uv.lock.
SHELL := /bin/bash
PYTHON ?= python3
export UV_PYTHON_DOWNLOADS := never
# Installed modules are compiled once, at sync: where PYTHONDONTWRITEBYTECODE is set, every process
# (the suite starts hundreds) would otherwise compile httpx, jsonschema, pytest... again.
export UV_COMPILE_BYTECODE := 1
# Recursive so that a uv installed by `bootstrap` is found by the later recipes.
UV = $(shell command -v uv 2>/dev/null || echo "$(PYTHON) -m uv")
RUN = $(UV) run --no-sync
# Written once .venv holds the workspace as uv.lock and the pyproject files say: while it is
# newer than all of them, there is nothing to sync and the recipes start at once
# (`make clean`, or removing the file, forces the next sync).
SYNCED = .venv/.synced-with-uv-lock
# The workspace's own sources are installed editable, so uv compiles none of them: `make test`
# compiles them once (only what changed since), or each process the suite starts would compile
# the host, the lint and the conformance suite again where PYTHONDONTWRITEBYTECODE is set.
# A source that does not compile is left to the suite to report (hence the recipe's `-`).
WORKSPACE_SOURCES = $(wildcard */src plugins/*/src extensions/*/src apps/*/src examples/*/src)
WORKSPACE_FILES = uv.lock pyproject.toml $(wildcard */pyproject.toml plugins/*/pyproject.toml extensions/*/pyproject.toml apps/*/pyproject.toml examples/*/pyproject.toml)

.PHONY: bootstrap demo test bench lint mutation conformance-mcp clean

bootstrap: $(SYNCED)
	@:

$(SYNCED): $(WORKSPACE_FILES)
	@echo "agentkit: setting up (uv; the environment .venv; the workspace from uv.lock)"
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "agentkit needs Python 3.11 or newer: run make with PYTHON=/path/to/python3.11")'
	@if command -v uv >/dev/null 2>&1 || $(PYTHON) -m uv --version >/dev/null 2>&1; then \
		echo "agentkit: uv: $$($(UV) --version)"; \
	else \
		echo "agentkit: uv: not found, installing it with pip"; \
		$(PYTHON) -m pip install --quiet --disable-pip-version-check uv \
		|| $(PYTHON) -m pip install --quiet --disable-pip-version-check --user uv; \
	fi
	@echo "agentkit: the environment: .venv with $$($(PYTHON) -c 'import sys; print("Python", sys.version.split()[0])')"
	@echo "agentkit: the workspace: installing the locked packages into .venv (the first time takes a while)"
	@# uv's own progress on a terminal; in a log (CI), only errors.
	@if [ -t 1 ]; then quiet=; else quiet=--quiet; fi; \
		$(UV) sync --all-packages --locked $$quiet --python $(PYTHON)
	@touch $@
	@echo "agentkit: ready"

demo: bootstrap
	@$(RUN) agentkit demo

# One worker more than the cores (conftest.py, docs/decisions/0010-tests-run-in-parallel.md); `-p no:xdist` runs them in one process.
test: bootstrap
	@command -v initdb >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1 || test -x "$$(pg_config --bindir 2>/dev/null)/initdb" \
		|| { echo "The PostgreSQL store's tests start a real server: install PostgreSQL 14 or newer (Debian/Ubuntu: apt install postgresql; macOS: brew install postgresql; Fedora: dnf install postgresql-server) or put its bin directory on PATH"; exit 1; }
	@-$(RUN) python -m compileall -q $(WORKSPACE_SOURCES)
	$(RUN) pytest -n auto --dist worksteal

# The benchmarks run in an environment of their own, .venv-bench: the workspace plus the `bench` group
# (pydantic-ai, what the durable runs' cost is compared with; docs/decisions/0042), which `make test`'s
# .venv never holds. The durable benchmark starts a PostgreSQL server (initdb, pg_ctl) of its own.
# The workspace's sources are compiled first, as for `make test`: where PYTHONDONTWRITEBYTECODE is set,
# every process bench_startup times would otherwise compile the host again and count it as start-up.
# UV is handed on: bench_startup builds a user's install of the host and a provider with it.
BENCH_ENV = .venv-bench
bench: bootstrap
	@-$(RUN) python -m compileall -q $(WORKSPACE_SOURCES)
	UV="$(UV)" UV_PROJECT_ENVIRONMENT=$(BENCH_ENV) $(UV) run --locked --all-packages --group bench python bench/run.py

# ruff for style, then mypy over every workspace member (scripts/typecheck.py; its flags are in
# pyproject.toml: strict on plugin_api and host).
lint: bootstrap
	$(RUN) ruff check .
	$(RUN) python scripts/typecheck.py

# Not part of `make test`: mutmut over the loop, the batch, the repair, hook calling
# and the wire decoders, then the kill ratio per module (see docs/mutation.md).
# MODULES="_batch wire/sse" narrows it; results are kept in .mutation/ between runs.
mutation: bootstrap
	$(UV) run --locked --all-packages --group mutation python mutation/run.py $(MODULES)

# Not part of `make test` (it needs the npm registry): the official MCP conformance suite against
# `agentkit mcp serve`'s server, at 2026-07-28 and at 2025-11-25; prints the pass counts per era.
# Node 22 and the suite come from the npm registry into .mcp-conformance/ (the machine's own Node may be older).
CONFORMANCE_MCP = .mcp-conformance
conformance-mcp: bootstrap
	@echo "agentkit: installing Node 22 and @modelcontextprotocol/conformance into $(CONFORMANCE_MCP)"
	@npm install --prefix $(CONFORMANCE_MCP) --no-audit --no-fund --loglevel=error \
		node@22 @modelcontextprotocol/conformance@0.2.0-alpha.12
	$(RUN) python apps/mcp_server/conformance/run.py $(CONFORMANCE_MCP)

clean:
	rm -rf .venv .venv-bench .pytest_cache .hypothesis .mutation .mcp-conformance
