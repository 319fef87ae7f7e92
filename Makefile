# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
CATALOGUES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/django.po))

.PHONY: run test lint format messages bench-reports

run: $(VENV)/.installed $(CATALOGUES)
	@mkdir -p var
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py loaddemo
	@echo "Quizsite is on http://$(HOST):$(PORT)/ (Ctrl-C stops it)"
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# The suite runs twice: on SQLite, then on a private PostgreSQL server it starts and stops.
test: $(VENV)/.installed $(CATALOGUES)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/pytest
	scripts/postgres start
	DATABASE_URL=$$(scripts/postgres url) $(BIN)/pytest; status=$$?; scripts/postgres stop; exit $$status

# Times the score reports at 1,000, 10,000 and 100,000 attempts on the private PostgreSQL
# cluster, in a database of its own that it recreates (bench/REPORTS.md).
bench-reports: $(VENV)/.installed $(CATALOGUES)
	scripts/postgres start
	DATABASE_URL=$$(QUIZSITE_PG_DATABASE=quizsite_bench scripts/postgres url) $(BIN)/python bench/reports.py; status=$$?; scripts/postgres stop; exit $$status

lint: $(VENV)/.installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Refresh the catalogues after changing user-facing text, then translate what is new.
messages: $(VENV)/.installed
	$(BIN)/python manage.py makemessages --all --no-obsolete --no-wrap --ignore=.venv --ignore=var --ignore=tests

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test]"
	@touch $@

%.mo: %.po
	@command -v msgfmt >/dev/null || (apt-get update -qq && apt-get install -y -qq gettext)
	msgfmt --check -o $@ $<
