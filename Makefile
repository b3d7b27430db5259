# The commands of the README: `make play` (the game), `make serve` (the online game server) and
# `make test` (the whole suite).
# Only python3 and make are assumed; everything else is installed into .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# pip compiles every installed module up front (half of a fresh install's time with the test
# extra); with --no-compile Python compiles each module on its first import instead, once.
PIP := $(BIN)/pip install -q --no-compile -c constraints.txt
# "Once" needs somewhere to keep the compiled modules: one cache inside .venv, written even
# where PYTHONDONTWRITEBYTECODE is set (as in many containers and CI images), and the source
# tree stays clean. Without it every process compiles every module it imports, each time: on
# the 2-core machine a server took 3.7 s to start instead of 1.3 s.
unexport PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX := $(abspath $(VENV))/pycache

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.play: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e '.[tui]'
	touch $@

$(VENV)/.serve: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e '.[server]'
	touch $@

$(VENV)/.test: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e '.[test]'
	touch $@ $(VENV)/.play $(VENV)/.sim $(VENV)/.envs $(VENV)/.ray $(VENV)/.serve $(VENV)/.review $(VENV)/.i18n

# The extras beyond the game, for the commands that need them: `make sim`, `make envs`,
# `make ray` (tournaments on a Ray cluster), `make review` (game review), and Babel for
# `make translations`.
$(VENV)/.sim $(VENV)/.envs $(VENV)/.ray $(VENV)/.review $(VENV)/.i18n: $(VENV)/.%: $(BIN)/python pyproject.toml constraints.txt
	$(PIP) -e '.[tui,$*]'
	touch $@

.PHONY: play serve sim envs ray review test lint docs bench postgresql redis chromium nginx clean translations
sim: $(VENV)/.sim  ## install the tournament extra (tournament, compare)
envs: $(VENV)/.envs  ## install the research environments (envs check)
ray: $(VENV)/.ray  ## install Ray for tournament --backend ray
review: $(VENV)/.review  ## install the game review's extra (review)

play: $(VENV)/.play  ## run the game
	$(BIN)/piepmatz play $(ARGS)

serve: $(VENV)/.serve  ## the online game server on 127.0.0.1:8000
	$(BIN)/piepmatz serve $(ARGS)

# The server's tests run against PostgreSQL too: the one on 127.0.0.1:5432 when it answers,
# else a throwaway one they start from Debian's postgresql package, installed here if missing.
postgresql:
	@pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
	  || command -v initdb >/dev/null 2>&1 \
	  || (apt-get update -q && apt-get install -y -q postgresql) \
	  || (sudo apt-get update -q && sudo apt-get install -y -q postgresql)

# The tests of several server processes need Redis too: the one on 127.0.0.1:6379 when it
# answers, else a throwaway redis-server they start, from Debian's package installed here.
redis:
	@redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || command -v redis-server >/dev/null 2>&1 \
	  || (apt-get update -q && apt-get install -y -q redis-server) \
	  || (sudo apt-get update -q && sudo apt-get install -y -q redis-server)

# The browser tests drive Debian's chromium (Playwright's own browser download is not used);
# installed here when missing, and a clear failure where it cannot be.
chromium:
	@test -x /usr/bin/chromium || command -v chromium >/dev/null 2>&1 \
	  || (apt-get update -q && apt-get install -y -q chromium) \
	  || (sudo -n apt-get update -q && sudo -n apt-get install -y -q chromium) \
	  || { echo "make test: the browser tests need Chromium; install Debian's chromium package" \
	       "(apt-get install -y chromium, as root) and run make test again" >&2; exit 1; }

# The deployment test runs Debian's nginx with the documented site (docs/deploy/nginx.conf) in
# front of two server processes; installed here when missing.
nginx:
	@test -x /usr/sbin/nginx || command -v nginx >/dev/null 2>&1 \
	  || (apt-get update -q && apt-get install -y -q nginx-light) \
	  || (sudo -n apt-get update -q && sudo -n apt-get install -y -q nginx-light) \
	  || { echo "make test: the deployment test needs nginx; install Debian's nginx-light package" \
	       "(apt-get install -y nginx-light, as root) and run make test again" >&2; exit 1; }

lint: $(VENV)/.test docs
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/oxlint --deny-warnings src/piepmatz/server/static

# The documentation site (mkdocs.yml) from docs/ and the docstrings, into artefacts/site/: strict,
# so a broken link or anchor, a page left out of the navigation or an API name the code no longer
# has fails the build. (The variable silences Material's notice about MkDocs' future.)
docs: $(VENV)/.test
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

test: lint postgresql redis chromium nginx  ## the whole test suite: lint, mypy --strict, the docs, pytest
	$(BIN)/pytest -n 2 --dist loadgroup -q --durations=15

# The message catalogues: the marked texts extracted and merged into every language's .po, then
# checked and compiled to the .mo files the game reads (translate the new entries in between,
# then run again): each catalogue's count of texts translated, and every text translated wrongly.
translations: $(VENV)/.i18n
	$(BIN)/python -m piepmatz.i18n update
	$(BIN)/python -m piepmatz.i18n compile

bench: $(VENV)/.test
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis artefacts
