"""Run the raval.* strategies end to end on the CPU: numpy arrays stand in for CuPy's,
and each kernel launch runs raval.cu under the CUDA emulator (tests/gpu/emu), compiled
by g++ as a shared library (tests/gpu/emu/raval_driver.cpp) once per define set.

What this checks beyond the kernels alone: the launchers' host loops, buffer sizes, the
order and C type of every kernel argument (each launch is checked against the kernel's
signature: np.int32 for int, np.int64 for long long, arrays of the pointee's width for
pointers; a Python int is refused, as CuPy would pass it as 64 bits), grid and block
shapes, and the CuPy calls the launchers make (cumsum with out=, searchsorted, ...).
Not checked: real GPU concurrency (the emulator switches threads at atomics and
barriers only), memory ordering, performance.
"""

from __future__ import annotations

import contextlib
import ctypes
import shutil
import subprocess
import time
import weakref
from pathlib import Path

import numpy as np

from gpubfs_cli.algorithms.sssp.gpu.raval import base as raval_base
from gpubfs_cli.gpu import backend, device_graph
from gpubfs_cli.gpu.modules import INCLUDE_DIR

EMU_DIR = Path(__file__).parents[3] / "gpu" / "emu"
RAVAL_DIR = Path(raval_base.__file__).parent

POINTER_DTYPES = {
    "I": (np.int32,),
    "L": (np.int64,),
    "U": (np.int32, np.uint32),
    "Q": (np.int64, np.uint64),
}


def _key(defines: dict) -> tuple:
    return tuple(sorted(defines.items()))


def build_libraries(out_dir: Path) -> dict[tuple, Path]:
    """One emulated build of raval.cu per define set the launcher uses."""
    gxx = shutil.which("g++")
    if gxx is None:
        raise FileNotFoundError("g++")
    libs = {}
    for i, defines in enumerate(raval_base.KERNEL_DEFINES):
        out = out_dir / f"raval_emu_{i}.so"
        cmd = [gxx, "-std=c++17", "-O1", "-U_FORTIFY_SOURCE", "-shared", "-fPIC", "-fvisibility=hidden",
               *(f"-D{k}={v}" for k, v in defines.items()), "-I", str(RAVAL_DIR), "-I", str(INCLUDE_DIR),
               "-I", str(EMU_DIR), "-o", str(out), str(EMU_DIR / "raval_driver.cpp")]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr)
        libs[_key(defines)] = out
    return libs


class DeviceArray(np.ndarray):
    """A numpy array standing in for a cupy one: get() copies it to the host."""

    def get(self):
        return np.array(self)


def _dev(x):
    if isinstance(x, np.ndarray) and not isinstance(x, DeviceArray):
        return x.view(DeviceArray)
    if isinstance(x, tuple):
        return tuple(_dev(a) for a in x)
    return x


class _Event:
    def __init__(self, *args, **kwargs):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        assert self.t is not None, "synchronize() on an event never recorded"


