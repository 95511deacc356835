"""R-MAT graphs the way GTgraph's R-MAT generator draws them (Merrill, BFS-4K, Raval, lbbfs).

GTgraph (Bader & Madduri), per edge: u = v = 0, step = n // 2; while step >= 1 pick a
quadrant with probabilities a, b, c, d (b: v += step, c: u += step, d: both), halve step,
then perturb a, b, c, d by up to +-`vary` (5 %) of their value and renormalize. The
perturbation starts again from a, b, c, d for every edge. A self-loop is redrawn
(unless `self_loops`); duplicates are kept; no vertex permutation; output is directed
arcs u -> v. With n not a power of two the steps n//2, n//4, ... reach only 2**levels of
the ids (GTgraph does the same; the rest stay isolated).

GTgraph's `varyParams` increases b on both branches of its coin (a slip in its source);
`gtgraph_b_quirk: true` (the default) keeps that, false perturbs b like a, c and d.

Random numbers: per edge i, level l, two counter-based draws (index (i*L + l)*2 + 0/1):
the first gives the quadrant (top 32 bits) and the four perturbation signs (bits 0-3),
the second the four perturbation sizes (16 bits each). Redraw round r uses sub-stream r.
The numba loop (CPU) and the array version (numpy or cupy) do the same float64
operations in the same order, so their output is identical to the bit.
"""

from __future__ import annotations

import numba
import numpy as np

from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.generators import rng
from gpubfs_cli.graph.generators.params import Params

STREAM = 1
CHUNK = 1 << 21
CPU_CHUNK = 1 << 20  # records per numba call: a fraction of a second, so Ctrl-C lands soon
_U16 = 2.0**-16


def steps_of(n: int) -> list[int]:
    """GTgraph's steps n//2, n//4, ... down to 1."""
    out, step = [], n // 2
    while step >= 1:
        out.append(step)
        step //= 2
    return out


def parse(params: dict | None) -> dict:
    """params: n, m, a (0.45), b (0.15), c (0.15), vary (0.05), gtgraph_b_quirk (true),
    self_loops (false). Returns them resolved, with d."""
    p = Params("rmat", params)
    n = p.int("n", lo=2, hi=2**31 - 1)
    m = p.int("m", lo=0)
    a = p.float("a", 0.45, lo=0.0, hi=1.0)
    b = p.float("b", 0.15, lo=0.0, hi=1.0)
    c = p.float("c", 0.15, lo=0.0, hi=1.0)
    vary = p.float("vary", 0.05, lo=0.0, hi=0.5)
    quirk = p.bool("gtgraph_b_quirk", True)
    self_loops = p.bool("self_loops", False)
    p.done()
    d = 1.0 - a - b - c
    p.check(d > -1e-9, "c", "such that a + b + c <= 1", (a, b, c))
    d = max(d, 0.0)
    if not self_loops and b + c == 0.0:
        raise UserError("generator rmat: b + c = 0 puts every edge on the diagonal; set self_loops: true")
    return {"n": n, "m": m, "a": a, "b": b, "c": c, "d": d, "vary": vary,
            "gtgraph_b_quirk": quirk, "self_loops": self_loops}


def size(q: dict) -> tuple[int, int]:
    """(vertices, edge records) of parsed params."""
    return q["n"], q["m"]


def rmat(params: dict, seed: int, xp=np) -> EdgeList:
    """R-MAT arcs (see the module docstring); params as `parse` reads them."""
    q = parse(params)
    n, m = q["n"], q["m"]
    steps = steps_of(n)
    key = rng.stream_key(seed, STREAM)
    cfg = (q["a"], q["b"], q["c"], q["d"], q["vary"], q["gtgraph_b_quirk"], q["self_loops"])
    if xp is np:
        src = np.empty(m, np.int32)
        dst = np.empty(m, np.int32)
        levels = np.asarray(steps, np.int64)
        for start in range(0, m, CPU_CHUNK):  # Ctrl-C is only seen between numba calls
            end = min(start + CPU_CHUNK, m)
            _rmat_numba(np.uint64(key), levels, start, end - start, *cfg, src[start:end], dst[start:end])
    else:
        src, dst = rmat_arrays(key, steps, m, cfg, xp)
    info = {"generator": "rmat", "seed": seed, "levels": len(steps), "params": q}
    return EdgeList(src, dst, n, directed=True, info=info)


