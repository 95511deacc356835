"""msbfs.bfs on a real GPU: every source of a batch against cpu.sequential (distances,
a BFS tree of parents, its level count), the directions Beamer's rule takes replayed on
the host, the 64-bit offset build, passes of 100, 128 and 256 sources and no allocation
in a traversal; with counters, the same answers as without and every per-level series
equal to the host's replay. The generic suite
(test_strategies.py) runs traverse() (a batch of one) on every graph; the kernel logic
is checked on the CPU by test_msbfs_emulated.py. Skipped, visibly, without a GPU."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.msbfs import strategies as ms
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import test_strategies as ts
from tests.algorithms.bfs.gpu.test_msbfs_emulated import (
    FORCED_BU,
    TOP_DOWN,
    check_level_counters,
    expected_bottom_up_levels,
    expected_hub_levels,
)

GRAPHS = {
    "rmat14": lambda: samples.rmat(14, 16, 3),
    "kronecker": lambda: ts.graph("kronecker"),
    "directed": lambda: ts.graph("directed"),
    "disconnected": lambda: ts.graph("disconnected"),
    "grid60x60": lambda: ts.graph("grid60x60"),
}


PARENT_CHECKS = 8  # sources of a batch whose parents the BFS tree checker sees on large graphs


@functools.cache
def graph(name: str):
    return GRAPHS[name]()


@functools.cache
def reference(name: str, source: int):
    return sequential_bfs(graph(name), source)


def _ms(**knobs):
    cls = all_strategies()["msbfs.bfs"]
    return cls(make_knobs(cls, knobs))


def sixty_four(name: str, seed: int = 11, size: int = ms.WORD) -> list[int]:
    """64 sources (or `size`) drawn with repeats, the first one twice."""
    batch = np.random.default_rng(seed).integers(0, graph(name).n, size).tolist()
    batch[1] = batch[0]
    return batch


def check_batch(strategy, name: str, batch: list[int], predecessors: bool):
    g = graph(name)
    answers = [a.to_host() for a in strategy.traverse_batch(batch, predecessors)]
    assert len(answers) == len(batch)
    for i, (s, got) in enumerate(zip(batch, answers, strict=True)):
        label = f"msbfs.bfs on {name}, source {i} ({s}) of {len(batch)}, predecessors={predecessors}"
        ref = reference(name, s)
        np.testing.assert_array_equal(got.distances, ref.distances, err_msg=label)
        assert got.counters["levels"] == ref.counters["levels"], (label, got.counters)
        assert got.counters["batch"] == len(batch)
        if predecessors:
            if i < PARENT_CHECKS or g.m < 100_000:
                ts.check_parents(g, s, got.distances, got.parents, label)
            else:  # the BFS tree checker takes a quarter second a source on rmat14
                assert got.parents[s] == s and (got.parents[got.distances < 0] == -1).all(), label
        else:
            assert got.parents is None
    c = answers[0].counters
    assert c["pass_levels"] == max(a.counters["levels"] for a in answers), c
    assert c["bottom_up_levels"] == expected_bottom_up_levels(g, answers, strategy.knobs), c
    assert c["hub_levels"] == expected_hub_levels(g, answers, strategy.knobs), c
    if strategy.knobs.counters or strategy.knobs.profile:
        check_level_counters(g, answers, strategy.knobs, f"msbfs.bfs on {name}, predecessors={predecessors}")
    else:
        assert "labels" not in c and "profile" not in c, c
    return answers


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(GRAPHS))
def test_batches_match_sequential(name):
    strategy = _ms()
    strategy.prepare(graph(name))
    for pred in (False, True):
        for s in ts.sources("kronecker")[:2] if name == "kronecker" else (0,):
            got = strategy.traverse(s, pred).to_host()
            np.testing.assert_array_equal(got.distances, reference(name, s).distances)
        check_batch(strategy, name, [graph(name).n - 1], pred)
        check_batch(strategy, name, sixty_four(name), pred)
    strategy.release()


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["rmat14", "directed", "grid60x60"])
def test_forced_directions(name):
    """Bottom-up from the first level and never back; top-down only."""
    for knobs, bottom_up in ((FORCED_BU, True), (TOP_DOWN, False)):
        strategy = _ms(**knobs)
        strategy.prepare(graph(name))
        c = check_batch(strategy, name, sixty_four(name), True)[0].counters
        assert c["bottom_up_levels"] == (c["pass_levels"] if bottom_up else 0), (knobs, c)
        strategy.release()


@pytest.mark.gpu
def test_defaults_switch_on_rmat():
    """Beamer's rule takes the middle levels of a 64-source pass over R-MAT bottom-up."""
    strategy = _ms()
    strategy.prepare(graph("rmat14"))
    c = check_batch(strategy, "rmat14", sixty_four("rmat14"), False)[0].counters
    assert 0 < c["bottom_up_levels"] < c["pass_levels"], c
    strategy.release()


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["rmat14", "kronecker", "directed", "grid60x60"])
@pytest.mark.parametrize("knobs", [{}, FORCED_BU, {"thread_edges": 1}, TOP_DOWN])
def test_counters_change_nothing_but_the_counters(name, knobs):
    """The counting instantiation (counters, then profile) against the timed one on the
    same batch: the same checked distances and pass counts; each level's series exact
    (check_batch)."""
    batch = sixty_four(name)
    timed = _ms(**knobs)
    timed.prepare(graph(name))
    plain = {p: check_batch(timed, name, batch, p) for p in (False, True)}
    timed.release()
    for extra in ({"counters": True}, {"profile": True}):
        counted = _ms(**knobs, **extra)
        counted.prepare(graph(name))
        for pred in (False, True):
            got = check_batch(counted, name, batch, pred)
            for a, b in zip(plain[pred], got, strict=True):
                np.testing.assert_array_equal(a.distances, b.distances)
            for key in ("pass_levels", "bottom_up_levels"):
                assert got[0].counters[key] == plain[pred][0].counters[key], (extra, key)
        counted.release()


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [{}, TOP_DOWN])
def test_hub_pass_changes_no_answer(knobs):
    """hub_edges 0 (every list tiled), the default, 64 (the Kronecker graph's hubs) and 1
    (every list): the same checked distances and per-level series on a 64-source batch,
    the hub pass on exactly the top-down levels with such a list (check_batch)."""
    name = "kronecker"
    batch = sixty_four(name)
    runs = {}
    for hub_edges in (0, ms.HUB_EDGES, 64, 1):
        strategy = _ms(**knobs, hub_edges=hub_edges, counters=True)
        strategy.prepare(graph(name))
        runs[hub_edges] = check_batch(strategy, name, batch, True)
        strategy.release()
    assert runs[0][0].counters["hub_levels"] == 0 and runs[1][0].counters["hub_levels"] > 0
    for hub_edges, got in runs.items():
        for a, b in zip(runs[0], got, strict=True):
            np.testing.assert_array_equal(a.distances, b.distances, err_msg=f"hub_edges {hub_edges}")
            for key in ms.PER_LEVEL:
                np.testing.assert_array_equal(a.counters[key], b.counters[key], err_msg=f"hub_edges {hub_edges}: {key}")


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [FORCED_BU, {"thread_edges": 1}])
def test_probe_builds_change_no_answer(knobs):
    """Lanes loading 1, 4 (the default) or 8 in-edges at once, or their frontier words
    through L1: the same checked distances and per-level series (edges examined
    included) on a 64-source batch, and with every level bottom-up (no race names a
    parent) the same parents."""
    name = "kronecker"
    batch = sixty_four(name)
    runs = {}
    for build in ("default", ("probe_batch", 1), ("probe_batch", 8), ("frontier_cache", "l1")):
        strategy = _ms(**knobs, **({} if build == "default" else dict([build])), counters=True)
        strategy.prepare(graph(name))
        runs[build] = check_batch(strategy, name, batch, True)
        strategy.release()
    assert runs["default"][0].counters["bottom_up_levels"] > 0
    for build, got in runs.items():
        for a, b in zip(runs["default"], got, strict=True):
            np.testing.assert_array_equal(a.distances, b.distances, err_msg=f"{build}")
            if knobs is FORCED_BU:
                np.testing.assert_array_equal(a.parents, b.parents, err_msg=f"{build}")
            for key in ms.PER_LEVEL:
                np.testing.assert_array_equal(a.counters[key], b.counters[key], err_msg=f"{build}: {key}")


