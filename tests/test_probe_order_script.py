"""scripts/probe_order.py: its level count and warp steps against a serial scan written
out here, the host transpose in do.bfs's order, and the table from a results file (the
graph stood in for by a sample graph), a count the file disagrees with, in either order,
flagged and exit 1."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.graph import samples as sample_graphs
from gpubfs_cli.results.schema import SCHEMA_VERSION, write_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import probe_order  # noqa: E402


def scan(offsets, cols, dist, level, hubs_first_by=None, batch=4):
    """(probes, warp steps) of a bottom-up step at `level`, each list scanned in order (or
    sorted by -hubs_first_by, stable) until its first neighbour labelled `level`; a warp
    of 32 consecutive vertices takes its longest lane's steps, the first probe one step
    and then `batch` probes a step."""
    total, lane_steps = 0, [0] * (len(offsets) - 1)
    for v in range(len(offsets) - 1):
        if 0 <= dist[v] <= level:
            continue
        lst = cols[offsets[v]:offsets[v + 1]].tolist()
        if hubs_first_by is not None:
            lst.sort(key=lambda u: -hubs_first_by[u])
        hit = next((i for i, u in enumerate(lst) if dist[u] == level), None)
        probes = len(lst) if hit is None else hit + 1
        total += probes
        lane_steps[v] = 0 if probes == 0 else 1 + math.ceil((probes - 1) / batch)
    return total, sum(max(lane_steps[w:w + 32]) for w in range(0, len(lane_steps), 32))


def test_level_probes_are_a_serial_scans():
    for g in (sample_graphs.rmat(8, 6, 4, permute=True), sample_graphs.broom(20, 150), sample_graphs.grid(9, 13)):
        dist = sequential_bfs(g, 3).distances
        for level in range(int(dist.max()) + 1):
            for batch in (1, 4):
                assert probe_order.level_probes(g.row_offsets, g.col_indices, dist, level, batch) == scan(
                    g.row_offsets, g.col_indices, dist, level, batch=batch), (g.name, level, batch)


def test_in_lists_of_a_directed_graph_are_its_transpose_in_source_order():
    g = sample_graphs.gnm(250, 900, 4, directed=True, name="directed")
    offsets, cols = probe_order.in_lists(g)
    rows = np.repeat(np.arange(g.n), g.out_degrees())
    for v in range(g.n):
        assert cols[offsets[v]:offsets[v + 1]].tolist() == sorted(rows[g.col_indices == v].tolist())
    u = sample_graphs.grid(9, 13)
    assert probe_order.in_lists(u)[1] is u.col_indices


def results(tmp_path, examined, directions, examined_hubs=None):
    counted = {"dataset": "g", "strategy": "do.bfs", "knobs": {"counters": True}, "source": 0, "time_ms": 0.1,
               "status": "ok", "counters": {"levels": len(directions), "direction": directions,
                                            "edges_examined": examined}}
    samples = [counted]
    if examined_hubs is not None:  # the same source with in_order: degree
        samples.append({**counted, "knobs": {"counters": True, "in_order": "degree"},
                        "counters": {**counted["counters"], "edges_examined": examined_hubs}})
    other = {**counted, "source": 1, "knobs": {"counters": True, "in_order": "degree"}}  # no stored twin: left out
    return write_results(tmp_path / "r.json", {"schema_version": SCHEMA_VERSION, "samples": [*samples, other],
                                               "datasets": {}, "sources": {}})


def test_the_table_checks_both_orders_counts_and_gives_the_warp_steps(tmp_path, capsys, monkeypatch):
    g = sample_graphs.rmat(8, 6, 4, permute=True)
    monkeypatch.setattr(probe_order, "ensure_dataset", lambda name, data_dir, progress: g)
    dist = sequential_bfs(g, 0).distances
    directions = [0] + [1] * int(dist.max())
    deg = g.out_degrees()
    stored = [scan(g.row_offsets, g.col_indices, dist, L) for L in range(len(directions))]
    hubs = [scan(g.row_offsets, g.col_indices, dist, L, deg) for L in range(len(directions))]
    examined = [stored[L][0] if d else 7 for L, d in enumerate(directions)]
    examined_hubs = [hubs[L][0] if d else 7 for L, d in enumerate(directions)]
    assert any(h[0] != s[0] for h, s in zip(hubs, stored, strict=True))  # the orders differ on this graph
    for with_hubs in (None, examined_hubs):
        assert probe_order.main([str(results(tmp_path, examined, directions, with_hubs))]) == 0
        rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
        assert [int(r[2]) for r in rows] == list(range(1, len(directions)))  # the source-1 sample left out
        for r in rows:
            level = int(r[2])
            assert int(r[4].replace(",", "")) == examined[level]
            assert r[5] == ("-" if with_hubs is None else f"{examined_hubs[level]:,}")
            assert int(r[6].replace(",", "")) == hubs[level][0]
            assert (int(r[8].replace(",", "")), int(r[9].replace(",", ""))) == (stored[level][1], hubs[level][1])
    for wrong_stored, wrong_hubs in ((1, 0), (0, 1)):
        wrong, wrong_h = list(examined), list(examined_hubs)
        wrong[1] += wrong_stored
        wrong_h[1] += wrong_hubs
        assert probe_order.main([str(results(tmp_path, wrong, directions, wrong_h))]) == 1
        assert "MISMATCH" in capsys.readouterr().out


def test_a_file_without_counters_is_refused(tmp_path, capsys):
    path = write_results(tmp_path / "r.json", {"schema_version": SCHEMA_VERSION, "datasets": {}, "sources": {},
                                               "samples": [{"dataset": "g", "strategy": "do.bfs", "knobs": {},
                                                            "source": 0, "time_ms": 0.1, "status": "ok",
                                                            "counters": {"levels": 2}}]})
    assert probe_order.main([str(path)]) == 2
    assert "no do.* sample with per-level counters" in capsys.readouterr().err
