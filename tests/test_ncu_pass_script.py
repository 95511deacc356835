"""scripts/device/ncu_pass.py on the CPU (a CPU strategy and a sample graph stand in for a
GPU strategy and a catalogue graph): a one-source strategy is called once a call from the
first source, a batch strategy with its width of sources (a knob given as `gpubfs run
-s` spells it); an SSSP strategy gets the graph with its weights; a bad name or knob is
one line and status 2."""

from __future__ import annotations

import sys
from pathlib import Path

from gpubfs_cli.core.strategy import all_strategies
from gpubfs_cli.graph import samples as sample_graphs

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts" / "device"))
import ncu_pass  # noqa: E402

GRAPH = sample_graphs.gnm(300, 1200, 5, directed=False, isolated=0, name="sample")


WEIGHTED = sample_graphs.grid(6, 6, weight=3, name="weighted")


def stand_in(monkeypatch):
    import gpubfs_cli.bench.inputs as inputs
    import gpubfs_cli.datasets.prepare as prepare

    monkeypatch.setattr(prepare, "ensure_dataset", lambda name, progress: GRAPH)
    monkeypatch.setattr(inputs, "default_weights", lambda graph, data_dir: WEIGHTED)


def test_each_call_answers_the_first_source_or_the_whole_batch(monkeypatch, capsys):
    stand_in(monkeypatch)
    seen = []
    one, batch = all_strategies("bfs")["cpu.sequential"], all_strategies("bfs")["cpu.msbfs"]
    monkeypatch.setattr(one, "traverse", lambda self, s, predecessors=False, f=one.traverse: seen.append(s) or f(self, s))
    monkeypatch.setattr(batch, "traverse_batch",
                        lambda self, ss, predecessors=False, f=batch.traverse_batch: seen.append(list(ss)) or f(self, ss))
    assert ncu_pass.main(["cpu.sequential", "x", "--calls", "3"]) == 0
    assert len(seen) == 3 and len(set(seen)) == 1 and isinstance(seen[0], int)
    assert "3 calls of 1 source(s)" in capsys.readouterr().out
    seen.clear()
    assert ncu_pass.main(["cpu.msbfs[width=32]", "x"]) == 0  # the knob reaches the strategy
    assert len(seen) == 2 and seen[0] == seen[1] and len(set(seen[0])) == 32
    assert "2 calls of 32 source(s)" in capsys.readouterr().out


def test_a_bad_name_or_knob_is_one_line(monkeypatch, capsys):
    stand_in(monkeypatch)
    assert ncu_pass.main(["cpu.nothing", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "cpu.nothing" in err
    assert ncu_pass.main(["cpu.sequential[nosuch=1]", "x"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "nosuch" in err


def test_an_sssp_strategy_gets_the_graph_with_its_weights(monkeypatch, capsys):
    stand_in(monkeypatch)
    got = []
    one = all_strategies("sssp")["cpu.dijkstra"]
    monkeypatch.setattr(one, "traverse", lambda self, s, predecessors=False, f=one.traverse:
                        got.append(self.graph) or f(self, s))
    assert ncu_pass.main(["cpu.dijkstra", "x", "--problem", "sssp", "--calls", "1"]) == 0
    assert got == [WEIGHTED]
    assert ncu_pass.main(["cpu.sequential", "x", "--problem", "sssp"]) == 2  # a BFS strategy
    assert "unknown sssp strategy 'cpu.sequential'" in capsys.readouterr().err
