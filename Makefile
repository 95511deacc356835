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

# On a machine with an NVIDIA driver, install the CuPy wheel matching its CUDA major. The
# plots extra (matplotlib) always: the figure tests draw.
CUDA_MAJOR := $(shell nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9]*\)\..*/\1/p' | head -n1)
ifeq ($(CUDA_MAJOR),12)
EXTRAS := dev,mpi,plots,cuda12
else ifeq ($(CUDA_MAJOR),13)
EXTRAS := dev,mpi,plots,cuda13
else
EXTRAS := dev,mpi,plots
endif

PYTEST_ARGS ?=

# The smoke benchmark against a stored baseline (docs/ci.md): fails only when a strategy
# got slower than SMOKE_PCT percent beyond the noise. CPU timings of a 2-core CI machine
# against a baseline measured on another one drift far more than a GPU's: hence 200.
SMOKE_BASELINE ?= benchmarks/baselines/smoke-cpu.json
SMOKE_PCT ?= 200
# Labels only (not the exit status): whole smoke runs drift by up to ~1.5x on a loaded 2-core host.
SMOKE_MIN_CHANGE ?= 50

.PHONY: run test test-floors wheel test-gpu test-gpu-main test-gpu-paced test-gpu-sanitize smoke lint clean-venv chromium mutants

# The filter drops setuptools' note that an editable install imports the checkout's own
# gpubfs_cli folder: that is the point of one.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation:UserWarning" \
		$(VENV)/bin/python -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $@

run: $(SETUP)
	$(PYTHON) -m gpubfs_cli run default

# Two pytest-xdist workers where the plugin is installed (the dev extra has it; a
# PYTHON=... without it runs in one process), an idle one taking over the other's queue
# (worksteal); the 15 slowest tests listed at the end. docs/testing.md has the timings.
# test-floors first: the dependencies at their declared floors.
test: $(SETUP) chromium test-floors
	$(PYTHON) -m pytest -q $$($(PYTHON) -c 'import xdist; print("-n 2 --dist worksteal")' 2>/dev/null) --durations=15 $(PYTEST_ARGS)

# pyproject.toml's runtime dependencies (and the plots extra) at their floors, `name>=X`
# installed as `name==X` into a throwaway venv outside the checkout, then the command
# line's smoke there (scripts/floors.py; pip fetches the pinned wheels): 47 s on the 2-core
# box, its pip cache empty or not (2026-11-29).
test-floors: $(SETUP)
	$(PYTHON) scripts/floors.py check --extra plots

# The wheel and the sdist into dist/, the wheel built from the sdist (`pipx install
# dist/gpubfs-*.whl`). build fetches setuptools for its isolated build; without the index,
# WHEEL_ARGS="--no-isolation --skip-dependency-check" uses the interpreter's own (setuptools
# 70.1 or later, or an earlier one with the wheel package).
WHEEL_ARGS ?=
wheel: $(SETUP)
	rm -f dist/gpubfs-*.whl dist/gpubfs-*.tar.gz
	$(PYTHON) -m build --outdir dist $(WHEEL_ARGS) .

# The HTML report's browser test (tests/report/test_browser.py) renders the page in
# headless Chromium: Debian's package, installed where missing when we are root with
# apt-get; elsewhere one line says so and the test skips visibly.
chromium:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		(apt-get install -y -qq chromium >/dev/null 2>&1 || \
		 (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq chromium >/dev/null 2>&1)) && \
		echo "installed chromium for the HTML browser test" || \
		echo "could not install chromium: the HTML browser test will skip"; \
	else echo "no chromium (and not root with apt-get): the HTML browser test will skip"; fi

# On a GPU machine: GPU tests must run, not skip. Two passes, each listing its 15 slowest
# tests: first every GPU test but the host-paced ones, on GPU_WORKERS pytest-xdist
# workers; then the host_paced ones (a strategy that reads a count back every round), on
# PACED_WORKERS. Beside another process's kernels each of their rounds waits for a GPU
# time slice (2026-11-26): three of them took 24 s alone and 421 s beside five workers of
# the whole suite on an H100, 103 s beside one other paced worker on an H200.
GPU_WORKERS ?= 6
PACED_WORKERS ?= 1
xdist = $$($(PYTHON) -c 'import xdist; print("-n $(1) --dist worksteal")' 2>/dev/null)
# Each pass is its own target too, so that a machine whose calls are time-limited can run
# them apart; test-gpu is the two, in order.
test-gpu: test-gpu-main test-gpu-paced
test-gpu-main: $(SETUP)
	GPUBFS_REQUIRE_GPU=1 $(PYTHON) -m pytest -q -m "gpu and not host_paced" $(call xdist,$(GPU_WORKERS)) --durations=15 $(PYTEST_ARGS)
test-gpu-paced: $(SETUP)
	GPUBFS_REQUIRE_GPU=1 $(PYTHON) -m pytest -q -m "gpu and host_paced" $(call xdist,$(PACED_WORKERS)) --durations=15 $(PYTEST_ARGS)

# NUMBA_NUM_THREADS=1: cpu.parallel_* and peer.gapbs run a team of one thread. On the
# shared 2-core box a team of two measured 100-1000x slow at random (2026-11-26, with the
# very code whose smoke had passed before), noise the gate would report as regressions.
smoke: $(SETUP)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	NUMBA_NUM_THREADS=1 $(PYTHON) -m gpubfs_cli run smoke --out "$$tmp/smoke.json" && \
	$(PYTHON) -m gpubfs_cli report --compare $(SMOKE_BASELINE) "$$tmp/smoke.json" \
		--fail-on-regression $(SMOKE_PCT) --min-change $(SMOKE_MIN_CHANGE)

# On a GPU machine: every GPU strategy once per small nasty graph under
# compute-sanitizer --tool memcheck (SANITIZE_ARGS="--jobs N": N sanitizer processes at
# once, 4 by default; scripts/sanitize.py).
SANITIZE_ARGS ?=
test-gpu-sanitize: $(SETUP)
	$(PYTHON) scripts/sanitize.py $(SANITIZE_ARGS)

# Mutation testing of the core modules (minutes; not part of `make test`): survivors go to
# build/mutants.md, and docs/testing.md says why each one is left.
MUTANTS_ARGS ?=
mutants: $(SETUP)
	$(PYTHON) scripts/mutants.py $(MUTANTS_ARGS)

lint: $(SETUP)
	$(PYTHON) -m ruff check gpubfs_cli tests scripts

clean-venv:
	rm -rf $(VENV)
