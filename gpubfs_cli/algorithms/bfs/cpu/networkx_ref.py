"""cpu.networkx: networkx's pure-Python BFS as a slow, independent reference row.

Not any paper's code. It is kept for cross-checking on small graphs only: a Python
object per edge costs about a hundred bytes and a microsecond, so graphs with more
than `max_edges` directed edges are reported as unavailable.

Knobs: max_edges, the largest graph (directed edges) it will load.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from gpubfs_cli.algorithms.bfs.bfs_order import distances_from_order
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import Strategy, StrategyUnavailable, register
from gpubfs_cli.graph.csr import CSRGraph


@register
class NetworkxBfs(Strategy):
    name = "cpu.networkx"
    caveats = (
        "pure Python: small graphs only (larger ones are unavailable)",
    )
    paper = "cpu"
    section = "reference: networkx single_source_shortest_path_length / bfs_edges (not from a paper)"
    summary = "networkx's pure-Python BFS, small graphs only"

    @dataclass(frozen=True)
    class Knobs:
        max_edges: int = knob(2_000_000, 1)

    def prepare(self, graph: CSRGraph) -> None:
        import networkx as nx

        super().prepare(graph)
        if graph.m > self.knobs.max_edges:
            raise StrategyUnavailable(
                f"{graph.m:,} edges is over the networkx limit max_edges={self.knobs.max_edges:,}"
            )
        rows = np.repeat(np.arange(graph.n, dtype=np.int64), graph.out_degrees())
        g = nx.DiGraph()
        g.add_nodes_from(range(graph.n))
        g.add_edges_from(zip(rows.tolist(), graph.col_indices.tolist(), strict=True))
        self._nx = g

    def release(self) -> None:
        self._nx = None
        super().release()

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        import networkx as nx

        n = self.graph.n
        source = int(source)
        if not predecessors:
            lengths = nx.single_source_shortest_path_length(self._nx, source)
            dist = np.full(n, -1, dtype=np.int32)
            dist[np.fromiter(lengths.keys(), np.int64, len(lengths))] = np.fromiter(
                lengths.values(), np.int32, len(lengths)
            )
            return Answer(dist, None, {"reached": len(lengths)})
        tree = np.fromiter(
            itertools.chain.from_iterable(nx.bfs_edges(self._nx, source)), dtype=np.int64
        ).reshape(-1, 2)
        parents = np.full(n, -1, dtype=self.graph.col_indices.dtype)
        parents[tree[:, 1]] = tree[:, 0]
        parents[source] = source
        order = np.concatenate([[source], tree[:, 1]])
        dist = distances_from_order(order, parents, n)
        if dist is None:
            raise RuntimeError("networkx.bfs_edges did not return a FIFO order")
        return Answer(dist, parents, {"reached": len(order)})
