"""The batch contract and the timing kinds, through the runner and the report.

A batch strategy answers several sources per timed call: every source's answer is
checked on its own, each sample's time is the call's over the batch's size, samples
record the batch, and reports keep batch rows in a table of their own. Each timing kind
(events, host, self) is the one timer the measure room uses for it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.msbfs import MultiSourceBfs, multi_source_bfs
from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.bench import timing
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.device import CPU
from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.graph.samples import gnm, grid
from gpubfs_cli.report.build import overview, run_summary
from gpubfs_cli.report.load import load_many
from gpubfs_cli.report.render import render
from gpubfs_cli.results.groups import group_samples
from gpubfs_cli.results.schema import Sample, load_results

CALLS: list[list[int]] = []


@dataclass(frozen=True)
class WidthKnobs:
    width: int = 4


class Batcher(Strategy):
    """Right answers from cpu.sequential, `width` sources per call; the call is logged."""

    name = "fake.batch"
    Knobs = WidthKnobs
    wrong: int | None = None  # a source whose answer is damaged
    fail_on: int | None = None  # a source whose batch raises

    def batch_size(self) -> int:
        return self.knobs.width

    def traverse_batch(self, sources, predecessors=False):
        CALLS.append(list(sources))
        if self.fail_on in sources:
            raise RuntimeError("the batch broke")
        out = []
        for s in sources:
            a = sequential_bfs(self.graph, s, predecessors)
            if s == self.wrong:
                a.distances[np.argmax(a.distances)] += 1
            out.append(a)
        return out

    def traverse(self, source, predecessors=False):
        return self.traverse_batch([source], predecessors)[0]


def run(tmp_path, cls, sources, *, graph=None, monkeypatch=None, fixed_ms=None, **keys):
    """Runner over `graph` (a 6 x 6 grid) with cls (and cpu.sequential, the baseline)."""
    graph = graph or grid(6, 6, name="g")
    registry = {"bfs": {cls.name: cls, "cpu.sequential": SequentialBfs}}
    if fixed_ms is not None:
        monkeypatch.setitem(timing.TIMERS, "host", lambda fn, devices=(): (fixed_ms, fn()))
    cfg = build_config({"name": "t", "datasets": [graph.name], "strategies": [cls.name, "cpu.sequential"],
                        "fixed_sources": sources, "warmup": 0, **keys},
                       dataset_check=lambda name: None, registry=registry)
    CALLS.clear()
    out = Runner(cfg, load_graph=lambda spec, d, p: (graph, {}), out_path=tmp_path / "out.json",
                 environment={}, registry=registry).run()
    return [s for s in out.doc["samples"] if s["strategy"] == cls.name], out


def test_sources_go_in_batches_of_at_most_the_batch_size(tmp_path, monkeypatch):
    samples, _ = run(tmp_path, Batcher, list(range(10)), monkeypatch=monkeypatch, fixed_ms=12.0)
    assert CALLS == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [s["source"] for s in samples] == list(range(10))
    assert [s["batch"] for s in samples] == [4] * 8 + [2] * 2
    # the call's time over the batch's size
    assert [s["time_ms"] for s in samples] == [3.0] * 8 + [6.0] * 2
    assert all(s["status"] == "ok" and s["valid"] for s in samples)


def test_every_source_of_a_batch_is_checked_on_its_own(tmp_path):
    class OneWrong(Batcher):
        wrong = 5

    samples, _ = run(tmp_path, OneWrong, list(range(8)))
    bad = [s["source"] for s in samples if s["status"] == "wrong-answer"]
    assert bad == [5] and all(s["valid"] for s in samples if s["source"] != 5)


def test_a_batch_that_fails_ends_the_variant_with_one_sample(tmp_path):
    class Breaks(Batcher):
        fail_on = 5

    samples, _ = run(tmp_path, Breaks, list(range(10)))
    assert CALLS == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert [(s["source"], s["status"]) for s in samples] == [(0, "ok"), (1, "ok"), (2, "ok"), (3, "ok"), (4, "error")]
    assert "the batch broke" in samples[-1]["reason"] and "(remaining 5 sources skipped)" in samples[-1]["reason"]


def test_a_batch_over_the_time_limit_is_out_of_time(tmp_path, monkeypatch):
    # 4 sources in 8 s is 2 s each: over a 1.5 s limit, so the batch is out-of-time and
    # the rest is skipped; 4 in 4 s (1 s each) would be within it.
    samples, _ = run(tmp_path, Batcher, list(range(6)), monkeypatch=monkeypatch, fixed_ms=8000.0,
                     time_limit_s=1.5)
    assert CALLS == [[0, 1, 2, 3]]
    assert [s["status"] for s in samples] == ["out-of-time"] * 4
    assert all(s["valid"] is None for s in samples)  # over the limit is the verdict
    assert samples[-1]["reason"].endswith("(remaining 2 sources skipped)")
    samples, _ = run(tmp_path, Batcher, list(range(4)), monkeypatch=monkeypatch, fixed_ms=4000.0,
                     time_limit_s=1.5)
    assert [s["status"] for s in samples] == ["ok"] * 4


def test_a_batch_strategy_with_one_source_per_call_still_says_batch(tmp_path):
    samples, out = run(tmp_path, Batcher, [3])
    assert [s["batch"] for s in samples] == [1]
    groups = {g.strategy: g for g in group_samples([Sample.from_dict(s) for s in out.doc["samples"]])}
    assert groups["fake.batch"].batched and not groups["cpu.sequential"].batched


def test_rounds_deal_batches_from_each_round(tmp_path):
    run(tmp_path, Batcher, list(range(10)), rounds=2)
    assert CALLS == [[0, 2, 4, 6], [8], [1, 3, 5, 7], [9]]


def test_batch_rows_have_their_own_table_and_results_say_batch(tmp_path):
    _, out = run(tmp_path, MultiSourceBfs, list(range(0, 36, 3)))
    doc = load_results(out.path)
    assert {s.get("batch") for s in doc["samples"] if s["strategy"] == "cpu.msbfs"} == {12}
    assert not any("batch" in s for s in doc["samples"] if s["strategy"] == "cpu.sequential")
    assert [x.get("batch") for x in doc["summaries"]] == [12, None]
    results = load_many([out.path])
    report = overview(results, "ms")
    main, batch = report.tables
    assert main.columns == ["dataset", "cpu.sequential"]
    assert batch.id == "overview-batch" and batch.columns == ["dataset", "cpu.msbfs (batches of 12)"]
    assert "time per source" in batch.title and any("batch" in f for f in batch.footnotes)
    groups = {g["strategy"]: g for g in report.data["groups"]}
    assert groups["cpu.msbfs"]["batch"] == 12 and groups["cpu.msbfs"]["speedup"] is not None
    assert "batch" not in groups["cpu.sequential"]
    summary = run_summary(results, "t")
    assert [t.title for t in summary.tables] == ["", "batch strategies, time per source"]
    md = render(report, "md")
    assert md.index("cpu.sequential") < md.index("batch strategies")


def test_speed_rows_of_a_batch_are_never_in_the_paper_tables(tmp_path):
    from gpubfs_cli.report.aggregate import Aggregate

    _, out = run(tmp_path, MultiSourceBfs, [0, 7, 14])
    results = load_many([out.path])
    assert {g.strategy for g in Aggregate(results, "bfs").groups} == {"cpu.sequential"}
    assert {g.strategy for g in Aggregate(results, "bfs", batched=True).groups} == {"cpu.msbfs"}


# ------------------------------------------------------------------ cpu.msbfs
@pytest.mark.parametrize("graph", [
    grid(7, 9, name="grid"),
    gnm(400, 1600, seed=3, name="gnm"),
    gnm(300, 900, seed=2, directed=True, isolated=20, name="directed"),
], ids=lambda g: g.name)
@pytest.mark.parametrize("predecessors", [False, True])
def test_msbfs_answers_equal_the_baseline_for_every_source(graph, predecessors):
    bfs = get_problem("bfs")
    rng = np.random.default_rng(1)
    sources = [int(s) for s in rng.integers(0, graph.n, 64)]
    sources[3] = sources[4]  # the same source twice in one batch
    answers = multi_source_bfs(graph, sources, predecessors)
    assert len(answers) == 64
    for s, a in zip(sources, answers, strict=True):
        assert bfs.check(graph, s, a, sequential_bfs(graph, s).distances, predecessors) is None
        assert (a.parents is not None) == predecessors


def test_msbfs_refuses_bad_batches_and_widths():
    g = grid(3, 3, name="g")
    with pytest.raises(ValueError, match="1 to 64"):
        multi_source_bfs(g, list(range(9)) * 8)
    with pytest.raises(ValueError, match="out of range"):
        multi_source_bfs(g, [9])
    with pytest.raises(ValueError, match="width"):
        MultiSourceBfs.Knobs(width=65)
    assert MultiSourceBfs(MultiSourceBfs.Knobs(width=1)).batch_size() == 1


# ------------------------------------------------------------------ timing kinds
class SelfTimed(Strategy):
    """A strategy that times itself (as a peer or a multi-GPU strategy does)."""

    name = "fake.self"
    timing = "self"
    told: float | None = 7.25

    def traverse(self, source, predecessors=False):
        a = sequential_bfs(self.graph, source, predecessors)
        return Answer(a.distances, a.parents, time_ms=self.told)


def test_a_self_timed_strategy_is_measured_by_its_own_figure(tmp_path):
    samples, _ = run(tmp_path, SelfTimed, [0, 1])
    assert [s["time_ms"] for s in samples] == [7.25, 7.25] and all(s["valid"] for s in samples)
    assert not any("timed_by" in s for s in samples)  # gpubfs checked these answers


def test_a_self_timed_answer_without_its_time_is_an_error(tmp_path):
    class Silent(SelfTimed):
        told = None

    samples, _ = run(tmp_path, Silent, [0, 1])
    assert [s["status"] for s in samples] == ["error"] and "without its time_ms" in samples[0]["reason"]


def test_the_timer_is_the_declared_kinds(monkeypatch):
    used = []
    for kind in timing.TIMERS:
        monkeypatch.setitem(timing.TIMERS, kind, lambda fn, devices=(), k=kind: (used.append(k) or 1.0, fn()))
    g = grid(3, 3, name="g")
    for cls in (SequentialBfs, SelfTimed):
        s = cls()
        s.prepare(g)
        timing.timed_traverse(s, 0)
    assert used == ["host", "self"]


def test_events_timing_needs_a_gpu():
    with pytest.raises(RuntimeError, match="needs a GPU"):
        timing.time_events(lambda: None, (CPU,))


def test_host_and_self_timers():
    ms, v = timing.time_host(lambda: 41 + 1)
    assert v == 42 and ms >= 0
    answers = [Answer(None, time_ms=1.5), Answer(None, time_ms=2.0)]
    assert timing.time_self(lambda: answers) == (3.5, answers)


# ------------------------------------------------------------------ statistics
def _batch_group(times_per_call: list[float], size: int):
    """A batch strategy's ok group: `size` samples per call, each with the call's time / size."""
    samples = []
    for k, t in enumerate(times_per_call):
        for j in range(size):
            samples.append(Sample("g", "cpu.msbfs", {}, k * size + j, t / size, 10, 20, True, batch=size))
    return group_samples(samples)[0]


def test_a_batch_counts_once_where_statistics_need_independent_times():
    g = _batch_group([8.0, 12.0, 16.0], 4)
    assert len(g.ok_samples()) == 12 and g.call_times() == [2.0, 3.0, 4.0]
    plain = group_samples([Sample("g", "cpu.sequential", {}, s, 1.0 + s, 10, 20, True) for s in range(5)])[0]
    assert plain.call_times() == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_compare_judges_a_batch_strategy_by_its_calls():
    from gpubfs_cli.report.compare import compare_cell

    # One call each side: one measurement, however many sources it answered: no verdict.
    cell, data = compare_cell(_batch_group([8.0], 8), _batch_group([40.0], 8), None, fail_pct=200)
    assert data["samples"] == [1, 1] and data["verdict"] is None and not data["regression"]
    assert "too few samples" in cell.text
    # Several calls a side: a verdict from them, unpaired.
    cell, data = compare_cell(_batch_group([8.0, 8.2, 7.9, 8.1], 8), _batch_group([40.0, 41.0, 39.0, 40.5], 8),
                              None, fail_pct=200)
    assert data["samples"] == [4, 4] and data["paired"] is False and data["verdict"] == "SLOWER"
    assert data["regression"]
