"""Small graphs of known shape, for checks: the tests, the sanitizer, the fixed-cost probe.

They live in the package, not under tests/, because scripts/sanitize.py and
scripts/fixed_cost.py run on them too. Every builder goes through build_csr with numpy
arrays (no loop over edges) and is seeded where random, so a failure names a graph
anyone can rebuild. Weighted samples keep self-loops and parallel edges (a shortest
path takes the lightest) and hold int32 weights where they fit, as SSSP's input check
leaves them.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.csr import CSRGraph, narrow_ints
from gpubfs_cli.graph.edges import EdgeList

INT32_TOP = 2**31 - 1
GRID_SIDE = 12  # grid_and_pair's lattice: 144 vertices, 23 levels from vertex 0
PAIR_SOURCE = GRID_SIDE * GRID_SIDE  # one end of grid_and_pair's lone edge


def from_edges(src, dst, n: int, *, directed: bool = False, weights=None, name: str = "",
               **policy) -> CSRGraph:
    """A CSR of explicit edges (undirected ones listed once). With weights, self-loops
    and parallel edges are kept unless `policy` says otherwise."""
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    if weights is None:
        return build_csr(EdgeList(src, dst, n, directed), name=name, **policy)
    policy = {"self_loops": "keep", "duplicates": "keep", **policy}
    g = build_csr(EdgeList(src, dst, n, directed, np.asarray(weights)), keep_weights=True, name=name, **policy)
    g.weights = narrow_ints(g.weights)
    return g


# ---- shapes ---------------------------------------------------------------------------


def path(n: int, *, directed: bool = False, name: str | None = None) -> CSRGraph:
    """0 - 1 - ... - n-1 (arcs i -> i+1 when directed)."""
    v = np.arange(n - 1)
    return from_edges(v, v + 1, n, directed=directed, name=f"path{n}" if name is None else name)


def cycle(n: int, *, name: str | None = None) -> CSRGraph:
    v = np.arange(n)
    return from_edges(v, (v + 1) % n, n, name=f"cycle{n}" if name is None else name)


def clique(k: int, *, name: str | None = None) -> CSRGraph:
    src, dst = np.triu_indices(k, 1)
    return from_edges(src, dst, k, name=f"clique{k}" if name is None else name)


def star(leaves: int, *, directed: bool = False, name: str | None = None) -> CSRGraph:
    """Hub 0 and leaves 1..leaves (arcs out of the hub when directed: every leaf a sink)."""
    return from_edges(np.zeros(leaves, np.int64), np.arange(1, leaves + 1), leaves + 1, directed=directed,
                      name=f"star{leaves}" if name is None else name)


def grid_edges(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """The lattice's edges, each once (src < dst); vertex r * cols + c."""
    ids = np.arange(rows * cols).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return src, dst


def grid(rows: int, cols: int, *, weight: int | None = None, name: str | None = None) -> CSRGraph:
    """A rows x cols lattice; with `weight`, every edge that weight (many equal paths)."""
    src, dst = grid_edges(rows, cols)
    w = None if weight is None else np.full(len(src), weight, np.int64)
    return from_edges(src, dst, rows * cols, weights=w, name=f"grid{rows}x{cols}" if name is None else name)


def broom(handle: int, bristles: int, tail: int = 200, *, name: str = "broom") -> CSRGraph:
    """A path of `handle` whose far end is a hub of `bristles` leaves, all joined to the
    first vertex of a path of `tail`: frontier sizes 1, ..., 1, bristles, 1, ..., 1."""
    hub, t0 = handle - 1, handle + bristles
    leaves = np.arange(handle, t0)
    src = np.concatenate([np.arange(handle - 1), np.full(bristles, hub), leaves, np.arange(t0, t0 + tail - 1)])
    dst = np.concatenate([np.arange(1, handle), leaves, np.full(bristles, t0), np.arange(t0 + 1, t0 + tail)])
    return from_edges(src, dst, t0 + tail, name=name)


