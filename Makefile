# gpubfs: `make run` and `make test` are all a new user types.
# Each target creates (or reuses) .venv and installs what it needs. Passing PYTHON=...
# (e.g. `make test-gpu PYTHON=python3` on a machine that already has the packages)
# uses that interpreter as it is: no venv, no downloads.

VENV ?= .venv
ifeq ($(origin PYTHON), undefined)
PYTHON := $(VENV)/bin/python
SETUP := $(VENV)/.installed
else
SETUP :=
endif

# On a machine with an NVIDIA driver, install the CuPy wheel matching its CUDA major.
CUDA_MAJOR := $(shell nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9]*\)\..*/\1/p' | head -n1)
ifeq ($(CUDA_MAJOR),12)
EXTRAS := dev,cuda12
else ifeq ($(CUDA_MAJOR),13)
EXTRAS := dev,cuda13
else
EXTRAS := dev
endif

PYTEST_ARGS ?=

.PHONY: run test test-gpu lint bench clean-venv mutants

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $@

run: $(SETUP)
	$(PYTHON) -m gpubfs_cli run configs/experiments/default.yaml

test: $(SETUP)
	$(PYTHON) -m pytest -q $(PYTEST_ARGS)

# On a GPU machine: GPU tests must run, not skip.
test-gpu: $(SETUP)
	GPUBFS_REQUIRE_GPU=1 $(PYTHON) -m pytest -q -m gpu $(PYTEST_ARGS)

# Mutation testing of the core modules (minutes; not part of `make test`): survivors go to
# build/mutants.md, and docs/testing.md says why each one is left.
MUTANTS_ARGS ?=
mutants: $(SETUP)
	$(PYTHON) scripts/mutants.py $(MUTANTS_ARGS)

lint: $(SETUP)
	$(PYTHON) -m ruff check gpubfs_cli tests scripts

clean-venv:
	rm -rf $(VENV)
