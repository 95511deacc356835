"""Distances and depths from a BFS tree, vectorized (no loop over vertices or edges).

Reference BFS libraries (scipy, networkx) give a visiting order and predecessors
rather than distances; the validator needs the depth of every vertex in a parent
tree. Both are computed here with whole-array numpy operations.
"""

from __future__ import annotations

import numpy as np


def distances_from_order(order: np.ndarray, predecessors: np.ndarray, n: int) -> np.ndarray | None:
    """Distances (int32, -1 unreached) from a queue BFS's visiting order.

    `order` starts with the source; `predecessors[v]` is v's parent (anything < 0 or
    out of range for the source and unreached vertices). In a FIFO BFS the parents'
    positions in `order` never decrease, so each level is a contiguous run of
    `order` and its end is one binary search away: the loop runs once per level.
    Returns None when `order` is not in that shape (not a FIFO order).
    """
    order = np.asarray(order, dtype=np.int64)
    dist = np.full(n, -1, dtype=np.int32)
    k = len(order)
    if k == 0:
        return dist
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(k, dtype=np.int64)
    parents = np.asarray(predecessors)[order[1:]].astype(np.int64)
    if k > 1 and (parents.min() < 0 or parents.max() >= n):
        return None
    parent_pos = position[parents]  # parent_pos[j] belongs to order[j + 1]
    if k > 1 and np.any(parent_pos[1:] < parent_pos[:-1]):
        return None
    bounds = [0, 1]  # level L occupies order[bounds[L]:bounds[L + 1]]
    while bounds[-1] < k:
        nxt = 1 + int(np.searchsorted(parent_pos, bounds[-1], side="left"))
        if nxt <= bounds[-1]:
            return None  # a vertex whose parent comes after it
        bounds.append(nxt)
    sizes = np.diff(np.asarray(bounds, dtype=np.int64))
    dist[order] = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    return dist
