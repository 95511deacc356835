"""Whether a graph holds each edge both ways, as often, in one pass with no sort and no
copy: the sum over its edges of mix(u n + v) - mix(v n + u), with mix splitmix64's
finalizer and the sum mod 2^64, is 0 for a symmetric listing and, for any other, 0 by
chance once in about 2^64. An edge list's (the METIS reader's check) and a CSR's (the
dataset cache's check on a graph's first load, in parallel over its rows: seconds on
billions of edges, where the same sums in numpy chunks took about a minute a scale-26
graph) use the one mix."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def mix(x):
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def pair_asymmetry(src, dst, n):
    """The sum of mix(u, v) - mix(v, u) over the entries (src[i], dst[i])."""
    acc = np.uint64(0)
    nn = np.uint64(n)
    for i in range(src.shape[0]):
        u = np.uint64(src[i])
        v = np.uint64(dst[i])
        acc += mix(u * nn + v) - mix(v * nn + u)
    return acc


@njit(cache=True, parallel=True)
def csr_asymmetry(row_offsets, col_indices):
    """The same sum over a CSR's edges, its rows shared among the threads."""
    n = row_offsets.shape[0] - 1
    nn = np.uint64(n)
    acc = np.uint64(0)
    for u in prange(n):
        uu = np.uint64(u)
        part = np.uint64(0)
        for e in range(row_offsets[u], row_offsets[u + 1]):
            v = np.uint64(col_indices[e])
            part += mix(uu * nn + v) - mix(v * nn + uu)
        acc += part
    return acc
