"""The runner on graphs built here: sample fields and values, and every failure cell."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.networkx_ref import NetworkxBfs
from gpubfs_cli.algorithms.bfs.cpu.scipy_ref import ScipyBfs
from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import Strategy, StrategyUnavailable
from gpubfs_cli.graph.samples import disjoint, grid
from gpubfs_cli.results.schema import load_results
from gpubfs_cli.results.status import classify

SAMPLE_FIELDS = {
    "dataset", "strategy", "knobs", "source", "time_ms", "reached", "depth", "edges",
    "valid", "status", "predecessors", "reason", "low_reach", "edges_graph500", "counters",
}


class Base(Strategy):
    paper = "cpu"
    section = "test"

    def traverse(self, source, predecessors=False):
        return sequential_bfs(self.graph, source, predecessors)


class WrongAnswer(Base):
    name = "fake.wrong"

    def traverse(self, source, predecessors=False):
        r = sequential_bfs(self.graph, source, predecessors)
        d = r.distances.copy()
        far = int(np.argmax(d))
        d[far] += 1
        return Answer(d, r.parents, r.counters)


class Slow(Base):
    name = "fake.slow"

    def traverse(self, source, predecessors=False):
        time.sleep(0.06)
        return super().traverse(source, predecessors)


class OutOfMemoryError(Exception):
    """Named like cupy.cuda.memory.OutOfMemoryError."""


class NoMemory(Base):
    name = "fake.oom"

    def traverse(self, source, predecessors=False):
        raise OutOfMemoryError("Out of memory allocating 1,024 bytes")


class HostMemory(Base):
    name = "fake.hostmem"

    def prepare(self, graph):
        raise MemoryError()


class Unavailable(Base):
    name = "fake.unavailable"

    @classmethod
    def unavailable_reason(cls):
        return "needs a flux capacitor"


class TooBig(Base):
    name = "fake.toobig"

    def prepare(self, graph):
        raise StrategyUnavailable(f"graph of {graph.m} edges is too big")


class Broken(Base):
    name = "fake.broken"

    def traverse(self, source, predecessors=False):
        raise ValueError("index 7 is out of bounds\nsecond line")


class Interrupting(Base):
    name = "fake.interrupt"
    calls = 0

    def traverse(self, source, predecessors=False):
        Interrupting.calls += 1
        if Interrupting.calls == 3:
            raise KeyboardInterrupt
        return super().traverse(source, predecessors)


class NoParents(Base):
    name = "fake.noparents"
    supports_predecessors = False


class Turns(Base):
    """Records (strategy, source) of every traversal, in order (run with warmup 0)."""
    name = "fake.turn_a"
    log: list = []

    def traverse(self, source, predecessors=False):
        Turns.log.append((self.name, int(source)))
        return super().traverse(source, predecessors)


class TurnsB(Turns):
    name = "fake.turn_b"


class TurnsC(Turns):
    name = "fake.turn_c"


REGISTRY = {"bfs": {
    c.name: c
    for c in (
        SequentialBfs, ScipyBfs, NetworkxBfs, WrongAnswer, Slow, NoMemory, HostMemory,
        Unavailable, TooBig, Broken, Interrupting, NoParents, Turns, TurnsB, TurnsC,
    )
}}


def run(tmp_path, graphs, strategies, metas=None, **raw):
    raw = {"name": "t", "datasets": [g.name for g in graphs], "strategies": strategies, **raw}
    cfg = build_config(raw, dataset_check=lambda name: None, registry=REGISTRY)
    by_name = {g.name: g for g in graphs}
    metas = metas or {}
    runner = Runner(
        cfg,
        load_graph=lambda spec, data_dir, progress: (by_name[spec.name], metas.get(spec.name, {})),
        out_path=tmp_path / "out.json",
        environment={"git_commit": None, "command_line": "test"},
        registry=REGISTRY,
    )
    outcome = runner.run()
    assert outcome.path == tmp_path / "out.json"
    return outcome, load_results(outcome.path)


def samples(doc, strategy, **match):
    return [
        s for s in doc["samples"]
        if s["strategy"] == strategy and all(s[k] == v for k, v in match.items())
    ]


def cell(doc, strategy, dataset=None, predecessors=False):
    return next(
        s for s in doc["summaries"]
        if s["strategy"] == strategy and s["predecessors"] == predecessors
        and (dataset is None or s["dataset"] == dataset)
    )


def test_samples_carry_every_field_with_the_right_values(tmp_path):
    g = grid(10, 10, name="grid10")
    outcome, doc = run(tmp_path, [g], ["cpu.sequential", "cpu.scipy"], sources=4, seed=1, predecessors="both")
    assert not outcome.interrupted and doc["interrupted"] is False
    sources = doc["sources"]["grid10"]
    assert len(sources) == 4 and len(set(sources)) == 4
    for name in ("cpu.sequential", "cpu.scipy"):
        got = samples(doc, name)
        assert len(got) == 8  # 4 sources x 2 modes
        assert [s["source"] for s in got if not s["predecessors"]] == sources  # paired
        for s in got:
            assert set(s) >= SAMPLE_FIELDS
            v = s["source"]
            x, y = v % 10, v // 10
            assert s["status"] == "ok" and s["valid"] is True and s["reason"] is None
            assert s["time_ms"] > 0
            assert s["reached"] == 100
            assert s["depth"] == max(x, 9 - x) + max(y, 9 - y)
            assert s["edges"] == g.m == 360  # every vertex reached: all directed edges
            assert s["edges_graph500"] == 180
            assert s["low_reach"] is False
            assert s["knobs"] == {}
    info = doc["datasets"]["grid10"]
    assert (info["n"], info["m"], info["directed"], info["status"]) == (100, 360, False, "ok")
    depths = [max(v % 10, 9 - v % 10) + max(v // 10, 9 - v // 10) for v in sources]
    assert info["depth_avg"] == pytest.approx(np.mean(depths))
    assert info["depth_max"] == max(depths)
    assert info["stats"]["max_degree"] == 4
    prep = [p for p in doc["prepares"] if p["strategy"] == "cpu.scipy"]
    assert len(prep) == 1 and prep[0]["status"] == "ok" and prep[0]["bytes"] == 360 * 8 + 101 * 4
    summary = cell(doc, "cpu.sequential")
    assert summary["status"] == "ok" and summary["count"] == 4
    assert summary["gteps_hmean"] > 0


def test_low_reach_and_partial_components(tmp_path):
    g = disjoint(grid(10, 10), isolated=100, name="parts")  # vertices 100..199 isolated
    _, doc = run(tmp_path, [g], ["cpu.sequential"], fixed_sources=[0, 150])
    a, b = samples(doc, "cpu.sequential")
    assert (a["source"], a["reached"], a["edges"], a["low_reach"]) == (0, 100, 360, False)
    assert (b["source"], b["reached"], b["edges"], b["depth"], b["low_reach"]) == (150, 1, 0, 0, True)
    assert doc["datasets"]["parts"]["sources_origin"] == "explicit"


def test_fixed_source_from_meta(tmp_path):
    g = grid(5, 5, name="g5")
    _, doc = run(tmp_path, [g], ["cpu.sequential"], sources=10, metas={"g5": {"fixed_source": 12}})
    assert doc["sources"]["g5"] == [12]
    assert [s["depth"] for s in doc["samples"]] == [4]


def test_wrong_answer_keeps_its_time_but_is_never_ok(tmp_path):
    _, doc = run(tmp_path, [grid(6, 6, name="g")], ["fake.wrong"], sources=3)
    got = samples(doc, "fake.wrong")
    assert len(got) == 3
    for s in got:
        assert s["status"] == "wrong-answer" and s["valid"] is False
        assert s["time_ms"] > 0
        assert s["reason"].startswith("distances differ at 1 of 36 vertices")
    c = cell(doc, "fake.wrong")
    assert c["status"] == "wrong-answer" and "median_ms" not in c


def test_over_the_time_limit_skips_the_rest_of_the_variant(tmp_path):
    _, doc = run(tmp_path, [grid(6, 6, name="g")], ["fake.slow", "cpu.sequential"], sources=5, warmup=0, time_limit_s=0.03)
    got = samples(doc, "fake.slow")
    assert len(got) == 1
    assert got[0]["status"] == "out-of-time" and got[0]["time_ms"] >= 30
    assert "over the limit of 0.03 s (remaining 4 sources skipped)" in got[0]["reason"]
    assert len(samples(doc, "cpu.sequential", status="ok")) == 5  # the benchmark went on
    # a warm-up over the limit ends the variant before any timed run
    _, doc = run(tmp_path, [grid(6, 6, name="g")], ["fake.slow"], sources=5, warmup=1, time_limit_s=0.03)
    (s,) = samples(doc, "fake.slow")
    assert (s["status"], s["source"]) == ("out-of-time", -1) and s["reason"].startswith("warm-up took")


def test_memory_errors_are_out_of_memory(tmp_path):
    _, doc = run(tmp_path, [grid(4, 4, name="g")], ["fake.oom", "fake.hostmem"], sources=2, warmup=0)
    (oom,) = samples(doc, "fake.oom")
    assert oom["status"] == "out-of-memory"
    assert oom["reason"].startswith("OutOfMemoryError: Out of memory allocating")
    (host,) = samples(doc, "fake.hostmem")
    assert (host["status"], host["source"], host["reason"]) == ("out-of-memory", -1, "MemoryError")
    prep = [p for p in doc["prepares"] if p["strategy"] == "fake.hostmem"]
    assert prep[0]["status"] == "out-of-memory" and prep[0]["time_ms"] is None


def test_unavailable_strategies_are_cells(tmp_path):
    _, doc = run(
        tmp_path, [grid(4, 4, name="a"), grid(3, 3, name="b")],
        ["fake.unavailable", "fake.toobig", "fake.noparents"], sources=2, predecessors="both",
    )
    for s in samples(doc, "fake.unavailable"):
        assert (s["status"], s["reason"], s["time_ms"]) == ("unavailable", "needs a flux capacitor", None)
    assert len(samples(doc, "fake.unavailable")) == 4  # 2 graphs x 2 modes
    assert {s["reason"] for s in samples(doc, "fake.toobig")} == {
        "graph of 48 edges is too big", "graph of 24 edges is too big"
    }
    assert cell(doc, "fake.toobig", "a")["status"] == "unavailable"
    assert len(samples(doc, "fake.noparents", predecessors=False, status="ok")) == 4
    (np_a,) = samples(doc, "fake.noparents", predecessors=True, dataset="a")
    assert np_a["status"] == "unavailable" and "has no predecessors output" in np_a["reason"]


def test_other_exceptions_are_error_cells_and_the_run_goes_on(tmp_path):
    outcome, doc = run(tmp_path, [grid(4, 4, name="g")], ["fake.broken", "cpu.sequential"], sources=3, warmup=0)
    (s,) = samples(doc, "fake.broken")
    assert s["status"] == "error"
    assert s["reason"] == "ValueError: index 7 is out of bounds (remaining 2 sources skipped)"
    assert len(samples(doc, "cpu.sequential", status="ok")) == 3


def test_rounds_take_turns_each_variant_first_in_turn(tmp_path):
    """rounds: 3 over 6 sources: round r runs every variant on sources r and r + 3,
    starting from variant r and going round (so none runs twice in a row); every answer
    is checked against its own source's reference (a mix-up would be a wrong answer)."""
    Turns.log = []
    a, b, c = "fake.turn_a", "fake.turn_b", "fake.turn_c"
    _, doc = run(tmp_path, [grid(6, 6, name="g")], [a, b, c], sources=6, warmup=0, rounds=3)
    src = doc["sources"]["g"]
    order = [(a, b, c), (b, c, a), (c, a, b)]
    want = [(name, src[i]) for r in range(3) for name in order[r] for i in (r, r + 3)]
    assert Turns.log == want
    for name in (a, b, c):
        got = samples(doc, name)
        assert sorted(s["source"] for s in got) == sorted(src)
        assert all(s["status"] == "ok" and s["valid"] is True for s in got)
        assert cell(doc, name)["count"] == 6
    # more rounds than variants: the turn goes round again
    Turns.log = []
    run(tmp_path, [grid(6, 6, name="g")], [a, b], sources=4, warmup=0, rounds=4)
    assert [n for n, _ in Turns.log] == [a, b, b, a, a, b, b, a]
    # one round (the default) is each variant's sources in turn
    Turns.log = []
    run(tmp_path, [grid(6, 6, name="g")], [a, b], sources=3, warmup=0)
    assert [n for n, _ in Turns.log] == [a, a, a, b, b, b]


