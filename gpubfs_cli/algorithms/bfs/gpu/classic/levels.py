"""What the status-array strategies (classic.harish, classic.vwarp, classic.edge_coo)
share: the one compiled classic.cu module and the batched host loop."""

from __future__ import annotations

from pathlib import Path

from gpubfs_cli.core.device import Device
from gpubfs_cli.gpu.modules import load_module

KERNELS = Path(__file__).with_name("classic.cu")
VWARP_WIDTHS = (1, 2, 4, 8, 16, 32)
_NAME_EXPRESSIONS = tuple(f"vwarp_level<{w}>" for w in VWARP_WIDTHS)


def classic_module(device: Device | None = None):
    """classic.cu compiled once per device for all three strategies."""
    return load_module(KERNELS, name_expressions=_NAME_EXPRESSIONS, device=device)


def run_batched_levels(launch_level, strategy, levels_per_check: int) -> tuple[int, int]:
    """Launch level kernels `levels_per_check` at a time and read the strategy's
    state[0] (the last level that received a vertex) into its pinned state_host once
    per batch; a kernel whose previous level found nothing returns at once. Returns
    (levels, launches)."""
    level = 0
    launches = 0
    while True:
        for _ in range(levels_per_check):
            launch_level(level)
            level += 1
            launches += 1
        last = int(strategy.read_back(strategy.state, strategy.state_host)[0])
        if last < level:
            return last + 1, launches
