"""scripts/sssp_hops.py: the hop floor worked by hand where the fewest-hop shortest path is
not the one a Dijkstra tree may keep, checked against every vertex's fewest hops by brute
force on sample graphs, and the table from a results file (the graph stood in for by a
sample graph): one line a group, its time per hop and correlation, bad input refused."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.graph import samples
from gpubfs_cli.results.schema import SCHEMA_VERSION, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import sssp_hops  # noqa: E402
import sssp_rounds  # noqa: E402


def test_the_floor_takes_the_fewest_hop_shortest_path():
    """0 -> 1 -> 2 (1 + 1) and 0 -> 2 (2) tie; 2 -> 3 (1): vertex 3 is 2 hops out at the
    fewest, 3 along the other tie."""
    g = samples.from_edges(np.array([0, 1, 0, 2]), np.array([1, 2, 2, 3]), 4, weights=np.array([1, 1, 2, 1]),
                           directed=True, name="tie")
    assert dijkstra(g, 0).distances.tolist() == [0, 1, 2, 3]
    assert sssp_hops.hop_floor(g, np.asarray(g.weights, dtype=np.int64), 0) == 2
    # from 1 only 1 -> 2 -> 3 reaches: 2 hops; from 3 nothing: 0
    assert sssp_hops.hop_floor(g, np.asarray(g.weights, dtype=np.int64), 1) == 2
    assert sssp_hops.hop_floor(g, np.asarray(g.weights, dtype=np.int64), 3) == 0


def brute_floor(g, source):
    """The fewest hops to each vertex over shortest paths, by relaxing (distance, hops)
    pairs lexicographically to a fixed point (Bellman-Ford over all edges)."""
    w = np.asarray(g.weights, dtype=np.int64)
    row, col = np.asarray(g.row_offsets), np.asarray(g.col_indices)
    best = {source: (0, 0)}
    changed = True
    while changed:
        changed = False
        for u in list(best):
            du, hu = best[u]
            for e in range(row[u], row[u + 1]):
                v, cand = int(col[e]), (du + int(w[e]), hu + 1)
                if v not in best or cand < best[v]:
                    best[v], changed = cand, True
    return max(h for _, h in best.values())


@pytest.mark.parametrize("make", [
    lambda: samples.with_rule_weights(samples.grid(6, 7), seed=3),
    lambda: samples.with_rule_weights(samples.gnm(80, 240, 2, directed=True, isolated=4, name="d"), seed=5),
])
def test_the_floor_is_every_vertexs_fewest_hops_at_their_largest(make):
    g = make()
    w = np.asarray(g.weights, dtype=np.int64)
    for source in samples.pick_sources(g, k=4):
        assert sssp_hops.hop_floor(g, w, source) == brute_floor(g, source)


GRAPH = samples.with_rule_weights(samples.grid(9, 11), seed=6)


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(sssp_rounds, "ensure_dataset", lambda name, data_dir, progress: GRAPH)


def results(tmp_path, groups):
    """groups: (strategy, knobs, {source: ms}) on graph g."""
    samples_ = [{"dataset": "g", "strategy": strategy, "knobs": knobs, "source": s, "time_ms": ms, "status": "ok",
                 "problem": "sssp", "counters": {}} for strategy, knobs, times in groups for s, ms in times.items()]
    summaries = [{"dataset": "g", "strategy": "sssp.regions", "knobs": {"delta": 7}, "variant": "sssp.regions[delta=7]"}]
    return str(write_results(tmp_path / "r.json", {"schema_version": SCHEMA_VERSION, "samples": samples_,
                                                   "summaries": summaries, "datasets": {}, "sources": {}}))


def test_the_table_gives_each_groups_time_a_hop(tmp_path, capsys, stand_in):
    w = np.asarray(GRAPH.weights, dtype=np.int64)
    sources = [0, 5, 40]
    floors = [sssp_hops.hop_floor(GRAPH, w, s) for s in sources]
    steady = {s: h * 0.002 for s, h in zip(sources, floors, strict=True)}  # 2 us a hop
    flat = {s: 0.5 for s in sources}
    path = results(tmp_path, [("sssp.regions", {"delta": 7}, steady), ("sssp.near_far", {}, flat)])
    assert sssp_hops.main([path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["graph", "variant", "sources", "ms"]
    regions, near_far = (line.split() for line in out[1:])
    assert regions[:3] == ["g", "sssp.regions[delta=7]", "3"]
    assert regions[4] == f"{np.median(floors):g}" and regions[5:8] == ["2.000", "2.000", "2.000"]
    assert regions[8] == "1.00"
    assert near_far[:4] == ["g", "sssp.near_far", "3", "0.500"] and near_far[-1] == "-"  # a constant time


def test_correlation_needs_three_sources_and_two_values_a_side():
    assert sssp_hops.correlation([1.0, 2.0], [3, 4]) == "-"
    assert sssp_hops.correlation([1.0, 2.0, 3.0], [5, 5, 5]) == "-"  # the floors all equal
    assert sssp_hops.correlation([2.0, 2.0, 2.0], [1, 2, 3]) == "-"  # the times all equal
    assert sssp_hops.correlation([1.0, 3.0, 2.0], [1, 2, 3]) == "0.50"
    assert sssp_hops.correlation([3.0, 2.0, 1.0], [1, 2, 3]) == "-1.00"


TINY = samples.from_edges(np.array([0]), np.array([1]), 3, weights=np.array([4]), name="tiny")  # 2 isolated


def test_a_source_that_reaches_nothing_has_no_time_a_hop(tmp_path, capsys, monkeypatch):
    """Source 0 is one hop from 1; source 2 reaches nothing (floor 0): its time stays out of
    the time a hop, and a group of such sources alone has none."""
    monkeypatch.setattr(sssp_rounds, "ensure_dataset", lambda name, data_dir, progress: TINY)
    long_name = "sssp.regions[" + "x" * 60 + "]"
    doc = {"schema_version": SCHEMA_VERSION, "datasets": {}, "sources": {}, "summaries": [
        {"dataset": "g", "strategy": "sssp.regions", "knobs": {"delta": 7}, "variant": long_name}], "samples": [
        {"dataset": "g", "strategy": strategy, "knobs": knobs, "source": source, "time_ms": ms, "status": "ok",
         "problem": "sssp", "counters": {}}
        for strategy, knobs, source, ms in (("sssp.near_far", {}, 0, 0.004), ("sssp.near_far", {}, 2, 0.5),
                                            ("sssp.regions", {"delta": 7}, 2, 0.25))]}
    path = str(write_results(tmp_path / "t.json", doc))
    assert sssp_hops.main([path]) == 0
    near_far, regions = (line.split() for line in capsys.readouterr().out.splitlines()[1:])
    assert near_far == ["g", "sssp.near_far", "2", "0.252", "0.5", "4.000", "4.000", "4.000", "-"]
    assert regions == ["g", long_name[:52], "1", "0.250", "0", "-", "-", "-", "-"]


def test_only_and_failed_groups_leave_groups_out(tmp_path, capsys, stand_in):
    doc = {"schema_version": SCHEMA_VERSION, "datasets": {}, "sources": {}, "samples": [
        {"dataset": name, "strategy": strategy, "source": 5, "time_ms": 0.5, "status": status, "problem": "sssp",
         "counters": {}}
        for name, strategy, status in (("g", "sssp.near_far", "ok"), ("h", "sssp.near_far", "ok"),
                                       ("h", "sssp.delta", "wrong-answer"))]}
    path = str(write_results(tmp_path / "two.json", doc))
    assert sssp_hops.main([path, "--only", "h"]) == 0
    assert [line.split()[:2] for line in capsys.readouterr().out.splitlines()[1:]] == [["h", "sssp.near_far"]]
    assert sssp_hops.main([path]) == 0
    assert [line.split()[:2] for line in capsys.readouterr().out.splitlines()[1:]] == [
        ["g", "sssp.near_far"], ["h", "sssp.near_far"]]


def test_no_sssp_sample_is_one_line(tmp_path, capsys, stand_in):
    path = str(write_results(tmp_path / "b.json", {"schema_version": SCHEMA_VERSION, "datasets": {}, "sources": {},
                                                   "samples": [{"dataset": "g", "strategy": "do.bfs", "source": 0,
                                                                "time_ms": 1.0, "status": "ok"}]}))
    assert sssp_hops.main([path]) == 2
    assert capsys.readouterr().err.strip() == "error: no SSSP sample that ran in the files"


def test_help_says_what_it_does(capsys):
    with pytest.raises(SystemExit):
        sssp_hops.main(["--help"])
    assert sssp_hops.__doc__.splitlines()[0] in " ".join(capsys.readouterr().out.split())