def test_warm_up_goes_on_until_warmup_ms_has_passed(tmp_path):
    """warmup_ms: untimed runs of the first source continue until the time has passed
    (at least `warmup` of them, and none with warmup 0); the timed runs follow, one per
    source, as before."""
    Turns.log = []
    t0 = time.perf_counter()
    _, doc = run(tmp_path, [grid(6, 6, name="g")], ["fake.turn_a"], sources=3, warmup=1, warmup_ms=30)
    src = doc["sources"]["g"]
    warm = Turns.log[:-3]
    assert Turns.log[-3:] == [("fake.turn_a", s) for s in src]
    assert len(warm) >= 2 and set(warm) == {("fake.turn_a", src[0])}
    assert time.perf_counter() - t0 >= 0.03
    assert len(samples(doc, "fake.turn_a", status="ok")) == 3
    # warmup_ms 0: exactly `warmup` runs; warmup 0: none, whatever warmup_ms asks
    Turns.log = []
    run(tmp_path, [grid(6, 6, name="g")], ["fake.turn_a"], sources=3, warmup=2, warmup_ms=0)
    assert len(Turns.log) == 5
    Turns.log = []
    run(tmp_path, [grid(6, 6, name="g")], ["fake.turn_a"], sources=3, warmup=0, warmup_ms=1000)
    assert len(Turns.log) == 3
    # a run over the time limit ends the warm-up at once, whatever warmup_ms asks
    _, doc = run(tmp_path, [grid(6, 6, name="g")], ["fake.slow"], sources=2, warmup=1, warmup_ms=1000, time_limit_s=0.03)
    (s,) = samples(doc, "fake.slow")
    assert (s["status"], s["source"]) == ("out-of-time", -1) and s["reason"].startswith("warm-up took")


