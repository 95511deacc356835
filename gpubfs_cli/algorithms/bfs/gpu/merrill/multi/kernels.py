"""merrill.multi_gpu's per-level kernels (multi_gpu.cu), loaded for one device.

Below multi_gpu.py so that the other ranks (worker.py) load the same kernels without
importing the strategy that starts them.
"""

from __future__ import annotations

from pathlib import Path

from gpubfs_cli.gpu.modules import load_module

KERNELS = Path(__file__).parent.parent / "multi_gpu.cu"


def kernel_module(device):
    return load_module(KERNELS, device=device)
