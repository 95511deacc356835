"""A CSR graph on one GPU: uploaded once per graph and device, shared by every strategy
and source there. Weights and in-edges are added only when a strategy asks for them."""

from __future__ import annotations

import weakref

from gpubfs_cli.core.device import Device, gpu
from gpubfs_cli.graph.csr import CSRGraph

# graph -> {device index: DeviceGraph}; weak, so a dropped graph frees its copies
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def offsets32_fit(m: int) -> bool:
    """Whether int32 row offsets hold every offset of a graph of m edges (0..m)."""
    return int(m) < 2**31


class DeviceGraph:
    """row_offsets (int64, the contract), row_offsets32 (int32, when m < 2**31, which
    most kernels prefer: half the bytes per offset read), col_indices (int32);
    `weights` (None until with_weights()), `in_offsets`/`in_indices` (None until
    with_in_edges(); the CSR itself for undirected graphs) and `in_by_degree` (None
    until in_indices_by_degree())."""

    def __init__(self, graph: CSRGraph, device: Device):
        from gpubfs_cli.gpu.backend import cupy, on

        cp = cupy()
        self.graph = weakref.ref(graph)
        self.device = device
        self.n = graph.n
        self.m = graph.m
        with on(device):
            self.row_offsets = cp.asarray(graph.row_offsets, dtype=cp.int64)
            self.row_offsets32 = self.row_offsets.astype(cp.int32) if offsets32_fit(graph.m) else None
            self.col_indices = cp.asarray(graph.col_indices)
        self.weights = None
        self.in_offsets = self.in_indices = self.in_by_degree = None

    @classmethod
    def of(cls, graph: CSRGraph, device: Device | None = None, *, weights: bool = False) -> DeviceGraph:
        """The copy of `graph` on `device` (default GPU 0), uploading it on first use."""
        device = device or gpu(0)
        per_device = _CACHE.setdefault(graph, {})
        dg = per_device.get(device.index)
        if dg is None:
            dg = per_device[device.index] = cls(graph, device)
        if weights:
            dg.with_weights()
        return dg

    def with_weights(self) -> DeviceGraph:
        """Upload the edge weights (parallel to col_indices) once."""
        if self.weights is None:
            from gpubfs_cli.gpu.backend import cupy, on

            graph = self.graph()
            if graph is None or graph.weights is None:
                raise ValueError("the graph carries no weights")
            with on(self.device):
                self.weights = cupy().asarray(graph.weights)
        return self

    def with_in_edges(self) -> DeviceGraph:
        """The transpose (in-edges as CSR) once: for undirected graphs the CSR itself."""
        if self.in_offsets is None:
            graph = self.graph()
            if graph is None or not graph.directed:
                self.in_offsets, self.in_indices = self.row_offsets, self.col_indices
                return self
            from gpubfs_cli.gpu.backend import cupy, on

            cp = cupy()
            with on(self.device):
                rows = cp.repeat(cp.arange(self.n, dtype=self.col_indices.dtype),
                                 cp.diff(self.row_offsets).astype(cp.int64))
                order = cp.lexsort(cp.stack([rows, self.col_indices]))
                self.in_indices = rows[order]
                counts = cp.bincount(self.col_indices, minlength=self.n)
                self.in_offsets = cp.zeros(self.n + 1, dtype=cp.int64)
                cp.cumsum(counts, out=self.in_offsets[1:])
        return self

    def in_indices_by_degree(self):
        """in_indices with each in-list ordered by its neighbours' out-degree, largest
        first, ties in stored order (graph/list_order.hubs_first), built once on the
        device."""
        if self.in_by_degree is None:
            from gpubfs_cli.gpu.backend import cupy, on
            from gpubfs_cli.graph.list_order import hubs_first

            self.with_in_edges()
            cp = cupy()
            with on(self.device):
                self.in_by_degree = hubs_first(cp, self.in_offsets, self.in_indices, cp.diff(self.row_offsets))
        return self.in_by_degree

    @staticmethod
    def release(graph: CSRGraph) -> None:
        """Drop every device copy of `graph` and give the memory back to the driver."""
        per_device = _CACHE.pop(graph, None) or {}
        from gpubfs_cli.gpu.backend import cupy, gpu_available, on

        if gpu_available():
            cp = cupy()
            for index in per_device or [0]:
                with on(Device("gpu", index)):
                    cp.get_default_memory_pool().free_all_blocks()

    def nbytes(self) -> int:
        arrays = (self.row_offsets, self.row_offsets32, self.col_indices, self.weights,
                  None if self.in_offsets is self.row_offsets else self.in_offsets,
                  None if self.in_indices is self.col_indices else self.in_indices, self.in_by_degree)
        return int(sum(a.nbytes for a in arrays if a is not None))
