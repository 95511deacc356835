"""The parent-chain depths every validator's cycle check uses (core/checks.tree_depths),
on chains of every length from 1 to 70: pointer doubling must finish however a chain's
length falls between two powers of two, in a graph of exactly its size or larger."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.validate import graph500_failures, parent_failures
from gpubfs_cli.core.checks import broken_chains, tree_depths
from gpubfs_cli.graph.samples import path

LENGTHS = range(1, 71)


def chain(length: int, extra: int = 0) -> np.ndarray:
    """Parents of a chain of `length` edges from source 0 (vertex i below i - 1), and
    `extra` vertices outside the tree."""
    parents = np.full(length + 1 + extra, -1, np.int64)
    parents[0] = 0
    parents[1:length + 1] = np.arange(length)
    return parents


@pytest.mark.parametrize("extra", [0, 1, 37])
@pytest.mark.parametrize("length", LENGTHS)
def test_a_chain_of_every_length_reaches_the_source(length, extra):
    depth, broken = tree_depths(chain(length, extra), 0)
    assert depth.tolist() == list(range(length + 1)) + [-1] * extra
    assert not broken.any()


@pytest.mark.parametrize("length", LENGTHS)
def test_a_chain_numbered_the_other_way(length):
    """Source at the last id, each vertex below the next one."""
    parents = np.arange(1, length + 2, dtype=np.int64)
    parents[length] = length
    depth, broken = tree_depths(parents, length)
    assert depth.tolist() == list(range(length, -1, -1)) and not broken.any()


@pytest.mark.parametrize("length", LENGTHS)
def test_a_chain_that_ends_outside_the_tree_is_broken_whole(length):
    """Vertices 2..length+1 hang below one another up to vertex 1, which is outside the
    tree and not the source: none of the chain reaches the source."""
    parents = np.concatenate([[0, -1], np.arange(1, length + 1)]).astype(np.int64)
    depth, broken = tree_depths(parents, 0)
    assert broken.tolist() == [False, False] + [True] * length
    assert depth.tolist() == [0, -1] + [-1] * length


@pytest.mark.parametrize("length", [n for n in LENGTHS if n >= 2])
def test_a_cycle_of_every_length_never_reaches_the_source(length):
    parents = np.concatenate([[0], np.roll(np.arange(1, length + 1), 1)]).astype(np.int64)
    depth, broken = tree_depths(parents, 0)
    assert broken.tolist() == [False] + [True] * length and depth.tolist() == [0] + [-1] * length


@pytest.mark.parametrize("length", LENGTHS)
def test_the_bfs_validator_on_a_path_of_every_length(length):
    """The right tree of a path passes; the last vertex given its child as parent (a
    two-cycle at the end of the chain) is a cycle for the check without a reference."""
    g = path(length + 1)
    r = sequential_bfs(g, 0, predecessors=True)
    p = r.parents.astype(np.int64)
    assert graph500_failures(g, 0, r.distances, p) == [] and parent_failures(g, 0, r.distances, p) == []
    if length >= 2:
        p[length - 1] = length  # length - 1 and length now each other's parent
        failures = graph500_failures(g, 0, r.distances, p)
        assert failures[0] == "cycle: 2 tree vertices never reach the source through their parents " \
                              f"(first: vertex {length - 1})"


def walked(parents, source: int) -> tuple[list[int], list[bool]]:
    """tree_depths by walking each vertex's chain one step at a time: a vertex's first
    ancestor is its parent where that is a vertex (the source's is itself), else itself."""
    n = len(parents)
    anc = [int(p) if 0 <= p < n and v != source else v for v, p in enumerate(parents)]
    depth, broken = [], []
    for v in range(n):
        x, steps, seen = v, 0, set()
        while anc[x] != x and x not in seen:
            seen.add(x)
            x, steps = anc[x], steps + 1
        inside = parents[v] >= 0
        bad = inside and (anc[x] != x or x != source or parents[v] >= n)
        broken.append(bool(bad))
        depth.append(steps if inside and not bad else -1)
    return depth, broken


def counting(monkeypatch, name: str) -> list:
    """core.checks.NAME wrapped to append to the returned list at each call."""
    from gpubfs_cli.core import checks

    calls = []
    inner = getattr(checks, name)

    def counted(*args):
        calls.append(1)
        return inner(*args)

    monkeypatch.setattr(checks, name, counted)
    return calls


def random_parents(rng) -> tuple[np.ndarray, int]:
    """A parent array of 1 to 79 vertices with every kind of entry, and its source."""
    n = int(rng.integers(1, 80))
    parents = rng.integers(-2, n + 2, n)
    # mostly a forest towards low ids, so that some chains do reach the source
    forest = rng.random(n) < 0.6
    parents[forest] = (rng.random(forest.sum()) * np.flatnonzero(forest)).astype(np.int64)
    return parents, int(rng.integers(-1, n + 1)) if rng.random() < 0.2 else 0


@pytest.mark.parametrize("seed", range(40))
def test_random_parent_arrays_against_a_walk(seed):
    """Every kind of entry at once (outside the tree, out of range, cycles, a vertex its
    own parent, the source's parent elsewhere or out of range, a source outside [0, n)),
    int32 and int64, against the chain walked step by step."""
    rng = np.random.default_rng(seed)
    for _ in range(10):
        parents, source = random_parents(rng)
        for dtype in (np.int64, np.int32):
            depth, broken = tree_depths(parents.astype(dtype), source)
            assert (depth.tolist(), broken.tolist()) == walked(parents, source), (seed, parents.tolist(), source)


def test_the_doubling_stops_once_every_chain_is_at_its_end(monkeypatch):
    """A chain of 5 edges among 10,000 vertices: three doublings reach the source from
    every vertex, and a fourth pass finds nothing moved; the loop's bound (log2 n + 2 = 16
    passes) is never reached."""
    passes = counting(monkeypatch, "_doubling_step")
    depth, broken = tree_depths(chain(5, 10_000 - 6), 0)
    assert depth[:6].tolist() == list(range(6)) and not broken.any()
    assert len(passes) == 4


@pytest.mark.parametrize("seed", range(40))
def test_broken_chains_agree_with_the_walk_with_or_without_the_doubling(seed, monkeypatch):
    """broken_chains skips the doubling only where every chain descends in distance; on
    random parent arrays (the test above's), with random distances (mostly the doubling)
    and with each vertex's walked depth as its distance (descending wherever the chains
    reach the source), its `broken` is the walk's."""
    doubled = counting(monkeypatch, "tree_depths")
    rng = np.random.default_rng(seed)
    skipped = 0
    for i in range(10):
        parents, source = random_parents(rng)
        if i % 3 == 0:  # a whole tree towards 0: the skip's case
            parents = (rng.random(len(parents)) * np.arange(len(parents))).astype(np.int64)
            source = 0
        walk_depth, walk_broken = walked(parents, source)
        for distances in (rng.integers(-1, 5, len(parents)), np.array(walk_depth)):
            before = len(doubled)
            assert broken_chains(parents, source, distances).tolist() == walk_broken, (seed, parents.tolist())
            skipped += len(doubled) == before
    assert skipped > 0  # the fast path ran


def test_a_tie_in_distance_is_checked_by_the_doubling():
    """A zero-weight tree edge (a parent at its child's distance) could close a cycle: no
    skip. Here 1 and 2 are each other's parents at one distance: both broken."""
    parents = np.array([0, 2, 1, 0])
    assert broken_chains(parents, 0, np.array([0, 5, 5, 1])).tolist() == [False, True, True, False]
    assert broken_chains(parents[[0, 3, 3, 0]], 0, np.array([0, 2, 2, 1])).tolist() == [False] * 4


def test_a_parent_outside_the_tree_or_out_of_range_is_checked_by_the_doubling():
    # 2 has a distance but no parent: 1's chain ends there, not at the source
    assert broken_chains(np.array([0, 2, -1]), 0, np.array([0, 2, 1])).tolist() == [False, True, False]
    # the source's own parent out of range is broken, as tree_depths says
    assert broken_chains(np.array([5, 0]), 0, np.array([0, 1])).tolist() == [True, False]
    assert tree_depths(np.array([5, 0]), 0)[1].tolist() == [True, False]
