"""Memory where graphs are made: what the host and the GPU have free, and what an
out-of-memory error asked for, in one line.

The GPU is reached only through the array module a caller holds (cupy), never imported
here: free bytes are the driver's free memory plus the blocks CuPy's pool keeps cached
(an allocation reuses those first).
"""

from __future__ import annotations

import gc
import os

GB = 1e9


def gb(nbytes: float | None) -> str:
    return "?" if nbytes is None else f"{nbytes / GB:.1f} GB"


def available_memory() -> int | None:
    """Bytes this process can still allocate: MemAvailable, capped by a cgroup limit."""
    found: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError):
        pass
    for limit, usage in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        try:
            with open(limit, encoding="ascii") as a, open(usage, encoding="ascii") as b:
                cap, used = a.read().strip(), b.read().strip()
            if cap.isdigit() and used.isdigit() and int(cap) < 1 << 60:
                found.append(max(0, int(cap) - int(used)))
        except (OSError, ValueError):
            pass
    if not found:
        try:
            found.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, ValueError, AttributeError):
            return None
    return min(found)


def device_free(xp) -> int | None:
    """Bytes free on the current GPU of array module `xp` (None when not known)."""
    try:
        free, _total = xp.cuda.runtime.memGetInfo()
        return int(free) + int(xp.get_default_memory_pool().free_bytes())
    except Exception:  # numpy, or a module without a device
        return None


def device_total(xp) -> int | None:
    try:
        return int(xp.cuda.runtime.memGetInfo()[1])
    except Exception:
        return None


def release_device(xp) -> None:
    """Give the blocks CuPy's pool caches back to the driver (after a failed or big
    build). Arrays still referenced stay; call it once the failure's frames are gone."""
    gc.collect()
    try:
        xp.get_default_memory_pool().free_all_blocks()
    except Exception:
        pass


def is_out_of_memory(exc: BaseException) -> bool:
    """A MemoryError (CuPy's OutOfMemoryError is one), or a CUDA allocation failure."""
    if isinstance(exc, MemoryError):
        return True
    text = str(exc)
    return "cudaErrorMemoryAllocation" in text or "CUDA_ERROR_OUT_OF_MEMORY" in text


def on_gpu(exc: BaseException) -> bool:
    return type(exc).__module__.startswith(("cupy", "cupy_backends")) or "cuda" in str(exc).lower()


def out_of_memory(exc: BaseException, xp=None) -> tuple[str, str]:
    """(what ran out, the sizes known) of an out-of-memory error: ("GPU memory",
    "17.2 GB asked, 68.7 GB held by this process, 80.0 GB on the GPU") or ("host
    memory", "16.0 GB asked, 9.1 GB available"); `xp` is the GPU's array module."""
    if on_gpu(exc):
        asked, held = getattr(exc, "_size", None), getattr(exc, "_total", None)  # CuPy's OutOfMemoryError
        total = device_total(xp) if xp is not None else None
        sizes = [f"{gb(asked)} asked" if asked is not None else "",
                 f"{gb(held)} held by this process" if held is not None else "",
                 f"{gb(total)} on the GPU" if total is not None else ""]
        return "GPU memory", ", ".join(x for x in sizes if x)
    asked = getattr(exc, "_total_size", None)  # numpy's _ArrayMemoryError
    free = available_memory()
    sizes = [f"{gb(asked)} asked" if asked is not None else "",
             f"{gb(free)} available" if free is not None else ""]
    return "host memory", ", ".join(x for x in sizes if x)
