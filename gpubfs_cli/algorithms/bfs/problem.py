"""BFS as a Problem: the sequential queue BFS as reference, exact distances (and the
Graph500 tree checks for predecessors) as the check, reached / depth / edges as the
metrics, cpu.sequential as the speedup baseline.

Edges traversed = the sum of the out-degrees of the reached vertices (directed edges,
as Merrill and Luo count); samples also carry Graph500's count (undirected input
edges in the reached component, a kept self-loop once).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.problem import Graph500Edges, Problem, register_problem

FRONTIER_LEVELS = 10_000


def per_level(distances, *weights):
    """The vertices at each distance, and for each array of `weights` (one entry a vertex)
    their sum over those vertices (int64); unreached vertices (distance < 0) left out."""
    distances = np.asarray(distances)
    reached = distances >= 0
    levels = distances[reached]
    return (np.bincount(levels),
            *(np.bincount(levels, weights=np.asarray(w)[reached]).astype(np.int64) for w in weights))


class BfsFacts(Graph500Edges):
    """Graph500Edges plus the depth of an answer."""

    def extra(self, distances, reached_mask, edges) -> dict[str, Any]:
        depth = int(np.max(distances)) if reached_mask.any() else -1
        return {"depth": depth, "edges_graph500": self.graph500_edges(reached_mask, edges)}

    def extra_keys(self) -> tuple[str, ...]:
        return ("depth", "edges_graph500")


@register_problem
class Bfs(Problem):
    key = "bfs"
    title = "breadth-first search"
    option = "predecessors"
    option_label = "+pred"
    baseline = "cpu.sequential"
    distance_dtype = np.int32
    rate = "GTEPS: out-degrees of the reached vertices (directed edges) / time"
    reach_metric = "depth"

    def reference(self, graph, source: int, predecessors: bool = False) -> Answer:
        from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs

        return sequential_bfs(graph, source, predecessors)

    def check(self, graph, source, answer, reference, predecessors) -> str | None:
        from gpubfs_cli.algorithms.bfs.validate import validate

        return validate(graph, source, answer, reference, predecessors)

    def certify(self, graph, source, answer) -> str | None:
        from gpubfs_cli.algorithms.bfs.validate import graph500_failures
        from gpubfs_cli.core.checks import certify_answer

        return certify_answer(answer, graph.n, lambda d, p: graph500_failures(graph, source, d, p))

    def certifies_distances(self, graph) -> bool:
        return True  # every edge counts 1

    def certify_distances(self, graph, source, answer) -> str | None:
        from gpubfs_cli.core.checks import certify_answer, distance_certificate

        return certify_answer(answer, graph.n, lambda d, p: distance_certificate(graph, source, d))

    def facts(self, graph) -> BfsFacts:
        return BfsFacts(graph)

    def reference_stats(self, graph, sources: list[int], reaches: list[int]) -> dict[str, Any]:
        from gpubfs_cli.algorithms.bfs.probe import probe_depth

        return {"depth_avg": float(np.mean(reaches)), "depth_max": int(np.max(reaches)),
                "depth_probe": probe_depth(graph, dict(zip(sources, reaches, strict=True)))}

    def graph_stats(self, graph) -> dict[str, Any]:
        from gpubfs_cli.algorithms.bfs.probe import probe_depth

        return {"depth_probe": probe_depth(graph)}

    def frontier(self, graph, source: int, distances: np.ndarray) -> dict[str, Any] | None:
        """Vertices at each distance and the sum of their out-degrees (the frontier plot
        of the report, which loads no graph); lattices past FRONTIER_LEVELS are cut."""
        fv, fe = per_level(distances, np.diff(np.asarray(graph.row_offsets)))
        cut = len(fv) > FRONTIER_LEVELS
        return {"by": self.baseline, "source": int(source), "truncated": cut,
                "vertices": fv[:FRONTIER_LEVELS].tolist(), "edges": fe[:FRONTIER_LEVELS].tolist()}
