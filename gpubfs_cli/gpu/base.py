"""GpuStrategy: the Strategy contract on the device layer."""

from __future__ import annotations

from typing import Any

from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.gpu import backend
from gpubfs_cli.gpu.device_graph import DeviceGraph


class GpuStrategy(Strategy):
    """Base for GPU strategies: timed with CUDA events on every device the strategy runs
    on (timing `events`; the slowest device counts).

    upload() puts the graph (and its weights, when the problem needs them) on each of
    the strategy's devices, shared through DeviceGraph.of. prepare() then allocates
    every per-graph buffer through `buffer()` / `keep()`, never inside traverse(): so
    prepared_bytes() and release() come for free, and the device arrays a traverse()
    returns are those buffers, valid until the next traverse() on the same strategy
    (the runner calls to_host() in between).
    """

    device_kind = "gpu"
    timing = "events"
    # Why traverse() allocates device memory, where a library call it is built on does
    # (the allocation test holds every other GPU strategy to none); "" = it does not.
    traverse_allocates = ""

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return backend.gpus_unavailable_reason(len(cls.devices_for(cls.Knobs())))

    def _needs_weights(self) -> bool:
        return self.problem_spec().needs_weights

    def upload(self, graph) -> None:
        for device in self.devices:
            DeviceGraph.of(graph, device, weights=self._needs_weights())

    def prepare(self, graph) -> None:
        super().prepare(graph)
        self._buffers: dict[str, Any] = {}
        self._pinned: dict[str, Any] = {}
        self._derived: list[str] = []
        self.dgraph = DeviceGraph.of(graph, self.device, weights=self._needs_weights())

    def cupy(self):
        """The cupy module, with this strategy's device made current for the caller's
        next allocations and launches (one-device strategies)."""
        cp = backend.cupy()
        cp.cuda.Device(self.device.index).use()
        return cp

    def buffer(self, name: str, shape, dtype, fill=None):
        """A per-graph device array set as attribute `name`: counted in prepared_bytes,
        dropped by release. `fill` None leaves it uninitialised."""
        cp = self.cupy()
        a = cp.empty(shape, dtype=dtype) if fill is None else cp.full(shape, fill, dtype=dtype)
        return self.keep(name, a)

    def keep(self, name: str, value):
        """Set attribute `name` to a per-graph value prepare() built otherwise (a cupy
        expression, a list of arrays, a sparse matrix): counted and dropped the same way."""
        self._buffers[name] = value
        setattr(self, name, value)
        return value

    def derived(self, name: str, value):
        """Set attribute `name` to something prepare() built from the buffers that
        traverse() reuses (views, argument templates): dropped by release, not counted
        (its memory is the buffers')."""
        self._derived.append(name)
        setattr(self, name, value)
        return value

    def pinned(self, name: str, shape, dtype):
        """A per-graph host array in page-locked memory set as attribute `name`, for the
        status words a traverse() reads back: a pinned copy costs a few microseconds
        where a pageable one costs tens. Dropped by release; not counted as device memory."""
        import cupyx

        host = cupyx.empty_pinned(shape, dtype=dtype)
        self._pinned[name] = host
        setattr(self, name, host)
        return host

    def read_back(self, device_array, host):
        """Copy `device_array` into the pinned `host` array (same size) and wait for it."""
        device_array.get(out=host)
        return host

    def prepared_bytes(self) -> int:
        seen, total = set(), 0
        stack = list(getattr(self, "_buffers", {}).values())
        while stack:
            a = stack.pop()
            if isinstance(a, (list, tuple)):
                stack.extend(a)
            elif hasattr(a, "nbytes") and id(a) not in seen:  # a sparse matrix's arrays are kept apart
                seen.add(id(a))
                total += int(a.nbytes)
        return total

    def device_bytes(self) -> list[int] | None:
        """The device graph's arrays (shared with other variants of the same graph) and
        this variant's buffers, on its one device."""
        dgraph = getattr(self, "dgraph", None)
        return None if dgraph is None else [dgraph.nbytes() + self.prepared_bytes()]

    def release(self) -> None:
        for name in getattr(self, "_buffers", {}):
            setattr(self, name, None)
        self._buffers = {}
        for name in getattr(self, "_pinned", {}):
            setattr(self, name, None)
        self._pinned = {}
        for name in getattr(self, "_derived", ()):
            setattr(self, name, None)
        self._derived = []
        self.dgraph = None
        super().release()
