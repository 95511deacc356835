"""scripts/level_shape.py: the per-level counts against loops written out here, the
direction rule on counts worked by hand (both rules, and top-down only), and the table
from a results file (the graph stood in for by a sample graph): work per direction, the
sample's in-list order, a counted direction the replay disagrees with flagged and exit 1,
other knobs replayed, a wrong knob refused."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.do.strategies import DoKnobs
from gpubfs_cli.graph import samples as sample_graphs
from gpubfs_cli.graph.list_order import hubs_first
from gpubfs_cli.results.schema import SCHEMA_VERSION, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import level_shape  # noqa: E402
import probe_order  # noqa: E402


def test_level_sizes_are_the_frontiers_and_the_in_edges_left():
    g = sample_graphs.gnm(300, 1200, 5, directed=True, isolated=20, name="directed")
    offsets, _ = probe_order.in_lists(g)
    in_deg, out_deg = np.diff(offsets), g.out_degrees()
    dist = sequential_bfs(g, 0).distances
    n_f, m_f, m_u = level_shape.level_sizes(dist, out_deg, in_deg, int(offsets[-1]))
    assert len(n_f) == dist.max() + 1
    for L in range(len(n_f)):
        at = [v for v in range(g.n) if dist[v] == L]
        assert n_f[L] == len(at)
        assert m_f[L] == sum(int(out_deg[v]) for v in at)
        assert m_u[L] == sum(int(in_deg[v]) for v in range(g.n) if not 0 <= dist[v] <= L)


def test_the_rule_on_counts_worked_by_hand():
    # n = 100, alpha 2, beta 10. Level 2: 300 * 2 > 100 and the frontier grew: bottom-up.
    # Level 3: 30 * 10 < 100 fails: stays. Level 4: 50 < 100 and it shrank: top-down.
    # Level 5: 3 * 2 > 2, but the frontier (1) did not grow: top-down with growth only.
    n_f, m_f, m_u = (np.array(a) for a in ([1, 5, 40, 30, 5, 1], [10, 60, 300, 200, 20, 3],
                                           [500, 400, 100, 20, 5, 2]))
    assert level_shape.replay(n_f, m_f, m_u, 100, DoKnobs(alpha=2, beta=10)) == [0, 0, 1, 1, 0, 0]
    assert level_shape.replay(n_f, m_f, m_u, 100, DoKnobs(alpha=2, beta=10, growth=False)) == [0, 0, 1, 1, 0, 1]
    assert level_shape.replay(n_f, m_f, m_u, 100, DoKnobs(alpha=2, beta=10, bottom_up=False)) == [0] * 6
    # the switch is strict: 150 * 2 is not more than 300
    assert level_shape.replay(*(np.array([a]) for a in (2, 150, 300)), 100, DoKnobs(alpha=2)) == [0]


def test_the_switch_back_at_betas_boundary_worked_by_hand():
    """do.cu leaves bottom-up when n_f * beta < n, strictly, beta in thousandths (as alpha).
    n = 100, beta 10: a shrinking frontier of 10 vertices (10 * 10 = 100, not less) stays
    bottom-up; one of 9 goes back top-down. Beta 10.0004 rounds to 10,000 thousandths and
    keeps 10 vertices bottom-up; 10.0006 rounds to 10,001 and keeps them too; 9.9994 rounds
    to 9,999 (10 * 9,999 < 100 * 1,000) and goes back."""
    def run(last_nf, beta):
        n_f, m_f, m_u = (np.array(a) for a in ([1, 40, 20, last_nf], [10, 300, 100, 12], [500, 100, 30, 10]))
        return level_shape.replay(n_f, m_f, m_u, 100, DoKnobs(alpha=2, beta=beta))

    assert run(10, 10) == [0, 1, 1, 1]
    assert run(9, 10) == [0, 1, 1, 0]
    assert run(10, 10.0004) == [0, 1, 1, 1]
    assert run(10, 10.0006) == [0, 1, 1, 1]
    assert run(10, 9.9994) == [0, 1, 1, 0]
    # n = 1000: level 2's frontier of 50 is under n / beta but grew (40 -> 50): with the growth
    # rule it stays bottom-up and level 3's (5, shrinking) goes back; without it level 2 goes
    # back at once and level 3 (m_f 12 * 2 > m_u 10) switches again.
    n_f, m_f, m_u = (np.array(a) for a in ([1, 40, 50, 5], [10, 300, 100, 12], [500, 100, 30, 10]))
    assert level_shape.replay(n_f, m_f, m_u, 1000, DoKnobs(alpha=2, beta=10)) == [0, 1, 1, 0]
    assert level_shape.replay(n_f, m_f, m_u, 1000, DoKnobs(alpha=2, beta=10, growth=False)) == [0, 1, 0, 1]


def test_alpha_is_read_in_thousandths_as_do_cu_reads_it():
    """alpha 0.5 is exactly 500 thousandths: 2,001 frontier edges against 1,000 unvisited
    in-edges go bottom-up (2,001 * 0.5 > 1,000), 2,000 do not; alpha 2.0004 is 2,000
    thousandths, so 150 * 2 is still not more than 300."""
    def level0(mf, mu, alpha):
        return level_shape.replay(np.array([1]), np.array([mf]), np.array([mu]), 100, DoKnobs(alpha=alpha))

    assert level0(2001, 1000, 0.5) == [1] and level0(2000, 1000, 0.5) == [0]
    assert level0(150, 300, 2.0004) == [0]


def test_the_source_s_level_can_go_bottom_up():
    """do.cu's last frontier starts at 0: a source whose edges outweigh the rest (300 * 2 >
    100) grew from nothing and takes level 0 bottom-up, with the growth rule too."""
    n_f, m_f, m_u = (np.array(a) for a in ([1, 200], [300, 10], [100, 5]))
    assert level_shape.replay(n_f, m_f, m_u, 100, DoKnobs(alpha=2, beta=10)) == [1, 1]


GRAPH = sample_graphs.rmat(9, 8, 4, permute=True)
SOURCE = 1  # alpha 4 takes levels 2 and 3 bottom-up from it; alpha 48 level 1 as well


def results(tmp_path, directions=None, knobs=None):
    sample = {"dataset": "g", "strategy": "do.bfs", "knobs": {"alpha": 4.0, **(knobs or {})}, "source": SOURCE,
              "time_ms": 0.25, "status": "ok"}
    if directions is not None:
        sample["counters"] = {"levels": len(directions), "direction": directions}
    other = {**sample, "strategy": "peer.gunrock"}  # not do.*: left out
    return str(write_results(tmp_path / "r.json", {"schema_version": SCHEMA_VERSION, "samples": [sample, other],
                                                   "datasets": {}, "sources": {}}))


def rows(capsys):
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["graph", "strategy", "source"]
    return [line.split() for line in out[1:]]


def expected(knobs, order=None):
    """(directions, top-down edges, bottom-up probes) for GRAPH from source 0 with `knobs`."""
    offsets, cols = probe_order.in_lists(GRAPH)
    cols = cols if order is None else order(np, offsets, cols, GRAPH.out_degrees())
    dist = sequential_bfs(GRAPH, SOURCE).distances
    n_f, m_f, m_u = level_shape.level_sizes(dist, GRAPH.out_degrees(), np.diff(offsets), int(offsets[-1]))
    dirs = level_shape.replay(n_f, m_f, m_u, GRAPH.n, knobs)
    td = sum(int(m_f[L]) for L, b in enumerate(dirs) if not b)
    bu = sum(probe_order.level_probes(offsets, cols, dist, L, knobs.probe_batch)[0] for L, b in enumerate(dirs) if b)
    return dirs, td, bu


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(level_shape, "ensure_dataset", lambda name, data_dir, progress: GRAPH)


def test_the_table_gives_each_directions_work(tmp_path, capsys, stand_in):
    dirs, td, bu = expected(DoKnobs(alpha=4.0))
    assert 0 < sum(dirs) < len(dirs) and td > 0 and bu > 0  # both directions on this graph
    assert level_shape.main([results(tmp_path, dirs)]) == 0
    (row,) = rows(capsys)
    assert row[:5] == ["g", "do.bfs", str(SOURCE), "0.250", str(len(dirs) - 1)]
    assert row[5] == "".join("B" if b else "T" for b in dirs)
    assert (int(row[6].replace(",", "")), int(row[7].replace(",", ""))) == (td, bu)
    # a sample that kept counters the replay disagrees with
    wrong = [1 - dirs[0], *dirs[1:]]
    assert level_shape.main([results(tmp_path, wrong)]) == 1
    assert "MISMATCH" in capsys.readouterr().out
    # --counted takes only samples with counters: none here
    assert level_shape.main([results(tmp_path), "--counted"]) == 2
    assert "no do.* sample that ran with per-level counters" in capsys.readouterr().err


def test_only_takes_the_samples_of_the_graphs_it_names(tmp_path, capsys, stand_in):
    path = results(tmp_path)
    doc = json.loads(Path(path).read_text())
    doc["samples"].append({**doc["samples"][0], "dataset": "h", "time_ms": 0.5})
    path = str(write_results(tmp_path / "two.json", doc))
    assert level_shape.main([path, "--only", "h"]) == 0
    assert [row[:4] for row in rows(capsys)] == [["h", "do.bfs", str(SOURCE), "0.500"]]
    assert level_shape.main([path]) == 0
    assert [row[0] for row in rows(capsys)] == ["g", "h"]


def test_hubs_first_samples_probe_in_their_order(tmp_path, capsys, stand_in):
    stored = expected(DoKnobs(alpha=4.0))
    hubs = expected(DoKnobs(alpha=4.0, in_order="degree"), hubs_first)
    assert stored[2] != hubs[2]  # the orders differ on this graph
    assert level_shape.main([results(tmp_path, knobs={"in_order": "degree"})]) == 0
    (row,) = rows(capsys)
    assert int(row[7].replace(",", "")) == hubs[2]


def test_other_knobs_are_replayed_and_a_wrong_one_refused(tmp_path, capsys, stand_in):
    dirs, _, _ = expected(DoKnobs(alpha=4.0))
    # top-down only: every level's frontier edges, and the counted directions not checked
    assert level_shape.main([results(tmp_path, dirs), "--knobs", "bottom_up=false", "--levels"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split()[5] == "T" * len(dirs)
    reached = sequential_bfs(GRAPH, SOURCE).distances >= 0
    assert int(out[1].split()[6].replace(",", "")) == int(GRAPH.out_degrees()[reached].sum())
    assert sum("top-down" in line for line in out[2:]) == len(dirs)
    # alpha 48 goes bottom-up a level sooner than the sample's alpha 4, and probes more
    assert level_shape.main([results(tmp_path, dirs), "--knobs", "alpha=48"]) == 0
    (row,) = rows(capsys)
    sooner = expected(DoKnobs(alpha=48.0))
    assert sooner[0] != dirs and row[5] == "".join("B" if b else "T" for b in sooner[0])
    assert int(row[7].replace(",", "")) == sooner[2] > expected(DoKnobs(alpha=4.0))[2]
    for bad, message in ((["alph=4"], "do.bfs has no knob alph"), (["alpha=-1"], "alpha must be")):
        assert level_shape.main([results(tmp_path), "--knobs", *bad]) == 2
        captured = capsys.readouterr()
        assert message in captured.err and captured.out == ""
