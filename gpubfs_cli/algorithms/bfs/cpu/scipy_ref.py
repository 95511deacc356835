"""cpu.scipy: scipy.sparse.csgraph.breadth_first_order as an independent reference row.

Not any paper's code: a second, widely used sequential BFS (compiled Cython) to
check cpu.sequential against, in answers and in speed. scipy returns the visiting
order and predecessors; distances come from them with one binary search per level
(traversal/bfs_order.py), inside the timed region, since they are part of the answer.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.algorithms.bfs.bfs_order import distances_from_order
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.checks import tree_depths
from gpubfs_cli.core.strategy import Strategy, StrategyUnavailable, register
from gpubfs_cli.graph.csr import CSRGraph, scipy_matrix


@register
class ScipyBfs(Strategy):
    name = "cpu.scipy"
    caveats = (
        "a cross-check row, not a paper's code: distances are derived from scipy's order inside the timed region",
    )
    paper = "cpu"
    section = "reference: scipy.sparse.csgraph.breadth_first_order (not from a paper)"
    summary = "scipy's sequential BFS (Cython), a cross-check of cpu.sequential"

    def prepare(self, graph: CSRGraph) -> None:
        super().prepare(graph)
        # float64 data and int32 indices are what csgraph works on: built once here so
        # no call converts the graph again.
        try:
            self._matrix = scipy_matrix(graph, np.ones(graph.m, dtype=np.float64))
        except ValueError as exc:
            raise StrategyUnavailable(str(exc)) from None

    def prepared_bytes(self) -> int:
        m = getattr(self, "_matrix", None)
        return 0 if m is None else int(m.data.nbytes + m.indptr.nbytes)

    def release(self) -> None:
        self._matrix = None
        super().release()

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        from scipy.sparse.csgraph import breadth_first_order

        order, pred = breadth_first_order(
            self._matrix, int(source), directed=True, return_predecessors=True
        )
        n = self.graph.n
        dist = distances_from_order(order, pred, n)
        if dist is None:  # not FIFO order: fall back to the parent tree's depths
            pred = pred.copy()
            pred[source] = source
            depth, _ = tree_depths(np.where(pred < 0, -1, pred), int(source))
            dist = depth.astype(np.int32)
        parents = None
        if predecessors:
            parents = np.where(pred < 0, -1, pred).astype(self.graph.col_indices.dtype)
            parents[source] = source
        return Answer(dist, parents, {"reached": int(len(order))})
