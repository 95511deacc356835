"""Every kernel file of the package compiles with nvcc for sm_90 with the options the
runtime uses (gpu/modules.compile_options: common list, the file's folder, defines),
for each set of defines a strategy compiles it with. No GPU needed.

A family's launcher module names its file as `KERNELS` and, when it compiles it with
-D defines, lists every set it asks for as `KERNEL_DEFINES` (a list of dicts)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import sys

from gpubfs_cli.core.problem import ALGORITHMS, discover
from gpubfs_cli.gpu.modules import INCLUDE_DIR, compile_options, kernel_files

NVCC = shutil.which("nvcc")


def launchers() -> list:
    """Every algorithm module that names a kernel file (KERNELS)."""
    discover()
    return [m for name, m in sorted(sys.modules.items())
            if name.startswith(ALGORITHMS + ".") and getattr(m, "KERNELS", None) is not None]


def builds() -> list[tuple]:
    """(file, defines) for every build a launcher asks for; files no launcher names
    still compile once without defines (and fail the launcher test below)."""
    sets: dict = {}
    for m in launchers():
        sets.setdefault(m.KERNELS.resolve(), []).extend(getattr(m, "KERNEL_DEFINES", None) or [{}])
    out = []
    for p in kernel_files():
        unique = {tuple(sorted(d.items())): d for d in sets.get(p.resolve(), [{}])}
        out += [(p, d) for d in unique.values()]
    return out


BUILDS = builds()


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


def test_every_kernel_file_has_a_launcher_that_names_it():
    named = {m.KERNELS.resolve() for m in launchers()}
    assert all(p in kernel_files() for p in named)
    for p in kernel_files():
        assert p.resolve() in named, f"{p}: no module sets KERNELS to it"
