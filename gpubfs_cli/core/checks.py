"""Checks every problem's validator shares: exact distance comparison, depths of a
parent tree (cycle detection), iteration over a graph's edges in bounded blocks, one
parallel count of the edges a distance array violates, and the checks of distances that
need no reference (relaxation_failures, support_failures).

Distances alone, with every edge weight positive (BFS: 1), are proved shortest by two
conditions, both checked in one parallel pass over the edges (edge_violations): relaxed
(no edge out of a reached vertex can shorten a distance, none leaves the reached set)
means none is too long; supported (every reached vertex but the source has a tight
in-edge from a reached vertex, d[v] == d[u] + w) means none is too short, since
following tight in-edges lowers the distance at every step and so ends at the source
along a path of that length. A zero-weight edge breaks the second half (a cycle of them
supports any distance), so a problem proves distances alone only where every weight is
positive.

Whole-array numpy or numba: nothing here loops over vertices or edges in Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


def compare_distances(got, expected: np.ndarray) -> str | None:
    """None when equal, else the count of wrong vertices and the first one."""
    got = np.asarray(got)
    if got.shape != expected.shape:
        return f"distances have shape {got.shape}, expected {expected.shape}"
    wrong = np.flatnonzero(got != expected)
    if len(wrong) == 0:
        return None
    v = int(wrong[0])
    return (
        f"distances differ at {len(wrong):,} of {len(expected):,} vertices "
        f"(first: vertex {v} has {int(got[v])}, expected {int(expected[v])})"
    )


def root_check(n: int, source: int, distances, parents):
    """(parents as int64, distances, failures) with the shape and root checks done;
    parents is None when the shape is wrong (nothing else can be checked)."""
    parents = np.asarray(parents).astype(np.int64)
    distances = np.asarray(distances)
    if parents.shape != (n,):
        return None, distances, [f"shape: parents have shape {parents.shape}, expected ({n},)"]
    failures: list[str] = []
    if parents[source] != source:
        failures.append(f"root: parent of source {source} is {parents[source]}, expected {source}")
    return parents, distances, failures


def first_true(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def tree_depths(parents: np.ndarray, source: int) -> tuple[np.ndarray, np.ndarray]:
    """(depth, broken) of every vertex in a parent array, by pointer doubling.

    parents[v] < 0 means v is not in the tree; parents[source] should be source.
    depth[v] is the number of parent steps from v to the source (-1 outside the
    tree); broken marks tree vertices whose parent chain never reaches the source (a
    cycle, a parent outside [0, n), or a chain ending at a vertex outside the tree).
    O(n log depth): the doubling stops once every chain has reached its end. Each pass is
    numba-parallel: on a Graph 500 tree of 2^24 vertices the whole-array numpy passes took
    seconds a key, more than the parallel edge checks beside them.
    """
    parents = np.asarray(parents, dtype=np.int64)
    n = len(parents)
    anc, hops = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    _doubling_start(parents, int(source), anc, hops)
    nxt, more = np.empty_like(anc), np.empty_like(hops)
    for _ in range(int(np.ceil(np.log2(max(n, 2)))) + 2):
        if _doubling_step(anc, hops, nxt, more) == 0:  # every chain at its end
            break
        anc, nxt, hops, more = nxt, anc, more, hops
    depth, broken = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.bool_)
    _doubling_end(parents, int(source), anc, hops, depth, broken)
    return depth, broken


def broken_chains(parents: np.ndarray, source: int, distances: np.ndarray) -> np.ndarray:
    """tree_depths' `broken` (tree vertices whose parent chain never reaches the source),
    without its pointer doubling where one pass shows there are none: every tree vertex
    but the source has its parent in range, in the tree and at a strictly smaller
    distance, so each chain descends and can end only at the source (no cycle). A cycle,
    a zero-weight tree edge or a parent outside the tree falls back to the doubling."""
    parents = np.asarray(parents, dtype=np.int64)
    if len(parents) == len(np.asarray(distances)) and _chains_descend(parents, int(source), np.asarray(distances)):
        return np.zeros(len(parents), dtype=np.bool_)
    return tree_depths(parents, source)[1]


@njit(cache=True, parallel=True)
def _chains_descend(parents, source, distances):
    n = len(parents)
    bad = 0
    for v in prange(n):
        p = parents[v]
        if p < 0:
            continue
        if p >= n:  # out of range: broken, also the source's own
            bad += 1
        elif v != source and (parents[p] < 0 or distances[p] < 0 or distances[p] >= distances[v]):
            bad += 1
    return bad == 0


@njit(cache=True, parallel=True)
def _doubling_start(parents, source, anc, hops):
    """Each vertex's first ancestor (its parent where that is a vertex; itself for the
    source, a vertex outside the tree and one whose parent is out of range) and the steps
    taken to it (0 or 1)."""
    n = len(parents)
    for v in prange(n):
        p = parents[v]
        a = p if 0 <= p < n and v != source else v
        anc[v] = a
        hops[v] = 1 if a != v else 0


@njit(cache=True, parallel=True)
def _doubling_step(anc, hops, nxt, more):
    """One doubling: nxt = anc[anc], more = hops + hops[anc]; how many ancestors moved."""
    moved = 0
    for v in prange(len(anc)):
        a = anc[v]
        b = anc[a]
        nxt[v] = b
        more[v] = hops[v] + hops[a]
        if b != a:
            moved += 1
    return moved


@njit(cache=True, parallel=True)
def _doubling_end(parents, source, anc, hops, depth, broken):
    """broken: a tree vertex (parent >= 0) whose last ancestor is not the source, or whose
    parent is out of range; depth: its steps to the source, else -1."""
    n = len(parents)
    for v in prange(n):
        p = parents[v]
        bad = p >= 0 and (anc[v] != source or p >= n)
        broken[v] = bad
        depth[v] = hops[v] if p >= 0 and not bad else -1


def edge_ranges(graph, block: int = 1 << 24):
    """(rows, a, b): CSR entries a..b-1 (consecutive whole rows, about `block` edges)
    and the source vertex of each, so edge-wide checks need O(block) memory, not O(m).
    Slice any per-edge array (col_indices, weights) with [a:b]."""
    ro = np.asarray(graph.row_offsets)
    if graph.m == 0:
        return
    starts = np.searchsorted(ro, np.arange(0, graph.m, block), side="right") - 1
    cuts = [int(r) for r in np.unique(starts)] + [graph.n]
    for r0, r1 in zip(cuts[:-1], cuts[1:], strict=True):
        a, b = int(ro[r0]), int(ro[r1])
        if a == b:
            continue
        rows = np.repeat(np.arange(r0, r1, dtype=np.int64), np.diff(ro[r0 : r1 + 1]))
        yield rows, a, b


def edge_blocks(graph, block: int = 1 << 24):
    """(rows, cols) arrays of consecutive whole rows holding about `block` edges each."""
    for rows, a, b in edge_ranges(graph, block):
        yield rows, np.asarray(graph.col_indices[a:b])


def check_answer(result, reference: np.ndarray, with_parents: bool, option: str,
                 parent_failures) -> str | None:
    """The check every problem makes: distances equal to the reference's, then (when the
    option was asked for) `parent_failures(distances, parents)`, a list of 'check: detail'
    lines. None when right, else one line."""
    reason = compare_distances(result.distances, reference)
    if reason is not None:
        return reason
    if not with_parents:
        return None
    if result.parents is None:
        return f"no parents returned although {option} were asked for"
    failures = parent_failures(result.distances, result.parents)
    return "; ".join(failures) if failures else None


def certify_answer(result, n: int, certificate) -> str | None:
    """check_answer without a reference: distances of shape (n,) in whole numbers (what a
    certificate reads), then `certificate(distances, parents)`, a list of 'check: detail'
    lines. None when proved, else one line."""
    got = np.asarray(result.distances)
    if got.shape != (n,):
        return f"distances have shape {got.shape}, expected ({n},)"
    if got.dtype.kind not in "iu":
        off = np.flatnonzero(got != np.trunc(got)) if got.dtype.kind == "f" else np.arange(n)
        if len(off):
            return f"whole: {len(off):,} distances are not whole numbers (first: vertex {int(off[0])} has {got[off[0]]})"
    failures = certificate(got, result.parents)
    return "; ".join(failures) if failures else None


@njit(cache=True, parallel=True)
def _violations(row_offsets, col_indices, weights, unit, distances, tight):
    """(loose, escapes); where `tight` has a slot a vertex, also marks each v that some
    edge u -> v out of a reached u reaches exactly (d[v] == d[u] + w)."""
    mark = len(tight) == len(distances)
    loose = 0
    escapes = 0
    for u in prange(len(row_offsets) - 1):
        du = distances[u]
        if du < 0:
            continue
        for j in range(row_offsets[u], row_offsets[u + 1]):
            v = col_indices[j]
            dv = distances[v]
            if dv < 0:
                escapes += 1
                continue
            reach = du + (1 if unit else weights[j])
            if dv > reach:
                loose += 1
            elif mark and dv == reach and not tight[v]:
                tight[v] = True  # once a vertex: a write per tight edge would bounce its line between cores
    return loose, escapes


def summable(distances, unit: bool) -> np.ndarray:
    """Distances in a width their sums cannot overflow: int64, but BFS levels (`unit`,
    below n) keep an int32, so that the edge pass's random reads of d[v] touch half the
    cache lines (docs/performance.md, "Host work a key")."""
    d = np.asarray(distances)
    return d if unit and d.dtype == np.int32 else d.astype(np.int64, copy=False)


def edge_violations(graph, distances: np.ndarray, weights: np.ndarray | None = None,
                    tight: np.ndarray | None = None) -> tuple[int, int]:
    """(loose, escapes) over every edge u -> v out of a reached vertex u (distance >= 0):
    loose when v's distance is longer than u's plus the edge's weight (1 without
    `weights`: BFS levels), escapes when v has none. Both zero: no edge can shorten a
    distance or reach past the reached set. One parallel pass; the validators' numpy
    passes run only to name the first offender of a failed check. `tight` (n bools, all
    False) gets True for every vertex some such edge reaches exactly (support_failures)."""
    unit = weights is None
    w = np.zeros(1, dtype=np.int64) if unit else weights
    loose, escapes = _violations(np.asarray(graph.row_offsets), np.asarray(graph.col_indices), w, unit,
                                 summable(distances, unit), np.zeros(0, dtype=np.bool_) if tight is None else tight)
    return int(loose), int(escapes)


def relaxation_failures(graph, source: int, distances, weights: np.ndarray | None = None,
                        block: int = 1 << 24, counts: tuple[int, int] | None = None) -> list[str]:
    """The checks of distances that need no reference, each as 'check: detail': source
    (d[source] == 0), relax (no edge u -> v out of a reached vertex has d[v] > d[u] + w;
    `weights` per edge, None: 1 each, BFS levels) and component (no such edge reaches an
    unreached vertex). One parallel pass over the edges (or its `counts`, edge_violations'
    result, when already known); only where it finds an offender, numpy passes in blocks
    of about `block` edges to name the first."""
    distances = summable(distances, weights is None)  # no copy where distance_certificate made one
    if distances.shape != (graph.n,):
        return [f"shape: distances have shape {distances.shape}, expected ({graph.n},)"]
    failures: list[str] = []
    if distances[source] != 0:
        failures.append(f"source: distance of source {source} is {distances[source]}, expected 0")
    if (edge_violations(graph, distances, weights) if counts is None else counts) == (0, 0):
        return failures
    distances = distances.astype(np.int64, copy=False)  # the numpy passes' sums
    loose = escapes = 0
    first_loose = first_escape = None
    for rows, a, b in edge_ranges(graph, block):
        cols = np.asarray(graph.col_indices[a:b])
        w = 1 if weights is None else weights[a:b]
        du = distances[rows]
        dv = distances[cols]
        reached = du >= 0
        escape = reached & (dv < 0)
        bad = reached & (dv >= 0) & (dv > du + w)
        if bad.any():
            loose += int(bad.sum())
            if first_loose is None:
                e = first_true(bad)
                first_loose = (int(rows[e]), int(du[e]), int(cols[e]), int(dv[e]),
                               1 if weights is None else int(weights[a + e]))
        if escape.any():
            escapes += int(escape.sum())
            if first_escape is None:
                e = first_true(escape)
                first_escape = (int(rows[e]), int(cols[e]))
    if first_loose is not None:
        u, du, v, dv, w = first_loose
        failures.append(
            f"relax: {loose:,} edges would shorten a distance (first: {u} at {du} -> {v} at {dv}, weight {w})"
        )
    if first_escape is not None:
        u, v = first_escape
        failures.append(f"component: {escapes:,} edges leave the reached set (first: {u} -> {v}, which has no distance)")
    return failures


def support_failures(source: int, distances: np.ndarray, tight: np.ndarray) -> list[str]:
    """'support' when some reached vertex other than the source is not `tight` (no edge
    from a reached vertex reaches it exactly, edge_violations' marks: no path gives its
    distance, which is too short); empty otherwise."""
    lacking = (distances >= 0) & ~tight
    lacking[source] = False
    if not lacking.any():
        return []
    v = first_true(lacking)
    return [f"support: {int(lacking.sum()):,} reached vertices have no tight in-edge from a reached vertex, "
            f"so no path gives their distance (first: vertex {v} at {distances[v]})"]


def distance_certificate(graph, source: int, distances, weights: np.ndarray | None = None) -> list[str]:
    """Every check of distances alone (relaxation_failures, then support_failures), from
    one parallel pass over the edges: empty proves them shortest where every weight is
    positive (the module's note)."""
    distances = summable(distances, weights is None)
    if distances.shape != (graph.n,):
        return relaxation_failures(graph, source, distances, weights)  # its shape failure
    tight = np.zeros(graph.n, dtype=np.bool_)
    counts = edge_violations(graph, distances, weights, tight)
    return relaxation_failures(graph, source, distances, weights, counts=counts) + support_failures(
        source, distances, tight)
