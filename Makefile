# The two commands of the README: `make run` and `make test`; `make serve`, `make stop` and
# `make bench` for the production-like site on this machine. Both sites run the task worker
# (`manage.py db_worker`: the admin's large imports) beside the web server.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
CATALOGUES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/django.po))
# The project runs on Django 5.2 LTS (.venv) and is tested once more on the newest Django 6
# and a newer Python, in a venv of its own.
PYTHON_NEW ?= $(or $(lastword $(sort $(wildcard $(HOME)/.pyenv/versions/3.1[2-9]*/bin/python))),$(firstword $(shell command -v python3.13 python3.12)))
VENV_NEW := .venv-django6
# Production settings over plain HTTP on loopback, the private PostgreSQL cluster.
SERVE_ENV = DEBUG=false HTTPS=false ALLOWED_HOSTS=$(HOST),localhost HOST=$(HOST) PORT=$(PORT) SITE_URL=http://$(HOST):$(PORT) \
	SECRET_KEY=$$(cat var/secret_key) DATABASE_URL=$$(scripts/postgres url) $(EXTRA_ENV)
# The benchmark's learners start attempts far faster than people do: its server lifts the
# limit on attempts started (a bench against URL= needs these settings in that server).
BENCH_ENV := ATTEMPT_STARTS_PER_LEARNER_PER_HOUR=1000000000 ATTEMPT_STARTS_PER_ADDRESS_PER_HOUR=1000000000
GUNICORN_DAEMON := --daemon --pid var/gunicorn.pid --access-logfile var/gunicorn.log --error-logfile var/gunicorn.log
# Stops the task worker of var/worker.pid, if it runs, once its task in hand is done.
WORKER_STOP = if [ -s var/worker.pid ] && kill -0 $$(cat var/worker.pid) 2>/dev/null; then \
	  pid=$$(cat var/worker.pid); kill -TERM $$pid; while kill -0 $$pid 2>/dev/null; do sleep 0.2; done; \
	  echo "task worker stopped"; fi; rm -f var/worker.pid
LEARNERS ?= 50
DURATION ?= 20

# What the browser tests (tests/browser/) drive and check with: Debian's Chromium and a Java
# runtime, axe-core and the Nu Html Checker (vnu.jar) pinned in package-lock.json, with the
# Compose specification's schema for tests/quizsite/test_deployment.py. npm skips vnu-jar's
# install script, which would download a Java runtime of its own.
BROWSER_TOOLS := /usr/bin/chromium /usr/bin/java node_modules/.installed
# Each pytest run: one pytest-xdist worker per core, each with its own test database, browser
# and live server (a group marked xdist_group stays on one worker); the 15 slowest printed.
PYTEST_ARGS ?= -n auto --dist loadgroup --durations=15

.PHONY: run test test-random lint format messages serve stop bench bench-reports bench-gradebook bench-learner

run: $(VENV)/.installed $(CATALOGUES)
	@mkdir -p var
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py loaddemo
	@echo "Quizsite is on http://$(HOST):$(PORT)/ (Ctrl-C stops it and its task worker)"
	$(BIN)/python manage.py db_worker & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	  $(BIN)/python manage.py runserver $(HOST):$(PORT)

