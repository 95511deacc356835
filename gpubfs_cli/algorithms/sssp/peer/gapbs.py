"""peer.gapbs (SSSP): the GAP benchmark suite's `sssp` binary (delta-stepping, C++ and
OpenMP, built by the user) on the weighted graph
exported from the cache, from the run's own sources, on the host of the run. The same
user-facing name as the BFS peer: the registry keeps names per problem.

prepare() writes the graph as a weighted edge list (`wel`, graph/io/export.py: `u v w`
lines, no comment, both directions of an undirected edge, so no `-s`); gapbs has no
serialized weighted format in gpubfs's exporter, so each process reads and builds it
(not timed). plan_sources() runs the binary once per source,
`sssp -f G.wel -r SOURCE -d DELTA -n TRIALS -v` with OMP_NUM_THREADS set, and keeps the
last trial's `Trial Time` (gapbs's timer around its delta-stepping, graph build
excluded; the trials before it warm up), as peer.gapbs for BFS does (the running and
parsing are shared: bfs/peer/gapbs_common.py).

gapbs prints no distances: `-v` checks each trial's distances against its own serial
Dijkstra (`Verification: PASS`); the sample is valid when every trial passed,
wrong-answer when one failed. gapbs builds the graph without self-loops and duplicate
edges, so its `Graph has` line must show n nodes and at most m directed edges.

gapbs holds weights and distances in int32 with infinity at 2^30 - 1: weights beyond
2^31 - 1 make the graph unavailable, and where max weight * (n - 1) could reach that
infinity a source whose distances would not fit is unavailable: the run's baseline
answers say how far each source reaches (plan_reaches); a source they do not cover
(a run that validates nothing) is solved here, untimed.

Knobs: binary (path; else $GPUBFS_GAPBS_SSSP; with neither the cell is unavailable, saying
which to set), threads (OMP_NUM_THREADS; 0 = numba's thread
count), trials (runs per source; the last is the sample), delta (gapbs's -d, the bucket
width; unset: the mean edge weight rounded, at least 1, see docs/peers.md), delta_scale
(instead of delta: that many times the mean edge weight; the samples record the -d used).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpubfs_cli.algorithms.bfs.peer.gapbs_common import GapbsKnobs, GapbsPeer, GapbsRun
from gpubfs_cli.algorithms.sssp.inputs import bucket_width
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import check_delta_scale, knob, whole
from gpubfs_cli.core.strategy import StrategyUnavailable, register

ENV = "GPUBFS_GAPBS_SSSP"
INT32_MAX = 2**31 - 1
DIST_INF = INT32_MAX // 2  # gapbs sssp's kDistInf: a distance there reads as unreached


@dataclass(frozen=True)
class GapbsSsspKnobs(GapbsKnobs):
    delta: int | None = knob(None, 1, INT32_MAX)  # gapbs's -d; None: the mean edge weight (delta_for)
    # gapbs's -d as a multiple of the mean edge weight: one sweep fits graphs whose weights
    # differ by orders of magnitude (a road's metres, the rule's 1-255, Graph 500's 2^24)
    delta_scale: float | None = knob(None, 0, above=True, whole=False)

    def __post_init__(self):
        super().__post_init__()
        d = self.delta
        if d is not None and (not whole(d) or not 1 <= d <= INT32_MAX):
            raise ValueError(f"delta: expected a whole number from 1 to 2^31 - 1 (gapbs's -d), got {d!r}")
        check_delta_scale(d is not None, self.delta_scale)


def delta_for(weights, scale: float = 1.0) -> int:
    """The default delta: `scale` times the mean edge weight, rounded, at least 1 and at
    most 2^31 - 1 (docs/peers.md says why the mean)."""
    return bucket_width(weights, scale, INT32_MAX)


@register
class GapbsSssp(GapbsPeer):
    problem = "sssp"
    section = "peer: GAP benchmark suite SSSP (delta-stepping, OpenMP), timed by itself"
    summary = "gapbs's sssp binary on the exported weighted graph, from the same sources, same threads"
    caveats = (
        "times are gapbs's own (its Trial Time, 10 us resolution), not gpubfs's timer; graph build excluded",
        "checked by gapbs's own verifier (-v: its serial Dijkstra), not by gpubfs",
        "delta defaults to the mean edge weight, not GAP's per-graph settings (2 on kron, 50000 on road)",
    )
    Knobs = GapbsSsspKnobs
    supports_predecessors = False  # gapbs's sssp keeps no parents
    env = ENV
    kernel = "sssp"
    export_format = "wel"

    def check_graph(self, graph) -> None:
        w = np.asarray(graph.weights)
        self.max_weight = int(w.max()) if len(w) else 0
        if self.max_weight > INT32_MAX:
            raise StrategyUnavailable(f"weights up to {self.max_weight:,}: gapbs's sssp reads int32 weights")
        self.delta = self.knobs.delta or delta_for(w, self.knobs.delta_scale or 1.0)
        # Distances surely below gapbs's infinity need no baseline to show it.
        self.bounded = self.max_weight * max(graph.n - 1, 0) < DIST_INF
        self.too_far: dict[int, int] = {}
        self.reaches: dict[int, int] = {}

    def plan_reaches(self, reaches: dict[int, int]) -> None:
        self.reaches = {int(s): int(r) for s, r in reaches.items()}

    def arguments(self) -> list[str]:
        return ["-d", str(self.delta)]

    def expected_edges(self, run: GapbsRun) -> tuple[int, bool]:
        return self.graph.m, False  # gapbs drops self-loops and duplicate edges

    def counters(self, source: int) -> dict[str, int | float]:
        return {"threads": self.threads, "delta": self.delta}

    def plan_sources(self, sources: list[int]) -> None:
        if not self.bounded:
            from gpubfs_cli.core.solve import solve_each

            todo = list(dict.fromkeys(int(s) for s in sources if int(s) not in self.runs))
            unknown = [s for s in todo if s not in self.reaches]
            solved = solve_each(self.problem_spec(), self.graph, unknown) if unknown else []
            for s, dist in zip(unknown, solved, strict=True):
                self.reaches[s] = int(dist.max()) if len(dist) else -1
            for s in todo:
                far = self.reaches[s]
                if far >= DIST_INF or far + self.max_weight > INT32_MAX:
                    self.too_far[s] = far
            sources = [s for s in sources if int(s) not in self.too_far]
        super().plan_sources(sources)

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        if int(source) in self.too_far:
            raise StrategyUnavailable(f"distances up to {self.too_far[int(source)]:,} from source {source}: "
                                      f"over gapbs's int32 distances (infinity {DIST_INF:,})")
        return super().traverse(source, predecessors)
