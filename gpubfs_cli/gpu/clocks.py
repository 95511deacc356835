"""A GPU's SM and memory clocks and temperature, read outside any timed region.

The runner records one reading per GPU before and after each group of timed samples
(bench/runner.py), so a report can tell a throttled or cold-clocked run from a slow
strategy. Readers, in order: NVML through `pynvml` (the nvidia-ml-py package) when it
imports, else `nvidia-smi --query-gpu=...` when it is on PATH, else none: the
reading is null with the reason. A reader is a callable Device -> ClockReading and
raises ClocksUnavailable with one line; the runner takes any such callable, so tests
pass a fake.

The GPU is found by its PCI bus id when CuPy gives one: CUDA's device order (and
CUDA_VISIBLE_DEVICES) need not match NVML's and nvidia-smi's.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Callable
from typing import TypedDict

from gpubfs_cli.core.device import Device

SMI_FIELDS = "clocks.sm,clocks.mem,temperature.gpu"
SMI_TIMEOUT_S = 10


class ClockReading(TypedDict):
    sm_mhz: int
    mem_mhz: int
    temperature_c: int
    via: str  # "nvml" or "nvidia-smi"


class ClocksUnavailable(Exception):
    """No reading could be made; str() is the one-line reason recorded instead."""


ClockReader = Callable[[Device], ClockReading]


def _pci_bus_id(device: Device) -> str | None:
    """The device's PCI bus id as CUDA sees it, or None (no CuPy, or the query fails)."""
    try:
        from gpubfs_cli.gpu.backend import pci_bus_id

        return pci_bus_id(device)
    except Exception:  # no usable GPU: fall back to the index
        return None


def parse_smi_line(text: str) -> ClockReading:
    """`1980, 2619, 35` (nvidia-smi's csv,noheader,nounits answer for one GPU)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if len(lines) != 1:
        raise ClocksUnavailable(f"nvidia-smi: expected one line for one GPU, got {len(lines)}")
    parts = [p.strip() for p in lines[0].split(",")]
    if len(parts) != 3:
        raise ClocksUnavailable(f"nvidia-smi: expected 3 values ({SMI_FIELDS}), got {lines[0]!r}")
    try:
        sm, mem, temp = (int(float(p)) for p in parts)
    except ValueError:
        raise ClocksUnavailable(f"nvidia-smi: expected numbers, got {lines[0]!r}") from None
    return ClockReading(sm_mhz=sm, mem_mhz=mem, temperature_c=temp, via="nvidia-smi")


def read_smi(device: Device, smi: str = "nvidia-smi") -> ClockReading:
    target = _pci_bus_id(device) or str(device.index)
    cmd = [smi, f"--query-gpu={SMI_FIELDS}", "--format=csv,noheader,nounits", "-i", target]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=SMI_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ClocksUnavailable(f"nvidia-smi: {type(exc).__name__}: {exc}") from None
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        raise ClocksUnavailable(f"nvidia-smi exited {done.returncode}: {why[0] if why else ''}".rstrip(": "))
    return parse_smi_line(done.stdout)


@functools.lru_cache(maxsize=1)
def _nvml():
    """The initialised pynvml module (once per process)."""
    import pynvml

    pynvml.nvmlInit()
    return pynvml


def read_nvml(device: Device) -> ClockReading:
    try:
        nv = _nvml()
        bus = _pci_bus_id(device)
        handle = nv.nvmlDeviceGetHandleByPciBusId(bus) if bus else nv.nvmlDeviceGetHandleByIndex(device.index)
        return ClockReading(
            sm_mhz=int(nv.nvmlDeviceGetClockInfo(handle, nv.NVML_CLOCK_SM)),
            mem_mhz=int(nv.nvmlDeviceGetClockInfo(handle, nv.NVML_CLOCK_MEM)),
            temperature_c=int(nv.nvmlDeviceGetTemperature(handle, nv.NVML_TEMPERATURE_GPU)),
            via="nvml",
        )
    except Exception as exc:  # NVMLError and its many subclasses
        text = str(exc).strip().splitlines()
        raise ClocksUnavailable(f"nvml: {type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")) from None


def _pynvml_importable() -> bool:
    try:
        import pynvml  # noqa: F401
    except Exception:
        return False
    return True


def default_reader() -> ClockReader:
    """NVML when pynvml imports, else nvidia-smi when on PATH, else a reader that says why not."""
    if _pynvml_importable():
        return read_nvml
    smi = shutil.which("nvidia-smi")
    if smi is not None:
        return functools.partial(read_smi, smi=smi)

    def none(device: Device) -> ClockReading:
        raise ClocksUnavailable("neither pynvml (nvidia-ml-py) nor nvidia-smi is available")

    return none


def reading_or_reason(reader: ClockReader, device: Device) -> tuple[ClockReading | None, str | None]:
    """(reading, None), or (None, why): a clock that cannot be read never fails a run."""
    try:
        return dict(reader(device)), None  # type: ignore[return-value]
    except ClocksUnavailable as exc:
        return None, str(exc)
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"[:300]


def readings(reader: ClockReader, devices) -> dict[Device, tuple[ClockReading | None, str | None]]:
    """(reading, why not) of each GPU among `devices`; nothing for CPU devices."""
    return {d: reading_or_reason(reader, d) for d in devices if d.is_gpu}


def clock_entries(before: dict, after: dict) -> list[dict]:
    """One entry per device of two readings(): the readings around a group of timed
    samples, and why either is missing."""
    out = []
    for device, (first, why_first) in before.items():
        last, why_last = after[device]
        whys = [f"{when}: {why}" for when, why in (("before", why_first), ("after", why_last)) if why]
        out.append({"device": str(device), "before": first, "after": last, "reason": "; ".join(whys) or None})
    return out
