"""merrill.multi_gpu without a GPU: partitions, exchange bookkeeping, and the whole
distributed BFS simulated for 1-4 ranks (threads, numpy, the same level loop and
bookkeeping the GPU ranks run) against cpu.sequential on the nasty graphs."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi import exchange as ex
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi import partition as pt
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.comm import ThreadGroup
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.level import Direction
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.simulate import simulate
from gpubfs_cli.algorithms.bfs.validate import parent_failures
from tests.algorithms.bfs.gpu import emulated_bfs as eb

RANKS = [1, 2, 3, 4]
KINDS = list(pt.KINDS)
DO = Direction(alpha=2.0, beta=50.0)  # switches early and often on small graphs


@pytest.mark.parametrize("ranks", RANKS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["rmat", "star300", "directed", "single", "loops_dups"])
def test_partition_owns_every_vertex_once_and_keeps_rows(name, kind, ranks):
    g = eb.graph(name)
    part = pt.make_partition(kind, g, ranks)
    everyone = np.concatenate(part.owned)
    assert np.array_equal(np.sort(everyone), np.arange(g.n))
    for r, ids in enumerate(part.owned):
        assert np.all(np.diff(ids) > 0)
        assert np.all(part.owner[ids] == r)
        assert np.array_equal(part.local[ids], np.arange(len(ids)))
        rows, cols = part.rows(g.row_offsets, g.col_indices, r)
        assert len(rows) == len(ids) + 1
        for i in range(0, len(ids), max(1, len(ids) // 7)):
            assert np.array_equal(cols[rows[i]: rows[i + 1]], g.neighbors(int(ids[i])))
    assert part.stride % 32 == 0 and part.stride >= max(len(o) for o in part.owned)


def test_stripe_is_the_papers_v_mod_p():
    part = pt.stripe(10, 3)
    assert part.owner.tolist() == [0, 1, 2] * 3 + [0]
    assert part.local.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]


def test_degree_aware_balances_edges_where_striping_does_not():
    degrees = np.zeros(16, np.int64)
    degrees[::2] = 100  # every hub has an even id: striping over 2 puts all on rank 0
    degrees[1::2] = 1
    by_stripe = [degrees[o].sum() for o in pt.stripe(16, 2).owned]
    by_degree = [degrees[o].sum() for o in pt.degree_aware(degrees, 2).owned]
    assert by_stripe == [800, 8]
    assert by_degree == [404, 404]
    assert [len(o) for o in pt.degree_aware(degrees, 3).owned] in ([6, 5, 5], [5, 5, 6], [5, 6, 5])


def test_bad_partition_kind_is_refused():
    with pytest.raises(ValueError, match="partition: expected one of stripe, degree"):
        pt.make_partition("blocks", eb.graph("rmat"), 2)


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_exchange_bookkeeping_delivers_each_id_to_its_owner(ranks):
    rng = np.random.default_rng(ranks)
    owner = rng.integers(0, ranks, 50).astype(np.int32)
    sends = [rng.integers(0, 50, 20 + 7 * r) for r in range(ranks)]
    buckets = [ex.bucket_by_owner(np, s, s * 10, owner, ranks) for s in sends]
    for ids, pars, counts in buckets:
        assert np.all(np.diff(owner[ids]) >= 0) and np.array_equal(pars, ids * 10)
        assert np.array_equal(counts, np.bincount(owner[ids], minlength=ranks))
    matrix = np.stack([c for _, _, c in buckets])
    group = ThreadGroup(ranks)
    got: list = [None] * ranks

    def rank(r):
        comm = group.comm(r)
        assert np.array_equal(comm.allgather(buckets[r][2]).reshape(ranks, ranks), matrix)
        recv_counts, displ = ex.recv_plan(matrix, r)
        got[r] = (comm.alltoallv(buckets[r][0], matrix[r], recv_counts), displ)

    import threading

    threads = [threading.Thread(target=rank, args=(r,)) for r in range(ranks)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    for r, (ids, displ) in enumerate(got):
        assert np.all(owner[ids] == r)
        want = np.concatenate([s[owner[s] == r] for s in sends])
        assert np.array_equal(np.sort(ids), np.sort(want))
        for s in range(ranks):  # each sender's part sits at its displacement
            assert np.array_equal(np.sort(ids[displ[s]: displ[s + 1]]), np.sort(sends[s][owner[sends[s]] == r]))


def test_contract_labels_each_received_vertex_once():
    dist = np.array([-1, 0, -1, -1], np.int32)
    parent = np.full(4, -1, np.int32)
    got = ex.contract(np, np.array([2, 1, 2, 3, 2]), np.array([7, 8, 9, 5, 6], np.int32), dist, parent, 1,
                      np.zeros(4, np.int32))
    assert sorted(got.tolist()) == [2, 3]
    assert dist.tolist() == [-1, 0, 1, 1] and parent[2] in (7, 9, 6) and parent[3] == 5


def test_frontier_bitmap_round_trip():
    part = pt.stripe(100, 3)
    bitmaps = [ex.frontier_bitmap(np, np.flatnonzero(part.owned[r] % 7 == 0), part.stride) for r in range(3)]
    whole = np.concatenate(bitmaps)
    assert len(whole) == 3 * part.stride // 8
    slots = part.owner.astype(np.int64) * part.stride + part.local
    assert np.array_equal(ex.bitmap_test(np, whole, slots), np.arange(100) % 7 == 0)


@pytest.mark.parametrize("ranks", [2, 3, 4])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("direction", [None, DO], ids=["top_down", "do"])
@pytest.mark.parametrize("name", list(eb.GRAPHS))
def test_simulated_bfs_matches_sequential(name, direction, kind, ranks):
    g = eb.graph(name)
    for source in eb.sources(g):
        ref = sequential_bfs(g, source).distances
        dist, parents, counters = simulate(g, ranks, source, partition=kind, predecessors=True,
                                           direction=direction)
        assert np.array_equal(dist, ref), (name, source)
        assert parent_failures(g, source, dist, parents) == []
        assert counters["levels"] == int(ref.max()) + 1
        assert np.array_equal(counters["frontier_vertices"], np.bincount(ref[ref >= 0]))


def test_one_rank_sends_nothing_and_do_goes_bottom_up():
    g = eb.graph("rmat")
    _, _, td = simulate(g, 1, 0)
    assert td["exchanged_ids"].sum() == 0 and td["bottom_up_levels"] == 0
    _, _, do = simulate(g, 2, 0, direction=DO)
    assert do["bottom_up_levels"] >= 1
    up = do["exchanged_bytes"][do["exchanged_ids"] == 0]
    assert (up >= 0).all()


def test_a_failing_rank_ends_the_simulation_with_its_error():
    g = eb.graph("rmat")
    with pytest.raises(IndexError):
        simulate(g, 3, g.n + 5)
