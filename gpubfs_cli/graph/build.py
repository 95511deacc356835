"""Edge list -> CSR: symmetrize, self-loop and duplicate policy, sorted adjacency.

One vectorized path for numpy and cupy arrays (the generators build on the GPU with
the same code): edges become int64 keys u*n + v, one sort orders them by source and
then destination, and duplicates are neighbours in the sorted keys.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.edges import EdgeList

Policy = Literal["drop", "keep"]


def array_module(a):
    """numpy or cupy, whichever `a` belongs to."""
    mod = type(a).__module__
    if mod.startswith("cupy"):
        import cupy

        return cupy
    return np


def to_numpy(a) -> np.ndarray:
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def build_csr(
    edges: EdgeList,
    *,
    symmetrize: bool | None = None,
    self_loops: Policy = "drop",
    duplicates: Policy = "drop",
    keep_weights: bool = False,
    name: str = "",
) -> CSRGraph:
    """Build a CSRGraph (numpy arrays on the host) from an EdgeList.

    symmetrize defaults to `not edges.directed`; the result is directed=False then.
    With duplicates="drop" a repeated edge keeps its lightest weight.
    """
    xp = array_module(edges.src)
    n = int(edges.n)
    if symmetrize is None:
        symmetrize = not edges.directed
    src = xp.asarray(edges.src).astype(xp.int64, copy=False)
    dst = xp.asarray(edges.dst).astype(xp.int64, copy=False)
    w = edges.weights if keep_weights else None
    if len(src) and (int(src.min()) < 0 or int(dst.min()) < 0 or int(src.max()) >= n or int(dst.max()) >= n):
        raise ValueError(f"edge endpoint out of range [0, {n})")
    if symmetrize:
        # A kept self-loop is one entry, not two: mirror only the other edges.
        mirror = (src != dst) if self_loops == "keep" else slice(None)
        src, dst = xp.concatenate([src, dst[mirror]]), xp.concatenate([dst, src[mirror]])
        if w is not None:
            w = xp.concatenate([w, w[mirror]])
    if self_loops == "drop":
        keep = src != dst
        if not bool(keep.all()):
            src, dst = src[keep], dst[keep]
            if w is not None:
                w = w[keep]
    keys = src * n + dst
    del src, dst
    if w is None:
        keys.sort()
    else:
        # By edge, then weight: the first of a run of parallel edges is the lightest,
        # the one a shortest path uses (DIMACS 9 files list parallel arcs).
        w = xp.asarray(w)
        order = xp.lexsort(xp.stack([w, keys]))
        keys, w = keys[order], w[order]
        del order
    if duplicates == "drop" and len(keys) > 1:
        first = xp.empty(len(keys), dtype=bool)
        first[0] = True
        xp.not_equal(keys[1:], keys[:-1], out=first[1:])
        if not bool(first.all()):
            keys = keys[first]
            if w is not None:
                w = w[first]
        del first
    rows = keys // n if n else keys
    counts = xp.bincount(rows, minlength=n) if len(keys) else xp.zeros(n, dtype=xp.int64)
    del rows
    offsets = xp.zeros(n + 1, dtype=xp.int64)
    xp.cumsum(counts, out=offsets[1:])
    col_dtype = xp.int32 if n < 2**31 else xp.int64
    cols = (keys % n).astype(col_dtype) if n else keys.astype(col_dtype)
    del keys
    return CSRGraph(
        row_offsets=to_numpy(offsets),
        col_indices=to_numpy(cols),
        directed=not symmetrize and edges.directed,
        weights=None if w is None else to_numpy(w),
        name=name,
    )


def reverse_csr(graph: CSRGraph) -> CSRGraph:
    """The transpose (in-edges as a CSR, each list sorted): every edge reversed and kept,
    self-loops and parallel edges included. An undirected graph is its own transpose."""
    if not graph.directed:
        return graph
    src = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(graph.row_offsets))
    return build_csr(EdgeList(np.asarray(graph.col_indices), src, graph.n, True),
                     self_loops="keep", duplicates="keep", name=graph.name)
