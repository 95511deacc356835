"""What SSSP takes as edge weights: integers, non-negative, whose path sums fit int64.

Distances are exact int64 sums, so weights must be integers. Real-valued files whose
values are all whole numbers (a .wel or .mtx written with '7.0') are accepted and
converted once; anything else is one UserError naming the dataset and the first bad
edge (vertex ids 0-based, as in the cache). All checks are whole-array numpy.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.csr import narrow_ints

INT64_MAX = np.iinfo(np.int64).max


def _label(graph) -> str:
    return f"dataset '{graph.name}'" if graph.name else "the graph"


def bucket_width(weights, scale: float, cap: int) -> int:
    """`scale` times the mean edge weight, rounded, from 1 to `cap`: a delta-stepping
    bucket width (sssp.delta's default rule, gapbs's -d)."""
    w = np.asarray(weights)
    if not len(w):
        return 1
    return int(min(max(1, round(scale * float(np.mean(w, dtype=np.float64)))), cap))


def edge_at(graph, e: int) -> tuple[int, int]:
    """(u, v) of CSR entry e."""
    u = int(np.searchsorted(np.asarray(graph.row_offsets), e, side="right")) - 1
    return u, int(graph.col_indices[e])


def integer_weights(graph) -> np.ndarray:
    """graph.weights as an int32/int64 array (the same array when it already is one)."""
    w = graph.weights
    if w is None:
        raise UserError(f"{_label(graph)}: SSSP needs edge weights and the graph has none")
    w = np.asarray(w)
    if w.shape != (graph.m,):
        raise UserError(f"{_label(graph)}: {len(w):,} edge weights for {graph.m:,} edges")
    if w.dtype.kind == "i" and w.dtype.itemsize >= 4:
        return w
    if w.dtype.kind in "iub":
        if w.dtype == np.uint64 and len(w) and int(w.max()) > INT64_MAX:
            e = int(np.argmax(w > INT64_MAX))
            u, v = edge_at(graph, e)
            raise UserError(f"{_label(graph)}: edge {u} -> {v} has weight {int(w[e])}, over the int64 range")
        return narrow_ints(w.astype(np.int64))
    if w.dtype.kind == "f":
        bad = ~np.isfinite(w)
        bad |= np.floor(w) != w
        bad |= np.abs(w) >= 2.0**63
        if bad.any():
            e = int(np.argmax(bad))
            u, v = edge_at(graph, e)
            raise UserError(
                f"{_label(graph)}: SSSP here takes integer weights; edge {u} -> {v} has weight {float(w[e])!r}"
            )
        return narrow_ints(w.astype(np.int64))
    raise UserError(f"{_label(graph)}: SSSP here takes integer weights, not {w.dtype}")


def check_weights(graph) -> None:
    """Raise UserError unless the weights are SSSP input; whole-number floats are
    converted in place (graph.weights becomes the integer array)."""
    w = integer_weights(graph)
    graph.weights = w
    if len(w) == 0:
        return
    low, high = int(w.min()), int(w.max())
    if low < 0:
        e = int(np.argmax(w < 0))
        u, v = edge_at(graph, e)
        raise UserError(
            f"{_label(graph)}: SSSP needs non-negative weights; edge {u} -> {v} has weight {int(w[e])} "
            f"(0-based vertex ids)"
        )
    # A shortest path has at most n - 1 edges: its length must fit int64.
    if high * max(graph.n - 1, 1) > INT64_MAX:
        raise UserError(
            f"{_label(graph)}: weights up to {high} over {graph.n:,} vertices could overflow int64 distances"
        )
