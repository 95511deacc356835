"""graph/samples.py: each shape has the vertices, edges and degrees it says it has (the
checks of every GPU strategy rest on them), seeded graphs rebuild identically, and the
weighted ones pass SSSP's input check."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.sssp.inputs import check_weights
from gpubfs_cli.graph import samples


def degrees(g) -> list[int]:
    return g.out_degrees().tolist()


def self_loops(g) -> int:
    rows = np.repeat(np.arange(g.n), g.out_degrees())
    return int(np.count_nonzero(rows == g.col_indices))


def test_path_cycle_clique_star():
    p = samples.path(5)
    assert (p.n, p.m, p.directed, p.name) == (5, 8, False, "path5")
    assert degrees(p) == [1, 2, 2, 2, 1]
    d = samples.path(5, directed=True)
    assert (d.m, d.directed, degrees(d)) == (4, True, [1, 1, 1, 1, 0])
    assert degrees(samples.cycle(3)) == [2, 2, 2]
    k = samples.clique(5)
    assert (k.n, k.m, set(degrees(k))) == (5, 20, {4})
    s = samples.star(4)
    assert (s.n, s.m, degrees(s)) == (5, 8, [4, 1, 1, 1, 1])
    sd = samples.star(4, directed=True)
    assert (sd.m, degrees(sd)) == (4, [4, 0, 0, 0, 0])


def test_grid_numbers_vertices_row_by_row():
    g = samples.grid(3, 4)
    assert (g.n, g.m, g.name) == (12, 34, "grid3x4")
    assert np.array_equal(g.out_degrees().reshape(3, 4), [[2, 3, 3, 2], [3, 4, 4, 3], [2, 3, 3, 2]])
    assert g.neighbors(5).tolist() == [1, 4, 6, 9]
    src, dst = samples.grid_edges(3, 4)
    assert len(src) == 17 and np.all(src < dst)
    w = samples.grid(2, 3, weight=7)
    assert w.weights.tolist() == [7] * 14 and w.weights.dtype == np.int32


def test_broom_linked_stars_funnel():
    b = samples.broom(3, 4, tail=2)  # 0-1-2, hub 2 -> 3..6 -> 7, then 7-8
    assert (b.n, b.m) == (9, 22)
    assert degrees(b) == [1, 2, 5, 2, 2, 2, 2, 5, 1]
    s = samples.linked_stars(10, 6)  # hub 0: 3..12 and 1; 1-2; hub 2: 13..18, 3, 4
    assert (s.n, s.m) == (19, 40)
    assert degrees(s) == [11, 2, 9, 2, 2] + [1] * 14
    f = samples.funnel(2, 2, 3)
    assert (f.n, f.m) == (11, 24)
    assert degrees(f) == [2, 3, 3, 5, 5] + [1] * 6


def test_disjoint_shifts_the_parts_and_adds_isolated_vertices():
    g = samples.disjoint(samples.path(3), samples.cycle(3), isolated=2, name="two")
    assert (g.n, g.m, g.directed, g.name) == (8, 10, False, "two")
    assert degrees(g) == [1, 2, 1, 2, 2, 2, 0, 0]
    assert g.neighbors(3).tolist() == [4, 5]
    d = samples.disjoint(samples.star(2, directed=True), isolated=1)
    assert d.directed and degrees(d) == [2, 0, 0, 0]
    with pytest.raises(ValueError, match="mix directed"):
        samples.disjoint(samples.path(2), samples.path(2, directed=True))


def test_single_vertex():
    g = samples.single_vertex()
    assert (g.n, g.m, g.directed, g.weights) == (1, 0, False, None)
    w = samples.single_vertex(directed=True, weighted=True)
    assert (w.n, w.m, w.directed, w.weights.dtype) == (1, 0, True, np.int32)


def test_gnm_is_seeded_and_leaves_the_isolated_tail_alone():
    a = samples.gnm(100, 300, 4, isolated=10)
    b = samples.gnm(100, 300, 4, isolated=10)
    assert np.array_equal(a.row_offsets, b.row_offsets) and np.array_equal(a.col_indices, b.col_indices)
    assert not np.array_equal(a.col_indices, samples.gnm(100, 300, 5, isolated=10).col_indices)
    assert a.n == 100 and not a.directed and np.all(a.out_degrees()[90:] == 0)
    assert a.out_degrees()[:90].sum() == a.m
    d = samples.gnm(50, 200, 1, directed=True, weights=(3, 9))
    assert d.directed and d.m == 200  # weighted: parallel arcs and self-loops kept
    assert d.weights.dtype == np.int32 and 3 <= d.weights.min() and d.weights.max() < 9


def test_loops_and_duplicates_keeps_both():
    listed = 20 + 2 + 3  # random edges, loops on 0 and 5, the first three again
    g = samples.loops_and_duplicates(10, 20, 1, loop_every=5, repeats=3)
    loops = self_loops(g)
    assert loops >= 2 and 0 in g.neighbors(0) and 5 in g.neighbors(5)
    assert g.m == 2 * listed - loops  # nothing dropped; a self-loop is stored once


def test_forward_arcs_and_rmat():
    f = samples.forward_arcs(10, 30, 3, 0)
    rows = np.repeat(np.arange(10), f.out_degrees())
    assert f.directed and set(((f.col_indices - rows) % 10).tolist()) <= {1, 2}
    r = samples.rmat(6, 4, 3)
    assert (r.n, r.directed) == (64, False) and 0 < r.m <= 2 * 4 * 64
    assert int(r.out_degrees().max()) > 4 * np.median(r.out_degrees())  # skewed
    p = samples.rmat(6, 4, 3, permute=True)
    assert p.m == r.m and sorted(degrees(p)) == sorted(degrees(r))  # only relabelled


def test_weighted_samples_are_sssp_input():
    for name, build in samples.NASTY_SSSP.items():
        g = build()
        assert g.weights is not None and len(g.weights) == g.m, name
        kind = g.weights.dtype
        check_weights(g)  # raises on negative weights or sums past int64
        assert g.weights.dtype == kind, name
    assert samples.NASTY_SSSP["big_int64"]().weights.dtype == np.int64
    h = samples.heavy_direct(5)
    assert (h.n, h.m, h.directed) == (11, 15, True)
    assert h.neighbors(0).tolist() == [1, 6] and h.weights[:2].tolist() == [2, 1]


def test_rule_weights_are_symmetric_on_the_same_csr():
    g = samples.grid(3, 3)
    w = samples.with_rule_weights(g, seed=2)
    assert w.col_indices is g.col_indices and w.name == "grid3x3-w"
    assert 0 <= w.weights.min() and w.weights.max() <= 100
    rows = np.repeat(np.arange(g.n), g.out_degrees())
    pairs = dict(zip(zip(rows.tolist(), g.col_indices.tolist(), strict=True), w.weights.tolist(), strict=True))
    assert all(pairs[(v, u)] == x for (u, v), x in pairs.items())


def test_grid_and_pair_has_a_two_vertex_component():
    for weighted in (False, True):
        g = samples.grid_and_pair(weighted=weighted)
        assert g.n == samples.PAIR_SOURCE + 2 and (g.weights is not None) == weighted
        d = sequential_bfs(g, samples.PAIR_SOURCE).distances
        assert np.flatnonzero(d >= 0).tolist() == [samples.PAIR_SOURCE, samples.PAIR_SOURCE + 1]
        assert sequential_bfs(g, 0).counters["levels"] == 2 * samples.GRID_SIDE - 1


def test_the_nasty_sets_build():
    for name, build in samples.NASTY_BFS.items():
        g = build()
        assert g.n >= 1 and g.out_degrees().sum() == g.m, name
    g = samples.NASTY_BFS["disconnected"]()  # a path of 50, a star of 20, a triangle, 10 alone
    assert (g.n, g.m) == (84, 2 * (49 + 20 + 3))
    assert int(np.count_nonzero(g.out_degrees() == 0)) == 10


def test_pick_sources():
    g = samples.disjoint(samples.star(3), isolated=2)
    picks = samples.pick_sources(g, k=4, seed=1)
    assert picks[:3] == [0, 5, 4]  # vertex 0 (also the hub), the last, the first isolated
    assert len(picks) == len(set(picks)) and all(0 <= v < g.n for v in picks)
    assert samples.pick_sources(g, k=4, seed=1) == picks
    assert samples.pick_sources(samples.path(9), k=1)[:3] == [0, 8, 1]
