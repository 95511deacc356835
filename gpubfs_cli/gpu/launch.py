"""Launch geometry and argument helpers shared by the GPU strategies.

CuPy passes a Python int to a kernel as a 64-bit value, so every scalar argument
goes through i32()/i64() to match the kernel's parameter type; None becomes a null
pointer. SM counts are per device. Imports no CuPy at module level.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.core.device import Device
from gpubfs_cli.core.knobs import FRONTIER_CACHES, PROBE_BATCHES
from gpubfs_cli.core.strategy import StrategyUnavailable
from gpubfs_cli.gpu.modules import INCLUDE_DIR, header_constants

_BOTTOM_UP = header_constants(INCLUDE_DIR / "bottom_up.cuh")
PROBE_BATCH = _BOTTOM_UP["BU_BATCH"]  # the default build's probe_batch
FRONTIER_CACHE = FRONTIER_CACHES[_BOTTOM_UP["BU_FRONT_L1"]]  # the default build's frontier_cache

INT32_MAX = 2**31 - 1


def i32(x: int) -> np.int32:
    return np.int32(x)


def i64(x: int) -> np.int64:
    return np.int64(x)


SLOT = object()  # an ArgTemplate position filled at each launch


class ArgTemplate:
    """A kernel's argument tuple built once in prepare(): the buffers, views and sizes
    that stay, and SLOT where a value changes per launch (the source, the level).
    Calling it with those values, in order, gives the tuple: no view of a buffer is
    made per traversal (each costs microseconds in CuPy)."""

    __slots__ = ("_args", "_slots")

    def __init__(self, *args):
        self._args = list(args)
        self._slots = [i for i, a in enumerate(args) if a is SLOT]

    def __call__(self, *values) -> tuple:
        if len(values) != len(self._slots):
            raise TypeError(f"{len(values)} values for {len(self._slots)} slots")
        args = self._args.copy()
        for i, v in zip(self._slots, values, strict=True):
            args[i] = v
        return tuple(args)


MAX_LEVELS = 1 << 20  # per-level counter and profile rows a kernel keeps (a longer traversal keeps the first)


def level_capacity(n: int) -> int:
    """Rows of per-level counters for a traversal of an n-vertex graph: its levels (at
    most n, the last one finding nothing) and one more, capped at MAX_LEVELS."""
    return min(int(n) + 2, MAX_LEVELS)


def copy_to_device_async(dst, host, stream) -> None:
    """An async copy of the pinned numpy array `host` into the device array `dst` (same
    bytes) on `stream`, through the runtime: CuPy's ndarray.set refuses host-to-device
    copies on a capturing stream, while the runtime's copy is captured as a copy node that
    reads `host` when the graph runs."""
    from gpubfs_cli.gpu.backend import cupy

    rt = cupy().cuda.runtime
    rt.memcpyAsync(dst.data.ptr, host.ctypes.data, host.nbytes, rt.memcpyHostToDevice, stream.ptr)


def captured(stream, enqueue):
    """The CUDA graph of the work enqueue() puts on `stream` (a CuPy stream other than the
    legacy one, current during the call). The stream leaves capture whatever happens;
    the first error, enqueue()'s or else the end of the capture's, is raised."""
    stream.begin_capture()
    failed = None
    try:
        with stream:
            enqueue()
    except Exception as exc:  # noqa: BLE001 - raised below, once the capture has ended
        failed = exc
    try:
        graph = stream.end_capture()
    except Exception as exc:  # noqa: BLE001 - enqueue()'s error, when there was one, comes first
        failed = failed or exc
    if failed is not None:
        raise failed
    return graph


def sm_count(device: Device | None = None) -> int:
    from gpubfs_cli.gpu.backend import device_properties

    return int(device_properties(device)["sm_count"])


def blocks_for(work: int, block: int, per_sm: int = 32, device: Device | None = None) -> int:
    """Blocks for `work` items at one thread each, capped at `per_sm` blocks per SM
    (kernels loop grid-stride over the rest). At least one."""
    need = -(-max(int(work), 1) // block)
    return max(1, min(need, sm_count(device) * per_sm))


def blocks_per_sm(kernel, block: int, shared_mem: int = 0) -> int:
    """How many blocks of `kernel` fit on one SM at once (occupancy)."""
    from gpubfs_cli.gpu.backend import cupy

    cp = cupy()
    return int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, block, shared_mem))


def resident_blocks(kernel, block: int, shared_mem: int = 0, device: Device | None = None) -> int:
    """How many blocks of `kernel` fit on the whole GPU at once (occupancy x SMs):
    the largest grid a cooperative launch accepts."""
    return blocks_per_sm(kernel, block, shared_mem) * sm_count(device)


def persistent_grid(name: str, kernels, block: int, want: int = 0, device: Device | None = None) -> int:
    """The grid of a persistent kernel: `want` CTAs of `block` threads an SM (0 = as many
    as fit), never more than fit for every one of `kernels`, times the SMs. When none fits,
    the strategy `name` is unavailable on this GPU (one line)."""
    fit = min(blocks_per_sm(kernel, block) for kernel in kernels)
    if fit < 1:
        raise StrategyUnavailable(f"{name}: no CTA of {block} threads fits an SM")
    return min(int(want) or fit, fit) * sm_count(device)


def persistent_defines(prefix: str, cta_size: int, offset64: bool = False,
                       probe_batch: int = PROBE_BATCH, frontier_cache: str = FRONTIER_CACHE) -> dict[str, int]:
    """The -D defines of a persistent kernel's build (do.cu, msbfs.cu): CTAs of
    `cta_size` threads, as many resident as make 1024 threads an SM, 64-bit edge
    offsets when `offset64`, and bottom-up lanes loading `probe_batch` in-edges at once
    (BU_BATCH), their frontier words cached in L1 when `frontier_cache` is "l1"
    (BU_FRONT_L1). The 32-bit build and bottom_up.cuh's own defaults name no define, so
    the default build's key is unchanged."""
    defines = {f"{prefix}_BLOCK": cta_size, f"{prefix}_MIN_BLOCKS": max(1, 1024 // cta_size)}
    if offset64:
        defines[f"{prefix}_OFFSET64"] = 1
    if probe_batch != PROBE_BATCH:
        defines["BU_BATCH"] = int(probe_batch)
    if frontier_cache != FRONTIER_CACHE:
        defines["BU_FRONT_L1"] = FRONTIER_CACHES.index(frontier_cache)
    return defines


def persistent_builds(prefix: str, cta_sizes, probe_cta: int = 256,
                      frontier_cache: str = FRONTIER_CACHE) -> list[dict[str, int]]:
    """Every build of a persistent kernel, for the compile test: each CTA size with both
    offset widths at its default `frontier_cache`, and the other probe batches and
    frontier caches at `probe_cta` threads."""
    return [persistent_defines(prefix, c, wide, frontier_cache=frontier_cache)
            for c in cta_sizes for wide in (False, True)] + [
        persistent_defines(prefix, probe_cta, wide, b, frontier_cache) for b in PROBE_BATCHES if b != PROBE_BATCH
        for wide in (False, True)] + [
        persistent_defines(prefix, probe_cta, wide, frontier_cache=f) for f in FRONTIER_CACHES if f != frontier_cache
        for wide in (False, True)]


def require_int32_ids(graph, strategy: str) -> None:
    """The kernels index vertices with 32-bit ints; a larger graph is unavailable."""
    if graph.n >= INT32_MAX or graph.col_indices.dtype != np.int32:
        raise StrategyUnavailable(f"{strategy} needs vertex ids below 2^31 (int32 col_indices)")


POINTER = "u8"  # a parameter struct's pointer field: a device address


def device_address(a) -> int:
    """The device address of CuPy array `a` (0 for None): a pointer field's value."""
    return 0 if a is None else int(a.data.ptr)


def param_struct(*fields: tuple[str, str]) -> np.dtype:
    """A kernel's by-value parameter struct as a numpy dtype: (name, type) in the C
    struct's order, POINTER for a pointer, "i4" for int, "i8" for long long; align=True
    lays the fields out as C does (each at a multiple of its size, the whole padded to
    the largest)."""
    return np.dtype(list(fields), align=True)


def kernel_struct(dtype: np.dtype, **values) -> np.ndarray:
    """A parameter struct's value, built once in prepare(): a one-element host array of
    its bytes (CuPy passes a numpy array of size one by value). A POINTER field of
    `dtype` takes a device array or None, every other field an integer. The arrays are
    not kept: the caller holds them as long as the struct is launched. Its dtype is
    plain bytes (V<size>): CuPy reads the array's __array_interface__ at every launch,
    which costs microseconds for a dtype of many named fields."""
    if set(values) != set(dtype.names):
        raise TypeError(f"fields {sorted(set(dtype.names) ^ set(values))}: missing or unknown")
    out = np.zeros(1, dtype)
    for name in dtype.names:
        value = values[name]
        if dtype.fields[name][0] == np.dtype(POINTER):
            out[name] = device_address(value)
        elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            out[name] = value
        else:
            raise TypeError(f"field {name}: an integer, not {type(value).__name__}")
    return out.view(np.dtype((np.void, dtype.itemsize)))


def by_address(struct: np.ndarray):
    """The by-value argument of `struct` (kernel_struct's) as a CuPy CPointer to its bytes,
    which a launch passes on as it is: a numpy array costs a conversion of about a
    microsecond at every launch. Worth it where a traversal launches many kernels
    (bfs4k: about eight per status read); a persistent kernel launches once. The caller
    keeps `struct` alive as long as the argument is launched."""
    from cupy.cuda.function import CPointer

    return CPointer(struct.ctypes.data)
