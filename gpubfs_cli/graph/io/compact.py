"""Renumber the vertex ids that occur in an edge list to 0..k-1, keeping their order."""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph.edges import EdgeList


def compact_ids(edges: EdgeList) -> EdgeList:
    """Ids that occur become 0..k-1 in increasing order; n becomes k.

    A lookup table over 0..max id when that is at most a few times the edge arrays,
    else np.unique (a sort) for ids that are very sparse.
    """
    src, dst = np.asarray(edges.src), np.asarray(edges.dst)
    records = len(src)
    if records == 0:
        return EdgeList(src, dst, 0, edges.directed, edges.weights, dict(edges.info))
    top = max(int(src.max()), int(dst.max()))
    if top < 4 * records + (1 << 20):
        present = np.zeros(top + 1, dtype=bool)
        present[src] = True
        present[dst] = True
        new_id = np.cumsum(present, dtype=np.int64)
        del present
        new_id -= 1
        distinct = int(new_id[-1]) + 1
        src, dst = new_id[src], new_id[dst]
    else:
        unique, inverse = np.unique(np.concatenate([src, dst]), return_inverse=True)
        distinct = len(unique)
        src, dst = inverse[:records], inverse[records:]
    info = dict(edges.info, compact_ids={"distinct": distinct, "max_original_id": top})
    return EdgeList(src, dst, distinct, edges.directed, edges.weights, info)
