# Two commands set everything up on a fresh machine:
#   make run   - create .venv, install, compile the kernels, migrate, load demo data if empty,
#                serve :5000
#   make test  - create .venv, install dev tools (and chromium as root), compile the kernels,
#                run every test
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
FLASK  := $(BIN)/flask --app app
HOST   ?= 127.0.0.1
PORT   ?= 5000
# The suite runs on every core (pytest-xdist; docs/testing.md); TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal --durations=15

.PHONY: run test test-setup test-postgres bench lint format clean chromium java

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt requirements-spark.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

# The trajectory kernels compiled into numba's cache (beside their source) once per checkout
# and again when they change, so that no user's first report compiles them.
KERNELS := app/core/trajectory/fast/__pycache__/.compiled
$(KERNELS): app/core/trajectory/fast/*.py | $(VENV)/.runtime
	@$(FLASK) analytics compile-kernels
	@touch $@

run: $(VENV)/.runtime $(KERNELS)
	@$(FLASK) demo --if-empty
	@echo "Serving http://$(HOST):$(PORT)  (Ctrl-C stops)"
	FLASK_SESSION_COOKIE_SECURE=false $(FLASK) run --host $(HOST) --port $(PORT)

chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || { echo "could not install chromium with apt-get"; exit 1; }; \
	  else echo "chromium is missing: browser tests will be skipped (CI=true fails them)"; fi; \
	fi

java:
	@if ! command -v java >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null) \
	      || { echo "could not install Java 17 with apt-get"; exit 1; }; \
	  else echo "java is missing: the Spark test will be skipped (CI=true fails it)"; fi; \
	fi

# What the suite needs before it starts (.ci/run makes it once for its two runs side by side).
test-setup: $(VENV)/.dev chromium java $(KERNELS)

test: test-setup
	$(PYTEST) $(PYTEST_ARGS)

test-postgres: test-setup
	TEST_DATABASE_URL=$${TEST_DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/test} \
	  $(PYTEST) $(PYTEST_ARGS)

bench: $(VENV)/.dev
	$(BIN)/python bench/run_all.py

lint: $(VENV)/.dev
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

format: $(VENV)/.dev
	$(BIN)/ruff format . && $(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
