"""Validation of a traversal's answer against the baseline's. Never inside a timed region.

Distances must equal the sequential baseline's exactly. Parent arrays must also pass
Graph500's BFS-tree checks (specification section "Validation"), here whole-array
numpy operations:
  root       the source is its own parent
  cycle      every tree vertex's parent chain reaches the source (no cycles)
  levels     every tree vertex's parent is exactly one level above it
  tree-edge  every (parent, vertex) pair is an edge of the graph
  edge-span  every edge out of a reached vertex ends at most one level further down
             (for undirected graphs: the two ends differ by at most one level)
  component  the tree holds exactly the vertices reachable from the source
Each check names itself in the reason, so a report can say which one failed.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.checks import (
    broken_chains,
    check_answer,
    compare_distances,
    edge_blocks,
    edge_violations,
    root_check,
)
from gpubfs_cli.core.checks import first_true as _first
from gpubfs_cli.graph.csr import CSRGraph

# compare_distances and edge_blocks live in core.checks; imported here for validate()
# and graph500_failures, and for callers that know them from this module.
__all__ = ["compare_distances", "edge_blocks", "graph500_failures", "parent_failures", "validate"]


def _level_check(source, distances, parents, child, failures: list[str]) -> np.ndarray:
    """Every `child` vertex's parent is in range and exactly one level up, and the tree
    holds exactly the vertices with a level. Appends a 'levels' failure; returns the
    children that passed (for the tree-edge check)."""
    n = len(distances)
    in_tree = parents >= 0
    mismatch = in_tree != (distances >= 0)
    kids = np.flatnonzero(child)
    par = parents[kids]
    off_level = par >= n
    ok = ~off_level
    off_level[ok] = distances[par[ok]] != distances[kids[ok]] - 1
    if off_level.any() or mismatch.any():
        if off_level.any():
            v = int(kids[np.flatnonzero(off_level)[0]])
            pl = distances[parents[v]] if parents[v] < n else "none"
            detail = f"vertex {v} at level {distances[v]} has parent {parents[v]} at level {pl}"
        else:
            v = _first(mismatch)
            detail = f"vertex {v} has parent {parents[v]} but distance {distances[v]}"
        failures.append(f"levels: {int(off_level.sum() + mismatch.sum()):,} vertices, {detail}")
    return kids[~off_level]


def graph500_failures(
    graph: CSRGraph,
    source: int,
    distances: np.ndarray,
    parents: np.ndarray,
    reachable: np.ndarray | None = None,
) -> list[str]:
    """The Graph500 checks that fail, each as 'check: detail'; empty when all pass.

    `distances` are the traversal's own; `reachable` (bool per vertex) is the
    baseline's reached set when known, else it is implied by the edge-span check.
    """
    n = graph.n
    parents, distances, failures = root_check(n, source, distances, parents)
    if parents is None:
        return failures

    broken = broken_chains(parents, source, distances)
    if broken.any():
        failures.append(
            f"cycle: {int(broken.sum()):,} tree vertices never reach the source through "
            f"their parents (first: vertex {_first(broken)})"
        )

    child = (parents >= 0) & ~broken
    child[source] = False
    kids = _level_check(source, distances, parents, child, failures)

    # One parallel count over the edges and a search per tree edge; only when either
    # fails, one numpy pass over the edges (in blocks) to name the first offenders:
    # which tree edges exist, which edges skip a level, which leave the tree.
    found = np.zeros(n, dtype=bool)
    skips = escapes = 0
    first_skip = first_escape = None
    clean = (len(kids) == int(child.sum()) and edge_violations(graph, distances) == (0, 0)
             and not _not_edges(np.asarray(graph.row_offsets), np.asarray(graph.col_indices), parents, kids,
                                not graph.directed).any())
    if clean:
        found[kids] = True
    for rows, cols in () if clean else edge_blocks(graph):
        hit = parents[cols] == rows
        found[cols[hit]] = True
        du = distances[rows]
        dv = distances[cols]
        skip = (du >= 0) & (dv > du + 1)
        escape = (du >= 0) & (dv < 0)
        if skip.any():
            skips += int(skip.sum())
            if first_skip is None:
                e = _first(skip)
                first_skip = (int(rows[e]), int(du[e]), int(cols[e]), int(dv[e]))
        if escape.any():
            escapes += int(escape.sum())
            if first_escape is None:
                e = _first(escape)
                first_escape = (int(rows[e]), int(cols[e]))
    missing = child & ~found
    if missing.any():
        v = _first(missing)
        failures.append(
            f"tree-edge: {int(missing.sum()):,} (parent, vertex) pairs are not graph edges "
            f"(first: {parents[v]} -> {v})"
        )
    if first_skip is not None:
        u, lu, w, lw = first_skip
        failures.append(f"edge-span: {skips:,} edges skip a level (first: {u} at level {lu} -> {w} at level {lw})")
    tree_set = distances >= 0
    if first_escape is not None:
        u, w = first_escape
        failures.append(
            f"component: {escapes:,} edges leave the tree (first: {u} -> {w}, which has no level)"
        )
    elif reachable is not None and not np.array_equal(tree_set, reachable):
        diff = tree_set != reachable
        v = _first(diff)
        where = "in the tree but not reachable" if tree_set[v] else "reachable but not in the tree"
        failures.append(f"component: {int(diff.sum()):,} vertices differ (first: vertex {v} is {where})")
    return failures


def validate(
    graph: CSRGraph,
    source: int,
    result: Answer,
    reference: np.ndarray,
    predecessors: bool = False,
) -> str | None:
    """None when `result` (host arrays) is right for `source`, else why not (one line)."""
    return check_answer(result, reference, predecessors, "predecessors",
                        lambda d, p: parent_failures(graph, source, d, p))


@njit(cache=True, parallel=True)
def _not_edges(row_offsets, col_indices, parents, kids, undirected):
    """For each kid v: True when v is not in its parent's (sorted) adjacency list. On an
    undirected graph, whose lists hold each edge both ways, the shorter of the two lists
    is searched: a parent is often a hub, its kids mostly not (docs/performance.md, "Host
    work a key")."""
    bad = np.zeros(len(kids), dtype=np.bool_)
    for i in prange(len(kids)):
        v = kids[i]
        p = parents[v]
        a, b = p, v  # search list a for b
        if undirected and row_offsets[v + 1] - row_offsets[v] < row_offsets[p + 1] - row_offsets[p]:
            a, b = v, p
        lo = row_offsets[a]
        hi = row_offsets[a + 1]
        j = lo + np.searchsorted(col_indices[lo:hi], b)
        bad[i] = j >= hi or col_indices[j] != b
    return bad


def parent_failures(graph: CSRGraph, source: int, distances, parents) -> list[str]:
    """The Graph500 checks of a parent array whose distances already equal the
    baseline's (validate() compares them first).

    With exact BFS levels, edge-span and component hold by construction, and "every
    parent exactly one level up" rules out cycles; what remains is the root, the
    levels, and tree-edge, which runs as one binary search per vertex in its parent's
    sorted list (seconds -> milliseconds on 100M-edge graphs next to the edge pass of
    graph500_failures, which checks a parent array with no trusted distances).
    """
    parents, distances, failures = root_check(graph.n, source, distances, parents)
    if parents is None:
        return failures
    child = (parents >= 0) & (distances >= 0)
    child[source] = False
    kids = _level_check(source, distances, parents, child, failures)
    bad = _not_edges(graph.row_offsets, graph.col_indices, parents, kids, not graph.directed)
    if bad.any():
        v = int(kids[np.flatnonzero(bad)[0]])
        failures.append(
            f"tree-edge: {int(bad.sum()):,} (parent, vertex) pairs are not graph edges "
            f"(first: {parents[v]} -> {v})"
        )
    return failures
