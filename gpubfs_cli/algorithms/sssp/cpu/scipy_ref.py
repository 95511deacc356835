"""cpu.scipy (SSSP): scipy.sparse.csgraph.dijkstra from one source, a cross-check row.

Not any paper's code: a second, widely used sequential Dijkstra (Cython, Fibonacci
heap) to check cpu.dijkstra against, in answers and in speed. csgraph works on
float64, so distances are exact only while every path sum stays below 2^53: the
strategy refuses (unavailable) a graph whose weights sum past that, and converts
the float distances back to int64 inside the timed region (they are part of the
answer).

Zero-weight edges: csgraph reads a dense matrix's zeros as "no edge", and a sparse
matrix built from COO triples or passed through eliminate_zeros() loses explicit
zeros. The matrix here is built directly from the CSR arrays (explicit zeros stay
stored entries, which csgraph's sparse path treats as edges of length 0), and
prepare() checks both that nothing was dropped and, once per process, that this
scipy really gives a zero-weight edge length 0 (else the strategy is unavailable
rather than wrong). Parallel edges (multigraphs) are stored entries too; csgraph
relaxes each, so the lightest one wins.
"""

from __future__ import annotations

import functools

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import Strategy, StrategyUnavailable, register
from gpubfs_cli.graph.csr import CSRGraph, scipy_matrix

EXACT = 2**53  # float64 represents every integer below this exactly


@functools.cache
def _zero_weight_edges_work() -> bool:
    """Does csgraph.dijkstra give an explicit zero entry length 0 (0 -> 1 -> 2, both 0)?"""
    from scipy.sparse.csgraph import dijkstra

    path = CSRGraph(np.array([0, 1, 2, 2]), np.array([1, 2], dtype=np.int32), directed=True)
    m = scipy_matrix(path, np.zeros(2))
    return np.array_equal(dijkstra(m, directed=True, indices=0), [0.0, 0.0, 0.0])


@register
class ScipySssp(Strategy):
    name = "cpu.scipy"
    caveats = (
        "a cross-check row: float64 distances, refused (unavailable) where path sums could pass 2^53",
    )
    problem = "sssp"
    paper = "cpu"
    section = "reference: scipy.sparse.csgraph.dijkstra (not from a paper)"
    summary = "scipy's sequential Dijkstra (Cython), a cross-check of cpu.dijkstra"

    def prepare(self, graph: CSRGraph) -> None:
        from gpubfs_cli.algorithms.sssp.inputs import integer_weights

        super().prepare(graph)
        w = integer_weights(graph)
        # A shortest path uses each edge at most once: its length is at most the sum of
        # the weights. That sum, taken in float64, is off by far less than the margin.
        if float(np.sum(w, dtype=np.float64)) >= EXACT * (1 - 2**-20):
            raise StrategyUnavailable("the weights sum past 2^53: float64 distances would not be exact")
        if not _zero_weight_edges_work():
            raise StrategyUnavailable("this scipy drops zero-weight edges in csgraph.dijkstra")
        # float64 data and int32 indices are what csgraph works on: built once here so
        # no call converts the graph again.
        try:
            self._matrix = scipy_matrix(graph, w.astype(np.float64))
        except ValueError as exc:
            raise StrategyUnavailable(str(exc)) from None
        if self._matrix.nnz != graph.m:
            raise StrategyUnavailable("scipy dropped stored entries of the graph")

    def prepared_bytes(self) -> int:
        m = getattr(self, "_matrix", None)
        return 0 if m is None else int(m.data.nbytes + m.indptr.nbytes)

    def release(self) -> None:
        self._matrix = None
        super().release()

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        from scipy.sparse.csgraph import dijkstra

        source = int(source)
        out = dijkstra(self._matrix, directed=True, indices=source, return_predecessors=predecessors)
        d, pred = (out if predecessors else (out, None))
        reached = np.isfinite(d)
        dist = np.where(reached, d, -1).astype(np.int64)
        parents = None
        if predecessors:
            parents = np.where(pred < 0, -1, pred).astype(self.graph.col_indices.dtype)
            parents[source] = source
        return Answer(dist, parents, {"reached": int(np.count_nonzero(reached))})