@pytest.mark.gpu
@pytest.mark.parametrize("width, knobs", [(100, {}), (128, FORCED_BU), (128, {**TOP_DOWN, "counters": True}),
                                          (256, {"thread_edges": 1, "counters": True}),
                                          (256, {"hub_edges": 64, "profile": True})])
def test_passes_wider_than_64(width, knobs):
    """The 2- and 4-word builds: every source of a full batch checked, the pass's
    counters (and with counters or profile each level's series) exact, on the graphs
    that take both directions; and a batch of one from the same prepared pass."""
    for name in ("rmat14", "kronecker", "directed"):
        strategy = _ms(**knobs, width=width)
        strategy.prepare(graph(name))
        for pred in (False, True):
            check_batch(strategy, name, sixty_four(name, size=width), pred)
            check_batch(strategy, name, [graph(name).n - 1], pred)
        strategy.release()


@pytest.mark.gpu
@pytest.mark.parametrize("width", [128, 256])
def test_wide_64bit_offsets_build(width, monkeypatch):
    monkeypatch.setattr(ms, "OFFSET64_EDGES", 0)
    strategy = _ms(width=width, counters=True)
    strategy.prepare(graph("kronecker"))
    assert strategy._offset64
    check_batch(strategy, "kronecker", sixty_four("kronecker", size=width), True)
    strategy.release()


