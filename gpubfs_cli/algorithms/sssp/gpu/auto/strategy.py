"""auto.sssp: measure the graph, then run the SSSP strategy that won on the most similar
measured graph (auto.bfs's machinery, algorithms/bfs/gpu/auto: the same features, the
same nearest-rule lookup, its own table).

No one SSSP strategy wins everywhere on the GPU: sssp.regions on the road networks (no grid
barrier a round), near-far's buckets on the lattices and the low-skew graphs, where
Bellman-Ford pays a round per hop; delta-stepping on the Kronecker graphs, whose heavy
rounds save relaxations; raval.ep's edge-parallel Bellman-Ford is a candidate too, for
the shallow skewed graphs where a few rounds over a COO streamed whole can beat buckets
(docs/auto.md, "auto.sssp"). auto.sssp takes the measured winner of the nearest graph.

Every answer's counters say what auto chose, as auto.bfs's: auto.choice, auto.knobs,
auto.rule, auto.distance, auto.probe_ms, auto.decide_ms and the features, and
auto.passed_over where the nearest rule's choice could not take the graph.

Knobs: table, the decision table's path ("" = the shipped one).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpubfs_cli.algorithms.bfs.gpu.auto.strategy import AutoStrategy
from gpubfs_cli.core.strategy import register


@dataclass(frozen=True)
class AutoSsspKnobs:
    table: str = ""  # a decision table (YAML); "" = gpubfs_cli/algorithms/sssp/auto_table.yaml


@register
class AutoSssp(AutoStrategy):
    name = "auto.sssp"
    problem = "sssp"
    section = "gpubfs: an SSSP strategy chosen per graph from a measured decision table (docs/auto.md)"
    summary = "features of the graph -> the fastest SSSP strategy and knobs on the nearest measured graph"
    caveats = (
        "not an algorithm: it runs another registered strategy (counters auto.choice, auto.knobs); "
        "its prepare time includes 10 sequential CPU BFSes run at once (the depth probe)",
    )
    Knobs = AutoSsspKnobs
