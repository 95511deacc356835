"""Run GPU strategies end to end on the CPU: numpy arrays stand in for CuPy's, and each
kernel launch runs the family's .cu file under the CUDA emulator (tests/gpu/emu),
compiled by g++ as a shared library (tests/gpu/emu/<family>_driver.cpp with
emu_library.hpp) once per define set the launcher uses, kept between runs by
tests/build_cache.py.

What this checks beyond the kernels alone: the launchers' host loops, buffer sizes, the
order and C type of every kernel argument (each launch is checked against the kernel's
signature: np.int32 for int, np.int64 for long long, arrays of the pointee's width for
pointers; a Python int is refused, as CuPy would pass it as 64 bits), that a template
kernel was named in the module's name_expressions, grid and block shapes, and the
CuPy calls the launchers make (cumsum with out=, searchsorted, cupyx.scipy.sparse ...).
Not checked: real GPU concurrency (the emulator switches threads at atomics, __ldcg and
barriers only), memory ordering, performance. Work runs when it is launched: a stream
only matters while it captures a CUDA graph (the copies and launches made on it are
kept for the graph to run, each time it is launched), and the host never runs ahead.

A family is described by a `Family`: its kernel file, driver, define sets, and the
launcher modules whose device-layer names (load_module, sm_count, resident_blocks) are
replaced while `emulated(...)` is active.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import subprocess
import sys
import time
import types
import weakref
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpubfs_cli.gpu import backend, device_graph, launch
from gpubfs_cli.gpu.modules import INCLUDE_DIR
from tests import build_cache
from tests.tools import require_tool

EMU_DIR = Path(__file__).parent / "emu"

POINTER_DTYPES = {
    "I": (np.int32,),
    "L": (np.int64,),
    "U": (np.int32, np.uint32),
    "Q": (np.int64, np.uint64),
    "B": (np.uint8, np.bool_),
    "V": (np.int32,),  # int4*: four int32 an entry
    # a by-value parameter struct (gpu/launch.kernel_struct's one-element array), handed
    # over as a pointer to its bytes, which the driver's entries read the struct through
    "S": (np.void,),
}


def struct_layout(lib) -> tuple[list[str], list[int], int]:
    """(field names, their offsets, the size) of the parameter struct a driver library was
    compiled with: what the launcher's numpy dtype must mirror."""
    lib.params_fields.restype = ctypes.c_char_p
    names = lib.params_fields().decode().split()
    layout = (ctypes.c_longlong * (len(names) + 1))()
    assert lib.params_layout(layout, len(layout)) == len(names) + 1
    return names, list(layout[:-1]), layout[-1]


