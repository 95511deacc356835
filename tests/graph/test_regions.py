"""The region-local kernels' host side, no GPU: the regions (graph/regions.py), the graph
renumbered into them (with its weights), the ring's size (gpu/region_queue.py) and
regions.bfs's knobs."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.gpu.regions import strategies as rg
from gpubfs_cli.core.strategy import make_knobs
from gpubfs_cli.errors import UserError
from gpubfs_cli.gpu import region_queue as rq
from gpubfs_cli.graph import regions as pt
from gpubfs_cli.graph import samples

GRAPHS = {
    "grid": lambda: samples.grid(40, 50),
    "path": lambda: samples.path(1000),
    "directed": lambda: samples.gnm(700, 2500, 3, directed=True, isolated=20),
    "pieces": lambda: samples.disjoint(samples.grid(9, 13), samples.star(300), isolated=45),
    "rmat": lambda: samples.rmat(10, 8, 4),
    "single": lambda: samples.single_vertex(),
}


def edge_set(row, col, ids=None) -> set:
    src = np.repeat(np.arange(len(row) - 1), np.diff(row))
    if ids is not None:
        src, col = ids[src], ids[np.asarray(col)]
    return set(zip(src.tolist(), np.asarray(col).tolist(), strict=True))


@pytest.mark.parametrize("size", [32, 96, 2048])
@pytest.mark.parametrize("name", list(GRAPHS))
def test_every_vertex_once_in_regions_of_whole_words(name, size):
    g = GRAPHS[name]()
    r = pt.regions(g, size)
    real = r.perm >= 0
    assert sorted(r.perm[real].tolist()) == list(range(g.n))
    assert (r.perm[r.rank] == np.arange(g.n)).all()
    assert r.offsets[0] == 0 and r.offsets[-1] == r.n_new and (r.offsets % 32 == 0).all()
    assert ((np.diff(r.offsets) > 0) & (np.diff(r.offsets) <= -(-size // 32) * 32)).all()
    assert (np.bincount(r.region[real], minlength=r.count) <= size).all()  # real vertices a region
    assert (r.region == np.repeat(np.arange(r.count), np.diff(r.offsets))).all()
    # padding only at a region's end
    for a, b in zip(r.offsets[:-1], r.offsets[1:], strict=True):
        block = real[a:b]
        assert block.all() or (block[: block.sum()].all() and not block[block.sum():].any())


@pytest.mark.parametrize("name", list(GRAPHS))
def test_the_renumbered_graph_is_the_graph(name):
    g = GRAPHS[name]()
    r = pt.regions(g, 64, seed=2)
    row, col = pt.relabelled(np.asarray(g.row_offsets), np.asarray(g.col_indices), r)
    assert row.dtype == col.dtype == np.int32 and len(row) == r.n_new + 1
    assert edge_set(row, col, r.perm.astype(np.int64)) == edge_set(g.row_offsets, g.col_indices)
    assert (np.diff(row)[r.perm < 0] == 0).all()  # padding has no edges


def test_weights_follow_their_edges_into_region_order():
    g = samples.with_rule_weights(samples.grid(9, 13))
    r = pt.regions(g, 32, seed=1)
    row, col, w = pt.relabelled(np.asarray(g.row_offsets), np.asarray(g.col_indices), r, np.asarray(g.weights))
    src = np.repeat(np.arange(len(row) - 1), np.diff(row))
    got = {(int(r.perm[a]), int(r.perm[b]), int(x)) for a, b, x in zip(src, col, w, strict=True)}
    gs = np.repeat(np.arange(g.n), np.diff(np.asarray(g.row_offsets)))
    want = {(int(a), int(b), int(x)) for a, b, x in zip(gs, g.col_indices, g.weights, strict=True)}
    assert got == want


def test_a_grid_keeps_most_edges_inside_regions():
    g = samples.grid(60, 60)
    r = pt.regions(g, 256)
    src = np.repeat(np.arange(g.n), np.diff(g.row_offsets))
    inside = r.region[r.rank[src]] == r.region[r.rank[np.asarray(g.col_indices)]]
    assert inside.mean() > 0.8


def test_cells_are_the_nearest_seed_both_ways():
    g = samples.path(10, directed=True)  # 0 -> 1 -> ... -> 9: seeds 2 and 8 reach back too
    row, col = pt.pattern(g)
    owner, depth = pt.cells(row, col, np.array([2, 8]))
    assert owner.tolist() == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]  # 5 is 3 from both: the first seed's level order
    assert depth.tolist() == [2, 1, 0, 1, 2, 3, 2, 1, 0, 1]
    alone = samples.disjoint(samples.path(3), isolated=2)
    owner, depth = pt.cells(*pt.pattern(alone), np.array([0]))
    assert owner.tolist() == [0, 0, 0, -1, -1] and depth.tolist() == [0, 1, 2, -1, -1]


def test_made_once_per_graph_size_and_seed():
    """A run prepares each variant once a round: the same graph object, size and seed give
    the same regions object; another graph object (equal or not), size or seed its own."""
    g = samples.grid(30, 30)
    a = pt.regions(g, 64)
    assert pt.regions(g, 64) is a and pt.regions(g, 64, seed=0) is a
    assert pt.regions(g, 96) is not a and pt.regions(g, 64, seed=1) is not a
    twin = samples.grid(30, 30)
    assert pt.regions(twin, 64) is not a and (pt.regions(twin, 64).perm == a.perm).all()


def test_the_draw_is_seeded():
    g = samples.grid(30, 30)
    a, b, c = pt.regions(g, 64, seed=1), pt.regions(g, 64, seed=1), pt.regions(g, 64, seed=2)
    assert (a.perm == b.perm).all() and (a.offsets == b.offsets).all()
    assert len(a.perm) != len(c.perm) or (a.perm != c.perm).any()


@pytest.mark.parametrize("size", [0, 16, 40, -32])
def test_a_region_size_off_the_words_is_refused(size):
    with pytest.raises(ValueError, match="multiple of 32"):
        pt.regions(samples.path(10), size)


@pytest.mark.parametrize("knobs, match", [({"region_size": 40}, "multiple of 32"),
                                          ({"region_size": rg.REGION_CAP + 32}, "region_size"),
                                          ({"cta_size": 384}, "cta_size"), ({"blocks_per_sm": -1}, "blocks_per_sm")])
def test_bad_knobs_are_one_line(knobs, match):
    with pytest.raises(UserError, match=match):
        make_knobs(rg.RegionsBfs, knobs)


@pytest.mark.parametrize("regions, threads", [(1, 32), (231, 67_584), (18_000, 270_336), (2**20, 1)])
def test_the_ring_holds_every_region_and_thread_twice(regions, threads):
    entries = rq.ring_entries(regions, threads)
    assert entries & (entries - 1) == 0 and entries > 2 * (regions + threads) and entries <= 4 * (regions + threads) + 2
