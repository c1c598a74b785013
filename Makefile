# Two commands on a fresh machine: `make verify` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: verify test lint bench conformance notebooks explore clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# the peers (jax, blackjax, SGMCMCJax; posteriors on CPU torch) on top of the test install
CONFORMANCE_STAMP := $(VENV)/.conformance
$(CONFORMANCE_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[test,bench,conformance-torch]'
	touch $(CONFORMANCE_STAMP)

verify: $(STAMP)
	$(PY) -m verify $(ARGS)

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest $(ARGS)

bench: $(STAMP)
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/compare.py

# executed copies of the notebooks, with their figures, in output/notebooks (the repository keeps them without outputs)
notebooks: $(STAMP)
	$(PY) notebooks/execute.py $(ARGS)

# the step-size / minibatch explorer: the table, and output/explore/explorer.html
explore: $(STAMP)
	$(PY) -m theory.explore $(ARGS)

conformance: $(CONFORMANCE_STAMP)
	$(PY) -m verify.conformance $(ARGS)

clean:
	rm -rf $(VENV) output
