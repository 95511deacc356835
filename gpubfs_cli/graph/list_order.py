"""The order of the entries within each adjacency list (the vertices keep their ids;
graph/reorder.py relabels vertices instead).

`hubs_first` orders each list by its neighbours' out-degree, largest first, ties in
stored order: a bottom-up BFS step stops at a vertex's first neighbour in the frontier,
and the hubs are the likeliest to be there (do.bfs's knob in_order, on the device
through DeviceGraph.in_indices_by_degree; scripts/probe_order.py counts the probes it
saves on the host). Array work over whole lists, on numpy or CuPy alike (`xp`)."""

from __future__ import annotations

from gpubfs_cli.graph.build import to_numpy

CHUNK_EDGES = 1 << 27  # edges sorted at once (the scratch: about 60 B an edge)


def hubs_first(xp, offsets, cols, out_degree, chunk_edges: int | None = None):
    """A copy of `cols` (lists delimited by `offsets`, n + 1 entries) with each list
    ordered by `out_degree` of its entries, largest first, ties in stored order; sorted a
    slice of whole lists at a time, so that at most about `chunk_edges` (default
    CHUNK_EDGES) or one list need scratch at once."""
    chunk_edges = chunk_edges or CHUNK_EDGES
    n, m = len(offsets) - 1, len(cols)
    down = -xp.asarray(out_degree, dtype=xp.int64)  # ascending sorts put the largest first
    out = xp.empty_like(cols)
    # chunk bounds at whole lists: the list holding every chunk_edges-th edge
    marks = xp.arange(0, m, chunk_edges, dtype=xp.int64)
    cuts = xp.searchsorted(offsets, marks, side="right") - 1
    rows = sorted({int(r) for r in to_numpy(cuts)} | {0, n})
    ends = [int(e) for e in to_numpy(offsets[xp.asarray(rows)])]
    for r0, r1, e0, e1 in zip(rows[:-1], rows[1:], ends[:-1], ends[1:], strict=True):
        if e1 == e0:
            continue
        chunk = cols[e0:e1]
        at = xp.arange(e1 - e0, dtype=xp.int64)
        row = xp.searchsorted(offsets[r0:r1 + 1] - e0, at, side="right") - 1  # each edge's list
        order = xp.lexsort(xp.stack([at, down[chunk], row]))
        out[e0:e1] = chunk[order]  # by list, then degree down, then stored position
    return out
