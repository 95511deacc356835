"""validate: certificate. An answer with a parent tree is proved by its certificate (the
problem's certify: a tight, acyclic tree to the source and no edge left to relax), with
no baseline solved; one without parents by its distances alone (no edge left to relax,
and a tight in-edge into every reached vertex but the source) where every weight is
positive, with no baseline solved either; on a graph with a zero weight, against its
source's baseline, solved then. Every damaged answer of test_runner_answers gets the same
verdict as under validate: all; only an answer whose parents were asked for and are
missing, or one without parents on a zero-weight graph, costs a baseline."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs
from gpubfs_cli.algorithms.sssp.cpu.dijkstra import DijkstraSssp
from gpubfs_cli.bench import inputs as inputs_module
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.references import References
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.graph.samples import from_edges
from tests.bench.test_runner_answers import CASES, SOURCE, bfs_graph, fake, sssp_graph


def run(tmp_path, monkeypatch, problem, strategy_cls, predecessors, graph=None):
    graph = graph or (bfs_graph() if problem == "bfs" else sssp_graph())
    baseline = SequentialBfs if problem == "bfs" else DijkstraSssp
    registry = {problem: {baseline.name: baseline, strategy_cls.name: strategy_cls}}
    solved = []

    class Spy(References):
        def _solve(self, source):
            solved.append(source)
            return super()._solve(source)

    monkeypatch.setattr(inputs_module, "References", Spy)
    cfg = build_config(
        {"name": "t", "datasets": [graph.name], "strategies": [strategy_cls.name], "problem": problem,
         "fixed_sources": [SOURCE], "warmup": 0, "predecessors": predecessors, "validate": "certificate"},
        dataset_check=lambda name: None, registry=registry,
    )
    doc = Runner(cfg, load_graph=lambda spec, d, p: (graph, {}), out_path=tmp_path / "out.json",
                 environment={}, registry=registry).run().doc
    return doc, solved


@pytest.mark.parametrize(("problem", "damage", "parents", "status", "reason"), CASES)
def test_every_wrong_answer_is_caught_without_a_baseline_where_parents_prove_it(
        tmp_path, monkeypatch, problem, damage, parents, status, reason):
    doc, solved = run(tmp_path, monkeypatch, problem, fake(problem, damage), "true" if parents else "false")
    (s,) = doc["samples"]
    assert s["status"] == status, s["reason"]
    assert s["valid"] is (status == "ok")
    assert doc["config"]["validate"] == "certificate"
    missing = parents and damage.__name__ == "parents_missing"
    assert solved == ([SOURCE] if missing else [])  # a baseline only where asked-for parents are missing
    if not missing and status != "ok":
        check = s["reason"].split(":")[0]  # the certificate's check, named as the validators name theirs
        assert check in {"source", "relax", "component", "root", "reach", "tree-edge", "tight", "cycle", "levels",
                         "edge-span", "shape", "whole", "support", "distances have shape (35,), expected (36,)"}, s["reason"]


@pytest.mark.parametrize("problem", ["bfs", "sssp"])
def test_distances_too_short_yet_relaxed_are_caught_by_their_support(tmp_path, monkeypatch, problem):
    """Every vertex at half its distance (rounded down) relaxes every edge, since nothing
    got longer, and only the support check (no tight in-edge gives the distance) catches
    it; with no baseline solved."""
    def halved(g, d, p):
        return np.where(d > 0, d // 2, d), p

    doc, solved = run(tmp_path, monkeypatch, problem, fake(problem, halved), "false")
    (s,) = doc["samples"]
    assert s["status"] == "wrong-answer" and s["reason"].startswith("support:"), s["reason"]
    assert solved == []


def test_a_zero_weight_graph_checks_answers_without_parents_against_the_baseline(tmp_path, monkeypatch):
    """A zero-weight cycle supports any distance, so the distances alone prove nothing
    there: the baseline is solved and a made-up distance on the cycle differs from it."""
    src = np.array([0, 1, 0, 2, 2, 3])
    dst = np.array([1, 0, 2, 0, 3, 2])
    g = from_edges(src, dst, 4, weights=np.array([5, 5, 1, 1, 0, 0]), name="zw", self_loops="drop",
                   duplicates="drop")

    def made_up(g, d, p):
        d[2] = d[3] = 0  # relaxed, and each the other's tight in-edge
        return d, p

    doc, solved = run(tmp_path, monkeypatch, "sssp", fake("sssp", made_up), "false", graph=g)
    (s,) = doc["samples"]
    assert s["status"] == "wrong-answer" and s["reason"].startswith("distances differ"), s["reason"]
    assert solved == [SOURCE]
    doc, solved = run(tmp_path, monkeypatch, "sssp", DijkstraSssp, "false", graph=g)
    assert [x["status"] for x in doc["samples"]] == ["ok"] and solved == [SOURCE]


def test_a_zero_weight_cycle_claiming_a_distance_is_caught(tmp_path, monkeypatch):
    """Two vertices joined by zero-weight edges, unreachable from the source, each the
    other's parent at a made-up distance: every edge relaxed and tight, so only the
    cycle check (the tree does not reach the source) catches it."""
    src = np.array([0, 1, 2, 3, 3, 2])
    dst = np.array([1, 0, 3, 2, 2, 3])
    g = from_edges(src, dst, 4, weights=np.array([5, 5, 0, 0, 0, 0]), name="zc", self_loops="drop",
                   duplicates="drop")

    def cycle(g, d, p):
        d[2] = d[3] = 7
        p[2], p[3] = 3, 2
        return d, p

    doc, solved = run(tmp_path, monkeypatch, "sssp", fake("sssp", cycle), "true", graph=g)
    (s,) = doc["samples"]
    assert s["status"] == "wrong-answer" and "cycle:" in s["reason"] and solved == []


def test_the_flag_runs_a_catalogue_graph_by_certificate_and_a_typo_is_one_line(tmp_path):
    from typer.testing import CliRunner

    from gpubfs_cli.cli import app
    from gpubfs_cli.results.schema import load_results

    cli = CliRunner()
    out = tmp_path / "r.json"
    args = ["run", "-d", "smoke-gnm", "-s", "cpu.sequential", "--predecessors", "true", "--sources", "3",
            "--dir", str(tmp_path / "data"), "--out", str(out)]
    r = cli.invoke(app, [*args, "--validate", "certificate"])
    assert r.exit_code == 0, r.output
    doc = load_results(out)
    assert doc["config"]["validate"] == "certificate"
    assert [(s["status"], s["valid"]) for s in doc["samples"]] == [("ok", True)] * 3
    r = cli.invoke(app, [*args, "--validate", "certificat"])
    assert r.exit_code == 2 and "did you mean: certificate?" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("problem", ["bfs", "sssp"])
def test_a_certified_run_records_the_depth_probe(tmp_path, monkeypatch, problem):
    """No references, yet the dataset records depth_probe (auto's depth feature, the
    default delta's input): the probe's value on the run's graph."""
    from gpubfs_cli.algorithms.bfs.probe import probe_depth

    graph = bfs_graph() if problem == "bfs" else sssp_graph()
    strategy = SequentialBfs if problem == "bfs" else DijkstraSssp
    doc, _ = run(tmp_path, monkeypatch, problem, strategy, predecessors=True, graph=graph)
    info = doc["datasets"][graph.name]
    assert info["depth_probe"] == pytest.approx(probe_depth(graph)) and info["depth_probe"] > 0
