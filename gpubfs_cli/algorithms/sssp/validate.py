"""Validation of an SSSP answer against the baseline's. Never inside a timed region.

Distances must equal cpu.dijkstra's exactly. A parent array must then describe a
shortest-path tree, checked with whole-array numpy and one numba-parallel binary
search per vertex:
  root       the source is its own parent
  reach      a vertex has a parent exactly when it has a distance
  tree-edge  every (parent, vertex) pair is an edge of the graph
  tight      every tree edge is tight: d[v] == d[parent] + w(parent, v)
  cycle      every tree vertex's parent chain reaches the source (zero-weight edges
             make tight cycles possible, so tightness alone does not rule them out)
Each check names itself in the reason, as the BFS validator's do.

Without a reference, relaxation_failures checks what makes distances shortest:
  source     d[source] == 0
  relax      no edge out of a reached vertex can shorten a distance: d[v] <= d[u] + w
  component  no edge leads from a reached vertex to an unreached one
(implied by equal distances, so validate() does not repeat that edge pass).
Relaxation plus the parent checks certify distances with no reference at all
(certificate_failures): relaxed means no distance is too long, a tight acyclic tree
to the source means none is too short. Without parents, relaxed and supported (every
reached vertex but the source has a tight in-edge) prove them where every weight is
positive (distance_certificate_failures, core/checks.py says why).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gpubfs_cli.algorithms.sssp.inputs import integer_weights
from gpubfs_cli.core import checks
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.checks import (
    broken_chains,
    check_answer,
    first_true,
    root_check,
)
from gpubfs_cli.graph.csr import CSRGraph

NOT_EDGE, NOT_TIGHT = 1, 2


@njit(cache=True, parallel=True)
def _tree_edge_status(row_offsets, col_indices, weights, distances, parents, kids):
    """For each kid v: 0 when (parent[v], v) is a tight edge, NOT_EDGE when it is not an
    edge, NOT_TIGHT when the lightest such edge is not tight. Adjacency lists are
    sorted, so parallel edges are neighbours after the binary search."""
    status = np.zeros(len(kids), dtype=np.int8)
    for i in prange(len(kids)):
        v = kids[i]
        p = parents[v]
        lo = row_offsets[p]
        hi = row_offsets[p + 1]
        j = lo + np.searchsorted(col_indices[lo:hi], v)
        if j >= hi or col_indices[j] != v:
            status[i] = NOT_EDGE
        else:
            best = weights[j]
            j += 1
            while j < hi and col_indices[j] == v:
                best = min(best, weights[j])
                j += 1
            if distances[v] != distances[p] + best:
                status[i] = NOT_TIGHT
    return status


def _lightest(graph: CSRGraph, weights: np.ndarray, u: int, v: int) -> int:
    """The weight of the lightest edge u -> v (one adjacency list, for a message)."""
    lo, hi = int(graph.row_offsets[u]), int(graph.row_offsets[u + 1])
    at = lo + np.flatnonzero(np.asarray(graph.col_indices[lo:hi]) == v)
    return int(weights[at].min())


def parent_failures(graph: CSRGraph, source: int, distances, parents) -> list[str]:
    """The shortest-path-tree checks that fail, each as 'check: detail'; empty when
    all pass. `distances` are trusted (validate() compares them with the reference
    first); certificate_failures also checks them."""
    n = graph.n
    parents, distances, failures = root_check(n, source, distances, parents)
    if parents is None:
        return failures
    distances = distances.astype(np.int64)

    has_parent = parents >= 0
    mismatch = has_parent != (distances >= 0)
    if mismatch.any():
        v = first_true(mismatch)
        failures.append(
            f"reach: {int(mismatch.sum()):,} vertices have a parent without a distance or the "
            f"reverse (first: vertex {v} has parent {parents[v]}, distance {distances[v]})"
        )

    child = has_parent & (distances >= 0)
    child[source] = False
    out_of_range = child & (parents >= n)
    kids = np.flatnonzero(child & ~out_of_range)
    weights = integer_weights(graph)
    status = _tree_edge_status(
        np.asarray(graph.row_offsets), np.asarray(graph.col_indices), weights, distances, parents, kids
    )
    not_edge = status == NOT_EDGE
    if not_edge.any() or out_of_range.any():
        v = first_true(out_of_range) if out_of_range.any() else int(kids[first_true(not_edge)])
        failures.append(
            f"tree-edge: {int(not_edge.sum() + out_of_range.sum()):,} (parent, vertex) pairs are not "
            f"graph edges (first: {parents[v]} -> {v})"
        )
    loose = status == NOT_TIGHT
    if loose.any():
        v = int(kids[first_true(loose)])
        p = int(parents[v])
        w = _lightest(graph, weights, p, v)
        failures.append(
            f"tight: {int(loose.sum()):,} tree edges are not tight (first: {p} -> {v} of weight {w}: "
            f"d[{v}] = {distances[v]}, d[{p}] + {w} = {distances[p] + w})"
        )

    broken = broken_chains(parents, source, distances)  # any negative parent is outside the tree
    if broken.any():
        failures.append(
            f"cycle: {int(broken.sum()):,} tree vertices never reach the source through "
            f"their parents (first: vertex {first_true(broken)})"
        )
    return failures


def relaxation_failures(graph: CSRGraph, source: int, distances, block: int = 1 << 24) -> list[str]:
    """The checks of distances that need no reference (source, relax, component) with the
    graph's weights (core.checks.relaxation_failures)."""
    return checks.relaxation_failures(graph, source, distances, integer_weights(graph), block)


def positive_weights(graph: CSRGraph) -> bool:
    """Whether every edge weight is above zero: then distances alone can be proved
    (certify_distances); a zero weight leaves answers without parents to the baseline."""
    w = integer_weights(graph)
    return len(w) == 0 or int(w.min()) > 0


def distance_certificate_failures(graph: CSRGraph, source: int, distances) -> list[str]:
    """Relaxed and supported (core.checks.distance_certificate): proof of distances with
    no parents and no reference, where every weight is positive (positive_weights)."""
    return checks.distance_certificate(graph, source, distances, integer_weights(graph))


def certificate_failures(graph: CSRGraph, source: int, distances, parents) -> list[str]:
    """Every check of an answer without a reference (like BFS's graph500_failures)."""
    failures = relaxation_failures(graph, source, distances)
    if failures and failures[0].startswith("shape:"):
        return failures
    return failures + parent_failures(graph, source, distances, parents)


def validate(
    graph: CSRGraph,
    source: int,
    result: Answer,
    reference: np.ndarray,
    parents: bool = False,
) -> str | None:
    """None when `result` (host arrays) is right for `source`, else why not (one line)."""
    return check_answer(result, reference, parents, "parents",
                        lambda d, p: parent_failures(graph, source, d, p))
