"""Shared fixtures: the GPU marker's skip rule, the signal dispositions the stop tests rely
on, and the shared real-data folder."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


# The longest tests (nvcc compiles, the kernel emulator, and on a GPU the variant
# matrices) first: under pytest-xdist the short ones then keep every worker busy to the
# end instead of one finishing alone.
SLOW_FIRST = ("tests/gpu/test_kernels_compile.py::", "_emulated.py::", "tests/algorithms/sssp/gpu/test_raval.py::",
              "tests/algorithms/bfs/gpu/test_raval.py::", "tests/algorithms/bfs/gpu/test_bfs4k.py::")


def pytest_configure(config):
    """The signal dispositions the stop tests rely on, whatever started pytest: under nohup
    SIGHUP is ignored, and a non-interactive shell's background job ignores SIGINT; an
    ignored disposition is inherited by every process the tests start, so the runs they
    stop would never see the signal. Ctrl-C and a lost terminal act as they do at a prompt."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGHUP, signal.SIGTERM):
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)


def pytest_collection_modifyitems(config, items):
    from gpubfs_cli.gpu.backend import unavailable_reason

    items.sort(key=lambda item: not any(s in item.nodeid for s in SLOW_FIRST))
    reason = unavailable_reason()
    if reason is None:
        return
    if os.environ.get("GPUBFS_REQUIRE_GPU"):
        raise pytest.UsageError(f"GPUBFS_REQUIRE_GPU is set but no GPU is usable: {reason}")
    skip = pytest.mark.skip(reason=f"no GPU: {reason}")
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            item.add_marker(skip)


@pytest.fixture
def shared_data() -> Path:
    """../shared/data (small real graph files); skipped visibly where it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared test data not found at {SHARED_DATA}")
    return SHARED_DATA.resolve()
