# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
CATALOGUES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/django.po))

.PHONY: run test lint format messages

run: $(VENV)/.installed $(CATALOGUES)
	@mkdir -p var
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py loaddemo
	@echo "Quizsite is on http://$(HOST):$(PORT)/ (Ctrl-C stops it)"
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# The suite runs twice: on SQLite, then on a private PostgreSQL server it starts and stops.
test: $(VENV)/.installed $(CATALOGUES) $(BROWSER_TOOLS)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/pytest
	scripts/postgres start
	DATABASE_URL=$$(scripts/postgres url) $(BIN)/pytest; status=$$?; scripts/postgres stop; exit $$status

lint: $(VENV)/.installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Refresh the catalogues after changing user-facing text, then translate what is new.
messages: $(VENV)/.installed
	$(BIN)/python manage.py makemessages --all --no-obsolete --no-wrap --ignore=.venv --ignore=var --ignore=tests

# What the browser tests (tests/browser/) drive and check with: Debian's Chromium and a Java
# runtime, axe-core and the Nu Html Checker (vnu.jar) pinned in package-lock.json. npm skips
# vnu-jar's install script, which would download a Java runtime of its own.
BROWSER_TOOLS := /usr/bin/chromium /usr/bin/java node_modules/.installed

/usr/bin/chromium:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

/usr/bin/java:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless

node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm)
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	@touch $@

%.mo: %.po
	@command -v msgfmt >/dev/null || (apt-get update -qq && apt-get install -y -qq gettext)
	msgfmt --check -o $@ $<
