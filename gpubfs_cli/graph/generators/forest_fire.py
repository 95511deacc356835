"""Forest-fire graphs as SNAP's GenForestFire builds them (BFS-4K Gen-ForestFire).

SNAP (`TFfGGen(false, 1, f, b, 1.0, 0, 0)`, geometric burning): start from one node;
each new node v picks an ambassador w uniformly among the existing nodes and burns from
it. Every burning node x draws a geometric number of out-links to burn,
Geo(1 - f) - 1 (mean f / (1 - f)), and burns that many of its not-yet-burned
out-neighbours chosen at random; then the same for in-links with b. Newly burned nodes
burn in the next step; the fire stops when a step burns nothing. v gets an arc to every
burned node (the ambassador included). The result is directed.

The process is sequential (each node sees the graph built so far), so it runs as a
numba-compiled CPU routine whatever the device, called for CHUNK new nodes at a time
(so Ctrl-C is seen between calls); the GPU path copies the result over,
so the output is the same regardless of device. SNAP's own random stream is not
reproduced (DATASETS.md 2.8). Random numbers: node v's k-th draw is draw k of
sub-stream v.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.generators import rng
from gpubfs_cli.graph.generators.params import Params

STREAM = 5
CHUNK = 1 << 16  # new nodes per numba call (a fraction of a second)


def parse(params: dict | None) -> dict:
    """params: n, f (forward burning probability, 0.35), b (backward, 0.32)."""
    p = Params("forest_fire", params)
    n = p.int("n", lo=1, hi=2**31 - 1)
    f = p.float("f", 0.35, lo=0.0, hi=0.99)
    b = p.float("b", 0.32, lo=0.0, hi=0.99)
    p.done()
    return {"n": n, "f": f, "b": b}


def forest_fire(params: dict, seed: int, xp=np) -> EdgeList:
    """Forest-fire arcs, computed on the CPU; params as `parse` reads them."""
    q = parse(params)
    n = q["n"]
    src, dst = _burn_all(np.uint64(rng.stream_key(seed, STREAM)), n, q["f"], q["b"])
    if xp is not np:
        src, dst = xp.asarray(src), xp.asarray(dst)
    info = {"generator": "forest_fire", "seed": seed, "params": q}
    return EdgeList(src, dst, n, directed=True, info=info)


@numba.njit(inline="always")
def _geo_minus_one(key, c, q):
    """Geo(1 - q) - 1: failures before the first success of a (1 - q)-coin."""
    if q <= 0.0:
        return 0
    u = 1.0 - rng.unit53_nb(rng.draw_nb(key, np.uint64(c)))  # (0, 1]
    return int(math.floor(math.log(u) / math.log(q)))


def _burn_all(key, n: int, f: float, b: float):
    """Every node's fire, CHUNK nodes per call; the state carries over between calls."""
    cap = max(16, 8 * n)
    esrc = np.empty(cap, np.int32)
    edst = np.empty(cap, np.int32)
    out_start = np.zeros(n + 1, np.int64)  # out-lists are contiguous: v's arcs are added together
    # in-lists: one growable block per node in `pool` (sequential scans, unlike a linked list)
    in_off = np.zeros(n, np.int64)
    in_len = np.zeros(n, np.int64)
    in_cap = np.zeros(n, np.int64)
    pool = np.empty(cap, np.int32)
    stamp = np.full(n, -1, np.int32)  # stamp[x] == v: x burned in v's fire
    burned = np.empty(n, np.int32)
    alive = np.empty(16, np.int32)
    m = top = 0
    for v0 in range(1, n, CHUNK):
        esrc, edst, pool, alive, m, top = _burn(
            key, f, b, v0, min(v0 + CHUNK, n), esrc, edst, out_start, in_off, in_len, in_cap,
            pool, stamp, burned, alive, m, top)
    return esrc[:m].copy(), edst[:m].copy()


@numba.njit(cache=True)
def _burn(key, f, b, v0, v1, esrc, edst, out_start, in_off, in_len, in_cap, pool, stamp, burned, alive, m, top):
    """The fires of nodes v0..v1-1; returns the arrays that may have grown, m and top."""
    for v in range(v0, v1):
        vk = rng.sub_key_nb(key, np.uint64(v))
        c = 0
        amb = rng.below_nb(rng.draw_nb(vk, np.uint64(c)), np.uint64(v))
        c += 1
        nb = 0
        burned[nb] = amb
        nb += 1
        stamp[amb] = v
        lo = 0  # burned[lo:hi] burn in this step
        while lo < nb:
            hi = nb
            for t in range(lo, hi):
                x = burned[t]
                for direction in range(2):
                    q = f if direction == 0 else b
                    if q <= 0.0:
                        continue
                    k = _geo_minus_one(vk, c, q)
                    c += 1
                    if k <= 0:
                        continue
                    # unburned neighbours of x in this direction
                    if direction == 0:
                        e0, e1, nbrs = out_start[x], out_start[x + 1], edst
                    else:
                        e0, e1, nbrs = in_off[x], in_off[x] + in_len[x], pool
                    if e1 - e0 > len(alive):
                        alive = np.empty(2 * (e1 - e0), np.int32)
                    na = 0
                    for e in range(e0, e1):
                        y = nbrs[e]
                        if stamp[y] != v:
                            alive[na] = y
                            na += 1
                    k = min(k, na)
                    for s in range(k):  # partial Fisher-Yates: k of the na at random
                        j = s + rng.below_nb(rng.draw_nb(vk, np.uint64(c)), np.uint64(na - s))
                        c += 1
                        y = alive[j]
                        alive[j] = alive[s]
                        alive[s] = y
                        stamp[y] = v
                        burned[nb] = y
                        nb += 1
            lo = hi
        if m + nb > len(esrc):
            new = max(2 * len(esrc), m + nb)
            esrc = np.concatenate((esrc, np.empty(new - len(esrc), np.int32)))
            edst = np.concatenate((edst, np.empty(new - len(edst), np.int32)))
        for t in range(nb):
            y = burned[t]
            esrc[m] = v
            edst[m] = y
            m += 1
            if in_len[y] == in_cap[y]:  # move y's in-list to a block twice as large
                grow = max(4, 2 * in_cap[y])
                if top + grow > len(pool):
                    pool = np.concatenate((pool, np.empty(max(len(pool), grow), np.int32)))
                pool[top : top + in_len[y]] = pool[in_off[y] : in_off[y] + in_len[y]]
                in_off[y] = top
                in_cap[y] = grow
                top += grow
            pool[in_off[y] + in_len[y]] = v
            in_len[y] += 1
        out_start[v + 1] = m
    return esrc, edst, pool, alive, m, top
