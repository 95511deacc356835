"""msbfs.bfs's direction replay (algorithms/bfs/gpu/msbfs/replay.py) against counts written
out here and the rule worked by hand, and scripts/msbfs_directions.py's table from a
results file (the graph stood in for by a sample graph): the passes in run order, each
pass's directions at each alpha, `same` only where they agree, a wrong input one line."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.msbfs import replay
from gpubfs_cli.graph import samples as sample_graphs
from gpubfs_cli.results.schema import SCHEMA_VERSION, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import msbfs_directions  # noqa: E402

GRAPH = sample_graphs.gnm(400, 3000, 3, directed=True, isolated=10, name="g")


def distances(sources):
    return np.stack([sequential_bfs(GRAPH, s).distances for s in sources])


def in_degrees():
    return np.bincount(GRAPH.col_indices, minlength=GRAPH.n)


CONNECTED = sample_graphs.gnm(300, 2000, 4, name="connected")  # undirected: every source reaches the others


@pytest.mark.parametrize("g,sources", [(GRAPH, [0, 5, 17]), (CONNECTED, [0, 5, 17]), (CONNECTED, [9])],
                         ids=["directed", "undirected", "one-source"])
def test_pass_counts_are_the_union_frontiers_and_the_in_edges_left(g, sources):
    dist = np.stack([sequential_bfs(g, s).distances for s in sources])
    out_deg, in_deg = g.out_degrees(), np.bincount(g.col_indices, minlength=g.n)
    n_f, m_f, m_u = replay.pass_counts(dist, out_deg, in_deg, g.m)
    assert len(n_f) == dist.max() + 1
    for L in range(len(n_f)):
        at = [v for v in range(g.n) if any(dist[i, v] == L for i in range(len(sources)))]
        assert n_f[L] == len(at) and m_f[L] == sum(int(out_deg[v]) for v in at)
        done = [v for v in range(g.n) if all(0 <= dist[i, v] <= L for i in range(len(sources)))]
        assert m_u[L] == g.m - sum(int(in_deg[v]) for v in done)
    assert m_u[0] < g.m if len(sources) == 1 else True  # the one source leaves m_u at once


def test_counts_worked_by_hand_where_the_deepest_vertex_lacks_a_source():
    """Every series has a level each even where no vertex of the last level is reached by
    every source (m_u's in-degree counts then end a level early); a vertex two sources
    share in a frontier counts once."""
    dist = np.array([[0, 1, 2, 1], [1, 0, -1, 1]])
    n_f, m_f, m_u = replay.pass_counts(dist, [1, 10, 100, 1000], [2, 20, 200, 2000], 2222)
    assert n_f.tolist() == [2, 3, 1] and m_f.tolist() == [11, 1011, 100]
    assert m_u.tolist() == [2222, 2222 - 2 - 20 - 2000, 2222 - 2 - 20 - 2000]


def test_the_rule_worked_by_hand():
    # n = 100, alpha 2, beta 10: level 2 (300 * 2 > 100) goes bottom-up, level 3 stays
    # (30 * 10 < 100 fails), level 4 goes back (5 * 10 < 100); the switch is strict.
    n_f, m_f, m_u = ([1, 5, 40, 30, 5, 1], [10, 60, 300, 200, 20, 3], [500, 400, 100, 20, 5, 2])
    assert replay.directions(n_f, m_f, m_u, 100, 2, 10) == [0, 0, 1, 1, 0, 1]
    assert replay.directions(n_f, m_f, m_u, 100, 2, 10, bottom_up=False) == [0] * 6
    assert replay.directions([2], [150], [300], 100, 2, 10) == [0]
    assert replay.directions([2], [150], [300], 100, 2.001, 10) == [1]  # thousandths, as the kernel
    # back top-down strictly below n / beta: a frontier of 10 (10 * 10 = 100) stays bottom-up
    assert replay.directions([1, 10, 9], [500, 1, 1], [100, 50, 40], 100, 10, 10) == [1, 1, 0]


def results(tmp_path, sources, size, knobs=None):
    knobs = {"width": 64, "alpha": 4.0, "beta": 18.0, **(knobs or {})}  # passes of `size`: the samples' batch
    samples = [{"dataset": "g", "strategy": "msbfs.bfs", "knobs": knobs, "source": s, "time_ms": 0.01 * (1 + i // size),
                "status": "ok", "batch": size} for i, s in enumerate(sources)]
    other = [{**samples[0], "strategy": "do.bfs"}, {**samples[0], "knobs": {**knobs, "alpha": 9.0}}]  # left out
    return str(write_results(tmp_path / "r.json", {"schema_version": SCHEMA_VERSION, "samples": samples + other,
                                                   "datasets": {}, "sources": {}}))


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(msbfs_directions, "ensure_dataset", lambda name, data_dir, progress: GRAPH)


def pass_directions(batch, alpha):
    counts = replay.pass_counts(distances(batch), GRAPH.out_degrees(), in_degrees(), GRAPH.m)
    return "".join("B" if b else "T" for b in replay.directions(*counts, GRAPH.n, alpha, 18.0))


def test_the_table_replays_each_pass_at_each_alpha(tmp_path, capsys, stand_in):
    sources = [0, 5, 17, 40, 41, 42, 99]  # two whole passes of 3, then a short one left out
    low, high = 0.5, 8.0
    assert msbfs_directions.main([results(tmp_path, sources, 3), "--alpha", str(low), str(high)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("g: 2 passes of 3, beta 18.0")
    rows = [line.split() for line in out[2:4]]
    for i, row in enumerate(rows):
        batch = sources[3 * i: 3 * i + 3]
        want = [pass_directions(batch, low), pass_directions(batch, high)]
        assert row[:3] == [str(i), str(batch[0]), f"{0.03 * (i + 1):.3f}"]
        assert row[3:5] == want and (row[5:] == ["same"]) == (want[0] == want[1])
    differ = sum(pass_directions(sources[3 * i: 3 * i + 3], low) != pass_directions(sources[3 * i: 3 * i + 3], high)
                 for i in range(2))
    assert differ > 0  # the two thresholds part on this graph
    assert out[4].strip() == f"g: {differ} of 2 passes take other directions"


def test_the_same_alpha_twice_is_the_same_pass(tmp_path, capsys, stand_in):
    # five sources: one whole pass of 3, the short one left out; alpha 0 (top-down only) is valid
    assert msbfs_directions.main([results(tmp_path, [0, 5, 17, 40, 41], 3), "--alpha", "4", "4", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("g: 1 passes of 3")
    row = out[2].split()
    assert set(row[-1]) == {"T"} and row[-2] == row[-3] != row[-1]  # alpha 0 parts from 4 here
    assert msbfs_directions.main([results(tmp_path, [0, 5, 17], 3), "--alpha", "4", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].split()[-1] == "same" and out[3].strip() == "g: 0 of 1 passes take other directions"


def test_wrong_input_is_one_line(tmp_path, capsys, stand_in):
    assert msbfs_directions.main([results(tmp_path, [0], 1), "--alpha", "4", "--only", "h"]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == "error: no msbfs.bfs sample that ran in the files" and captured.out == ""
    assert msbfs_directions.main([results(tmp_path, [0], 1), "--alpha", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "error: --alpha: a threshold is 0 or more"
