"""GpuStrategy: the Strategy contract on the device layer."""

from __future__ import annotations

from gpubfs_cli.gpu import backend
from gpubfs_cli.gpu.device_graph import DeviceGraph
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.traversal.strategy import Strategy


class GpuStrategy(Strategy):
    """Base for GPU strategies: the runner times traverse() with CUDA events.

    prepare() uploads the graph once (shared through DeviceGraph.of) and subclasses
    allocate their per-graph buffers there, never inside traverse(). So the device
    arrays a traverse() returns are those buffers: valid until the next traverse() on
    the same strategy (the runner calls to_host() in between).
    """

    device = "gpu"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return backend.unavailable_reason()

    def prepare(self, graph: CSRGraph) -> None:
        super().prepare(graph)
        self.dgraph = DeviceGraph.of(graph)

    def release(self) -> None:
        self.dgraph = None
        super().release()
