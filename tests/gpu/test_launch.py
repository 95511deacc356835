"""gpu/launch.py's persistent grid (no GPU: the occupancy and SM count are stand-ins) and
its graph capture (the emulated CuPy's streams)."""

from __future__ import annotations

import pytest

from gpubfs_cli.core.strategy import StrategyUnavailable
from gpubfs_cli.gpu import launch
from tests.gpu import emulated_cupy as ec


@pytest.fixture
def occupancy(monkeypatch):
    """Kernels are ints: how many CTAs of 256 threads fit an SM (half that at 512); 10 SMs."""
    monkeypatch.setattr(launch, "blocks_per_sm", lambda kernel, block, shared_mem=0: kernel * 256 // block)
    monkeypatch.setattr(launch, "sm_count", lambda device=None: 10)


@pytest.mark.parametrize("kernels, block, want, grid", [
    ((4,), 256, 0, 40),      # as many as fit
    ((4,), 256, 3, 30),      # fewer than fit
    ((4,), 256, 9, 40),      # more than fit: capped
    ((4, 2, 6), 256, 0, 20),  # the kernel that fits least decides
    ((4,), 512, 0, 20),
])
def test_the_grid_is_what_fits_every_kernel_times_the_sms(occupancy, kernels, block, want, grid):
    assert launch.persistent_grid("x.bfs", kernels, block, want) == grid


def test_no_cta_that_fits_is_one_line_naming_the_strategy(occupancy):
    with pytest.raises(StrategyUnavailable) as err:
        launch.persistent_grid("x.bfs", (4, 1), 512)
    assert str(err.value) == "x.bfs: no CTA of 512 threads fits an SM"


def test_a_capture_holds_the_work_and_runs_it_at_each_launch(monkeypatch):
    monkeypatch.setattr(ec._Stream, "current", [])
    word, host = ec.DeviceArray((1,), dtype="int32"), ec.DeviceArray((1,), dtype="int32").get()
    host[0] = 7
    stream = ec._Stream(non_blocking=True)
    graph = launch.captured(stream, lambda: word.set(host))  # the current stream's copy
    assert not stream.is_capturing() and ec._Stream.current == []
    host[0] = 9
    graph.launch()
    assert word[0] == 9  # the host word as it is at the launch


@pytest.mark.parametrize("fails", ["enqueue", "end", "both"])
def test_a_failed_capture_ends_it_and_raises_the_first_error(monkeypatch, fails):
    monkeypatch.setattr(ec._Stream, "current", [])
    stream = ec._Stream(non_blocking=True)
    end = stream.end_capture

    def enqueue():
        if fails in ("enqueue", "both"):
            raise RuntimeError("launch refused")

    def end_capture():
        end()
        if fails in ("end", "both"):
            raise RuntimeError("capture invalidated")

    stream.end_capture = end_capture
    with pytest.raises(RuntimeError, match="capture invalidated" if fails == "end" else "launch refused"):
        launch.captured(stream, enqueue)
    assert not stream.is_capturing() and ec._Stream.current == []