def driver_layout(driver: Path, folder: Path) -> tuple[list[str], list[int], int]:
    """struct_layout for a standalone driver program (merrill, bfs4k): its `layout` command
    writes a line per field, `NAME OFFSET`, then `sizeof SIZE`."""
    out = folder / "layout.txt"
    proc = subprocess.run([str(driver), "layout", str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in out.read_text().splitlines()]
    assert rows[-1][0] == "sizeof"
    return [r[0] for r in rows[:-1]], [int(r[1]) for r in rows[:-1]], int(rows[-1][1])


def assert_mirrors(lib, dtype: np.dtype) -> None:
    """The numpy dtype has the compiled struct's fields, in its order, at its offsets, and
    its size; `lib`: a driver library, or a (names, offsets, size) layout already read."""
    names, offsets, size = lib if isinstance(lib, tuple) else struct_layout(lib)
    assert names == list(dtype.names)
    assert [dtype.fields[f][1] for f in names] == offsets
    assert dtype.itemsize == size


@dataclass(frozen=True)
class Family:
    """One kernel file under the emulator: `driver` (in tests/gpu/emu) includes it."""

    kernels: Path
    driver: str
    modules: tuple  # launcher modules whose device-layer names are patched
    defines: list = field(default_factory=lambda: [{}])


def _key(defines: dict) -> tuple:
    return tuple(sorted((defines or {}).items()))


# Function-scope statics of kernel code in `nm -C -S` output (the __shared__ arrays of
# an EMU_STATIC_SHARED build): "addr size type func(args)::name"; the emulator's own
# statics (emu*, guard variables, typeinfo, lambdas) are not kernel state.
_NM_LINE = re.compile(r"^([0-9a-f]+) ([0-9a-f]+) [bBdDu] (.+)\)::(\w+)$")
_NOT_KERNEL = ("emu", "guard variable", "typeinfo", "vtable", "std::")


def kernel_statics(lib: Path) -> dict[str, list[tuple[int, int]]]:
    """{function name (as CuPy's name expressions spell it): [(offset, size)]} of the
    function-scope statics in the library."""
    nm = require_tool("nm")
    out = subprocess.run([nm, "-C", "-S", "--defined-only", str(lib)], capture_output=True, text=True,
                         check=True).stdout
    found: dict[str, list[tuple[int, int]]] = {}
    for line in out.splitlines():
        m = _NM_LINE.match(line)
        if not m or m.group(3).startswith(_NOT_KERNEL) or "{lambda" in m.group(3):
            continue
        func = m.group(3).split("(")[0]
        found.setdefault(func, []).append((int(m.group(1), 16), int(m.group(2), 16)))
    return found


def build_libraries(family: Family) -> dict[tuple, Path]:
    """One emulated build of the family's file per define set (tests/build_cache.py)."""
    return {_key(defines): emulator_build(family.driver, family.kernels.parent, defines, shared=True)
            for defines in family.defines}


def emulator_build(driver: str, kernel_dir: Path, defines: dict, *flags: str, shared: bool = False) -> Path:
    """tests/gpu/emu/`driver` built by g++ with `defines` (a shared library for the
    Python launchers, or a program), once per run and kept in the build cache."""
    gxx = require_tool("g++")
    cmd = [gxx, "-std=c++17", "-O1", "-U_FORTIFY_SOURCE",
           *(("-shared", "-fPIC", "-fvisibility=hidden") if shared else ()),
           *(f"-D{k}={v}" for k, v in defines.items()), *flags, "-I", str(kernel_dir),
           "-I", str(INCLUDE_DIR), "-I", str(EMU_DIR), "-o", build_cache.OUT, str(EMU_DIR / driver)]
    built = build_cache.build(cmd, build_cache.sources_in(kernel_dir, INCLUDE_DIR, EMU_DIR),
                              keep=".so" if shared else ".exe")
    if built.returncode != 0:
        raise RuntimeError(built.stderr)
    return built.product


class DeviceArray(np.ndarray):
    """A numpy array standing in for a cupy one: get() copies it to the host (into
    `out`, a pinned host array, when given)."""

    def get(self, stream=None, order="C", out=None, blocking=True):
        if out is None:
            return np.array(self)
        assert out.shape == self.shape and out.dtype == self.dtype, (out.shape, out.dtype, self.shape, self.dtype)
        out[...] = self
        return out

    def set(self, arr, stream=None):
        """A host array copied in (same shape and type), as cupy.ndarray.set; into a
        capture, the copy of what `arr` holds when the graph runs."""
        assert isinstance(arr, np.ndarray) and arr.shape == self.shape and arr.dtype == self.dtype
        capture = _Stream.capturing(stream)
        if capture is not None:
            capture.captured.append(lambda: np.copyto(self, arr))
            return
        self[...] = arr


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


class _Stream:
    """A CUDA stream: made current by `with`; while it captures (begin_capture to
    end_capture), the copies and kernel launches made on it run nowhere and are kept, in
    order, for the graph end_capture returns (kernel arguments as they were at the
    capture, host memory read when the graph runs: CUDA's stream capture)."""

    current: list = []  # the streams `with` made current, innermost last

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False):
        self.captured: list | None = None

    def begin_capture(self, mode=None):
        assert self.captured is None, "a capture begun on a stream already capturing"
        self.captured = []

    def end_capture(self) -> _Graph:
        assert self.captured is not None, "end_capture on a stream not capturing"
        work, self.captured = self.captured, None
        return _Graph(work)

    def is_capturing(self) -> bool:
        return self.captured is not None

    def synchronize(self):
        pass

    def __enter__(self):
        _Stream.current.append(self)
        return self

    def __exit__(self, *exc):
        _Stream.current.pop()
        return False

    @staticmethod
    def capturing(stream=None) -> _Stream | None:
        """The stream that work for `stream` (None: the current stream) goes to, when
        that stream captures; else None."""
        s = stream if stream is not None else (_Stream.current[-1] if _Stream.current else None)
        return s if s is not None and s.captured is not None else None


class _Graph:
    """A captured graph: launch() runs its work, in capture order."""

    def __init__(self, work: list):
        self.work = work

    def launch(self, stream=None):
        assert _Stream.capturing(stream) is None, "a graph launched into a capture"
        for step in self.work:
            step()


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
    Stream = _Stream
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


def fake_cupyx() -> dict[str, types.ModuleType]:
    """cupyx.scipy.sparse on scipy.sparse (classic.spmv), as sys.modules entries."""
    from scipy import sparse

    root, sci, sp = (types.ModuleType(n) for n in ("cupyx", "cupyx.scipy", "cupyx.scipy.sparse"))
    sp.csr_matrix = lambda *a, **k: sparse.csr_matrix(*(np.asarray(x) if isinstance(x, np.ndarray) else x
                                                        for x in a), **k)
    root.scipy, sci.sparse = sci, sp
    root.empty_pinned = lambda shape, dtype=float, order="C": np.empty(shape, dtype=dtype, order=order)
    return {"cupyx": root, "cupyx.scipy": sci, "cupyx.scipy.sparse": sp}


