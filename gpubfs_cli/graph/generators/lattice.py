"""Regular grid lattices: 2D 5-point and 3D 7-point Poisson stencils (Merrill), Luo's 3D grids.

Vertex (x, y[, z]) has id x + nx*(y + ny*z). Each grid edge (to the +1 neighbour along
every axis) is listed once, undirected, so a vertex inside the grid has degree 4 (2D) or
6 (3D) and one on a face fewer. `diagonal: true` adds the stencil's centre entry as a
self-loop per vertex: Merrill's grid5pt/grid7pt edge counts include it (DATASETS.md
2.9), e.g. grid5pt.5000 has 2*2*5000*4999 + 5000**2 = 124,980,000 entries with the
catalogue policy self_loops: keep (build_csr stores a kept loop of an undirected list once).

No randomness: numpy and cupy give the same arrays. info["center"] is the vertex at
(nx//2, ny//2[, nz//2]), Luo's BFS source ("the source vertices are always at the
centers of the grids").
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.generators.params import Params


def parse(params: dict | None) -> dict:
    """params: dims ([nx, ny] or [nx, ny, nz]), diagonal (false)."""
    p = Params("lattice", params)
    dims = p.int_list("dims", lengths=(2, 3), lo=1)
    diagonal = p.bool("diagonal", False)
    p.done()
    n = int(np.prod(dims, dtype=np.int64))
    p.check(n < 2**31, "dims", "a grid of fewer than 2**31 vertices", dims)
    return {"dims": dims, "diagonal": diagonal}


def size(q: dict) -> tuple[int, int]:
    """(vertices, edge records) of parsed params."""
    dims = q["dims"]
    n = int(np.prod(dims, dtype=np.int64))
    return n, sum((dims[ax] - 1) * n // dims[ax] for ax in range(len(dims))) + (n if q["diagonal"] else 0)


def lattice(params: dict, seed: int, xp=np) -> EdgeList:
    """Grid edges, each listed once (undirected). The seed is unused."""
    q = parse(params)
    dims = q["dims"]
    n, m = size(q)
    strides = [int(np.prod(dims[:i], dtype=np.int64)) for i in range(len(dims))]
    src = xp.empty(m, xp.int32)
    dst = xp.empty(m, xp.int32)
    pos = 0
    for d, s in zip(dims, strides, strict=True):
        if d < 2:
            continue
        # vertices whose coordinate on this axis is < d-1: id = lo + s*(c + d*hi)
        lo = xp.arange(s, dtype=xp.int64)
        c = xp.arange(d - 1, dtype=xp.int64)
        hi = xp.arange(n // (s * d), dtype=xp.int64)
        v = (lo[None, None, :] + s * (c[None, :, None] + d * hi[:, None, None])).ravel().astype(xp.int32)
        k = len(v)
        src[pos : pos + k] = v
        v += s
        dst[pos : pos + k] = v
        pos += k
        del v
    if q["diagonal"]:
        src[pos:] = xp.arange(n, dtype=xp.int32)
        dst[pos:] = src[pos:]
    center = sum((d // 2) * s for d, s in zip(dims, strides, strict=True))
    info = {"generator": "lattice", "params": q,
            "center": int(center)}
    return EdgeList(src, dst, n, directed=False, info=info)
