"""The Problem contract: what an algorithm (BFS, SSSP) tells the runner and the report.

The way gapbs's harness takes a kernel, a stats printer and a verifier, the runner
takes a Problem: its answer type (the distances' dtype), its reference solver (the
sequential CPU baseline whose answers every other strategy must equal), its exact
check of an answer, its metrics (what a sample records besides the time), its option
(BFS: predecessors; SSSP: parents) and its speedup baseline strategy. The runner,
results files and report ask the problem; they never import an algorithm's code.

Problems live in gpubfs_cli.algorithms.<key>.problem and register themselves here (one
discovery, `discover()`, imports every algorithm module for problems and strategies);
`describe()` is what a results file records, so a report needs no live registry.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.errors import unknown_name

LOW_REACH = 0.01  # sources reaching under 1% of the vertices are left out of rates


@dataclass
class Measures:
    """What one answer says about the traversal: the rate numerator and the facts a
    sample records. `extra` is problem-specific (BFS: depth, edges_graph500; SSSP:
    max_distance, edges_graph500) and lands as top-level keys of the sample."""

    reached: int
    edges: int
    low_reach: bool
    extra: dict[str, Any] = field(default_factory=dict)


class ReachedEdges:
    """Per-graph facts for measuring answers, computed once (vectorized): reached
    vertices and the sum of their out-degrees, the TEPS numerator of every problem
    here. Problems extend `extra()`. Measures of an answer already found equal to the
    reference are computed once per source: every right answer has the same."""

    def __init__(self, graph):
        self.graph = graph
        self.degrees = graph.out_degrees().astype(np.int64)
        self._checked: dict[int, Measures] = {}

    def measure_for(self, source: int, distances: np.ndarray, checked: bool) -> Measures:
        if not checked:
            return self.measure(distances)
        if source not in self._checked:
            self._checked[source] = self.measure(distances)
        return self._checked[source]

    def measure(self, distances: np.ndarray) -> Measures:
        distances = np.asarray(distances)
        reached_mask = distances >= 0
        reached = int(np.count_nonzero(reached_mask))
        edges = int(self.degrees[reached_mask].sum())
        low = reached < LOW_REACH * self.graph.n
        return Measures(reached, edges, low, self.extra(distances, reached_mask, edges))

    def extra(self, distances: np.ndarray, reached_mask: np.ndarray, edges: int) -> dict[str, Any]:
        return {}

    def failed(self) -> Measures:
        """The measures of an answer of the wrong shape (nothing can be read from it)."""
        return Measures(0, 0, True, {k: None for k in self.extra_keys()})

    def extra_keys(self) -> tuple[str, ...]:
        return ()


class Graph500Edges(ReachedEdges):
    """ReachedEdges plus Graph 500's edge count of an answer (BFS's kernel 2 and SSSP's
    kernel 3 both rate by it): the input edges of the reached component, an undirected
    edge once (a self-loop, stored once, once too); None on a directed graph."""

    def __init__(self, graph):
        super().__init__(graph)
        self.loops = None  # self-loops per vertex
        if not graph.directed:
            from gpubfs_cli.core.checks import edge_blocks

            loops = np.zeros(graph.n, dtype=np.int64)
            for rows, cols in edge_blocks(graph):
                at = rows[rows == cols]
                if len(at):
                    loops += np.bincount(at, minlength=graph.n)
            if loops.any():
                self.loops = loops

    def graph500_edges(self, reached_mask: np.ndarray, edges: int) -> int | None:
        if self.graph.directed:
            return None
        loops = int(self.loops[reached_mask].sum()) if self.loops is not None else 0
        return (edges - loops) // 2 + loops


class Problem:
    """One algorithm. Subclasses set the class attributes and the four methods."""

    key: ClassVar[str]  # "bfs", "sssp": the folder under gpubfs_cli/algorithms
    title: ClassVar[str]
    option: ClassVar[str]  # what predecessors=True asks for: "predecessors", "parents"
    option_label: ClassVar[str]  # how a table marks a run with the option: "+pred"
    baseline: ClassVar[str]  # the strategy every speedup divides by
    needs_weights: ClassVar[bool] = False
    distance_dtype: ClassVar[Any] = np.int32
    rate: ClassVar[str] = "GTEPS: edges out of the reached vertices (directed) / time"
    reach_metric: ClassVar[str] = "depth"  # the sample key for "how far": BFS levels

    def check_graph(self, graph) -> None:
        """Raise UserError (one line naming the graph) when it cannot be an input."""

    def reference(self, graph, source: int, predecessors: bool = False) -> Answer:
        """The sequential CPU baseline's answer (the reference every answer must equal)."""
        raise NotImplementedError

    def check(self, graph, source: int, answer: Answer, reference: np.ndarray,
              predecessors: bool) -> str | None:
        """None when `answer` (host arrays) is right for `source`, else why not (one line)."""
        raise NotImplementedError

    def certify(self, graph, source: int, answer: Answer) -> str | None:
        """None when `answer`'s parent tree proves its distances shortest with no reference
        (core.checks.certify_answer and the problem's certificate), else why not (one line)."""
        raise NotImplementedError

    def certifies_distances(self, graph) -> bool:
        """Whether certify_distances can prove this graph's answers without parents."""
        return False

    def certify_distances(self, graph, source: int, answer: Answer) -> str | None:
        """None when `answer`'s distances alone are proved shortest with no reference
        (relaxed and supported: core.checks.distance_certificate), else why not (one line).
        Only where certifies_distances(graph)."""
        raise NotImplementedError

    def facts(self, graph) -> ReachedEdges:
        """The per-graph object that measures answers."""
        return ReachedEdges(graph)

    def reference_stats(self, graph, sources: list[int], reaches: list[int]) -> dict[str, Any]:
        """Dataset facts from the references' reach metric over `sources` (BFS: depth_avg,
        depth_max; SSSP: max_distance_avg, max_distance_max; both: depth_probe, auto's depth
        feature and the SSSP default delta's input: algorithms/bfs/probe.py)."""
        return {}

    def graph_stats(self, graph) -> dict[str, Any]:
        """Dataset facts that need no reference answers, recorded where a run certifies
        its answers instead (validate: certificate): BFS and SSSP, depth_probe."""
        return {}

    def frontier(self, graph, source: int, distances: np.ndarray) -> dict[str, Any] | None:
        """Per-iteration series of one reference answer for the results file (BFS: the
        logical vertex and edge frontiers of Merrill's Fig. 3), or None."""
        return None

    def describe(self) -> dict[str, Any]:
        """What a results file records about the problem (the report reads this)."""
        return {
            "title": self.title,
            "option": self.option,
            "option_label": self.option_label,
            "baseline": self.baseline,
            "rate": self.rate,
            "reach_metric": self.reach_metric,
        }


_PROBLEMS: dict[str, Problem] = {}
_DISCOVERED = False
ALGORITHMS = "gpubfs_cli.algorithms"
DEFAULT_PROBLEM = "bfs"


def register_problem(cls: type[Problem]) -> type[Problem]:
    if cls.key in _PROBLEMS and type(_PROBLEMS[cls.key]) is not cls:
        raise RuntimeError(f"problem {cls.key} registered twice")
    _PROBLEMS[cls.key] = cls()
    return cls


def discover() -> None:
    """Import every module under gpubfs_cli.algorithms once: problems and strategies
    register themselves as they are imported. Only a complete discovery counts: a
    module that failed to import raises again on the next call instead of leaving a
    silently partial registry."""
    global _DISCOVERED
    if _DISCOVERED:
        return
    pkg = importlib.import_module(ALGORITHMS)
    for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{ALGORITHMS}."):
        importlib.import_module(info.name)
    _DISCOVERED = True


def all_problems() -> dict[str, Problem]:
    discover()
    return dict(sorted(_PROBLEMS.items()))


def get_problem(key: str) -> Problem:
    problems = all_problems()
    if key not in problems:
        raise unknown_name("problem", key, problems)
    return problems[key]
