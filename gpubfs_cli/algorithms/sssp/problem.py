"""SSSP as a Problem: the binary-heap Dijkstra (cpu.dijkstra) as reference, exact
distances (and the shortest-path tree checks for parents) as the check, reached /
largest distance / edges as the metrics, cpu.dijkstra as the speedup baseline.

Distances are int64 sums of integer weights, -1 unreached. Edges = the sum of the
out-degrees of the reached vertices: Dijkstra relaxes each of them exactly once, so
the rate is comparable with BFS's GTEPS on the same graph.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.problem import Graph500Edges, Problem, register_problem


class SsspFacts(Graph500Edges):
    """Graph500Edges plus the largest finite distance of an answer."""

    def extra(self, distances, reached_mask, edges) -> dict[str, Any]:
        return {"max_distance": int(np.max(distances)) if reached_mask.any() else -1,
                "edges_graph500": self.graph500_edges(reached_mask, edges)}

    def extra_keys(self) -> tuple[str, ...]:
        return ("max_distance", "edges_graph500")


@register_problem
class Sssp(Problem):
    key = "sssp"
    title = "single-source shortest paths"
    option = "parents"
    option_label = "+parents"
    baseline = "cpu.dijkstra"
    needs_weights = True
    distance_dtype = np.int64
    rate = "GTEPS: out-degrees of the reached vertices (edges relaxed once each by Dijkstra) / time"
    reach_metric = "max_distance"

    def check_graph(self, graph) -> None:
        from gpubfs_cli.algorithms.sssp.inputs import check_weights

        check_weights(graph)

    def reference(self, graph, source: int, predecessors: bool = False) -> Answer:
        from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra

        return dijkstra(graph, source, predecessors)

    def check(self, graph, source, answer, reference, predecessors) -> str | None:
        from gpubfs_cli.algorithms.sssp.validate import validate

        return validate(graph, source, answer, reference, predecessors)

    def certify(self, graph, source, answer) -> str | None:
        from gpubfs_cli.algorithms.sssp.validate import certificate_failures
        from gpubfs_cli.core.checks import certify_answer

        return certify_answer(answer, graph.n, lambda d, p: certificate_failures(graph, source, d, p))

    def certifies_distances(self, graph) -> bool:
        from gpubfs_cli.algorithms.sssp.validate import positive_weights

        return positive_weights(graph)

    def certify_distances(self, graph, source, answer) -> str | None:
        from gpubfs_cli.algorithms.sssp.validate import distance_certificate_failures
        from gpubfs_cli.core.checks import certify_answer

        return certify_answer(answer, graph.n, lambda d, p: distance_certificate_failures(graph, source, d))

    def facts(self, graph) -> SsspFacts:
        return SsspFacts(graph)

    def reference_stats(self, graph, sources: list[int], reaches: list[int]) -> dict[str, Any]:
        """The references' largest distances, and the graph's BFS depth by the probe (the
        default delta's input, sssp/gpu/delta/strategies.py; one probe per graph object,
        shared with the strategies' prepare)."""
        return {"max_distance_avg": float(np.mean(reaches)), "max_distance_max": int(np.max(reaches)),
                **self.graph_stats(graph)}

    def graph_stats(self, graph) -> dict[str, Any]:
        from gpubfs_cli.algorithms.bfs.probe import probe_depth

        return {"depth_probe": probe_depth(graph)}