def test_a_variant_that_fails_sits_out_the_later_rounds(tmp_path):
    _, doc = run(tmp_path, [grid(4, 4, name="g")], ["fake.broken", "cpu.sequential"], sources=4, warmup=0, rounds=2)
    (s,) = samples(doc, "fake.broken")
    assert s["status"] == "error"
    assert s["reason"] == "ValueError: index 7 is out of bounds (remaining 3 sources skipped)"
    assert len(samples(doc, "cpu.sequential", status="ok")) == 4
    _, doc = run(tmp_path, [grid(6, 6, name="g")], ["fake.slow"], sources=4, warmup=0, time_limit_s=0.03, rounds=2)
    (s,) = samples(doc, "fake.slow")
    assert s["status"] == "out-of-time" and "(remaining 3 sources skipped)" in s["reason"]


def test_ctrl_c_keeps_what_finished(tmp_path):
    Interrupting.calls = 0
    outcome, doc = run(
        tmp_path, [grid(4, 4, name="g"), grid(5, 5, name="h")], ["cpu.sequential", "fake.interrupt"],
        sources=4, warmup=0,
    )
    assert outcome.interrupted and doc["interrupted"] is True
    assert len(samples(doc, "cpu.sequential", dataset="g")) == 4
    assert len(samples(doc, "fake.interrupt")) == 2  # the third call was interrupted
    assert "h" not in doc["datasets"]
    assert doc["finished"] is not None
    assert not list(tmp_path.glob(".out.json.*"))  # no temporary file left behind