def rmat_arrays(key: int, steps: list[int], m: int, cfg: tuple, xp, chunk: int | None = None):
    """The array version (numpy or cupy), chunk by chunk."""
    chunk = chunk or CHUNK
    self_loops = cfg[6]
    src = xp.empty(m, xp.int32)
    dst = xp.empty(m, xp.int32)
    for start in range(0, m, chunk):
        idx = xp.arange(start, min(start + chunk, m), dtype=xp.uint64)
        u, v = _edges_xp(key, idx, steps, cfg, xp)
        r = 0
        while not self_loops:
            bad = xp.nonzero(u == v)[0]
            if len(bad) == 0:
                break
            r += 1
            u2, v2 = _edges_xp(rng.sub_key(key, r), idx[bad], steps, cfg, xp)
            u[bad], v[bad] = u2, v2
        src[start : start + len(idx)] = u
        dst[start : start + len(idx)] = v
    return src, dst


def _edges_xp(key: int, idx, steps: list[int], cfg: tuple, xp):
    a0, b0, c0, d0, vary, quirk, _ = cfg
    L = len(steps)
    k = len(idx)
    u = xp.zeros(k, xp.int64)
    v = xp.zeros(k, xp.int64)
    a, b, c, d = (xp.full(k, x, xp.float64) for x in (a0, b0, c0, d0))
    base = idx * np.uint64(2 * L)
    for level, step in enumerate(steps):
        x1 = rng.draws(key, base + np.uint64(2 * level), xp)
        q = rng.hi32(x1, xp)
        t2 = a + b
        t3 = t2 + c
        right = ((q >= a) & (q < t2)) | (q >= t3)  # quadrants b and d: v += step
        down = q >= t2  # quadrants c and d: u += step
        v += right.astype(xp.int64) * step
        u += down.astype(xp.int64) * step
        if vary > 0.0 and level < L - 1:
            x2 = rng.draws(key, base + np.uint64(2 * level + 1), xp)
            a = _vary_xp(a, x1, x2, 0, vary, False, xp)
            b = _vary_xp(b, x1, x2, 1, vary, quirk, xp)
            c = _vary_xp(c, x1, x2, 2, vary, False, xp)
            d = _vary_xp(d, x1, x2, 3, vary, False, xp)
            s = ((a + b) + c) + d
            a, b, c, d = a / s, b / s, c / s, d / s
    return u.astype(xp.int32), v.astype(xp.int32)


def _vary_xp(x, x1, x2, j: int, vary: float, always_up: bool, xp):
    f = ((x2 >> np.uint64(16 * j)) & np.uint64(0xFFFF)).astype(xp.float64) * _U16
    f = f * vary
    up = x * (1.0 + f)
    if always_up:
        return up
    coin = (x1 >> np.uint64(j)) & np.uint64(1)
    return xp.where(coin == 1, up, x * (1.0 - f))


@numba.njit(inline="always")
def _vary_nb(x, x1, x2, j, vary, always_up):
    f = np.float64((x2 >> np.uint64(16 * j)) & np.uint64(0xFFFF)) * _U16
    f = f * vary
    if always_up or ((x1 >> np.uint64(j)) & np.uint64(1)) == 1:
        return x * (1.0 + f)
    return x * (1.0 - f)


@numba.njit(parallel=True, cache=True)
def _rmat_numba(key, steps, start, count, a0, b0, c0, d0, vary, quirk, self_loops, src, dst):
    L = len(steps)
    for t in numba.prange(count):
        i = np.uint64(start + t)
        k = key
        r = np.uint64(0)
        while True:
            a, b, c, d = a0, b0, c0, d0
            u = 0
            v = 0
            base = i * np.uint64(2 * L)
            for level in range(L):
                x1 = rng.draw_nb(k, base + np.uint64(2 * level))
                q = rng.hi32_nb(x1)
                t2 = a + b
                t3 = t2 + c
                if q >= t3:
                    u += steps[level]
                    v += steps[level]
                elif q >= t2:
                    u += steps[level]
                elif q >= a:
                    v += steps[level]
                if vary > 0.0 and level < L - 1:
                    x2 = rng.draw_nb(k, base + np.uint64(2 * level + 1))
                    a = _vary_nb(a, x1, x2, 0, vary, False)
                    b = _vary_nb(b, x1, x2, 1, vary, quirk)
                    c = _vary_nb(c, x1, x2, 2, vary, False)
                    d = _vary_nb(d, x1, x2, 3, vary, False)
                    s = ((a + b) + c) + d
                    a = a / s
                    b = b / s
                    c = c / s
                    d = d / s
            if u != v or self_loops:
                break
            r += np.uint64(1)
            k = rng.sub_key_nb(key, r)
        src[t] = u
        dst[t] = v