class _Device:
    def __init__(self, index: int = 0):
        self.index = index

    def use(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Cuda:
    Event = _Event
    Device = _Device
    OutOfMemoryError = MemoryError

    @staticmethod
    def get_elapsed_time(a: _Event, b: _Event) -> float:
        assert a.t is not None and b.t is not None
        return (b.t - a.t) * 1e3


class FakeCupy:
    """The part of CuPy the launchers use, on numpy."""

    cuda = _Cuda

    def __getattr__(self, name):
        f = getattr(np, name)
        if callable(f) and not isinstance(f, type):
            return lambda *a, **k: _dev(f(*a, **k))
        return f


class EmulatedKernel:
    def __init__(self, lib, name: str, launches: list):
        sig = lib.emu_signature(name.encode())
        assert sig is not None, f"{name}: no such kernel in raval.cu"
        self.lib, self.name, self.sig, self.launches = lib, name, sig.decode(), launches

    def __call__(self, grid, block, args):
        name = self.name
        assert isinstance(grid, tuple) and len(grid) == 1 and isinstance(grid[0], int), (name, grid)
        assert isinstance(block, tuple) and len(block) == 1 and isinstance(block[0], int), (name, block)
        g, b = grid[0], block[0]
        assert g >= 1 and 32 <= b <= 1024 and b % 32 == 0, (name, grid, block)
        assert isinstance(args, tuple) and len(args) == len(self.sig), (
            f"{name}: {len(args)} arguments for {len(self.sig)} parameters")
        holders = []
        for k, (a, kind) in enumerate(zip(args, self.sig, strict=True)):
            where = f"{name} argument {k}"
            if kind == "i":
                assert type(a) is np.int32, f"{where}: expected np.int32, got {type(a).__name__}"
                holders.append(ctypes.c_int32(int(a)))
            elif kind == "l":
                assert type(a) is np.int64, f"{where}: expected np.int64, got {type(a).__name__}"
                holders.append(ctypes.c_int64(int(a)))
            elif kind in POINTER_DTYPES:
                if a is None:
                    holders.append(ctypes.c_void_p(None))
                    continue
                assert isinstance(a, np.ndarray), f"{where}: expected an array, got {type(a).__name__}"
                assert a.dtype.type in POINTER_DTYPES[kind], f"{where}: {a.dtype} for a {kind} pointer"
                assert a.flags.c_contiguous, f"{where}: not contiguous"
                holders.append(ctypes.c_void_p(a.ctypes.data))
            else:
                raise AssertionError(f"{where}: parameter kind {kind!r}")
        argv = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
        self.launches.append(name)
        assert self.lib.emu_launch(name.encode(), g, b, argv) == 0


class EmulatedModule:
    def __init__(self, lib, launches: list):
        self.lib, self.launches = lib, launches

    def get_function(self, name: str) -> EmulatedKernel:
        return EmulatedKernel(self.lib, name, self.launches)


class Emulation:
    """Loaded libraries and the log of kernel names launched (for counter checks)."""

    def __init__(self, libs: dict[tuple, Path]):
        self.libs = {}
        for key, path in libs.items():
            lib = ctypes.CDLL(str(path))
            lib.emu_signature.restype = ctypes.c_char_p
            lib.emu_signature.argtypes = [ctypes.c_char_p]
            lib.emu_launch.restype = ctypes.c_int
            lib.emu_launch.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
            lib.emu_configure.argtypes = [ctypes.c_ulonglong, ctypes.c_int]
            self.libs[key] = lib
        self.launches: list[str] = []
        self.defines: list[tuple] = []

    def configure(self, seed: int, yield_permille: int) -> None:
        for lib in self.libs.values():
            lib.emu_configure(seed, yield_permille)

    def load_module(self, path, *, defines=None, device=None, **kwargs):
        assert Path(path).resolve() == raval_base.KERNELS.resolve()
        key = _key(defines or {})
        self.defines.append(key)
        return EmulatedModule(self.libs[key], self.launches)


@contextlib.contextmanager
def emulated(monkeypatch, emulation: Emulation, *, sms: int = 1, resident: int = 2,
             util_block: int = 32, seed: int = 1, yield_permille: int = 200):
    """Patch the device layer so raval.* strategies run on the emulator: `sms` SMs,
    `resident` resident blocks per kernel, helper kernels of `util_block` threads."""
    fake = FakeCupy()
    monkeypatch.setattr(backend, "cupy", lambda: fake)
    monkeypatch.setattr(device_graph, "_CACHE", weakref.WeakKeyDictionary())
    monkeypatch.setattr(raval_base, "load_module", emulation.load_module)
    monkeypatch.setattr(raval_base, "sm_count", lambda device=None: sms)
    monkeypatch.setattr(raval_base, "resident_blocks",
                        lambda kernel, block, shared_mem=0, device=None: resident)
    monkeypatch.setattr(raval_base, "UTIL_BLOCK", util_block)
    monkeypatch.setattr(raval_base, "UTIL_BLOCKS_PER_SM", 2)
    emulation.configure(seed, yield_permille)
    emulation.launches.clear()
    yield fake
