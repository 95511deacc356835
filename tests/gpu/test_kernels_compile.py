"""Every kernel file compiles with nvcc for sm_90 with the runtime's options (no GPU needed)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from gpubfs_cli.gpu.modules import COMPILE_OPTIONS, KERNEL_DIR, RDC_OPTIONS

NVCC = shutil.which("nvcc")
KERNELS = sorted(KERNEL_DIR.glob("*.cu"))


@pytest.mark.skipif(NVCC is None, reason="nvcc not found: kernel compile check skipped")
@pytest.mark.parametrize("path", KERNELS, ids=[p.name for p in KERNELS])
def test_compiles_for_sm90(path, tmp_path):
    # Relocatable device code is harmless for files that do not need it, and required
    # for those that launch kernels from kernels; compile each the stricter way.
    cmd = [NVCC, "-arch=sm_90", "-cubin", *COMPILE_OPTIONS, *RDC_OPTIONS, "-Werror=all-warnings",
           "-o", str(tmp_path / "out.cubin"), str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_kernel_files_exist():
    assert (KERNEL_DIR / "common.cuh").is_file()
