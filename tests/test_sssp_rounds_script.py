"""scripts/sssp_rounds.py: near-far replayed round by round, against rounds and buckets
worked by hand on a weighted path, against cpu.dijkstra on sample graphs at every width
(rounds never below the BFS depth, one bucket at the widest), and the table from a results
file (the graph stood in for by a sample graph): the sample's own width beside the
--scales ones, the counted figures beside the replay's, bad input refused."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.algorithms.sssp.gpu.delta.strategies import MAX_DELTA, default_delta
from gpubfs_cli.graph import samples
from gpubfs_cli.results.schema import SCHEMA_VERSION, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import sssp_rounds  # noqa: E402


def weighted_path():
    """0 - 1 - 2 - 3 - 4, weights 1, 5, 1, 5 (undirected)."""
    return samples.from_edges(np.array([0, 1, 2, 3]), np.array([1, 2, 3, 4]), 5,
                              weights=np.array([1, 5, 1, 5]), name="path-w")


def test_rounds_and_buckets_worked_by_hand():
    g = weighted_path()
    w = np.asarray(g.weights, dtype=np.int64)
    # One bucket: a round a hop, the last finding nothing new (vertex 4 relaxes back to 3).
    one = sssp_rounds.near_far(g, w, 0, MAX_DELTA)
    assert (one.buckets, one.rounds) == (1, 5)
    assert one.distances.tolist() == [0, 1, 6, 7, 12]
    # Width 2: [0, 2) holds 0 and 1 (rounds 1-2); 2 goes far at 6, whose bucket [6, 8) holds 2
    # and 3 (rounds 3-4); 4 goes far at 12, bucket [12, 14) (round 5).
    two = sssp_rounds.near_far(g, w, 0, 2)
    assert (two.buckets, two.rounds) == (3, 5)
    # relaxations: every edge of each round's frontier, both directions
    assert one.relaxations == 1 + 2 + 2 + 2 + 1
    assert two.relaxations == 1 + 2 + 2 + 2 + 1


def test_a_distance_at_the_buckets_end_waits_for_the_next_bucket():
    """The bucket is [hi - delta, hi), as delta.cu's `nd < hi`: a distance of exactly hi
    goes to the far pile, in a round and at a bucket change alike."""
    path = samples.from_edges(np.array([0, 1]), np.array([1, 2]), 3, weights=np.array([1, 1]), name="p")
    # width 2: 1 (at 1) joins round 2; 2 (at 2 = hi) goes far; the next bucket [2, 4) takes it
    got = sssp_rounds.near_far(path, np.asarray(path.weights, dtype=np.int64), 0, 2)
    assert (got.buckets, got.rounds) == (2, 3)
    # a star 0 -> a (3), 0 -> b (4), width 2: the bucket change to [2, 4) takes a, not b (at 4)
    star = samples.from_edges(np.array([0, 0]), np.array([1, 2]), 3, weights=np.array([3, 4]), name="s")
    got = sssp_rounds.near_far(star, np.asarray(star.weights, dtype=np.int64), 0, 2)
    assert (got.buckets, got.rounds) == (3, 3)
    assert got.distances.tolist() == [0, 3, 4]


@pytest.mark.parametrize("make", [
    lambda: samples.with_rule_weights(samples.grid(12, 15), seed=3),
    lambda: samples.with_rule_weights(samples.rmat(10, 8, 4, permute=True), seed=4),
    lambda: samples.with_rule_weights(samples.gnm(400, 1500, 2, directed=True, isolated=10, name="d"), seed=5),
])
def test_every_width_gives_dijkstras_distances(make):
    g = make()
    w = np.asarray(g.weights, dtype=np.int64)
    for source in samples.pick_sources(g, k=3):
        ref = dijkstra(g, source).distances
        depth = int(sequential_bfs(g, source).distances.max())
        for delta in (1, default_delta(g), default_delta(g, 8.0), MAX_DELTA):
            got = sssp_rounds.near_far(g, w, source, delta)
            np.testing.assert_array_equal(got.distances, ref)
            assert got.rounds >= depth and got.buckets >= 1
            assert got.relaxations >= int(g.out_degrees()[ref >= 0].sum())
        assert sssp_rounds.near_far(g, w, source, MAX_DELTA).buckets == 1


GRAPH = samples.with_rule_weights(samples.grid(9, 11), seed=6)
SOURCE = 5


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(sssp_rounds, "ensure_dataset", lambda name, data_dir, progress: GRAPH)


def results(tmp_path, counters=None, strategy="sssp.near_far"):
    sample = {"dataset": "g", "strategy": strategy, "source": SOURCE, "time_ms": 0.5, "status": "ok",
              "problem": "sssp", "counters": counters or {}}
    return str(write_results(tmp_path / "r.json", {"schema_version": SCHEMA_VERSION, "samples": [sample],
                                                   "datasets": {}, "sources": {}}))


def rows(capsys):
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["graph", "source", "ms"]
    return [line.split() for line in out[1:]]


def test_the_table_replays_the_samples_width_and_the_scales(tmp_path, capsys, stand_in):
    w = np.asarray(GRAPH.weights, dtype=np.int64)
    own = default_delta(GRAPH) * 3
    counted = {"delta": own, "buckets": 4, "light_rounds": 30, "relaxations": 2000}
    assert sssp_rounds.main([results(tmp_path, counted), "--scales", "0.5", "1000"]) == 0
    first, *scaled = rows(capsys)
    mine = sssp_rounds.near_far(GRAPH, w, SOURCE, own)
    depth = int(sequential_bfs(GRAPH, SOURCE).distances.max())
    assert first == ["g", str(SOURCE), "0.500", f"{own:,}", str(depth), str(mine.buckets), str(mine.rounds),
                     f"{mine.relaxations:,}", "4", "30", "2,000"]
    for row, scale in zip(scaled, (0.5, 1000), strict=True):
        other = sssp_rounds.near_far(GRAPH, w, SOURCE, default_delta(GRAPH, scale))
        assert row == ["g", str(SOURCE), "0.500", f"{default_delta(GRAPH, scale):,}", f"{scale:g}", str(depth),
                       str(other.buckets), str(other.rounds), f"{other.relaxations:,}"]


def test_only_takes_the_samples_of_the_graphs_it_names(tmp_path, capsys, stand_in):
    doc = {"schema_version": SCHEMA_VERSION, "datasets": {}, "sources": {}, "samples": [
        {"dataset": name, "strategy": "sssp.near_far", "source": SOURCE, "time_ms": ms, "status": "ok",
         "problem": "sssp", "counters": {}} for name, ms in (("g", 0.25), ("h", 0.5))]}
    path = str(write_results(tmp_path / "two.json", doc))
    assert sssp_rounds.main([path, "--only", "h"]) == 0
    assert [row[:3] for row in rows(capsys)] == [["h", str(SOURCE), "0.500"]]
    assert sssp_rounds.main([path]) == 0
    assert [row[0] for row in rows(capsys)] == ["g", "h"]


def test_an_unweighted_graph_gets_the_runs_weights(monkeypatch):
    """A graph stored without weights gets them as a run does (ensure_weights); one with
    weights keeps its own."""
    plain = samples.grid(4, 5)
    calls = []

    def weigh(g, data_dir):
        calls.append(g)
        return samples.with_rule_weights(g, seed=1)

    monkeypatch.setattr(sssp_rounds, "ensure_weights", weigh)
    monkeypatch.setattr(sssp_rounds, "ensure_dataset", lambda name, data_dir, progress: plain)
    g, w = sssp_rounds.weighted("plain", None)
    assert calls == [plain] and g.weights is not None and len(w) == g.m
    monkeypatch.setattr(sssp_rounds, "ensure_dataset", lambda name, data_dir, progress: GRAPH)
    g, w = sssp_rounds.weighted("g", None)
    assert len(calls) == 1 and g is GRAPH


def test_help_says_what_it_does(capsys):
    with pytest.raises(SystemExit):
        sssp_rounds.main(["--help"])
    assert sssp_rounds.__doc__.splitlines()[0] in " ".join(capsys.readouterr().out.split())


def test_no_sample_and_bad_scales_are_one_line(tmp_path, capsys, stand_in):
    assert sssp_rounds.main([results(tmp_path, strategy="sssp.delta")]) == 2
    assert capsys.readouterr().err.strip() == "error: no sssp.near_far sample that ran in the files"
    assert sssp_rounds.main([results(tmp_path), "--scales", "0"]) == 2
    assert capsys.readouterr().err.strip() == "error: --scales: each must be above 0"
