"""cpu.parallel_td and cpu.parallel_do on the nasty graphs of the GPU suite: distances
equal the sequential baseline's, parents pass the Graph 500 validator, reached and
levels counters are exact, at 1 and 2 threads, with the direction forced both ways.

Two threads run on the graphs of few levels only: every level is a few parallel loops,
and on a machine whose cores are busy with other work each loop's join can wait for a
descheduled thread (the thousands of levels of a path would take minutes there)."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import njit, prange

from gpubfs_cli.algorithms.bfs.cpu.atomics import compare_and_swap
from gpubfs_cli.algorithms.bfs.validate import graph500_failures
from gpubfs_cli.core.strategy import StrategyUnavailable, get_strategy, make_knobs
from gpubfs_cli.errors import UserError
from tests.algorithms.bfs.gpu.test_strategies import GRAPHS, graph, reference, sources

FEW_LEVELS = ["star100k", "single", "loops_dups", "directed", "gnm", "rmat", "kronecker"]
TWO = min(2, numba.config.NUMBA_NUM_THREADS)

VARIANTS = {
    "td": ("cpu.parallel_td", {}),
    "do": ("cpu.parallel_do", {}),
    "do-top-down-only": ("cpu.parallel_do", {"alpha": 0}),
    "do-bottom-up-heavy": ("cpu.parallel_do", {"alpha": 1e9, "beta": 1e9}),
}


def cases():
    for key in VARIANTS:
        for name in GRAPHS:
            yield pytest.param(key, name, 1, id=f"{key}-{name}-t1")
        for name in FEW_LEVELS if key != "do-top-down-only" else ():  # td runs that code at 2
            yield pytest.param(key, name, TWO, id=f"{key}-{name}-t{TWO}")


def strategy(key: str, threads: int):
    name, knobs = VARIANTS[key]
    cls = get_strategy(name)
    return cls(make_knobs(cls, dict(knobs, threads=threads)))


@pytest.mark.parametrize("key, graph_name, threads", list(cases()))
def test_distances_parents_and_counters(key, graph_name, threads):
    g = graph(graph_name)
    s = strategy(key, threads)
    s.prepare(g)
    assert s.threads == threads
    picks = sources(graph_name) if threads == 1 else sources(graph_name)[:3]
    try:
        for source in picks:
            ref = reference(graph_name, source)
            for pred in (False, True):
                got = s.traverse(source, pred)
                np.testing.assert_array_equal(got.distances, ref.distances, err_msg=f"source {source}")
                assert got.distances.dtype == np.int32
                assert got.counters["reached"] == ref.counters["reached"]
                assert got.counters["levels"] == ref.counters["levels"]
                if pred:
                    fails = graph500_failures(g, source, got.distances, got.parents, ref.distances >= 0)
                    assert fails == [], (source, fails)
                else:
                    assert got.parents is None
                check_direction(key, got.counters, ref.counters)
    finally:
        s.release()


def check_direction(key: str, got: dict, ref: dict) -> None:
    """Top-down only never goes bottom-up; bottom-up heavy does every level after the
    first once there is one (it goes down as soon as the source has an edge)."""
    if key in ("td", "do-top-down-only"):
        assert got["bottom_up_levels"] == 0
        assert got["edges_inspected"] == ref["edges_inspected"]  # each reached vertex's list, once
    if key == "do-bottom-up-heavy" and ref["reached"] > 1:
        assert got["bottom_up_levels"] >= ref["levels"] - 1


def test_direction_optimizing_goes_bottom_up_on_a_power_law_graph():
    g = graph("kronecker")
    s = strategy("do", 1)
    s.prepare(g)
    source = int(np.argmax(g.out_degrees()))
    got = s.traverse(source)
    assert 0 < got.counters["bottom_up_levels"] < got.counters["levels"]
    assert got.counters["edges_inspected"] < reference("kronecker", source).counters["edges_inspected"]


def test_directed_graph_reads_in_edges_bottom_up():
    # 0 -> 1 -> 2 and 3 -> 2: bottom-up must follow edges into a vertex, never out of it
    from gpubfs_cli.graph import EdgeList, build_csr

    g = build_csr(EdgeList(np.array([0, 1, 3]), np.array([1, 2, 2]), 4, True))
    s = strategy("do-bottom-up-heavy", 1)
    s.prepare(g)
    got = s.traverse(0, True)
    assert got.distances.tolist() == [0, 1, 2, -1]
    assert got.parents.tolist() == [0, 0, 1, -1]
    assert got.counters["bottom_up_levels"] >= 2
    assert s.traverse(2).distances.tolist() == [-1, -1, 0, -1]


def test_knobs_are_checked():
    for name, bad in (("cpu.parallel_td", {"threads": -1}), ("cpu.parallel_do", {"alpha": -1}),
                      ("cpu.parallel_do", {"beta": 0})):
        with pytest.raises(UserError, match=next(iter(bad))):
            make_knobs(get_strategy(name), bad)
    too_many = numba.config.NUMBA_NUM_THREADS + 1
    s = strategy("td", too_many)
    with pytest.raises(StrategyUnavailable, match=f"threads={too_many}"):
        s.prepare(graph("gnm"))


@njit(parallel=True)
def _claim(slots, wanted, won):
    for i in prange(wanted.shape[0]):
        won[i] = compare_and_swap(slots, wanted[i], -1, i)


def test_compare_and_swap_has_one_winner_per_slot():
    numba.set_num_threads(TWO)
    wanted = np.random.default_rng(0).integers(0, 50, 200_000).astype(np.uint32)
    slots = np.full(50, -1, dtype=np.int64)
    won = np.zeros(len(wanted), dtype=np.bool_)
    _claim(slots, wanted, won)
    assert won.sum() == 50
    np.testing.assert_array_equal(np.sort(np.flatnonzero(won)), np.sort(slots))
    np.testing.assert_array_equal(wanted[slots], np.arange(50))
