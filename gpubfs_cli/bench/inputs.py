"""What a run measures on: a dataset's graph (loaded or generated, then cached), and each
problem's view of it (weights where the problem needs them, its input check, the
reference answers of every source, computed once outside any timing, and its measurer),
and the relabelled views of it that reordered variants run on (Reorders).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from gpubfs_cli.bench.config import DatasetSpec
from gpubfs_cli.bench.references import References
from gpubfs_cli.core.problem import Problem, ReachedEdges, get_problem
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.reorder import Reordered, inverse, order_of, relabel


def default_loader(spec: DatasetSpec, data_dir: str | None, progress: bool) -> tuple[CSRGraph, dict]:
    """ensure_dataset (generate or fetch, then cache) and the cached meta.json (under
    NAME@weights=rule, with the rule's weights record)."""
    from gpubfs_cli.datasets.prepare import ensure_dataset
    from gpubfs_cli.datasets.weights import recorded_meta
    from gpubfs_cli.gpu.backend import cupy_if_usable

    graph = ensure_dataset(spec.name, data_dir, seed=spec.seed, progress=progress, gpu_xp=cupy_if_usable)
    return graph, recorded_meta(graph.name or spec.name, data_dir)


def default_weights(graph: CSRGraph, data_dir: str | None) -> CSRGraph:
    """The graph with its edge weights (from the cache, or made by the catalogue's rule)."""
    from gpubfs_cli.datasets.weights import ensure_weights

    return ensure_weights(graph, data_dir)


@dataclass
class ProblemInput:
    """One problem's view of one graph: the input (with weights where needed), the
    reference answers (None: not validating), the measurer, or why it is no input."""

    problem: Problem
    graph: CSRGraph
    references: References | None
    facts: ReachedEdges
    failure: str | None = None


def problem_input(key: str, name: str, graph: CSRGraph, sources: list[int], info: dict, config,
                  add_weights: Callable[[CSRGraph, str | None], CSRGraph], progress,
                  budget_bytes: int) -> ProblemInput:
    """The problem's view of the graph: its input check, its reference answers for every
    source (when validating; `info` gets the problem's dataset facts) and its measurer."""
    problem = get_problem(key)
    try:
        if problem.needs_weights and graph.weights is None:
            graph = add_weights(graph, config.data_dir)
        problem.check_graph(graph)
    except UserError as exc:
        return ProblemInput(problem, graph, None, problem.facts(graph), failure=str(exc))
    references = None
    if config.validate == "certificate":
        references = References(problem, graph, sources, certify=True)
        info.update(problem.graph_stats(graph))
    elif config.validate == "all":
        baseline = f"{key} baseline ({problem.baseline}, untimed)"
        progress.describe(f"{name}: {baseline}")
        references = References(
            problem,
            graph,
            sources,
            budget_bytes=budget_bytes,
            on_source=lambda i: progress.advance_by(1, f"{name}: {baseline} {i + 1}/{len(sources)}"),
        )
        info.update(problem.reference_stats(graph, sources, references.reaches))
        info.setdefault("frontier", problem.frontier(graph, sources[0], references.distances(0)))
    return ProblemInput(problem, graph, references, problem.facts(graph))


class Reorders:
    """The relabelled views of one dataset's graph, each built on first use and kept
    for every variant after it: an order's permutation once per graph (a problem's
    weighted view has the same edges), a relabelled graph once per view and order. A
    view's `ms` is its order's time plus its relabelling's, by the host clock; a
    failure is kept too, and raised again for every variant that asks."""

    def __init__(self) -> None:
        self._perms: dict[str, tuple[object, float]] = {}
        self._views: dict[tuple[int, str], Reordered | BaseException] = {}
        self._held: list[CSRGraph] = []  # the graphs keyed by id above, kept alive

    def view(self, graph: CSRGraph, order: str) -> Reordered:
        key = (id(graph), order)
        if key not in self._views:
            self._held.append(graph)
            try:
                if order not in self._perms:
                    t0 = time.perf_counter()
                    perm = order_of(graph, order)
                    self._perms[order] = (perm, (time.perf_counter() - t0) * 1000.0)
                perm, order_ms = self._perms[order]
                t0 = time.perf_counter()
                relabelled = relabel(graph, perm)
                ms = order_ms + (time.perf_counter() - t0) * 1000.0
                self._views[key] = Reordered(order, relabelled, perm, inverse(perm), ms)
            except Exception as exc:  # one failure, not one per variant
                self._views[key] = exc
        found = self._views[key]
        if isinstance(found, BaseException):
            raise found
        return found
