"""Uniform random graphs G(n, M): GTgraph's `random` generator (model 1) and Erdős–Rényi.

GTgraph draws M arcs u -> v with u, v uniform in [0, n), redraws an arc that is a
self-loop (unless `self_loops`) and keeps duplicates (Merrill's random.2Mv.128Me, the
lbbfs Random graphs, Raval's ER20/ER23, which are Erdős and Rényi's original G(n, M)).
With `directed: false` the pairs are undirected samples (Gunrock's and GAP's "uniform"
graphs: the CSR build symmetrizes them).

Random numbers: arc i takes draws 2i (u) and 2i+1 (v) of the stream; round r of
self-loop redraws uses sub-stream r for the same arc. Integer arithmetic only
(rng.below), so numpy and cupy agree to the bit.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.generators import rng
from gpubfs_cli.graph.generators.params import Params

STREAM = 2
CHUNK = 1 << 22


def parse(params: dict | None) -> dict:
    """params: n, m, self_loops (false), directed (true)."""
    p = Params("gnm", params)
    n = p.int("n", lo=2, hi=2**31 - 1)
    m = p.int("m", lo=0)
    self_loops = p.bool("self_loops", False)
    directed = p.bool("directed", True)
    p.done()
    return {"n": n, "m": m, "self_loops": self_loops, "directed": directed}


def size(q: dict) -> tuple[int, int]:
    """(vertices, edge records) of parsed params."""
    return q["n"], q["m"]


def gnm(params: dict, seed: int, xp=np) -> EdgeList:
    """G(n, M) arcs (or undirected samples); params as `parse` reads them."""
    q = parse(params)
    n, m, self_loops = q["n"], q["m"], q["self_loops"]
    key = rng.stream_key(seed, STREAM)
    src = xp.empty(m, xp.int32)
    dst = xp.empty(m, xp.int32)
    for start in range(0, m, CHUNK):
        idx = xp.arange(start, min(start + CHUNK, m), dtype=xp.uint64)
        u, v = _pairs(key, idx, n, xp)
        r = 0
        while not self_loops:
            bad = xp.nonzero(u == v)[0]
            if len(bad) == 0:
                break
            r += 1
            u[bad], v[bad] = _pairs(rng.sub_key(key, r), idx[bad], n, xp)
        src[start : start + len(idx)] = u
        dst[start : start + len(idx)] = v
    info = {"generator": "gnm", "seed": seed, "params": q}
    return EdgeList(src, dst, n, directed=q["directed"], info=info)


def _pairs(key: int, idx, n: int, xp):
    two = idx * np.uint64(2)
    u = rng.below(rng.draws(key, two, xp), n, xp)
    two += np.uint64(1)
    v = rng.below(rng.draws(key, two, xp), n, xp)
    return u.astype(xp.int32), v.astype(xp.int32)
