"""gpu/launch.py's persistent grid (no GPU: the occupancy and SM count are stand-ins)."""

from __future__ import annotations

import pytest

from gpubfs_cli.core.strategy import StrategyUnavailable
from gpubfs_cli.gpu import launch


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
