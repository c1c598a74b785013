# Two commands on a fresh machine: `make verify` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: verify test smoke lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

verify: $(STAMP)
	$(PY) -m verify $(ARGS)

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest $(ARGS)

# fresh venv, install, fast tests and `verify --paper chen` on each other Python 3.10-3.13 (or VERSIONS="3.12 3.13")
smoke:
	PYTHON=$(PYTHON) bash .ci/smoke $(VERSIONS)

bench: $(STAMP)
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/compare.py

clean:
	rm -rf $(VENV) .venv3* output
