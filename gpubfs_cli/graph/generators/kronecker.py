"""Graph 500 Kronecker graphs (Merrill's kron_g500-logn20 look-alike, Raval, Gunrock's).

The Graph 500 reference (spec v2, Octave `kronecker_generator`): N = 2**scale vertices,
M = edgefactor * N undirected edges; per edge and bit level, with ab = a + b,
c_norm = c / (1 - ab), a_norm = a / ab:
    ii_bit = rand > ab;  jj_bit = rand > (c_norm if ii_bit else a_norm)
and the bits are added at 2**level. Vertex labels are then permuted at random. Self-loops
and multi-edges are kept in the list (the CSR build applies the catalogue's policy).
The reference also shuffles the edge list; that cannot change the CSR (it sorts), so it
is left out.

Random numbers: one counter-based draw per edge and level (index i*scale + level); its
top 32 bits decide ii_bit and its low 32 bits jj_bit. The permutation sorts counter-based
keys (rng.permutation). Numba (CPU) and the array version (numpy/cupy) agree to the bit.
"""

from __future__ import annotations

import numba
import numpy as np

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.generators import rng
from gpubfs_cli.graph.generators.params import Params

STREAM = 3
PERM_STREAM = 4
CHUNK = 1 << 22


def parse(params: dict | None) -> dict:
    """params: scale, edgefactor (16), a (0.57), b (0.19), c (0.19), permute (true),
    directed (false: undirected edges as Graph 500 defines them; true: take each edge as
    one arc i -> j, as Raval's edge counts do)."""
    p = Params("kronecker", params)
    scale = p.int("scale", lo=1, hi=30)
    edgefactor = p.int("edgefactor", 16, lo=1)
    a = p.float("a", 0.57, lo=0.0, hi=1.0)
    b = p.float("b", 0.19, lo=0.0, hi=1.0)
    c = p.float("c", 0.19, lo=0.0, hi=1.0)
    permute = p.bool("permute", True)
    directed = p.bool("directed", False)
    p.done()
    p.check(a + b < 1.0 and a + b > 0.0 and a + b + c <= 1.0 + 1e-9, "c",
            "such that 0 < a + b < 1 and a + b + c <= 1", (a, b, c))
    return {"scale": scale, "edgefactor": edgefactor, "a": a, "b": b, "c": c, "permute": permute,
            "directed": directed}


def size(q: dict) -> tuple[int, int]:
    """(vertices, edge records) of parsed params."""
    n = 1 << q["scale"]
    return n, q["edgefactor"] * n


def kronecker(params: dict, seed: int, xp=np) -> EdgeList:
    """Graph 500 Kronecker edges (undirected); params as `parse` reads them."""
    q = parse(params)
    scale, a, b, c = q["scale"], q["a"], q["b"], q["c"]
    n, m = size(q)
    ab = a + b
    thresholds = (ab, c / (1.0 - ab), a / ab)
    key = rng.stream_key(seed, STREAM)
    if xp is np:
        src = np.empty(m, np.int32)
        dst = np.empty(m, np.int32)
        for start in range(0, m, CHUNK):  # Ctrl-C is only seen between numba calls
            end = min(start + CHUNK, m)
            _kron_numba(np.uint64(key), scale, start, end - start, *thresholds, src[start:end], dst[start:end])
    else:
        src, dst = kron_arrays(key, scale, m, thresholds, xp)
    if q["permute"]:
        relabel(src, dst, rng.permutation(rng.stream_key(seed, PERM_STREAM), n, xp), xp)
    info = {"generator": "kronecker", "seed": seed, "params": q}
    return EdgeList(src, dst, n, directed=q["directed"], info=info)


def relabel(src, dst, perm, xp, chunk: int | None = None) -> None:
    """src[i] = perm[src[i]] (and dst), in place, chunk by chunk."""
    chunk = chunk or CHUNK
    perm = perm.astype(xp.int32)
    for s in range(0, len(src), chunk):
        src[s : s + chunk] = perm[src[s : s + chunk]]
        dst[s : s + chunk] = perm[dst[s : s + chunk]]


def kron_arrays(key: int, scale: int, m: int, thresholds: tuple, xp, chunk: int | None = None):
    ab, c_norm, a_norm = thresholds
    chunk = chunk or CHUNK
    src = xp.empty(m, xp.int32)
    dst = xp.empty(m, xp.int32)
    for start in range(0, m, chunk):
        k = min(chunk, m - start)
        base = xp.arange(start, start + k, dtype=xp.uint64) * np.uint64(scale)
        u = xp.zeros(k, xp.int64)
        v = xp.zeros(k, xp.int64)
        for level in range(scale):
            x = rng.draws(key, base + np.uint64(level), xp)
            ii = rng.hi32(x, xp) > ab
            jj = rng.lo32(x, xp) > xp.where(ii, c_norm, a_norm)
            u += ii.astype(xp.int64) << level
            v += jj.astype(xp.int64) << level
        src[start : start + k] = u.astype(xp.int32)
        dst[start : start + k] = v.astype(xp.int32)
    return src, dst


@numba.njit(parallel=True, cache=True)
def _kron_numba(key, scale, start, count, ab, c_norm, a_norm, src, dst):
    """Edges start..start+count-1 into src[0:count], dst[0:count]."""
    for t in numba.prange(count):
        base = np.uint64(start + t) * np.uint64(scale)
        u = 0
        v = 0
        for level in range(scale):
            x = rng.draw_nb(key, base + np.uint64(level))
            if rng.hi32_nb(x) > ab:
                u += 1 << level
                if rng.lo32_nb(x) > c_norm:
                    v += 1 << level
            elif rng.lo32_nb(x) > a_norm:
                v += 1 << level
        src[t] = u
        dst[t] = v
