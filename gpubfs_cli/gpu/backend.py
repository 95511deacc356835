"""Whether a GPU is usable here, how many, and why not when none is.

CuPy is imported lazily, so every CPU path works on a machine without it.
"""

from __future__ import annotations

import functools
import os

from gpubfs_cli.core.device import Device


@functools.lru_cache(maxsize=1)
def unavailable_reason() -> str | None:
    """None when CuPy imports and sees a CUDA device; otherwise one line saying why."""
    if os.environ.get("GPUBFS_DISABLE_GPU"):
        return "disabled by GPUBFS_DISABLE_GPU"
    try:
        import cupy
    except ImportError as exc:
        return f"CuPy is not installed ({exc.msg})"
    except Exception as exc:  # a broken CUDA install raises all sorts
        return f"CuPy failed to import: {exc}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return f"no usable CUDA device: {str(exc).splitlines()[0]}"
    if count < 1:
        return "no CUDA device found"
    return None


def gpu_available() -> bool:
    return unavailable_reason() is None


def device_count() -> int:
    """Usable GPUs here (0 without one)."""
    if not gpu_available():
        return 0
    import cupy

    return int(cupy.cuda.runtime.getDeviceCount())


def gpus_unavailable_reason(needed: int) -> str | None:
    """None when `needed` GPUs are usable, else why not (one line)."""
    reason = unavailable_reason()
    if reason is not None:
        return reason
    have = device_count()
    if have < needed:
        return f"needs {needed} GPUs, this machine has {have}"
    return None


def cupy():
    """The cupy module; raises RuntimeError with the reason when no GPU is usable."""
    reason = unavailable_reason()
    if reason is not None:
        raise RuntimeError(f"GPU unavailable: {reason}")
    import cupy as cp

    return cp


def cupy_if_usable():
    """The cupy module when a GPU is usable here, else None: what the dataset layer is
    handed to generate graphs on the GPU (it never imports this layer itself)."""
    return cupy() if gpu_available() else None


def on(device: Device):
    """A context manager that makes `device` current (cupy.cuda.Device)."""
    return cupy().cuda.Device(device.index)


def synchronize(devices) -> None:
    """Wait for all work on each GPU among `devices` (CPUs are skipped)."""
    gpus = [d for d in devices if d.is_gpu]
    if gpus:
        cp = cupy()
        for d in gpus:
            cp.cuda.Device(d.index).synchronize()


@functools.cache
def _properties(index: int) -> dict:
    cp = cupy()
    props = cp.cuda.runtime.getDeviceProperties(index)
    name = props["name"]
    return {
        "index": index,
        "name": name.decode() if isinstance(name, bytes) else str(name),
        "memory_bytes": int(props["totalGlobalMem"]),
        "sm_count": int(props["multiProcessorCount"]),
        "compute_capability": f"{props['major']}.{props['minor']}",
        "l2_bytes": int(props.get("l2CacheSize", 0)),
        "max_threads_per_sm": int(props.get("maxThreadsPerMultiProcessor", 0)),
        "shared_memory_per_block_optin": int(props.get("sharedMemPerBlockOptin", 0)),
        "driver_version": int(cp.cuda.runtime.driverGetVersion()),
        "runtime_version": int(cp.cuda.runtime.runtimeGetVersion()),
        "cupy_version": cp.__version__,
    }


def device_properties(device: Device | None = None) -> dict:
    """Name, memory, SM count, compute capability, L2, driver and CUDA versions."""
    return dict(_properties(0 if device is None else device.index))


def all_device_properties() -> list[dict]:
    """device_properties of every usable GPU, in index order."""
    return [device_properties(Device("gpu", i)) for i in range(device_count())]


def pci_bus_id(device: Device) -> str:
    """The device's PCI bus id (e.g. 0000:3B:00.0): how NVML and nvidia-smi name the
    GPU that CUDA calls `device.index` (their orders may differ)."""
    return str(cupy().cuda.runtime.deviceGetPCIBusId(device.index))


def l2_bytes(device: Device) -> int:
    """The device's L2 cache size in bytes (0 when the driver does not say)."""
    return int(_properties(device.index)["l2_bytes"])
