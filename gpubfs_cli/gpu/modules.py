"""Kernel loading: a family's .cu file (beside the Python that launches it) compiled
once per process, per device and per set of defines.

Compilation goes through cupy.RawModule (NVRTC), which targets the device's
architecture and caches the binary on disk (CuPy's kernel cache). COMPILE_OPTIONS is
the one list of options, plus `-I` of the file's own folder and `-D` defines:
tests/gpu/test_kernels_compile.py compiles every .cu file of the package with nvcc for
sm_90 through `nvcc_options`, so compile errors show up without a GPU.

Constants that both sides need (control-word slots, counter kinds, knob codes) are
`#define NAME <integer>` lines in a header, read here by `header_constants`: defined
once, in the file the kernel includes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path

from gpubfs_cli.core.device import Device, gpu

PACKAGE_DIR = Path(__file__).resolve().parent.parent
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
COMPILE_OPTIONS: tuple[str, ...] = ("-std=c++17", f"-I{INCLUDE_DIR}")
# Kernels that launch kernels (dynamic parallelism) also need relocatable device code.
RDC_OPTIONS: tuple[str, ...] = ("-rdc=true",)
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z_][A-Z0-9_]*)\s+\(?(-?(?:0x[0-9a-fA-F]+|\d+))\)?\s*(?://.*)?$")


def kernel_files() -> list[Path]:
    """Every .cu file of the package (each strategy family keeps its own)."""
    return sorted(PACKAGE_DIR.rglob("*.cu"))


def define_options(defines: Mapping[str, int | str] | None) -> tuple[str, ...]:
    return tuple(f"-D{k}={v}" for k, v in sorted((defines or {}).items()))


def compile_options(path: Path, defines: Mapping[str, int | str] | None = None,
                    rdc: bool = False) -> tuple[str, ...]:
    """The options for `path`: the common list, its folder, the defines, -rdc."""
    return (COMPILE_OPTIONS + (f"-I{Path(path).resolve().parent}",) + define_options(defines)
            + (RDC_OPTIONS if rdc else ()))


@functools.cache
def header_constants(path: Path) -> dict[str, int]:
    """The integer `#define`s of a header (or .cu) file, as the kernel sees them."""
    out: dict[str, int] = {}
    for line in Path(path).read_text().splitlines():
        m = _DEFINE.match(line)
        if m:
            out[m.group(1)] = int(m.group(2), 0)
    return out


def instantiation(kernel: str, *args) -> str:
    """The name expression of a template kernel's instantiation (what load_module's
    name_expressions and get_function take): a type name (a string) as given, any other
    argument as C++'s true / false by its truth, e.g. instantiation("do_bfs", False, True)
    == "do_bfs<false, true>"."""
    return f"{kernel}<{', '.join(a if isinstance(a, str) else ('true' if a else 'false') for a in args)}>"


def load_module(
    path: Path,
    *,
    defines: Mapping[str, int | str] | None = None,
    rdc: bool = False,
    cooperative: bool = False,
    name_expressions: tuple[str, ...] | None = None,
    device: Device | None = None,
):
    """The compiled cupy.RawModule of the .cu file `path` on `device` (default GPU 0).

    `name_expressions` lists template instantiations to compile (get them with
    module.get_function(expr)). `cooperative` enables grid-wide sync launches.
    """
    defines_key = tuple(sorted((defines or {}).items()))
    return _load(Path(path).resolve(), defines_key, rdc, cooperative,
                 tuple(name_expressions or ()), (device or gpu(0)).index)


@functools.cache
def _load(path: Path, defines: tuple, rdc: bool, cooperative: bool, names: tuple, index: int):
    from gpubfs_cli.gpu.backend import cupy

    cp = cupy()
    kwargs = {}
    if names:
        kwargs["name_expressions"] = list(names)
    if cooperative:
        kwargs["enable_cooperative_groups"] = True
    with cp.cuda.Device(index):
        module = cp.RawModule(code=path.read_text(), options=compile_options(path, dict(defines), rdc),
                              **kwargs)
        module.compile()
    return module
