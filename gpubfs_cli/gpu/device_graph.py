"""A CSR graph on the GPU: uploaded once per graph, shared by every strategy and source."""

from __future__ import annotations

import weakref

from gpubfs_cli.graph.csr import CSRGraph

_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class DeviceGraph:
    """row_offsets (int64, the contract), row_offsets32 (int32, when m < 2**31, which
    most kernels prefer: half the bytes per offset read), col_indices (int32)."""

    def __init__(self, graph: CSRGraph):
        from gpubfs_cli.gpu.backend import cupy

        cp = cupy()
        self.n = graph.n
        self.m = graph.m
        self.row_offsets = cp.asarray(graph.row_offsets, dtype=cp.int64)
        self.row_offsets32 = (
            self.row_offsets.astype(cp.int32) if graph.m < 2**31 else None
        )
        self.col_indices = cp.asarray(graph.col_indices)
        self.out_degrees = None  # filled on demand

    @classmethod
    def of(cls, graph: CSRGraph) -> DeviceGraph:
        """The device copy of `graph`, uploading it on first use."""
        dg = _CACHE.get(graph)
        if dg is None:
            dg = cls(graph)
            _CACHE[graph] = dg
        return dg

    @staticmethod
    def release(graph: CSRGraph) -> None:
        """Drop the device copy and give the memory back to the driver."""
        _CACHE.pop(graph, None)
        from gpubfs_cli.gpu.backend import gpu_available

        if gpu_available():
            import cupy as cp

            cp.get_default_memory_pool().free_all_blocks()

    def nbytes(self) -> int:
        total = self.row_offsets.nbytes + self.col_indices.nbytes
        if self.row_offsets32 is not None:
            total += self.row_offsets32.nbytes
        return int(total)
