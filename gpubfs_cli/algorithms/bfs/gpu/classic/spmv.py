"""classic.spmv: BFS as repeated sparse matrix-vector products, the matrix-based BFS
that Luo et al. (DAC 2010, section 2, reference [3]: Deng et al., ICCAD 2009) and
BFS-4K (section 2, reference [6]) discuss: O(V + E * L) work.

Written the way a CuPy user would write it today, with cupyx.scipy.sparse (cuSPARSE
SpMV) and plain CuPy array operations, no custom kernel:
    y = A^T x                      (x: 1.0 on the frontier, 0.0 elsewhere)
    next = (y > 0) & (dist < 0)    (masked by the unvisited vertices)
    stop when next is empty (a host round trip per level), else dist[next] = level.
A^T is A for undirected graphs; for directed ones prepare() builds the transpose
once. Values are float32 ones (cuSPARSE has no integer SpMV): a count of frontier
in-neighbours, exact far beyond any degree here.

Every vector but the product lives in prepare()'s buffers (the masks are written with
ufuncs' out=, the stop test reduces into a device word read back into pinned memory);
y = A^T x is cupyx's own and allocates its result (and cuSPARSE's workspace) per level:
that is the library's price, kept as the point of this column.

No predecessors: a (+, *) product loses which neighbour reached a vertex (that needs
a (min, select) semiring cuSPARSE does not offer).

Knobs: none.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.graph.csr import CSRGraph


@register
class SpmvBfs(GpuStrategy):
    name = "classic.spmv"
    caveats = (
        "cuSPARSE float32 SpMV through cupyx, no custom kernel: a host round trip per level",
        "no predecessors: a (+, *) product loses which neighbour reached a vertex",
    )
    paper = "classic"
    section = "Matrix-based BFS (Luo et al. DAC 2010 section 2, ref [3]; BFS-4K section 2, ref [6])"
    summary = "frontier vector times A^T with cupyx.scipy.sparse, masked by unvisited"
    supports_predecessors = False
    traverse_allocates = "cupyx's SpMV allocates its product (and cuSPARSE's workspace) each level"

    def prepare(self, graph: CSRGraph) -> None:
        if graph.m >= 2**31 or graph.n >= 2**31:
            raise StrategyUnavailable("classic.spmv needs fewer than 2^31 edges (cuSPARSE int32 indices)")
        super().prepare(graph)
        from cupyx.scipy import sparse

        cp = self.cupy()
        n, m = graph.n, graph.m
        self.keep("matrix", None)
        if m:
            ones = cp.ones(m, dtype=cp.float32)
            a = sparse.csr_matrix(
                (ones, self.dgraph.col_indices, self.dgraph.row_offsets32), shape=(n, n)
            )
            matrix = a.T.tocsr() if graph.directed else a
            # the ones, and for a transpose its own index arrays, are this strategy's
            extra = [matrix.data] + ([matrix.indices, matrix.indptr] if graph.directed else [])
            self.keep("matrix", matrix)
            self.keep("_matrix_arrays", [ones, *extra])
        self.buffer("dist", n, cp.int32)
        self.buffer("x", n, cp.float32)
        self.buffer("reached", n, cp.bool_)
        self.buffer("unvisited", n, cp.bool_)
        self.buffer("any_reached", (), cp.bool_)
        self.pinned("any_host", (), np.bool_)

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        if predecessors:
            raise StrategyUnavailable("classic.spmv does not compute predecessors")
        cp = self.cupy()
        dist, x, reached, unvisited = self.dist, self.x, self.reached, self.unvisited
        dist.fill(-1)
        dist[source] = 0
        x.fill(0)
        x[source] = 1.0
        level = 0
        calls = 0
        while self.matrix is not None:
            y = self.matrix @ x
            calls += 1
            cp.greater(y, 0, out=reached)
            cp.less(dist, 0, out=unvisited)
            cp.logical_and(reached, unvisited, out=reached)
            cp.any(reached, out=self.any_reached)
            if not self.read_back(self.any_reached, self.any_host):  # the per-level host round trip
                break
            level += 1
            cp.copyto(dist, np.int32(level), where=reached)
            cp.copyto(x, reached)
        return Answer(distances=dist, counters={"levels": level + 1, "spmv_calls": calls})
