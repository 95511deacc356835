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

A run's provenance (bench/environment.py) reads more, once at its start and once at its
end, through the same two routes: each GPU's UUID, driver version and active clock event
(throttle) reasons (`read_state`), and how several GPUs are linked (`read_topology`).
"""

from __future__ import annotations

import functools
import re
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


def _smi_values(text: str, count: int, what: str) -> list[str]:
    """The `count` comma-separated values of nvidia-smi's one-line (one GPU) csv answer."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if len(lines) != 1:
        raise ClocksUnavailable(f"nvidia-smi: expected one line for one GPU, got {len(lines)}")
    parts = [p.strip() for p in lines[0].split(",")]
    if len(parts) != count:
        raise ClocksUnavailable(f"nvidia-smi: expected {count} values ({what}), got {lines[0]!r}")
    return parts


def parse_smi_line(text: str) -> ClockReading:
    """`1980, 2619, 35` (nvidia-smi's csv,noheader,nounits answer for one GPU)."""
    parts = _smi_values(text, 3, SMI_FIELDS)
    try:
        sm, mem, temp = (int(float(p)) for p in parts)
    except ValueError:
        raise ClocksUnavailable(f"nvidia-smi: expected numbers, got {', '.join(parts)!r}") from None
    return ClockReading(sm_mhz=sm, mem_mhz=mem, temperature_c=temp, via="nvidia-smi")


