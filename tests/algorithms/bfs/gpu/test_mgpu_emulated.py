"""mgpu.bfs without a GPU: the partition and the rows each rank reads, then p = 1..4
ranks of the real rank code and level program run in lockstep (mgpu/lockstep.py) on
mgpu.cu under the CPU kernel emulator, against cpu.sequential on the nasty graphs:
distances, a BFS tree for parents, the level count, top-down only and with bottom-up
levels switched on early."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.mgpu import lockstep, rank
from gpubfs_cli.algorithms.bfs.gpu.mgpu import partition as pt
from gpubfs_cli.algorithms.bfs.gpu.mgpu.strategies import MgpuKnobs, make_plan
from tests.algorithms.bfs.gpu import emulated_bfs as eb
from tests.algorithms.bfs.gpu import test_strategies as ts
from tests.gpu import emulated_cupy as ec

MGPU = ec.Family(rank.KERNELS, "mgpu_driver.cpp", (rank,),
                 defines=[{"MGPU_FIELD_BITS": b, "MGPU_CHUNK": 64} for b in (1, 2, 4)])


@pytest.fixture(scope="module")
def emulation() -> ec.Emulation:
    return ec.Emulation(MGPU, ec.build_libraries(MGPU))


@pytest.mark.parametrize("ranks", [1, 2, 3, 5])
@pytest.mark.parametrize("name", ["rmat", "star300", "directed", "single", "loops_dups"])
def test_bounds_cut_whole_words_and_balance_edges(name, ranks):
    g = eb.graph(name)
    b = pt.bounds(g.row_offsets, ranks)
    assert b[0] == 0 and b[-1] == g.n and len(b) == ranks + 1
    assert np.all(np.diff(b) >= 0) and np.all(b[:-1] % 32 == 0)


def test_bounds_split_edges_evenly_on_a_large_uniform_graph():
    offsets = np.arange(0, 10 * 6400 + 1, 10, dtype=np.int64)  # 6,400 vertices of degree 10
    b = pt.bounds(offsets, 4)
    assert b.tolist() == [0, 1600, 3200, 4800, 6400]


@pytest.mark.parametrize("ranks", [2, 3, 4, 7])
def test_bounds_balance_the_edges_of_a_skewed_graph(ranks):
    """Power-law degrees (a few hubs hold most edges): each rank's edges are within one
    aligned word of vertices of its share, the cuts falling past the hubs' lists, not at
    equal vertex counts."""
    rng = np.random.default_rng(7)
    degrees = np.minimum((rng.pareto(1.2, 20_000) * 4).astype(np.int64) + 1, 50_000)
    degrees[rng.choice(20_000, 12, replace=False)] = 40_000  # hubs
    offsets = np.concatenate([[0], np.cumsum(degrees)])
    m = int(offsets[-1])
    b = pt.bounds(offsets, ranks)
    per_rank = np.diff(offsets[b])
    words = np.add.reduceat(degrees, np.arange(0, len(degrees), 32))  # edges of each aligned word
    slack = int(words.max())
    assert np.all(np.abs(per_rank - m / ranks) <= slack * 2), (per_rank, m / ranks, slack)
    # an equal split of the vertices would be far off on this graph: the cuts follow the edges
    even = np.diff(offsets[np.linspace(0, len(degrees), ranks + 1).astype(np.int64) // 32 * 32])
    assert np.abs(per_rank - m / ranks).max() < np.abs(even - m / ranks).max()


@pytest.mark.parametrize("name", ["rmat", "directed", "loops_dups"])
def test_each_rank_reads_its_rows_and_in_rows(tmp_path, name):
    g = eb.graph(name)
    files = pt.graph_files(g)
    try:
        b = pt.bounds(g.row_offsets, 3)
        for r in range(3):
            off, cols = pt.rows(files.folder, int(b[r]), int(b[r + 1]))
            want = g.col_indices[g.row_offsets[b[r]]: g.row_offsets[b[r + 1]]]
            assert np.array_equal(cols, want) and off[-1] == len(want)
            assert len(off) == b[r + 1] - b[r] + 1 and off[0] == 0  # exactly its range's rows
            assert np.array_equal(off, g.row_offsets[b[r]: b[r + 1] + 1] - g.row_offsets[b[r]])
            ioff, src = pt.in_rows(files.folder, int(b[r]), int(b[r + 1]), chunk_edges=7)
            assert len(ioff) == b[r + 1] - b[r] + 1 and ioff[0] == 0 and ioff[-1] == len(src)
            for v in range(int(b[r]), int(b[r + 1])):
                got = np.sort(src[ioff[v - b[r]]: ioff[v - b[r] + 1]])
                rows = np.repeat(np.arange(g.n), np.diff(g.row_offsets))
                assert np.array_equal(got, np.sort(rows[g.col_indices == v])), (name, v)
    finally:
        files.drop()
    assert files.temporary


def test_a_cached_graph_is_read_in_place(tmp_path):
    g = eb.graph("rmat")
    np.save(tmp_path / pt.ROWS, g.row_offsets)
    np.save(tmp_path / pt.COLS, g.col_indices)
    from gpubfs_cli.graph.csr import CSRGraph

    mapped = CSRGraph(np.load(tmp_path / pt.ROWS, mmap_mode="r"), np.load(tmp_path / pt.COLS, mmap_mode="r"),
                      g.directed)
    files = pt.graph_files(mapped)
    assert files.folder == str(tmp_path) and not files.temporary


def test_in_rows_reads_at_most_a_chunk_of_edges_at_a_time(monkeypatch):
    """The memory bound in_rows promises (its in-edges plus one chunk): each read of the
    column file is at most chunk_edges edges, or one row alone where a row is longer
    (rmat's hubs, against a chunk of 7), and the reads cover every edge once, in order."""
    g = eb.graph("rmat")
    reads = []

    class Counted:
        def __init__(self, cols):
            self.cols = cols

        def __getitem__(self, part):
            reads.append((part.start, part.stop))
            return self.cols[part]

    real = pt.open_csr

    def open_counted(folder):
        rows, cols = real(folder)
        return rows, Counted(cols)

    monkeypatch.setattr(pt, "open_csr", open_counted)
    files = pt.graph_files(g)
    try:
        pt.in_rows(files.folder, 0, g.n, chunk_edges=7)
    finally:
        files.drop()
    rows = set(zip(g.row_offsets[:-1].tolist(), g.row_offsets[1:].tolist(), strict=True))
    assert [a for a, _ in reads] == [0] + [b for _, b in reads[:-1]] and reads[-1][1] == len(g.col_indices)
    assert all(b - a <= 7 or (a, b) in rows for a, b in reads), reads
    assert any(b - a > 7 for a, b in reads)  # a hub's row was read alone


def _ranks(g, ranks: int, **knobs):
    plan = asdict(make_plan(g, MgpuKnobs(gpus=ranks, chunk=64, cta_size=64, blocks_per_sm=2, **knobs)))
    files = pt.graph_files(g)
    return [rank.MgpuRank(r, 0, None, files.folder, plan) for r in range(ranks)], files


def _check(g, ranks, knobs, sources):
    group, files = _ranks(g, ranks, **knobs)
    try:
        for s in sources:
            for pred in (False, True):
                dist, parents, counters = lockstep.traverse(group, s, pred)
                ref = sequential_bfs(g, s)
                label = f"{ranks} ranks {knobs} from {s}"
                np.testing.assert_array_equal(dist, ref.distances, err_msg=label)
                assert counters["levels"] == ref.counters["levels"], (label, counters)
                assert counters["frontier_vertices"][0] == 1
                if pred:
                    ts.check_parents(g, s, dist, parents)
    finally:
        files.drop()
    return counters


EARLY = {"alpha": 1000.0, "beta": 0.0, "growth": False}
# One rank peer to peer runs the device loop (mgpu_levels), several the host loop.
# thread_edges 1: every bottom-up list past its first in-edge scanned by the warp.
KNOBS = [{}, {"bottom_up": False}, EARLY, {"exchange": "p2p"}, {"exchange": "p2p", **EARLY},
         {"exchange": "p2p", "loop": "host"}, {**EARLY, "thread_edges": 1},
         {"exchange": "p2p", **EARLY, "thread_edges": 1}]


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
@pytest.mark.parametrize("knobs", KNOBS, ids=["default", "top_down", "bottom_up_early", "p2p", "p2p_bottom_up_early",
                                              "p2p_host_loop", "bottom_up_warp", "p2p_bottom_up_warp"])
def test_lockstep_ranks_agree_with_the_sequential_bfs(monkeypatch, emulation, ranks, knobs):
    with ec.emulated(monkeypatch, emulation, sms=1, resident=2):
        for name in eb.HARD + ["grid9x13", "path60", "disconnected"]:
            if name not in eb.GRAPHS:
                continue
            g = eb.graph(name)
            _check(g, ranks, knobs, eb.sources(g)[:2])


def test_bottom_up_levels_run_when_asked(monkeypatch, emulation):
    with ec.emulated(monkeypatch, emulation, sms=1, resident=2):
        g = eb.graph("rmat")
        counters = _check(g, 2, {"alpha": 1000.0, "beta": 0.0, "growth": False}, eb.sources(g)[:1])
        assert counters["bottom_up_levels"] >= 1
        counters = _check(g, 2, {"bottom_up": False}, eb.sources(g)[:1])
        assert counters["bottom_up_levels"] == 0


@pytest.mark.parametrize("knobs", [{"exchange": "p2p"}, {"exchange": "p2p", **EARLY},
                                   {"exchange": "p2p", "bottom_up": False}])
def test_one_rank_runs_its_levels_in_one_cooperative_launch(monkeypatch, emulation, knobs):
    with ec.emulated(monkeypatch, emulation, sms=1, resident=2):
        g = eb.graph("rmat")
        group, files = _ranks(g, 1, **knobs, loop="device")
        try:
            assert group[0].device_loop and group[0].exchange == "p2p"
            emulation.launches.clear()
            dist, _, counters = lockstep.traverse(group, eb.sources(g)[0], False)
        finally:
            files.drop()
        assert counters["loop"] == "device"
        assert emulation.launches.count("mgpu_levels") == 1
        assert not {"mgpu_queue", "mgpu_step", "mgpu_apply"} & set(emulation.launches)
        np.testing.assert_array_equal(dist, sequential_bfs(g, eb.sources(g)[0]).distances)
        if knobs.get("alpha"):
            assert counters["bottom_up_levels"] >= 1


def test_the_device_loop_profile_times_every_phase(monkeypatch, emulation):
    with ec.emulated(monkeypatch, emulation, sms=1, resident=2):
        g = eb.graph("path60")
        group, files = _ranks(g, 1, exchange="p2p", profile=True)
        try:
            dist, _, counters = lockstep.traverse(group, 0, False)
        finally:
            files.drop()
    np.testing.assert_array_equal(dist, sequential_bfs(g, 0).distances)
    phases = [counters[f"profile_{name}_us"] for name in rank.PHASES]
    assert all(t > 0 for t in phases), counters
    assert counters["profile_level_us"] == pytest.approx(sum(phases))


def _refused(monkeypatch, emulation, knobs: dict, resident: int, match: str) -> None:
    """Building rank 0 under `knobs` is one ValueError matching `match`."""
    g = eb.graph("rmat")
    plan = asdict(make_plan(g, MgpuKnobs(chunk=64, cta_size=64, blocks_per_sm=2, **knobs)))
    files = pt.graph_files(g)
    try:
        with ec.emulated(monkeypatch, emulation, sms=1, resident=resident):
            with pytest.raises(ValueError, match=match):
                rank.MgpuRank(0, 0, None, files.folder, plan)
    finally:
        files.drop()


def test_the_device_loop_is_refused_where_ranks_share_one_executor(monkeypatch, emulation):
    _refused(monkeypatch, emulation, {"gpus": 2, "loop": "device"}, 2, "loop device needs the peer-to-peer exchange")


def test_a_device_loop_that_fits_no_sm_is_one_error(monkeypatch, emulation):
    _refused(monkeypatch, emulation, {"gpus": 1, "exchange": "p2p"}, 0,
             "rank 0: cta_size 64: no CTA of the device loop fits an SM")


def test_field_bits_count_every_rank():
    assert [rank.field_bits(p) for p in (1, 3, 4, 15, 16, 255)] == [2, 2, 4, 4, 8, 8]
    assert rank.field_bits(255, "p2p") == 1  # an OR, not a count
    with pytest.raises(ValueError):
        rank.field_bits(256)


@pytest.mark.parametrize("bad", [{"gpus": 0}, {"gpus": 300}, {"chunk": 100}, {"alpha": -1}, {"graph": "yes"},
                                 {"thread_edges": -1}, {"thread_edges": 1.5}, {"thread_edges": 2**31},
                                 {"blocks_per_sm": 0}, {"timeout_s": 0}, {"gpus": 2, "exchange": "nccl"},
                                 {"exchange": "nvlink"}, {"ahead": 0}, {"ahead": 16},
                                 {"loop": "gpu"}, {"profile": True, "loop": "host"}, {"profile": "yes"}, {"gpus": 2, "exchange": "nccl", "graph": False, "loop": "device"}])
def test_bad_knobs_are_refused(bad):
    with pytest.raises(ValueError):
        MgpuKnobs(**bad)


def test_exchange_bytes_per_level():
    g = eb.graph("rmat")
    plan = make_plan(g, MgpuKnobs(gpus=2))
    words = (g.n + 31) // 32
    assert plan.exchange_bytes("p2p") == words * 4 + 16  # the peer's bits and counts
    assert plan.exchange_bytes("nccl") == words * 2 * 4 + 16  # a ring all-reduce of 2-bit fields, p = 2
