"""The maximum degree threshold (MDT) from a degree histogram and the node-split graph of
Raval et al., section III-B: host and device alike (every function takes the array
module, numpy or cupy, and loops over no vertex or edge).

MDT. The degrees are put into HistogramBinCount equal bins over [0, maxDegree]; the
tallest bin (the first, on a tie) has index binIndex; MDT = binIndex / HistogramBinCount
x maxDegree. The paper counts binIndex from 1: its RMAT graph (maximum degree 1,181)
gets MDT 118, which is 1/10 x 1,181, the first (tallest) of 10 bins, and its road and
random graphs get 2-4. So here MDT = floor((b + 1) x maxDegree / bins) for the 0-based
tallest bin b (the upper edge of that bin), at least 1; the paper's default bin count is
not printed, 10 is the value its numbers imply. bins = 1 gives MDT = maxDegree (nothing
is split); many bins push MDT down to about the most common degree.

Split graph. A node of out-degree d > MDT becomes ceil(d / MDT) nodes: the parent keeps
its id and the first MDT edges, its children (ids n, n + 1, ... in parent order) take
the next MDT each. No edge is copied: each node of the split graph is an edge range
[begin, end) of the CSR's col_indices. Incoming edges stay on the parent; child_off[v] ..
child_off[v + 1] - 1 number v's children (id n + k for child k).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# Above this many bins the tallest one is found by sorting (np.unique) instead of a
# count array as long as the bin count.
_BINCOUNT_MAX = 1 << 22


def histogram_mdt(degrees, bins: int) -> int:
    """The MDT of these out-degrees (host numpy; any integer array) with `bins` bins."""
    if bins < 1:
        raise ValueError("the histogram needs at least one bin")
    degrees = np.asarray(degrees).astype(np.int64, copy=False)
    if len(degrees) == 0:
        return 1
    top = int(degrees.max())
    if top <= 0:
        return 1
    index = np.minimum(degrees * bins // top, bins - 1)  # < 2^62: degrees and bins < 2^31
    if bins <= _BINCOUNT_MAX:
        tallest = int(np.argmax(np.bincount(index)))
    else:
        values, counts = np.unique(index, return_counts=True)
        tallest = int(values[np.argmax(counts)])
    return max(1, (tallest + 1) * top // bins)


def children_of(degree: int, mdt: int) -> int:
    """How many child nodes a node of this out-degree gets."""
    return max(-(-int(degree) // mdt) - 1, 0)


@dataclass
class SplitGraph:
    begin: Any  # int64[n + children]: first edge of each node of the split graph
    end: Any  # int64[n + children]: one past its last edge
    child_off: Any  # int32[n + 1]: v's children are n + child_off[v] .. n + child_off[v + 1] - 1
    children: int  # nodes added
    split: int  # parents that got children


def split_graph(row_offsets, mdt: int, xp=np) -> SplitGraph:
    """The split graph of a CSR with these row offsets (int64[n + 1], on xp's device)."""
    if mdt < 1:
        raise ValueError("MDT must be >= 1")
    row = xp.asarray(row_offsets).astype(xp.int64, copy=False)
    n = len(row) - 1
    first = row[:-1]
    deg = row[1:] - first
    extra = xp.maximum((deg + (mdt - 1)) // mdt - 1, 0)
    off = xp.zeros(n + 1, dtype=xp.int64)
    xp.cumsum(extra, out=off[1:])
    children = int(off[-1])
    begin = xp.empty(n + children, dtype=xp.int64)
    end = xp.empty(n + children, dtype=xp.int64)
    begin[:n] = first
    end[:n] = first + xp.minimum(deg, mdt)
    if children:
        c = xp.arange(children, dtype=xp.int64)
        owner = xp.searchsorted(off, c, side="right") - 1
        begin[n:] = first[owner] + (c - off[owner] + 1) * mdt
        end[n:] = xp.minimum(begin[n:] + mdt, row[owner + 1])
    split = int(xp.count_nonzero(extra))
    return SplitGraph(begin, end, off.astype(xp.int32), children, split)