def _smi_run(cmd: list[str]) -> str:
    """nvidia-smi's stdout, or ClocksUnavailable with its first line of complaint."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=SMI_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ClocksUnavailable(f"nvidia-smi: {type(exc).__name__}: {exc}") from None
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        raise ClocksUnavailable(f"nvidia-smi exited {done.returncode}: {why[0] if why else ''}".rstrip(": "))
    return done.stdout


def read_smi(device: Device, smi: str = "nvidia-smi") -> ClockReading:
    target = _pci_bus_id(device) or str(device.index)
    return parse_smi_line(_smi_run([smi, f"--query-gpu={SMI_FIELDS}", "--format=csv,noheader,nounits", "-i", target]))


@functools.lru_cache(maxsize=1)
def _nvml():
    """The initialised pynvml module (once per process)."""
    import pynvml

    pynvml.nvmlInit()
    return pynvml


def _nvml_handle(nv, device: Device):
    bus = _pci_bus_id(device)
    return nv.nvmlDeviceGetHandleByPciBusId(bus) if bus else nv.nvmlDeviceGetHandleByIndex(device.index)


def _nvml_reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return f"nvml: {type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def read_nvml(device: Device) -> ClockReading:
    try:
        nv = _nvml()
        handle = _nvml_handle(nv, device)
        return ClockReading(
            sm_mhz=int(nv.nvmlDeviceGetClockInfo(handle, nv.NVML_CLOCK_SM)),
            mem_mhz=int(nv.nvmlDeviceGetClockInfo(handle, nv.NVML_CLOCK_MEM)),
            temperature_c=int(nv.nvmlDeviceGetTemperature(handle, nv.NVML_TEMPERATURE_GPU)),
            via="nvml",
        )
    except Exception as exc:  # NVMLError and its many subclasses
        raise ClocksUnavailable(_nvml_reason(exc)) from None


def _pynvml_importable() -> bool:
    try:
        import pynvml  # noqa: F401
    except Exception:
        return False
    return True


def _choose(nvml, smi_reader):
    """NVML's reader when pynvml imports, else nvidia-smi's when on PATH, else a reader
    that says why not."""
    if _pynvml_importable():
        return nvml
    smi = shutil.which("nvidia-smi")
    if smi is not None:
        return functools.partial(smi_reader, smi=smi)

    def none(device: Device):
        raise ClocksUnavailable("neither pynvml (nvidia-ml-py) nor nvidia-smi is available")

    return none


def default_reader() -> ClockReader:
    """The clocks: NVML, else nvidia-smi, else a reader that says why not."""
    return _choose(read_nvml, read_smi)


def reading_or_reason(reader, device: Device) -> tuple[dict | None, str | None]:
    """(reading, None), or (None, why): a clock or state that cannot be read never fails a run."""
    try:
        return dict(reader(device)), None
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


# ------------------------------------------------------------------ identity, throttling, topology
# NVML's clock event reason bits (nvmlClocksEventReason*, once nvmlClocksThrottleReason*),
# named as `nvidia-smi -q` lists them.
THROTTLE_REASONS = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
)
# Newer drivers renamed the field clocks_event_reasons; the older name is asked first.
SMI_STATE_FIELDS = (
    "uuid,driver_version,clocks.sm,clocks.mem,clocks_throttle_reasons.active",
    "uuid,driver_version,clocks.sm,clocks.mem,clocks_event_reasons.active",
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# nvmlGpuTopologyLevel_t: the closest connection two GPUs share.
TOPOLOGY_LEVELS = {0: "same board", 10: "one PCIe switch", 20: "several PCIe switches",
                   30: "one host bridge", 40: "one NUMA node", 50: "across NUMA nodes"}
# nvmlGpuP2PCapsIndex_t by value: an installed pynvml's NVML_P2P_CAPS_INDEX_READ failed ctypes' conversion.
P2P_CAPS = (("read", 0), ("write", 1), ("nvlink", 2), ("atomics", 3))


class GpuState(TypedDict, total=False):
    uuid: str
    driver: str  # the driver's own version string (570.124.06), not CUDA's
    throttle_mask: str  # the active reasons' bits in hex, as nvidia-smi prints them
    throttle_reasons: list[str]  # their names; [] when the clocks are not held back
    throttle_reason: str  # why the reasons could not be read (the rest still was)
    sm_mhz: int  # nvidia-smi's answer carries the clocks too
    mem_mhz: int
    via: str  # "nvml" or "nvidia-smi"


StateReader = Callable[[Device], GpuState]


def throttle_reasons(mask: int) -> list[str]:
    """The names of the bits set in an NVML clock event (throttle) reason mask."""
    names = [name for bit, name in THROTTLE_REASONS if mask & bit]
    rest = mask & ~sum(bit for bit, _ in THROTTLE_REASONS)
    return names + ([f"unknown {rest:#x}"] if rest else [])


def _throttle(mask: int) -> GpuState:
    return GpuState(throttle_mask=f"{mask:#018x}", throttle_reasons=throttle_reasons(mask))


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)  # older pynvml returns bytes


def read_state_nvml(device: Device) -> GpuState:
    try:
        nv = _nvml()
        handle = _nvml_handle(nv, device)
        state = GpuState(uuid=_text(nv.nvmlDeviceGetUUID(handle)), driver=_text(nv.nvmlSystemGetDriverVersion()))
    except Exception as exc:
        raise ClocksUnavailable(_nvml_reason(exc)) from None
    # The newer name first: the older one is deprecated and may go.
    events = getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None)
    events = events or getattr(nv, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
    try:
        if events is None:
            raise AttributeError("this pynvml has no clock event reasons")
        state.update(_throttle(int(events(handle))))
    except Exception as exc:  # the identity stands without them
        state["throttle_reason"] = _nvml_reason(exc)
    state["via"] = "nvml"
    return state


def _smi_number(text: str) -> int | None:
    """`1980 MHz` (or 1980) -> 1980; `[N/A]` -> None."""
    try:
        return int(float(text.split()[0]))
    except (ValueError, IndexError):
        return None


def parse_smi_state(text: str) -> GpuState:
    """`GPU-5f1c..., 570.124.06, 1980 MHz, 2619 MHz, 0x0000000000000001`: one GPU's answer
    to SMI_STATE_FIELDS (csv,noheader)."""
    parts = _smi_values(text, 5, "uuid, driver, clocks, reasons")
    uuid, driver, sm, mem, mask = parts
    state = GpuState(uuid=uuid, driver=driver)
    for key, value in (("sm_mhz", sm), ("mem_mhz", mem)):
        if (number := _smi_number(value)) is not None:
            state[key] = number  # type: ignore[literal-required]
    try:
        state.update(_throttle(int(mask, 16)))
    except ValueError:
        state["throttle_reason"] = f"nvidia-smi: clock event reasons {mask!r}"
    state["via"] = "nvidia-smi"
    return state


def read_state_smi(device: Device, smi: str = "nvidia-smi") -> GpuState:
    target = _pci_bus_id(device) or str(device.index)
    for fields in SMI_STATE_FIELDS:
        try:
            return parse_smi_state(_smi_run([smi, f"--query-gpu={fields}", "--format=csv,noheader", "-i", target]))
        except ClocksUnavailable as exc:
            if "valid field" not in str(exc) or fields == SMI_STATE_FIELDS[-1]:
                raise
    raise AssertionError("unreachable")


def default_state_reader() -> StateReader:
    """Identity, clocks and throttle reasons: NVML, else nvidia-smi, else why not."""
    return _choose(read_state_nvml, read_state_smi)


state_or_reason = reading_or_reason  # the same guard for a GPU's state


def _nvml_pairs(devices: list[Device]) -> list[dict]:
    try:
        nv = _nvml()
        handles = [_nvml_handle(nv, d) for d in devices]
    except Exception as exc:
        raise ClocksUnavailable(_nvml_reason(exc)) from None
    pairs = []
    for i, a in enumerate(devices):
        for j in range(i + 1, len(devices)):
            pair: dict = {"gpus": [str(a), str(devices[j])]}
            try:
                level = int(nv.nvmlDeviceGetTopologyCommonAncestor(handles[i], handles[j]))
                pair["link"] = TOPOLOGY_LEVELS.get(level, f"level {level}")
            except Exception as exc:
                pair["link"] = _nvml_reason(exc)
            p2p = {}
            for name, index in P2P_CAPS:
                try:
                    status = int(nv.nvmlDeviceGetP2PStatus(handles[i], handles[j], index))
                    p2p[name] = "ok" if status == 0 else f"status {status}"
                except Exception as exc:
                    p2p[name] = _nvml_reason(exc)
            pair["p2p"] = p2p
            pairs.append(pair)
    return pairs


def read_topology(devices) -> dict:
    """How the GPUs among `devices` are linked: `nvidia-smi topo -m`'s matrix as text,
    else NVML's common ancestor and P2P status of each pair, else {'reason': why not}."""
    gpus = [d for d in devices if d.is_gpu]
    whys = []
    smi = shutil.which("nvidia-smi")
    if smi is not None:
        try:
            text = ANSI.sub("", _smi_run([smi, "topo", "-m"])).rstrip()  # it underlines its header
            return {"via": "nvidia-smi topo -m", "text": text}
        except ClocksUnavailable as exc:
            whys.append(str(exc))
    if _pynvml_importable():
        try:
            return {"via": "nvml", "pairs": _nvml_pairs(gpus)}
        except ClocksUnavailable as exc:
            whys.append(str(exc))
    return {"reason": "; ".join(whys) or "neither pynvml (nvidia-ml-py) nor nvidia-smi is available"}


def nccl_text(code: int) -> str:
    """NCCL's version code as x.y.z: major*10000 + minor*100 + patch since 2.9, major*1000
    + minor*100 + patch before."""
    if code >= 10000:
        return f"{code // 10000}.{code % 10000 // 100}.{code % 100}"
    return f"{code // 1000}.{code % 1000 // 100}.{code % 100}"


def nccl_version() -> str | None:
    """The NCCL library CuPy loads, as x.y.z; None where it does not import."""
    try:
        from cupy.cuda import nccl

        return nccl_text(int(nccl.get_version()))
    except Exception:  # no CuPy, a CuPy built without NCCL, no libnccl
        return None
