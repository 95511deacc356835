"""Road-like random geometric graphs: SSSP stand-ins for the DIMACS 9 road graphs.

Not any paper's graph. The DIMACS road graphs (USA-road-d.*) have 2.4 to 2.8 arcs per
vertex, short edges between nearby points and a diameter of thousands of hops for
millions of vertices; they cannot be downloaded everywhere. This family makes graphs
with those properties from a seed:

1. n points uniform in the unit square, from the counter-based stream (rng.py):
   point i is (unit53(draw 2i), unit53(draw 2i+1)), so any chunk of points is
   computed alone and the same on every machine.
2. Each point is joined to its k nearest neighbours (scipy cKDTree), each pair kept
   once (u < v). k = 2 (the default) gives 2.7 to 2.8 arcs per vertex after
   symmetrizing, the road graphs' range; k = 3 gives about 4. A unit-disk graph at
   that mean degree is far below its percolation threshold (about 4.5), and so is
   the 2-NN graph: both fall apart into small clusters.
3. So the clusters are joined, in Boruvka rounds: every component other than the
   largest links its closest point pair to another component (searching the `probe`
   nearest neighbours of its points, doubled for a component that found none). Each
   round at least halves the number of components, and the links are short, like
   the kNN edges, so the graph stays planar-like and its diameter grows as sqrt(n).
   This keeps all n vertices (the catalogue records the graph as generated and the
   vertex count stays the params' n) and costs about 0.1 extra arcs per vertex;
   keeping only the largest component instead would keep a small fraction of the
   points for k = 2, and random BFS/SSSP sources would land in tiny components.
4. Weight of edge (u, v) = max(1, rint(|p_u - p_v| * unit * sqrt(n))): the Euclidean
   length in units of the mean point spacing 1/sqrt(n) times `unit` (default 1000),
   so a typical edge weighs several hundred and the scale does not depend on n, like
   road distances in metres. Never 0 (a length under 0.5 / (unit * sqrt(n)) weighs
   1); at most rint(unit * sqrt(2n)) (the square's diagonal), in practice a few
   thousand. int32.

The edge list is undirected, each edge once (u < v), with its weights; the catalogue
keeps them (`weights: true`). Deterministic: the points come from the seed and cKDTree
queries are exact, whatever `workers` does.

CPU only (scipy): `xp` other than numpy gets the numpy arrays converted. Queries run
CHUNK points at a time; the peak is about 250 bytes per vertex for k = 2 (points 16,
the tree about 40, each point's `probe` nearest ids and distances 64, edge arrays,
sort keys and labels; 2.1 GB measured at 8 M): about 6 GB for 24 M vertices.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.generators import rng
from gpubfs_cli.graph.generators.params import Params

STREAM = 9
CHUNK = 1 << 20


def parse(params: dict | None) -> dict:
    """params: n, k (2), unit (1000), probe (8)."""
    p = Params("geometric", params)
    n = p.int("n", lo=2, hi=2**31 - 1)
    k = p.int("k", 2, lo=1, hi=64)
    unit = p.int("unit", 1000, lo=1, hi=1_000_000)
    probe = p.int("probe", 8, lo=2, hi=1024)
    p.done()
    p.check(k < n, "k", f"an integer < n ({n})", k)
    p.check(unit * (2.0 * n) ** 0.5 < 2**31 - 1, "unit", "small enough that unit * sqrt(2n) < 2**31", unit)
    return {"n": n, "k": k, "unit": unit, "probe": probe}


def records_bound(p: dict) -> tuple[int, int]:
    """(vertices, at most this many edge records): each point's k nearest, a pair kept
    once, and fewer than n links joining the clusters (step 3)."""
    n = p["n"]
    return n, n * p["k"] + n - 1


def points(n: int, seed: int) -> np.ndarray:
    """The (n, 2) float64 coordinates in [0, 1)^2 of the graph with `seed`."""
    key = rng.stream_key(seed, STREAM)
    pts = np.empty((n, 2), np.float64)
    for start in range(0, n, CHUNK):
        count = min(CHUNK, n - start)
        pts[start : start + count] = rng.unit53(rng.draws_range(key, 2 * start, 2 * count, np), np).reshape(count, 2)
    return pts


def weights(pts: np.ndarray, src, dst, n: int, unit: int) -> np.ndarray:
    """max(1, rint(|p_src - p_dst| * unit * sqrt(n))) as int32."""
    d = np.hypot(pts[src, 0] - pts[dst, 0], pts[src, 1] - pts[dst, 1])
    w = np.rint(d * (unit * np.sqrt(n)))
    return np.maximum(w, 1).astype(np.int32)


def geometric(params: dict, seed: int, xp=np) -> EdgeList:
    """The road-like geometric graph; params as `parse` reads them."""
    from scipy.spatial import cKDTree

    q = parse(params)
    n, k = q["n"], q["k"]
    width = min(max(k + 1, q["probe"]), n)
    pts = points(n, seed)
    tree = cKDTree(pts)
    # every point's `width` nearest (itself included): the kNN edges, and the first
    # candidates for the links between components
    near = np.empty((n, width), np.int32)
    near_d = np.empty((n, width), np.float32)
    keys = []
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        dist, idx = tree.query(pts[start:stop], k=width, workers=-1)
        near[start:stop], near_d[start:stop] = idx, dist
        u = np.repeat(np.arange(start, stop, dtype=np.int64), k + 1)
        v = idx[:, : k + 1].ravel().astype(np.int64)
        keep = u != v  # the point itself (first unless points coincide)
        u, v = u[keep], v[keep]
        keys.append(_distinct(np.minimum(u, v) * n + np.maximum(u, v)))
        del idx, dist, u, v, keep
    key = _distinct(np.concatenate(keys))
    del keys
    src = (key // n).astype(np.int32)
    dst = (key % n).astype(np.int32)
    del key
    links = _connect(tree, pts, near, near_d, src, dst, n)
    del tree, near, near_d
    if len(links):
        key = _distinct(np.concatenate([src.astype(np.int64) * n + dst, links]))
        src = (key // n).astype(np.int32)
        dst = (key % n).astype(np.int32)
        del key
    w = weights(pts, src, dst, n, q["unit"])
    info = {"generator": "geometric", "seed": seed, "params": q, "links": int(len(links))}
    if xp is not np:
        src, dst, w = xp.asarray(src), xp.asarray(dst), xp.asarray(w)
    return EdgeList(src, dst, n, directed=False, weights=w, info=info)


def _distinct(key):
    """Sorted distinct values (a sort beats np.unique's hashing on these keys)."""
    key.sort()
    return key[np.r_[True, key[1:] != key[:-1]]] if len(key) else key


def _components(src, dst, n: int) -> np.ndarray:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    a = coo_matrix((np.ones(len(src), np.int8), (src, dst)), shape=(n, n)).tocsr()
    return connected_components(a, directed=False)[1].astype(np.int64)


def _nearest_other(comp, p, idx, dist, n: int):
    """For points p with neighbour rows idx/dist: (distance, id) of the nearest
    neighbour in another component; id -1 where there is none."""
    other = comp[np.minimum(idx, n - 1)] != comp[p][:, None]
    other &= idx < n  # cKDTree pads with n when fewer than k points exist
    first = np.argmax(other, axis=1)
    rows = np.arange(len(p))
    hit = other[rows, first]
    d = np.where(hit, dist[rows, first], np.inf)
    j = np.where(hit, idx[rows, first], -1).astype(np.int64)
    return d, j


def _connect(tree, pts, near, near_d, src, dst, n: int) -> np.ndarray:
    """Keys u * n + v (u < v) of the links that join all components (Boruvka rounds)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    comp = _components(src, dst, n)
    ncomp = int(comp.max()) + 1
    width = near.shape[1]
    reach = np.full(ncomp, width, np.int64)  # neighbours each component searches
    links = []
    while ncomp > 1:
        largest = int(np.argmax(np.bincount(comp, minlength=ncomp)))
        cand = np.flatnonzero(comp != largest)
        best_d = np.empty(len(cand))
        best_j = np.empty(len(cand), np.int64)
        for s in range(0, len(cand), CHUNK):
            p = cand[s : s + CHUNK]
            best_d[s : s + CHUNK], best_j[s : s + CHUNK] = _nearest_other(comp, p, near[p], near_d[p], n)
        far = np.flatnonzero(reach[comp[cand]] > width)  # components the cached rows did not link
        for kk in np.unique(reach[comp[cand[far]]]):
            rows = far[reach[comp[cand[far]]] == kk]
            for s in range(0, len(rows), CHUNK):
                r = rows[s : s + CHUNK]
                dist, idx = tree.query(pts[cand[r]], k=int(kk), workers=-1)
                best_d[r], best_j[r] = _nearest_other(comp, cand[r], idx, dist, n)
        found = best_j >= 0
        c = comp[cand]
        # a component's shortest link (ties: lowest point id, by the stable sort)
        order = np.lexsort((best_d, c))
        order = order[found[order]]
        cs = c[order]
        head = order[np.r_[True, cs[1:] != cs[:-1]]] if len(order) else order
        u, v = cand[head], best_j[head]
        missed = np.zeros(ncomp, bool)
        missed[c] = True
        missed[c[head]] = False
        reach[missed] = np.minimum(reach[missed] * 2, n)
        if len(head):
            links.append(np.minimum(u, v) * n + np.maximum(u, v))
            g = coo_matrix((np.ones(len(head), np.int8), (comp[u], comp[v])), shape=(ncomp, ncomp)).tocsr()
            ncomp, lab = connected_components(g, directed=False)
            comp = lab[comp].astype(np.int64)
            merged = np.zeros(ncomp, np.int64)
            np.maximum.at(merged, lab, reach)
            reach = merged
    return np.concatenate(links) if links else np.empty(0, np.int64)