# The suite runs on SQLite, then on a private PostgreSQL server it starts on a free port and
# stops (a larger pool: the race tests' threads and the browser tests' live server share one
# process; each worker has a pool and a test database of its own), then on SQLite again under
# the newest Django 6. The browser tests (two thirds of a run's time) drive the production's
# database, so they run in the PostgreSQL pass only: the other two passes run everything else.
# The order is the same every run; `make test-random` shuffles it.
test: $(VENV)/.installed $(VENV_NEW)/.installed $(CATALOGUES) $(BROWSER_TOOLS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	@mkdir -p var
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/pytest $(PYTEST_ARGS) --ignore=tests/browser
	export QUIZSITE_PG_PORT=$${QUIZSITE_PG_PORT:-$$(scripts/free-port)}; scripts/postgres start && \
	  DATABASE_URL=$$(scripts/postgres url) DATABASE_POOL_MAX_SIZE=8 $(BIN)/pytest $(PYTEST_ARGS); \
	  status=$$?; scripts/postgres stop; exit $$status
	$(VENV_NEW)/bin/python -c 'import sys, django; print("Python", sys.version.split()[0], "Django", django.__version__)'
	$(VENV_NEW)/bin/pytest $(PYTEST_ARGS) --ignore=tests/browser

# The suite on SQLite in a random order (pytest-randomly), to find a test that depends on what
# ran before it. It prints the order's seed ("Using --randomly-seed=N"); SEED=N runs that
# order again.
test-random: $(VENV)/.installed $(CATALOGUES) $(BROWSER_TOOLS)
	@mkdir -p var
	$(BIN)/pytest -p randomly $(if $(SEED),--randomly-seed=$(SEED)) $(PYTEST_ARGS)

# The production-like site: PostgreSQL, production settings, gunicorn in the background.
serve: $(VENV)/.installed $(CATALOGUES) var/secret_key
	scripts/postgres start
	$(SERVE_ENV) $(BIN)/python manage.py collectstatic --noinput
	$(SERVE_ENV) $(BIN)/python manage.py migrate --noinput
	$(SERVE_ENV) $(BIN)/python manage.py loaddemo
	@if [ -s var/gunicorn.pid ] && kill -0 $$(cat var/gunicorn.pid) 2>/dev/null; then \
	  kill -HUP $$(cat var/gunicorn.pid); echo "gunicorn was running: reloaded it"; \
	else \
	  $(SERVE_ENV) GUNICORN_CMD_ARGS="$(GUNICORN_DAEMON)" $(BIN)/gunicorn --config gunicorn.conf.py quizsite.wsgi; \
	fi
	@$(WORKER_STOP)
	$(SERVE_ENV) nohup $(BIN)/python manage.py db_worker >>var/worker.log 2>&1 & echo $$! >var/worker.pid
	$(BIN)/python scripts/wait_for_http.py http://$(HOST):$(PORT)/healthz
	@echo "Quizsite (production settings, PostgreSQL) is on http://$(HOST):$(PORT)/; make stop stops it. Logs: var/gunicorn.log, var/worker.log"

stop:
	@if [ -s var/gunicorn.pid ] && kill -0 $$(cat var/gunicorn.pid) 2>/dev/null; then \
	  pid=$$(cat var/gunicorn.pid); kill -TERM $$pid; \
	  while kill -0 $$pid 2>/dev/null; do sleep 0.2; done; echo "gunicorn stopped"; \
	fi
	@$(WORKER_STOP)
	scripts/postgres stop

# LEARNERS simulated learners for DURATION seconds against `make serve` (started, then stopped),
# or against URL=http://127.0.0.1:8000 (for example `make run` on SQLite) when given.
bench: $(VENV)/.installed
ifdef URL
	$(BIN)/python bench/bench.py --url $(URL) --learners $(LEARNERS) --seconds $(DURATION) $(if $(PATHS),--paths $(PATHS)) $(if $(THINK),--think $(THINK))
else
	$(MAKE) serve EXTRA_ENV="$(BENCH_ENV)"
	$(SERVE_ENV) $(BIN)/python bench/bench.py --url http://$(HOST):$(PORT) --learners $(LEARNERS) --seconds $(DURATION) \
	  --cpu-pidfile var/gunicorn.pid --cpu-pidfile var/postgres/data/postmaster.pid $(if $(PATHS),--paths $(PATHS)) \
	  $(if $(THINK),--think $(THINK)); \
	  status=$$?; $(MAKE) stop; exit $$status
endif

# Times the score reports at 1,000, 10,000 and 100,000 attempts on the private PostgreSQL
# cluster, in a database of its own that it recreates (bench/REPORTS.md).
bench-reports: $(VENV)/.installed $(CATALOGUES)
	scripts/postgres start
	DATABASE_URL=$$(QUIZSITE_PG_DATABASE=quizsite_bench scripts/postgres url) $(BIN)/python bench/reports.py; status=$$?; scripts/postgres stop; exit $$status

# Times the quiz page, My progress and the home page for a learner with 1 and with 1,000
# attempts, and fails if the long history costs more than 1.5 times as much (bench/REPORTS.md).
bench-learner: $(VENV)/.installed $(CATALOGUES)
	scripts/postgres start
	DATABASE_URL=$$(QUIZSITE_PG_DATABASE=learner_bench scripts/postgres url) $(BIN)/python bench/learner_history.py; status=$$?; scripts/postgres stop; exit $$status

# Times a class's gradebook, 500 learners × 20 assignments, on the private PostgreSQL
# cluster, in a database of its own that it recreates (bench/REPORTS.md, "The gradebook").
bench-gradebook: $(VENV)/.installed $(CATALOGUES)
	scripts/postgres start
	DATABASE_URL=$$(QUIZSITE_PG_DATABASE=quizsite_bench scripts/postgres url) $(BIN)/python bench/gradebook.py; status=$$?; scripts/postgres stop; exit $$status

lint: $(VENV)/.installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Refresh the catalogues after changing user-facing text, then translate what is new.
messages: $(VENV)/.installed
	$(BIN)/python manage.py makemessages --all --no-obsolete --no-wrap --ignore=.venv --ignore=.venv-django6 --ignore=node_modules --ignore=var --ignore=tests


/usr/bin/chromium:
	scripts/apt-install "The browser tests" chromium

/usr/bin/java:
	scripts/apt-install "The HTML checker of the browser tests" default-jre-headless

node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || scripts/apt-install "The browser tests' checkers" npm
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]" "django>=5.2,<5.3"
	@touch $@

$(VENV_NEW)/.installed: pyproject.toml
	@test -x $(VENV_NEW)/bin/python || test -n "$(PYTHON_NEW)" || { echo "make test runs the suite \
	again on Django 6, which needs Python 3.12 or newer: install one, or name it in PYTHON_NEW=."; exit 1; }
	test -x $(VENV_NEW)/bin/python || $(PYTHON_NEW) -m venv $(VENV_NEW)
	$(VENV_NEW)/bin/pip install --quiet --upgrade pip
	$(VENV_NEW)/bin/pip install --quiet --upgrade -e ".[test]" "django>=6,<7"
	@touch $@

var/secret_key:
	@mkdir -p var
	$(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))' > $@

%.mo: %.po
	@command -v msgfmt >/dev/null || scripts/apt-install "Compiling the translations" gettext
	msgfmt --check -o $@ $<
