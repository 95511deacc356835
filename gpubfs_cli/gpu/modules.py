"""Kernel loading: CUDA C++ from gpu/kernels/*.cu compiled once per process.

Compilation goes through cupy.RawModule (NVRTC), which targets the current device's
architecture and caches the binary on disk (CuPy's kernel cache). COMPILE_OPTIONS is
the one list of options: tests/gpu/test_kernels_compile.py compiles every .cu file
with nvcc for sm_90 using the same list, so compile errors show up without a GPU.
"""

from __future__ import annotations

import functools
from pathlib import Path

KERNEL_DIR = Path(__file__).parent / "kernels"
COMPILE_OPTIONS: tuple[str, ...] = ("-std=c++17", f"-I{KERNEL_DIR}")
# Kernels that launch kernels (dynamic parallelism) also need relocatable device code.
RDC_OPTIONS: tuple[str, ...] = ("-rdc=true",)


def kernel_source(filename: str) -> str:
    return (KERNEL_DIR / filename).read_text()


@functools.cache
def load_module(
    filename: str,
    *,
    rdc: bool = False,
    cooperative: bool = False,
    name_expressions: tuple[str, ...] | None = None,
):
    """The compiled cupy.RawModule for kernels/<filename>.

    `name_expressions` lists template instantiations to compile (get them with
    module.get_function(expr)). `cooperative` enables grid-wide sync launches.
    """
    from gpubfs_cli.gpu.backend import cupy

    cp = cupy()
    options = COMPILE_OPTIONS + (RDC_OPTIONS if rdc else ())
    kwargs = {}
    if name_expressions:
        kwargs["name_expressions"] = list(name_expressions)
    if cooperative:
        kwargs["enable_cooperative_groups"] = True
    module = cp.RawModule(code=kernel_source(filename), options=options, **kwargs)
    module.compile()
    return module
