"""Luo's "scale-free" graphs: 0.1 % of vertices of degree 1000, the rest average 6, max 7.

Luo, Wong and Hwu (DAC 2010, Sec. 4) state only those numbers. This construction meets
them exactly and is undirected:
  * hubs: vertices 0 .. h-1, h = round(n * hub_fraction);
  * the r = n - h others (ids h .. n-1, position j = id - h) form a 5-regular base: a
    ring with links j~j+1, j~j+2 (mod r) plus the antipodal link j~j+r/2 (r even; for
    odd r the last vertex has no antipodal partner);
  * hub i links to the hub_degree non-hubs at positions perm[(i*hub_degree + t) mod r],
    t = 0 .. hub_degree-1, of one random permutation of the non-hubs: distinct within a
    hub, and spread so every non-hub gets floor or ceil(h*hub_degree / r) hub links.
With n = 1M: h = 1000 hubs of degree exactly 1000; 999,000 non-hubs of degree 6 (998,000)
or 7 (1,000), average 6.001; m = 2*h*hub_degree + 5*r = 6,995,000 directed edges. Every
vertex is one hop from a hub, so the diameter is small (as in a scale-free graph) and the
degree skew is the one Luo describes. The permutation is counter-based (same on numpy
and cupy); everything else is arithmetic.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.generators import rng
from gpubfs_cli.graph.generators.params import Params

STREAM = 6


def parse(params: dict | None) -> dict:
    """params: n, hub_fraction (0.001), hub_degree (1000)."""
    p = Params("luo_scalefree", params)
    n = p.int("n", lo=8, hi=2**31 - 1)
    frac = p.float("hub_fraction", 0.001, lo=0.0, hi=0.5)
    hub_degree = p.int("hub_degree", 1000, lo=1)
    p.done()
    h = int(round(n * frac))
    r = n - h
    p.check(hub_degree <= r and r > 5, "hub_degree", f"at most the {r} non-hub vertices (and n - hubs > 5)", hub_degree)
    return {"n": n, "hub_fraction": frac, "hub_degree": hub_degree}


def size(q: dict) -> tuple[int, int]:
    """(vertices, edge records) of parsed params."""
    n = q["n"]
    h = int(round(n * q["hub_fraction"]))
    r = n - h
    return n, h * q["hub_degree"] + 2 * r + r // 2


def luo_scalefree(params: dict, seed: int, xp=np) -> EdgeList:
    """Hubs on a 5-regular ring base (undirected); params as `parse` reads them."""
    q = parse(params)
    n, hub_degree = q["n"], q["hub_degree"]
    h = int(round(n * q["hub_fraction"]))
    r = n - h
    half = r // 2
    m = size(q)[1]
    src = xp.empty(m, xp.int32)
    dst = xp.empty(m, xp.int32)
    j = xp.arange(r, dtype=xp.int32)
    pos = 0
    for off in (1, 2):
        src[pos : pos + r] = j + h
        dst[pos : pos + r] = ((j + off) % r + h).astype(xp.int32)
        pos += r
    src[pos : pos + half] = j[:half] + h
    dst[pos : pos + half] = j[:half] + half + h
    pos += half
    del j
    if h:
        perm = rng.permutation(rng.stream_key(seed, STREAM), r, xp)
        slot = xp.arange(h * hub_degree, dtype=xp.int64)
        src[pos:] = (slot // hub_degree).astype(xp.int32)
        dst[pos:] = (perm[slot % r] + h).astype(xp.int32)
    info = {"generator": "luo_scalefree", "seed": seed, "hubs": h,
            "params": q}
    return EdgeList(src, dst, n, directed=False, info=info)