def test_results_file_is_json_with_the_schema(tmp_path):
    _, doc = run(tmp_path, [grid(3, 3, name="g")], ["cpu.sequential"], sources=2)
    raw = json.loads((tmp_path / "out.json").read_text())
    for key in (
        "schema_version", "tool_version", "git_commit", "created", "command_line", "environment",
        "config", "datasets", "sources", "prepares", "samples", "summaries",
    ):
        assert key in raw
    assert raw["config"]["variants"] == [{"problem": "bfs", "strategy": "cpu.sequential", "knobs": {}}]


def test_classify():
    assert classify(StrategyUnavailable("no")) == ("unavailable", "no")
    assert classify(MemoryError()) == ("out-of-memory", "MemoryError")
    assert classify(RuntimeError("cudaErrorMemoryAllocation: out of memory"))[0] == "out-of-memory"
    assert classify(KeyError("x")) == ("error", "KeyError: 'x'")


def test_a_dataset_that_fails_to_load_is_recorded_and_the_run_goes_on(tmp_path):
    from gpubfs_cli.errors import UserError

    good = grid(3, 3, name="good")
    cfg = build_config(
        {"datasets": ["broken", "good"], "strategies": ["cpu.sequential"], "sources": 2},
        dataset_check=lambda name: None, registry=REGISTRY,
    )

    def load(spec, data_dir, progress):
        if spec.name == "broken":
            raise UserError("https://example.invalid/x.gz: unreachable (Name or service not known)")
        return good, {}

    outcome = Runner(cfg, load_graph=load, out_path=tmp_path / "o.json", environment={}, registry=REGISTRY).run()
    assert outcome.doc["datasets"]["broken"] == {
        "status": "error", "reason": "https://example.invalid/x.gz: unreachable (Name or service not known)"
    }
    assert len(samples(outcome.doc, "cpu.sequential", dataset="good", status="ok")) == 2


