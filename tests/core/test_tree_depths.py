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