@pytest.mark.parametrize("bad", [-1, 2**31, 1.5, True, "64"])
def test_bad_hub_edges_are_one_line(bad):
    with pytest.raises(ValueError, match="hub_edges") as err:
        ms.MsbfsKnobs(hub_edges=bad)
    assert "\n" not in str(err.value)


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [{}, FORCED_BU, {"hub_edges": 1, "counters": True}, {"cta_size": 1024, "blocks_per_sm": 1, "width": 33},
                                   {"alpha": 0.5, "beta": 2.0, "thread_edges": 1, "profile": True}])
def test_64bit_offsets_build(knobs, monkeypatch):
    """The build for 2^31 edges and more, forced on small graphs (threshold 0 edges)."""
    monkeypatch.setattr(ms, "OFFSET64_EDGES", 0)
    for name in ("kronecker", "directed"):
        strategy = _ms(**knobs)
        strategy.prepare(graph(name))
        assert strategy._offset64
        check_batch(strategy, name, sixty_four(name)[: strategy.batch_size()], True)
        strategy.release()


@pytest.mark.gpu
def test_traversals_allocate_nothing():
    """Every buffer comes from prepare: the pool's used bytes do not grow in a batch."""
    import cupy as cp

    strategy = _ms()
    strategy.prepare(graph("kronecker"))
    strategy.traverse_batch(sixty_four("kronecker"), True)
    cp.cuda.Device().synchronize()
    pool = cp.get_default_memory_pool()
    before = pool.used_bytes()
    for pred in (False, True):
        strategy.traverse(3, pred)
        strategy.traverse_batch(sixty_four("kronecker", seed=int(pred)), pred)
    cp.cuda.Device().synchronize()
    assert pool.used_bytes() == before
    strategy.release()
