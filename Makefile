# Two commands on a fresh machine: `make verify` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: verify test docs smoke lint bench conformance coverage notebooks explore clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# the peers (jax, blackjax, SGMCMCJax; posteriors on CPU torch) on top of the test install: `make test` runs one
# quick conformance case per peer adapter, `make conformance` all of them (PEERS= leaves them out; the adapter
# tests then skip and say so)
PEERS ?= bench,conformance-torch
CONFORMANCE_STAMP := $(VENV)/.conformance
$(CONFORMANCE_STAMP): $(STAMP) pyproject.toml
	if [ -n "$(PEERS)" ]; then $(PY) -m pip install --quiet -e '.[test,$(PEERS)]'; fi
	touch $(CONFORMANCE_STAMP)

# the reference site's tools (Sphinx, MyST, numpydoc, furo): `make docs` and the site test of `make test` need them
DOCS_STAMP := $(VENV)/.docs
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet -e '.[test,docs]'
	touch $(DOCS_STAMP)

verify: $(STAMP)
	$(PY) -m verify $(ARGS)

test: $(CONFORMANCE_STAMP) $(DOCS_STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -n auto --dist loadgroup $(ARGS)

# the reference site, offline, into output/site: docs/ (Markdown) and the API reference from the numpydoc docstrings;
# every warning is an error (nitpicky: every cross-reference resolves), then every internal link and anchor is checked
docs: $(DOCS_STAMP)
	rm -rf output/site output/.site-doctrees
	$(PY) -m sphinx -b html -n -W -d output/.site-doctrees docs output/site
	$(PY) docs/check_links.py output/site

# fresh venv, install, fast tests and `verify --paper chen` on each other Python 3.10-3.13 (or VERSIONS="3.12 3.13")
smoke:
	PYTHON=$(PYTHON) bash .ci/smoke $(VERSIONS)

bench: $(STAMP)
	$(PY) benchmarks/throughput.py
	$(PY) benchmarks/compare.py

# executed copies of the notebooks, with their figures, in output/notebooks (the repository keeps them without outputs)
notebooks: $(STAMP)
	$(PY) notebooks/execute.py $(ARGS)

# the step-size / minibatch explorer: the table, and output/explore/explorer.html
explore: $(STAMP)
	$(PY) -m verify.explore $(ARGS)

conformance: $(CONFORMANCE_STAMP)
	$(PY) -m verify.conformance $(ARGS)

# which public functions of simulate/ and theory/ a default `python -m verify` runs (docs/verify_coverage.md)
coverage: $(STAMP)
	$(PY) benchmarks/verify_coverage.py --write

clean:
	rm -rf $(VENV) .venv3* output
