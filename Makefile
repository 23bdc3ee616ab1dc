# codedlib — the Makefile targets are the user interface. Each target creates the project's
# virtual environment (.venv, with MPI from the `mpich` wheel) on first use.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.setup-done
# mpiexec from the mpich wheel lives in the venv's bin/
export PATH := $(BIN):$(PATH)
export PYTHONHASHSEED := 0
# one BLAS thread per process: the schemes run many small products, often in several processes
export OPENBLAS_NUM_THREADS := 1
export OMP_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
NOTEBOOK_TIMEOUT ?= 3600
# notebooks make figures runs at once (longest first); each one's seed runner uses every core
FIGURE_JOBS ?= 2
TEST_WORKERS ?= 2
CONSTRAINTS := constraints.txt

.DEFAULT_GOAL := help
.PHONY: help setup test lint figures book lab bench demo lock clean distclean

help: ## Show this help
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-9s %s\n", $$1, $$2}'

setup: $(STAMP) ## Create .venv and install codedlib with every extra (versions from constraints.txt)

$(STAMP): pyproject.toml $(CONSTRAINTS) jupyter/overrides.json
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[all]'
	@# JupyterLab defaults for this environment: widget messages on the main shell (see
	@# codedlib/widgets/_common.py) and no autosave of the committed notebooks
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp jupyter/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	@touch $@

test: $(STAMP) ## Run the test suite (incl. every notebook in quick mode, the MPI tests, the browser tier)
	@command -v chromium >/dev/null 2>&1 || { echo; \
	  echo "*** WARNING: no Chromium on this machine: the browser test tier (tests/test_browser.py) will be SKIPPED."; \
	  echo "*** Install it with: apt-get install chromium   (.ci/run does)"; echo; }
	@# the test workers already fill the cores: each sweep runs its seeds serially (codedlib.replicate)
	CODEDLIB_WORKERS=1 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist load -p no:cacheprovider --durations=25

lint: $(STAMP) ## Lint and format-check code, tests, benchmarks and notebooks with ruff (pyproject.toml)
	$(BIN)/ruff check codedlib tests benchmarks notebooks
	$(BIN)/ruff format --check codedlib tests benchmarks notebooks

figures: $(STAMP) ## Execute every notebook at faithful sizes; figures -> figures/<notebook>/
	$(BIN)/python -m codedlib.notebooks --publish --jobs $(FIGURE_JOBS) --fig-root figures --out build/notebooks --timeout $(NOTEBOOK_TIMEOUT)

book: $(STAMP) ## Static HTML book of the executed notebooks (runs any missing first) -> build/book/index.html
	$(BIN)/python -m codedlib.book --executed build/notebooks --fig-root figures --out build/book --timeout $(NOTEBOOK_TIMEOUT)

# JupyterLab refuses to run as root (containers) without --allow-root
LAB_ROOT := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
LAB_ARGS ?=

# the first free port from 8888 on, chosen here so the URL printed is the one served
LAB_PORT ?= $(shell $(PYTHON) -c 'import socket as s; print(next(p for p in range(8888, 8988) if s.socket().connect_ex(("127.0.0.1", p))))' 2>/dev/null || echo 8888)

lab: $(STAMP) ## Open the notebooks in JupyterLab (saving never writes outputs into notebooks/)
	@echo "JupyterLab on http://localhost:$(LAB_PORT)/lab (the token is in the URL the server prints below)"
	$(BIN)/jupyter lab --config=jupyter/jupyter_server_config.py --port=$(LAB_PORT) --ServerApp.port_retries=0 $(LAB_ROOT) $(LAB_ARGS) notebooks/

bench: $(STAMP) ## Run every benchmark in benchmarks/ and print the ratios
	@set -e; for f in benchmarks/bench_*.py; do echo "=== $$f"; $(BIN)/python $$f; done

demo: $(STAMP) ## A small real MPI run: CodedReduce on a (3,2) tree, injected stragglers, a frozen worker
	$(BIN)/mpiexec -n 13 $(BIN)/python -m mpi4py -m codedlib.runtime --scheme cr --n 3 --L 2 --s 1 \
		--iterations 20 --delay shifted-exp --t-c 0.002 --freeze 4@10 --check --compare \
		--trace build/demo-trace.csv --out build/demo --force

lock: $(STAMP) ## Record the versions of this (green) environment into constraints.txt
	$(BIN)/python -m pip freeze --exclude-editable | grep -v '^-e' > $(CONSTRAINTS)

clean: ## Remove build outputs and caches (keeps .venv and figures/)
	rm -rf build .pytest_cache .hypothesis .ruff_cache
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +

distclean: clean ## Also remove .venv and generated figures (only what make made; never through a symbolic link)
	rm -rf codedlib.egg-info
	@if [ -L $(VENV) ]; then echo "distclean: $(VENV) is a symbolic link: left alone"; \
	elif [ -d $(VENV) ] && [ -f $(STAMP) ]; then rm -rf -- $(VENV); \
	elif [ -e $(VENV) ]; then echo "distclean: $(VENV) was not made by make setup (no $(STAMP)): left alone"; fi
	@# figures/<notebook>/: only the files make figures writes; find does not follow links
	@if [ -d figures ] && [ ! -L figures ]; then \
	  find figures -mindepth 2 -maxdepth 2 -type f \( -name '*.png' -o -name '*.pdf' -o -name claims.csv \) -delete; \
	  find figures -mindepth 1 -maxdepth 1 -type d -empty -delete; fi
