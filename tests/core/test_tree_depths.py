"""The parent-chain depths every validator's cycle check uses (core/checks.tree_depths),
on chains of every length from 1 to 70: pointer doubling must finish however a chain's
length falls between two powers of two, in a graph of exactly its size or larger."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.validate import graph500_failures, parent_failures
from gpubfs_cli.core.checks import tree_depths
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


@pytest.mark.parametrize("seed", range(40))
def test_random_parent_arrays_against_a_walk(seed):
    """Every kind of entry at once (outside the tree, out of range, cycles, a vertex its
    own parent, the source's parent elsewhere or out of range, a source outside [0, n)),
    int32 and int64, against the chain walked step by step."""
    rng = np.random.default_rng(seed)
    for _ in range(10):
        n = int(rng.integers(1, 80))
        parents = rng.integers(-2, n + 2, n)
        # mostly a forest towards low ids, so that some chains do reach the source
        forest = rng.random(n) < 0.6
        parents[forest] = (rng.random(forest.sum()) * np.flatnonzero(forest)).astype(np.int64)
        source = int(rng.integers(-1, n + 1)) if rng.random() < 0.2 else 0
        for dtype in (np.int64, np.int32):
            depth, broken = tree_depths(parents.astype(dtype), source)
            assert (depth.tolist(), broken.tolist()) == walked(parents, source), (seed, parents.tolist(), source)


def test_the_doubling_stops_once_every_chain_is_at_its_end(monkeypatch):
    """A chain of 5 edges among 10,000 vertices: three doublings reach the source from
    every vertex, and a fourth pass finds nothing moved; the loop's bound (log2 n + 2 = 16
    passes) is never reached."""
    from gpubfs_cli.core import checks

    passes = []
    step = checks._doubling_step

    def counted(*args):
        passes.append(1)
        return step(*args)

    monkeypatch.setattr(checks, "_doubling_step", counted)
    depth, broken = tree_depths(chain(5, 10_000 - 6), 0)
    assert depth[:6].tolist() == list(range(6)) and not broken.any()
    assert len(passes) == 4
