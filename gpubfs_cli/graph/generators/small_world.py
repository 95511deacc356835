"""Watts–Strogatz small-world graphs as SNAP's GenSmallWorld builds them (BFS-4K Gen-SmallWorld).

SNAP: a ring where node i links to i+1 .. i+k (mod n); each of these n*k edges is, with
probability p, rewired to (i, random node), redrawn while the target is i itself or an
edge (i, target) already exists. The result is undirected: degree 2k before rewiring,
n*k edges after, less the few rewired edges that land on an existing pair.

Here the rewired target is uniform over the nodes other than i and its k ring
successors, drawn in one step (no redraw loop), so the edge (i, t) never repeats one
of i's ring edges; the rare remaining coincidences (two rewired edges of i picking the
same node, or one landing on an edge to i from the other side) are duplicates the CSR
build drops. SNAP's random stream is not reproduced (DATASETS.md 2.8).

Random numbers: edge (i, j) (j = 1..k) takes draw i*k + j - 1; its top 32 bits are the
rewiring coin, its low 32 bits pick the target (integer arithmetic, identical on numpy
and cupy).
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.generators import rng
from gpubfs_cli.graph.generators.params import Params

STREAM = 7
CHUNK = 1 << 22


def parse(params: dict | None) -> dict:
    """params: n, k (ring links per node, SNAP's NodeOutDeg), p (rewiring probability)."""
    par = Params("small_world", params)
    n = par.int("n", lo=3, hi=2**31 - 1)
    k = par.int("k", lo=1)
    p = par.float("p", lo=0.0, hi=1.0)
    par.done()
    par.check(2 * k + 1 < n, "k", f"less than (n - 1) / 2 = {(n - 1) / 2}", k)
    return {"n": n, "k": k, "p": p}


def size(q: dict) -> tuple[int, int]:
    """(vertices, edge records) of parsed params."""
    return q["n"], q["n"] * q["k"]


def small_world(params: dict, seed: int, xp=np) -> EdgeList:
    """Ring plus rewired edges (undirected); params as `parse` reads them."""
    q = parse(params)
    n, k, p = q["n"], q["k"], q["p"]
    key = rng.stream_key(seed, STREAM)
    m = size(q)[1]
    src = xp.empty(m, xp.int32)
    dst = xp.empty(m, xp.int32)
    span = np.uint64(n - k - 1)
    for start in range(0, m, CHUNK):
        e = xp.arange(start, min(start + CHUNK, m), dtype=xp.int64)
        i = e // k
        ring = i + (e - i * k) + 1
        x = rng.draws(key, e.astype(xp.uint64), xp)
        rewire = rng.hi32(x, xp) < p
        # low 32 bits -> offset in [k+1, n-1] from i (never i or a ring successor)
        off = (((x & np.uint64(0xFFFFFFFF)) * span) >> np.uint64(32)).astype(xp.int64)
        far = i + (k + 1) + off
        t = xp.where(rewire, far, ring) % n
        src[start : start + len(e)] = i.astype(xp.int32)
        dst[start : start + len(e)] = t.astype(xp.int32)
    info = {"generator": "small_world", "seed": seed, "params": q}
    return EdgeList(src, dst, n, directed=False, info=info)
