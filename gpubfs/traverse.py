"""gpubfs.bfs, gpubfs.sssp and gpubfs.strategies: one traversal by any registered
strategy, through the strategy contract the harness uses (upload, prepare, the timed
call of its timing kind, the answer copied to the host), checked by the problem's own
check against its baseline when asked."""

from __future__ import annotations

import os
from typing import Any


def strategies(problem: str = "bfs") -> list[str]:
    """The names of the registered strategies of a problem (bfs, sssp), built-in and
    installed through the `gpubfs.strategies` entry point group, as `gpubfs list
    strategies` lists them."""
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.core.strategy import all_strategies

    return list(all_strategies(get_problem(problem).key))


def bfs(graph, source: int, /, strategy: str = "cpu.sequential", *, predecessors: bool = False,
        check: bool = False, data_dir: str | os.PathLike | None = None, **knobs: Any):
    """Breadth-first search from `source` by `strategy` with its knobs (`gpubfs list
    strategies` lists both) -> an Answer (gpubfs_cli.core.answer) of numpy arrays:
    `distances` (BFS levels, -1 unreached), `parents` (with predecessors=True; -1 none,
    the source its own), `counters`, and `time_ms`, the traversal's time as `gpubfs run`
    times the strategy (CUDA events, the host clock or its own), of this one call: a first
    call may include compiling (numba, kernels), which `gpubfs.run`'s warm-up leaves out.

    `graph`: a CSRGraph (gpubfs.load_graph) or a dataset name. With check=True the answer
    is checked exactly against the problem's baseline (cpu.sequential), as every run
    checks it: a wrong one is a UserError naming the first difference."""
    return _solve("bfs", graph, source, strategy, predecessors, check, data_dir, knobs)


def sssp(graph, source: int, /, strategy: str = "cpu.dijkstra", *, parents: bool = False,
         check: bool = False, data_dir: str | os.PathLike | None = None, **knobs: Any):
    """Single-source shortest paths, as `bfs` (distances: int64 path weights, -1
    unreached). A graph without weights of its own gets the catalogue's weight rule,
    as a run gives it (cached beside the graph in `data_dir`); the baseline is
    cpu.dijkstra."""
    return _solve("sssp", graph, source, strategy, parents, check, data_dir, knobs)


def _solve(key: str, graph, source, strategy: str, option: bool, check: bool, data_dir, knobs: dict):
    from gpubfs.graphs import load_graph
    from gpubfs_cli.bench.inputs import default_weights
    from gpubfs_cli.bench.timing import timed_traverse
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.core.strategy import StrategyUnavailable, get_strategy, make_knobs
    from gpubfs_cli.errors import UserError
    from gpubfs_cli.graph.csr import CSRGraph
    from gpubfs_cli.graph.sources import check_vertices

    problem = get_problem(key)
    directory = None if data_dir is None else os.fspath(data_dir)
    if isinstance(graph, (str, os.PathLike)):
        graph = load_graph(graph, data_dir=directory)
    elif not isinstance(graph, CSRGraph):
        raise UserError(f"{key}: expected a graph (gpubfs.load_graph) or a dataset name, got {type(graph).__name__}")
    if not isinstance(strategy, str):
        raise UserError(f"{key}: strategy: expected a name (gpubfs.strategies({key!r})), got {strategy!r}")
    cls = get_strategy(strategy, key)
    settings = make_knobs(cls, knobs)
    (source,) = check_vertices(graph, [source], "source")
    why = cls.unavailable_reason()
    if why is None and option and not cls.supports_predecessors:
        why = cls.no_predecessors_reason or f"it has no {problem.option} output"
    if why is not None:
        raise UserError(f"{cls.name} cannot run here: {why}")
    if problem.needs_weights and graph.weights is None:
        graph = default_weights(graph, directory)
    problem.check_graph(graph)
    runner = cls(settings)
    try:
        runner.upload(graph)
        runner.prepare(graph)
        ms, answer = timed_traverse(runner, source, bool(option))
    except StrategyUnavailable as exc:
        raise UserError(f"{cls.name} cannot run on {graph.name or 'this graph'}: {exc}") from None
    finally:
        runner.release()
    answer.time_ms = ms  # the timer's figure (a strategy timed by itself: its own)
    if check:
        _check(problem, graph, source, answer, bool(option), cls.name)
    return answer


def _check(problem, graph, source: int, answer, option: bool, name: str) -> None:
    """The problem's exact check against its baseline's answer (a peer's binary, which
    returns no distances, is held to its own check)."""
    from gpubfs_cli.errors import UserError

    if answer.distances is None:
        if answer.peer_valid is False:
            raise UserError(f"{name} from source {source}: wrong answer ({answer.timed_by}'s own check found errors)")
        return
    reference = problem.reference(graph, source, option)
    why = problem.check(graph, source, answer, reference.distances, option)
    if why is not None:
        raise UserError(f"{name} from source {source}: wrong answer: {why}")
