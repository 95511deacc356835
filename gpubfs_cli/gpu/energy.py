"""A GPU's total-energy counter: the millijoules it has drawn since the driver loaded
(NVML's nvmlDeviceGetTotalEnergyConsumption, Volta and later), read outside any timed
region.

The counter moves in coarse steps next to a sub-millisecond traversal, so the harness
reads it around a stretch of back-to-back traversals of a second or more
(bench/energy.py), never around one call. NVML is reached as gpu/clocks.py reaches it
(pynvml, each GPU found by its PCI bus id); nvidia-smi has no such counter, so without
pynvml there is no reading. A reader is a callable Device -> millijoules that raises
EnergyUnavailable with one line (no pynvml, a GPU or driver without the counter); the
runner takes any such callable, so tests pass a fake.
"""

from __future__ import annotations

from collections.abc import Callable

from gpubfs_cli.core.device import Device
from gpubfs_cli.gpu import clocks

EnergyReader = Callable[[Device], int]
NO_PYNVML = "no pynvml (nvidia-ml-py): NVML's energy counter cannot be read"


class EnergyUnavailable(Exception):
    """No reading could be made; str() is the one-line reason recorded instead."""


def read_energy_nvml(device: Device) -> int:
    """The GPU's total energy since the driver loaded, in millijoules."""
    try:
        nv = clocks._nvml()
        return int(nv.nvmlDeviceGetTotalEnergyConsumption(clocks._nvml_handle(nv, device)))
    except Exception as exc:  # NVMLError_NotSupported (before Volta), no library, ...
        raise EnergyUnavailable(clocks._nvml_reason(exc)) from None


def default_energy_reader() -> EnergyReader:
    """NVML's counter when pynvml imports, else a reader that says why not."""
    if clocks._pynvml_importable():
        return read_energy_nvml

    def none(device: Device) -> int:
        raise EnergyUnavailable(NO_PYNVML)

    return none
