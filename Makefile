# The two commands of the README: `make play` (the game) and `make test` (the whole suite).
# Only python3 and make are assumed; everything else is installed into .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.play: $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install -q -c constraints.txt -e '.[tui]'
	touch $@

$(VENV)/.test: $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install -q -c constraints.txt -e '.[test]'
	touch $@ $(VENV)/.play $(VENV)/.sim $(VENV)/.envs $(VENV)/.ray

# The extras beyond the game, for the commands that need them: `make sim`, `make envs`,
# `make ray` (tournaments on a Ray cluster).
$(VENV)/.sim $(VENV)/.envs $(VENV)/.ray: $(VENV)/.%: $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/pip install -q -c constraints.txt -e '.[tui,$*]'
	touch $@

.PHONY: play sim envs ray test lint bench clean
sim: $(VENV)/.sim  ## install the tournament extra (tournament, compare)
envs: $(VENV)/.envs  ## install the research environments (envs check)
ray: $(VENV)/.ray  ## install Ray for tournament --backend ray

play: $(VENV)/.play  ## run the game
	$(BIN)/piepmatz play $(ARGS)

lint: $(VENV)/.test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy

test: lint  ## the whole test suite: ruff, mypy --strict, pytest
	$(BIN)/pytest -n 2 -q

bench: $(VENV)/.test
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
