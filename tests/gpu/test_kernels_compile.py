"""Every kernel file of the package compiles with nvcc for sm_90 with the options the
runtime uses (gpu/modules.compile_options: common list, the file's folder, defines),
for each set of defines a strategy compiles it with. No GPU needed."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from gpubfs_cli.algorithms.bfs.gpu.merrill.strategies import CTA_SIZES, kernel_defines
from gpubfs_cli.gpu.modules import INCLUDE_DIR, compile_options, kernel_files

NVCC = shutil.which("nvcc")
# Files compiled with -D defines at run time: every build the strategies ask for.
DEFINES = {"merrill.cu": [kernel_defines(c) for c in CTA_SIZES]}
BUILDS = [(p, d) for p in kernel_files() for d in DEFINES.get(p.name, [{}])]


@pytest.mark.skipif(NVCC is None, reason="nvcc not found: kernel compile check skipped")
@pytest.mark.parametrize("path,defines", BUILDS, ids=[f"{p.name}{d or ''}" for p, d in BUILDS])
def test_compiles_for_sm90(path, defines, tmp_path):
    # Relocatable device code is harmless for files that do not need it, and required
    # for those that launch kernels from kernels; compile each the stricter way.
    cmd = [NVCC, "-arch=sm_90", "-cubin", *compile_options(path, defines, rdc=True),
           "-Werror=all-warnings", "-o", str(tmp_path / "out.cubin"), str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_family_keeps_its_kernels_beside_its_launcher():
    names = {p.name for p in kernel_files()}
    assert {"classic.cu", "luo.cu", "merrill.cu"} <= names
    assert (INCLUDE_DIR / "common.cuh").is_file()
    for p in kernel_files():
        assert list(p.parent.glob("*.py")), f"{p} has no Python launcher beside it"


def test_every_launcher_names_its_kernel_file():
    from gpubfs_cli.algorithms.bfs.gpu.classic import levels
    from gpubfs_cli.algorithms.bfs.gpu.luo import hierarchical
    from gpubfs_cli.algorithms.bfs.gpu.merrill import strategies

    for module in (levels, hierarchical, strategies):
        assert module.KERNELS.is_file() and module.KERNELS in kernel_files(), module.__name__