def test_a_user_error_mid_run_still_writes_what_finished(tmp_path):
    from gpubfs_cli.errors import UserError

    with pytest.raises(UserError, match="--source: vertex 20 is out of range for small"):
        run(tmp_path, [grid(5, 5, name="big"), grid(4, 4, name="small")], ["cpu.sequential"], fixed_sources=[20])
    doc = load_results(tmp_path / "out.json")
    assert [s["dataset"] for s in doc["samples"]] == ["big"]


def test_metrics_of_checked_answers_are_computed_once_per_source(monkeypatch):
    from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.graph import EdgeList, build_csr

    g = build_csr(EdgeList(np.array([0, 1, 3]), np.array([1, 2, 3]), 5, directed=False), self_loops="keep")
    facts = get_problem("bfs").facts(g)
    dist = sequential_bfs(g, 0).distances
    calls = []
    real = facts.measure
    monkeypatch.setattr(facts, "measure", lambda d: calls.append(1) or real(d))
    first = facts.measure_for(0, dist, checked=True)
    assert facts.measure_for(0, dist, checked=True) is first and len(calls) == 1
    assert (first.reached, first.extra["depth"], first.edges, first.extra["edges_graph500"]) == (3, 2, 4, 2)
    wrong = dist.copy()
    wrong[2] = -1
    assert facts.measure_for(0, wrong, checked=False).reached == 2 and len(calls) == 2


def test_sssp_answers_carry_graph500s_edge_count_as_bfs_ones_do():
    """Kernel 3 is rated like kernel 2: the reached component's input edges, an undirected
    edge once and a self-loop once; none on a directed graph."""
    from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.graph import EdgeList, build_csr
    from gpubfs_cli.graph.samples import with_rule_weights

    edges = EdgeList(np.array([0, 1, 3, 1]), np.array([1, 2, 3, 1]), 5, directed=False)
    g = with_rule_weights(build_csr(edges, self_loops="keep"))
    sssp = get_problem("sssp").facts(g).measure(dijkstra(g, 0).distances)
    bfs = get_problem("bfs").facts(g).measure(dijkstra(g, 0).distances)
    assert sssp.extra["edges_graph500"] == bfs.extra["edges_graph500"] == 3  # 0-1, 1-2 and the loop at 1
    directed = with_rule_weights(build_csr(EdgeList(np.array([0, 1]), np.array([1, 2]), 3, directed=True)))
    assert get_problem("sssp").facts(directed).measure(dijkstra(directed, 0).distances).extra["edges_graph500"] is None
