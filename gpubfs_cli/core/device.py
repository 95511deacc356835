"""Device: where a strategy runs. A value, not a handle: the device layer
(gpubfs_cli.gpu) keeps per-device state (graph copies, compiled modules, SM counts,
timers) keyed by it, so two strategies on two GPUs never share a cache entry."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Device:
    kind: str  # "cpu" or "gpu"
    index: int = 0

    @property
    def is_gpu(self) -> bool:
        return self.kind == "gpu"

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"gpu:{self.index}"


CPU = Device("cpu")


def gpu(index: int = 0) -> Device:
    return Device("gpu", int(index))