def linked_stars(hub1: int = 700, hub2: int = 300, *, name: str = "stars") -> CSRGraph:
    """Hub 0 with `hub1` leaves; leaf 1 is joined to hub 2 with `hub2` leaves of its
    own (some shared with hub 0), so long lists turn up at depth 0, 1 and 2."""
    n = 3 + hub1 + hub2
    leaves1 = np.arange(3, 3 + hub1)
    leaves2 = np.concatenate([np.arange(3 + hub1, n), leaves1[: hub2 // 3]])
    src = np.concatenate([np.zeros(hub1, np.int64), [0, 1], np.full(len(leaves2), 2)])
    dst = np.concatenate([leaves1, [1, 2], leaves2])
    return from_edges(src, dst, n, name=name)


def funnel(middle: int = 64, hubs: int = 4, leaves: int = 100, *, name: str = "funnel") -> CSRGraph:
    """Vertex 0 -> `middle` vertices -> each joined to the same `hubs` hubs, each with
    `leaves` leaves: every hub is discovered `middle` times at depth 2."""
    mid = np.arange(1, 1 + middle)
    hub = np.arange(1 + middle, 1 + middle + hubs)
    n = 1 + middle + hubs + hubs * leaves
    src = np.concatenate([np.zeros(middle, np.int64), np.repeat(mid, hubs), np.repeat(hub, leaves)])
    dst = np.concatenate([mid, np.tile(hub, middle), np.arange(1 + middle + hubs, n)])
    return from_edges(src, dst, n, name=name)


def single_vertex(*, directed: bool = False, weighted: bool = False, name: str = "single") -> CSRGraph:
    none = np.zeros(0, np.int64)
    return from_edges(none, none, 1, directed=directed, weights=none if weighted else None, name=name)


def disjoint(*parts: CSRGraph, isolated: int = 0, name: str = "") -> CSRGraph:
    """The parts side by side (ids shifted past the parts before them), then `isolated`
    vertices without edges. The parts are all directed or all undirected; their edges,
    self-loops and parallel edges included, are kept as they are."""
    directed = {p.directed for p in parts}
    if len(directed) > 1:
        raise ValueError("disjoint: the parts mix directed and undirected graphs")
    weighted = [p.weights is not None for p in parts]
    if any(weighted) and not all(weighted):
        raise ValueError("disjoint: some parts have weights and some do not")
    shift = np.cumsum([0] + [p.n for p in parts])
    none = [np.zeros(0, np.int64)]
    src = [np.repeat(np.arange(p.n, dtype=np.int64), p.out_degrees()) + s for p, s in zip(parts, shift[:-1], strict=True)]
    dst = [np.asarray(p.col_indices, np.int64) + s for p, s in zip(parts, shift[:-1], strict=True)]
    w = np.concatenate([p.weights for p in parts]) if parts and all(weighted) else None
    edges = EdgeList(np.concatenate(src + none), np.concatenate(dst + none), int(shift[-1]) + isolated,
                     bool(parts) and parts[0].directed, w)
    return build_csr(edges, symmetrize=False, self_loops="keep", duplicates="keep", keep_weights=w is not None,
                     name=name)


# ---- random ---------------------------------------------------------------------------


def gnm(n: int, m: int, seed: int = 0, *, directed: bool = False, isolated: int = 0, weights=None,
        name: str | None = None, **policy) -> CSRGraph:
    """m uniform edges among the first n - isolated vertices (the rest have none);
    weights=(lo, hi) draws integer weights in [lo, hi) after the edges."""
    rng = np.random.default_rng(seed)
    k = n - isolated
    src, dst = rng.integers(0, k, m), rng.integers(0, k, m)
    w = None if weights is None else rng.integers(weights[0], weights[1], m)
    return from_edges(src, dst, n, directed=directed, weights=w, name=f"gnm{n}" if name is None else name,
                      **policy)


def loops_and_duplicates(n: int = 300, m: int = 1500, seed: int = 1, *, loop_every: int = 7,
                         repeats: int = 200, weights=None, name: str = "loops_dups") -> CSRGraph:
    """Undirected random edges, a self-loop on every `loop_every`-th vertex and the
    first `repeats` edges again, all kept; weights=(lo, hi) as in gnm."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    loops = np.arange(0, n, loop_every)
    src = np.concatenate([src, loops, src[:repeats]])
    dst = np.concatenate([dst, loops, dst[:repeats]])
    w = None if weights is None else rng.integers(weights[0], weights[1], len(src))
    return from_edges(src, dst, n, weights=w, name=name, self_loops="keep", duplicates="keep")


def forward_arcs(n: int = 400, m: int = 1600, reach: int = 30, seed: int = 5, *,
                 name: str = "directed") -> CSRGraph:
    """Directed arcs u -> u + 1..reach-1 (mod n): long directed chains."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = (src + rng.integers(1, reach, m)) % n
    return from_edges(src, dst, n, directed=True, name=name)


def rmat(scale: int, edge_factor: int, seed: int, *, a: float = 0.57, b: float = 0.19, c: float = 0.19,
         permute: bool = False, name: str | None = None) -> CSRGraph:
    """R-MAT edges drawn bit by bit (each bit one vectorized draw), symmetrized;
    permute=True relabels the vertices at random, as Graph500's Kronecker generator does."""
    rng = np.random.default_rng(seed)
    m = edge_factor << scale
    src = np.zeros(m, np.int64)
    dst = np.zeros(m, np.int64)
    for bit in range(scale):
        r = rng.random(m)
        down = r >= a + b  # quadrants c, d: source bit set
        right = ((r >= a) & (r < a + b)) | (r >= a + b + c)  # quadrants b, d
        src |= down.astype(np.int64) << bit
        dst |= right.astype(np.int64) << bit
    if permute:
        perm = rng.permutation(1 << scale)
        src, dst = perm[src], perm[dst]
    return from_edges(src, dst, 1 << scale, name=f"rmat{scale}" if name is None else name)


# ---- weighted: what breaks SSSP -------------------------------------------------------


def zero_cycles(seed: int = 11) -> CSRGraph:
    """Directed: 0 -(5)-> a zero-weight cycle 1..6 with zero-weight exits and re-entries,
    a zero-weight two-cycle reached at distance 0 from the source, and a random part
    where 40% of the weights are 0."""
    rng = np.random.default_rng(seed)
    src = [0, 1, 2, 3, 4, 5, 6, 3, 7, 8, 7, 0, 9, 10, 10, 11]
    dst = [1, 2, 3, 4, 5, 6, 1, 7, 8, 1, 9, 10, 10, 9, 11, 2]
    w = [5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 7]
    n = 120
    s = rng.integers(0, n, 500)
    d = rng.integers(0, n, 500)
    ww = np.where(rng.random(500) < 0.4, 0, rng.integers(1, 6, 500))
    return from_edges(np.r_[src, s], np.r_[dst, d], n, directed=True, weights=np.r_[w, ww], name="zero_cycles")


def heavy_direct(k: int = 40) -> CSRGraph:
    """Directed chain of triangles: i -> i+1 weighs 100, i -> x_i -> i+1 weighs 1 + 1;
    every fifth direct edge weighs 2 instead and ties with the two-hop path."""
    main = np.arange(k + 1)
    mid = k + 1 + np.arange(k)
    src = np.concatenate([main[:-1], main[:-1], mid])
    dst = np.concatenate([main[1:], mid, main[1:]])
    w = np.concatenate([np.full(k, 100), np.ones(k, np.int64), np.ones(k, np.int64)])
    w[:k:5] = 2
    return from_edges(src, dst, 2 * k + 1, directed=True, weights=w, name="heavy_direct")


def unreachable(seed: int = 5) -> CSRGraph:
    """Directed: a random part 0..59 reachable from 0, a part 60..99 that only points
    into it, and 20 isolated vertices."""
    rng = np.random.default_rng(seed)
    s1, d1 = rng.integers(0, 60, 240), rng.integers(0, 60, 240)
    s2, d2 = rng.integers(60, 100, 120), rng.integers(0, 100, 120)
    src, dst = np.r_[s1, s2], np.r_[d1, d2]
    return from_edges(src, dst, 120, directed=True, weights=rng.integers(0, 50, len(src)), name="unreachable")


def big_int32(n: int = 80, seed: int = 3) -> CSRGraph:
    """Undirected, weights within 100 of 2^31 - 1: a path of two edges passes int32."""
    rng = np.random.default_rng(seed)
    a = np.arange(n - 1)
    src = np.r_[a, rng.integers(0, n, 3 * n)]
    dst = np.r_[a + 1, rng.integers(0, n, 3 * n)]
    w = INT32_TOP - rng.integers(0, 100, len(src))
    return from_edges(src, dst, n, weights=w.astype(np.int64), name="big_int32")


def big_int64(n: int = 16, seed: int = 4) -> CSRGraph:
    """Directed, int64 weights up to 2^58 on 16 vertices: sums up to 15 x 2^58 < 2^63."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, 60), rng.integers(0, n, 60)
    w = rng.integers(2**56, 2**58, 60, dtype=np.int64)
    w[::7] = 0
    return from_edges(src, dst, n, directed=True, weights=w, name="big_int64")


def hub_ring(leaves: int = 300, seed: int = 6) -> CSRGraph:
    """Undirected star whose hub has more edges than a block and than any histogram
    MDT, with a ring through the leaves; random weights 0..9."""
    rng = np.random.default_rng(seed)
    lv = np.arange(1, leaves + 1)
    src = np.r_[np.zeros(leaves, np.int64), lv]
    dst = np.r_[lv, np.r_[lv[1:], lv[:1]]]
    return from_edges(src, dst, leaves + 1, weights=rng.integers(0, 10, len(src)), name="hub")


def with_rule_weights(g: CSRGraph, seed: int = 0) -> CSRGraph:
    """The same graph with the catalogue's hash-rule weights in 0..100 (zeros included)."""
    from gpubfs_cli.graph.weights import WeightRule, rule_weights

    w = rule_weights(g, WeightRule(0, 100, seed))
    return CSRGraph(g.row_offsets, g.col_indices, g.directed, w, name=f"{g.name or 'g'}-w")


def grid_and_pair(side: int = GRID_SIDE, *, weighted: bool = False) -> CSRGraph:
    """A side x side lattice plus one lone edge (side^2, side^2 + 1): a traversal from
    an end of that edge reaches one vertex in one level, so it costs only the fixed
    part (the fixed-cost probe); weighted by the catalogue's rule for SSSP."""
    g = disjoint(grid(side, side), path(2), name="grid+pair")
    return with_rule_weights(g) if weighted else g


# ---- the sets every GPU strategy runs on (emulated tests, scripts/sanitize.py) ---------

NASTY_BFS = {
    "path60": lambda: path(60),
    "grid9x13": lambda: grid(9, 13),
    "star300": lambda: star(300),
    "broom": lambda: broom(20, 150),
    # a path of 50, a star of 20 leaves, a triangle, 10 isolated vertices
    "disconnected": lambda: disjoint(path(50), star(20), cycle(3), isolated=10, name="disconnected"),
    "single": lambda: single_vertex(directed=True, weighted=True),
    "loops_dups": lambda: loops_and_duplicates(seed=2),
    "directed": lambda: gnm(250, 900, 4, directed=True, name="directed"),
    "rmat": lambda: rmat(8, 6, 4, permute=True),
}

NASTY_SSSP = {
    "zero_cycles": zero_cycles,
    "ties": lambda: grid(9, 11, weight=7, name="ties"),
    "heavy_direct": heavy_direct,
    "unreachable": unreachable,
    "directed_random": lambda: gnm(300, 1500, 2, directed=True, weights=(0, 101), name="directed_random"),
    "big_int32": big_int32,
    "big_int64": big_int64,
    "hub": hub_ring,
    "loops_dups": lambda: loops_and_duplicates(100, 400, 8, loop_every=3, repeats=100, weights=(0, 20)),
    "single": lambda: single_vertex(directed=True, weighted=True),
}


def pick_sources(g: CSRGraph, k: int = 4, seed: int = 7) -> list[int]:
    """Vertex 0, the last vertex, the largest out-degree, an isolated one, k random
    ones; duplicates dropped, that order kept."""
    deg = g.out_degrees()
    picks = [0, g.n - 1, int(np.argmax(deg))]
    zero = np.flatnonzero(deg == 0)
    if len(zero):
        picks.append(int(zero[0]))
    picks += np.random.default_rng(seed).integers(0, g.n, k).tolist()
    return list(dict.fromkeys(picks))