class EmulatedKernel:
    def __init__(self, lib, name: str, launches: list):
        sig = lib.emu_signature(name.encode())
        assert sig is not None, f"{name}: no such kernel in the emulated file"
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

        def run(holders=holders):  # the holders live as long as the launch can run
            self.launches.append(name)
            assert self.lib.emu_launch(name.encode(), g, b, argv) == 0

        capture = _Stream.capturing()
        if capture is not None:
            capture.captured.append(run)
        else:
            run()


class EmulatedModule:
    def __init__(self, lib, launches: list, name_expressions):
        self.lib, self.launches = lib, launches
        self.name_expressions = tuple(name_expressions or ())

    def get_function(self, name: str) -> EmulatedKernel:
        # CuPy finds a template instantiation only through the module's name expressions.
        assert "<" not in name or name in self.name_expressions, (
            f"{name}: not among the module's name_expressions {self.name_expressions}")
        return EmulatedKernel(self.lib, name, self.launches)


class Emulation:
    """A family's loaded libraries and the log of kernel names launched and of the
    define sets loaded (for counter and build checks)."""

    def __init__(self, family: Family, libs: dict[tuple, Path]):
        self.family = family
        self.libs = {}
        for key, path in libs.items():
            lib = ctypes.CDLL(str(path))
            lib.emu_signature.restype = ctypes.c_char_p
            lib.emu_signature.argtypes = [ctypes.c_char_p]
            lib.emu_launch.restype = ctypes.c_int
            lib.emu_launch.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
            lib.emu_configure.argtypes = [ctypes.c_ulonglong, ctypes.c_int]
            self._register_statics(lib, path)
            self.libs[key] = lib
        self.launches: list[str] = []
        self.defines: list[tuple] = []

    @staticmethod
    def _register_statics(lib, path: Path) -> None:
        """Per-block copies of function-scope __shared__ statics: each kernel's own, and
        those of helper functions (no kernel of that name) for every kernel."""
        statics = kernel_statics(path)
        if not statics:
            return
        kernels = {f for f in statics if lib.emu_signature(f.encode()) is not None}
        helpers = [r for f, rs in statics.items() if f not in kernels for r in rs]
        for f in kernels:
            regions = statics[f] + helpers
            offsets = (ctypes.c_longlong * len(regions))(*[o for o, _ in regions])
            sizes = (ctypes.c_longlong * len(regions))(*[s for _, s in regions])
            lib.emu_set_statics(f.encode(), offsets, sizes, len(regions))

    def configure(self, seed: int, yield_permille: int) -> None:
        for lib in self.libs.values():
            lib.emu_configure(seed, yield_permille)

    def load_module(self, path, *, defines=None, device=None, name_expressions=None, **kwargs):
        assert Path(path).resolve() == self.family.kernels.resolve(), path
        key = _key(defines)
        assert key in self.libs, f"{path}: defines {dict(key)} not among the family's builds"
        self.defines.append(key)
        return EmulatedModule(self.libs[key], self.launches, name_expressions)


@contextlib.contextmanager
def emulated(monkeypatch, emulation: Emulation, *, sms: int = 1, resident: int = 2, seed: int = 1,
             yield_permille: int = 200, patches: dict | None = None):
    """Patch the device layer so the family's strategies run on the emulator: `sms`
    SMs, `resident` resident blocks per kernel; `patches` sets other names of the
    launcher modules and of gpu/launch.py (scaled-down block sizes, the occupancy that
    launch.persistent_grid reads) where a module has them."""
    fake = FakeCupy()
    monkeypatch.setattr(backend, "cupy", lambda: fake)
    monkeypatch.setattr(_Stream, "current", [])
    monkeypatch.setattr(device_graph, "_CACHE", weakref.WeakKeyDictionary())
    monkeypatch.setattr(launch, "sm_count", lambda device=None: sms)
    # a parameter struct's pointer field holds a numpy array's address where CuPy's holds a device one
    monkeypatch.setattr(launch, "device_address", lambda a: 0 if a is None else a.ctypes.data)
    for name, module in fake_cupyx().items():
        monkeypatch.setitem(sys.modules, name, module)
    replaced = {"load_module": emulation.load_module, "sm_count": lambda device=None: sms,
                "resident_blocks": lambda kernel, block, shared_mem=0, device=None: resident,
                # numpy arrays have no device pointers: the copy as DeviceArray.set captures it
                "copy_to_device_async": lambda dst, host, stream: dst.set(host, stream=stream),
                **(patches or {})}
    for module in (*emulation.family.modules, launch):
        for name, value in replaced.items():
            if hasattr(module, name):
                monkeypatch.setattr(module, name, value)
    emulation.configure(seed, yield_permille)
    emulation.launches.clear()
    yield fake
