"""Aggregation values on a hand-made results document (tests/report/docs.py)."""

from __future__ import annotations

import json

import pytest

from gpubfs_cli.report.aggregate import (
    NO_GRAPH500_COUNT,
    Aggregate,
    knob_label,
    short_reason,
    status_text,
)
from gpubfs_cli.report.build import overview, shorten_reasons
from gpubfs_cli.report.load import load_many
from gpubfs_cli.results.groups import group_samples, label_key, summaries
from gpubfs_cli.results.statistics import ALL_LOW_REACH
from tests.report.docs import EDGES, SOURCES, dataset_entry, document, main_doc, sample, write

HYBRID_KNOBS = {"gather": "scan_warp_cta", "culling": "history"}


@pytest.fixture()
def agg(tmp_path):
    return Aggregate(load_many([write(tmp_path, "main.json", main_doc())]))


def test_medians_and_summary(agg):
    seq = agg.variants("g1", "cpu.sequential")[0]
    assert seq.status == "ok"
    assert seq.summary["median_ms"] == 13.0
    assert seq.summary["count"] == 4
    hyb = agg.variants("g1", "merrill.hybrid")[0]
    assert hyb.summary["median_ms"] == 1.5
    assert hyb.summary["mean_ms"] == 2.0
    assert (hyb.q25_ms, hyb.q75_ms) == (1.0, 2.5)
    pred = agg.variants("g1", "merrill.hybrid", predecessors=True)[0]
    assert pred.summary["median_ms"] == 3.0


def test_gteps_harmonic_mean(agg):
    hyb = agg.variants("g1", "merrill.hybrid")[0]
    # rates 8000 edges / {1,1,2,4} ms = {0.008, 0.008, 0.004, 0.002} GTEPS
    assert agg.value(hyb, "gteps") == pytest.approx(4 / (125 + 125 + 250 + 500))
    assert agg.cell("g1", "merrill.hybrid", "gteps").value == pytest.approx(0.004)


def test_paired_speedup(agg):
    hyb = agg.variants("g1", "merrill.hybrid")[0]
    # per-source ratios 10/1, 12/1, 14/2, 16/4 = 10, 12, 7, 4: median 8.5, quartiles 6.25, 10.5
    assert agg.speedup_stats(hyb) == pytest.approx((8.5, 6.25, 10.5, 4))
    cell = agg.cell("g1", "merrill.hybrid", "speedup")
    assert (cell.text, cell.low, cell.high) == ("8.500 [6.250-10.50]", 6.25, 10.5)
    pred = agg.variants("g1", "merrill.hybrid", predecessors=True)[0]
    assert agg.speedup(pred) == pytest.approx(4.25)  # distance baseline when no pred one
    base = agg.variants("g1", "cpu.sequential")[0]
    assert agg.speedup(base) == pytest.approx(1.0)
    assert agg.cell("g1", "cpu.sequential", "speedup").text == "1.000"  # no spread, no brackets


def test_speedup_pairs_only_common_sources(tmp_path):
    s = [sample("g", "cpu.sequential", src, t) for src, t in zip(SOURCES, [10.0, 10.0, 10.0, 100.0], strict=True)]
    s += [sample("g", "merrill.hybrid", src, 1.0) for src in SOURCES[:3]]  # source 3 not run
    agg = Aggregate(load_many([write(tmp_path, "a.json", document(s, {"g": dataset_entry(100, 400)}))]))
    assert agg.speedup(agg.variants("g", "merrill.hybrid")[0]) == pytest.approx(10.0)


def test_speedup_divides_into_the_baseline_variant_with_the_same_threads(tmp_path):
    """A peer run at 1 and 16 threads (a device run's cpu-parallel table): threads are a
    resource, so each strategy is divided into the peer's run with its thread count, else
    into the peer's fastest; the peer's own rows are then 1.000 (they were 8.3x, divided
    into the 1-thread run), its cell at its fastest."""
    s = [sample("g", "peer.gapbs", src, t, knobs={"threads": th}, valid=None)
         for th, t in ((1, 40.0), (0, 4.0)) for src in SOURCES]
    s += [sample("g", "cpu.parallel_do", src, t, knobs={"threads": th})
          for th, t in ((1, 80.0), (0, 5.0)) for src in SOURCES]
    s += [sample("g", "cpu.sequential", src, 160.0) for src in SOURCES]
    for x in s:
        if x.strategy == "peer.gapbs":
            x.timed_by = "peer.gapbs"
    agg = Aggregate(load_many([write(tmp_path, "t.json", document(s, {"g": dataset_entry(100, 400)}))]),
                    baseline="peer.gapbs")
    by = {(g.strategy, g.knobs.get("threads")): agg.speedup(g) for g in agg.groups}
    assert by[("peer.gapbs", 1)] == pytest.approx(1.0) and by[("peer.gapbs", 0)] == pytest.approx(1.0)
    assert by[("cpu.parallel_do", 1)] == pytest.approx(0.5) and by[("cpu.parallel_do", 0)] == pytest.approx(0.8)
    assert by[("cpu.sequential", None)] == pytest.approx(4.0 / 160.0)
    assert agg.cell("g", "peer.gapbs", "speedup").text == "1.000 (threads=0)"
    assert agg.cell("g", "cpu.parallel_do", "speedup").text == "0.800 (threads=0)"


def test_a_swept_baseline_divides_every_strategy_into_its_best_knob(tmp_path):
    """sssp-ny's case: peer.gapbs swept over delta, the first (delta=1) 10x slower. Its
    speedup table divides into delta=4096, the variant its median-time cell shows, and its
    own row reads `1.000 (delta=4096)`; it read `1.000 (delta=1)` (each variant over
    itself), and a strategy with a knob named delta was divided into gapbs's same delta."""
    best, near = [1.0, 2.0, 3.0, 4.0], [0.5, 2.6, 2.9, 3.9]  # near: slower median, median ratio > 1
    s = [sample("g", "peer.gapbs", src, t, knobs={"delta": d}, valid=None)
         for d, times in ((1, [40.0] * 4), (1024, near), (4096, best)) for src, t in zip(SOURCES, times, strict=True)]
    for x in s:
        x.timed_by = "peer.gapbs"
    s += [sample("g", "sssp.delta", src, 2.0, knobs={"delta": 1}) for src in SOURCES]
    s += [sample("g", "cpu.dijkstra", src, 8.0) for src in SOURCES]
    for x in s:
        x.problem = "sssp"
    results = load_many([write(tmp_path, "t.json", document(s, {"g": dataset_entry(100, 400)}))])
    doc = overview(results, "ms")
    ms = next(t for t in doc.tables if t.id == "overview-sssp")
    vs = next(t for t in doc.tables if t.id == "overview-sssp-vs-peer.gapbs")
    assert dict(zip(ms.columns, ms.rows[0], strict=True))["peer.gapbs"].text == "2.500 (delta=4096)"
    cells = dict(zip(vs.columns, vs.rows[0], strict=True))
    assert cells["peer.gapbs"].text == "1.000 (delta=4096)"
    assert cells["sssp.delta"].value == pytest.approx(1.25)  # best / 2.0: 0.5, 1, 1.5, 2
    assert cells["cpu.dijkstra"].value == pytest.approx(2.5 / 8.0)
    agg = Aggregate(results, "sssp", baseline="peer.gapbs")
    swept = {g.knobs["delta"]: g for g in agg.groups if g.strategy == "peer.gapbs"}
    assert agg.baseline("g", False, like=swept[1]) is swept[4096]
    assert agg.speedup(swept[1]) == pytest.approx(2.5 / 40.0)


def test_one_outlier_source_does_not_flip_the_speedup(tmp_path):
    """The issue's case: the strategy is slower on 7 of 8 paired sources, but the baseline
    had one 4.3 ms outlier; a ratio of sums called that 1.7x faster."""
    sources = list(range(8))
    base = [1.0] * 7 + [5.3]
    strat = [1.2] * 7 + [1.0]
    s = [sample("g", "cpu.sequential", src, t) for src, t in zip(sources, base, strict=True)]
    s += [sample("g", "cpu.scipy", src, t) for src, t in zip(sources, strat, strict=True)]
    agg = Aggregate(load_many([write(tmp_path, "o.json", document(s, {"g": dataset_entry(100, 400)}))]))
    med, q25, q75, n = agg.speedup_stats(agg.variants("g", "cpu.scipy")[0])
    assert n == 8 and med == pytest.approx(1 / 1.2) and q75 == pytest.approx(1 / 1.2)
    assert sum(base) / sum(strat) > 1.3  # what the old definition reported


def test_best_knob_pick(agg):
    cell = agg.cell("g1", "classic.vwarp", "ms")
    assert cell.text == "2.000 (W4)"
    assert cell.knob == "W4" and cell.value == 2.0
    assert agg.cell("g1", "classic.vwarp", "gteps").knob == "W4"
    assert agg.cell("g1", "classic.vwarp", "speedup").value == pytest.approx(52.0 / 8.0)
    # a single variant carries no label
    assert agg.cell("g1", "merrill.hybrid", "ms").knob is None
    assert knob_label({"gather": "warp", "W": 8}, ["W", "gather"]) == "W8,gather=warp"
    assert knob_label({"gather": None}, ["gather", "in_order"]) == "gather=None,no in_order"


def test_failure_cells_are_statuses_not_numbers(agg):
    oot = agg.cell("g2", "classic.harish", "ms")
    assert (oot.text, oot.status, oot.value) == ("out-of-time", "out-of-time", None)
    wrong = agg.cell("g2", "classic.edge_coo", "gteps")
    assert (wrong.text, wrong.value) == ("wrong answer", None)
    unav = agg.cell("g2", "luo.hierarchical", "ms")
    assert unav.status == "unavailable" and unav.value is None
    assert unav.text == "unavailable: no usable GPU: CuPy is not installed"  # whole: CSV, JSON
    assert unav.reason == "no usable GPU: CuPy is not installed"
    missing = agg.cell("g1", "bfs4k", "ms")
    assert (missing.text, missing.status, missing.value) == ("missing", "missing", None)
    assert status_text("error", "ValueError: x") == "error: ValueError: x"


def test_low_reach_flag_and_footnote(tmp_path, agg):
    cell = agg.cell("g2", "merrill.hybrid", "speedup")
    assert cell.low_reach and cell.text == "10.00!"
    doc = overview(load_many([write(tmp_path, "m.json", main_doc())]), "ms")
    notes = doc.tables[0].footnotes
    assert any(n.startswith("! reached < 1%") for n in notes)
    assert "wrong-answer (12 distances differ, first at vertex 7): classic.edge_coo on g2" in notes
    assert "unavailable (no usable GPU: CuPy is not installed): luo.hierarchical on g2" in notes


def test_failure_footnotes_grouped_by_reason(tmp_path):
    s = [sample(ds, "cpu.sequential", 0, 1.0) for ds in ("a", "b")]
    s += [sample(ds, st, -1, None, status="unavailable", reason="no GPU", valid=None)
          for ds in ("a", "b") for st in ("classic.harish", "classic.edge_coo")]
    s.append(sample("a", "luo.hierarchical", -1, None, status="unavailable", reason="no GPU", valid=None))
    s.append(sample("b", "luo.hierarchical", 0, 2.0))
    ds = {"a": dataset_entry(10, 20), "b": dataset_entry(10, 20)}
    doc = overview(load_many([write(tmp_path, "u.json", document(s, ds))]), "ms")
    assert doc.tables[0].footnotes == [
        "unavailable (no GPU): classic.edge_coo, classic.harish (every dataset); luo.hierarchical on a"]


def test_unavailable_yields_to_ok_from_another_file(tmp_path):
    """A GPU run and a CPU run combined: the CPU machine's `unavailable` hides nothing, and
    the GPU sample pairs with the CPU machine's baseline of the same dataset and source."""
    ds = {"g": dataset_entry(100, 400)}
    cpu = [sample("g", "cpu.sequential", src, 8.0) for src in SOURCES]
    cpu += [sample("g", "merrill.hybrid", src, None, status="unavailable", reason="no GPU", valid=None)
            for src in SOURCES]
    gpu = [sample("g", "merrill.hybrid", src, 0.5, knobs=HYBRID_KNOBS) for src in SOURCES]
    a = write(tmp_path, "cpu.json", document(cpu, ds, gpu=None))
    b = write(tmp_path, "gpu.json", document(gpu, ds))
    agg = Aggregate(load_many([a, b]))
    cell = agg.cell("g", "merrill.hybrid", "speedup")
    assert cell.value == pytest.approx(16.0) and cell.status == "ok"


def test_depths_from_datasets_section_else_samples(agg):
    assert agg.stat("g1", "avg_depth") == 5.0
    assert agg.stat("g1", "max_depth") == 7.0
    # g2 records no depths: the baseline's samples (depth 5 each) stand in
    assert agg.stat("g2", "avg_depth") == 5.0
    assert agg.stat("g1", "n") == 1000 and agg.stat("g1", "avg_degree") == 8.0
    assert agg.stat("nope", "n") is None


def test_conflicting_graphs_are_an_error(tmp_path):
    from gpubfs_cli.errors import UserError

    a = write(tmp_path, "a.json", document([sample("g", "cpu.sequential", 0, 1.0)], {"g": dataset_entry(100, 400)}))
    b = write(tmp_path, "b.json", document([sample("g", "cpu.sequential", 0, 1.0)], {"g": dataset_entry(100, 402)}))
    with pytest.raises(UserError, match=r"datasets\.g\.m = 402 .* not the same graph"):
        load_many([a, b])


def test_overview_json_groups(tmp_path):
    doc = overview(load_many([write(tmp_path, "m.json", main_doc())]), "gteps")
    groups = {(g["dataset"], g["strategy"], g["predecessors"], g["knobs"].get("W")): g for g in doc.data["groups"]}
    g = groups[("g1", "merrill.hybrid", False, None)]
    assert g["median_ms"] == 1.5 and g["speedup"] == pytest.approx(8.5) and g["edges_mean"] == EDGES
    assert (g["speedup_q25"], g["speedup_q75"], g["speedup_sources"]) == (6.25, 10.5, 4)
    assert groups[("g2", "classic.harish", False, None)]["status"] == "out-of-time"


def test_dataset_that_failed_to_load(tmp_path):
    s = [sample("ok", "cpu.sequential", 0, 1.0)]
    ds = {"ok": dataset_entry(10, 20), "big": {"status": "out-of-memory", "reason": "MemoryError: 80 GB"}}
    doc = overview(load_many([write(tmp_path, "f.json", document(s, ds))]), "ms")
    rows = {r[0].text: r for r in doc.tables[0].rows}
    assert rows["big"][1].text == "out-of-memory" and rows["big"][1].value is None
    assert "out-of-memory (MemoryError: 80 GB): cpu.sequential on big" in doc.tables[0].footnotes


def _phase_doc(tmp_path):
    """raval-like variants: plain (no counters) and phase-timed (kernel/overhead split),
    an EP chunking sweep, and iteration counters."""
    s = []
    for src in SOURCES:
        s.append(sample("g", "raval.wd", src, 4.0, knobs={"phase_timing": False}, counters={"iterations": 8}))
        s.append(sample("g", "raval.wd", src, 5.0, knobs={"phase_timing": True},
                        counters={"iterations": 8, "kernel_ms": 3.0 + src, "overhead_ms": 1.0}))
        s.append(sample("g", "raval.ep", src, 2.0, knobs={"chunk": 0}))
        s.append(sample("g", "raval.ep", src, 1.0, knobs={"chunk": 64}))
    return Aggregate(load_many([write(tmp_path, "p.json", document(s, {"g": dataset_entry(1000, 8000)}))]))


def test_counter_metrics_read_the_phase_timed_variant(tmp_path):
    agg = _phase_doc(tmp_path)
    assert agg.cell("g", "raval.wd", "counter.kernel_ms").value == pytest.approx(4.5)  # median of 3, 4, 5, 6
    assert agg.cell("g", "raval.wd", "counter.overhead_ms").value == pytest.approx(1.0)
    assert agg.cell("g", "raval.wd", "ms").value == pytest.approx(4.0)  # the plain variant is faster
    assert agg.cell("g", "raval.ep", "counter.kernel_ms").text == "n/a"  # no variant records the split
    plain = agg.variants("g", "raval.wd", knobs={"phase_timing": False})[0]
    assert agg.value(plain, "us_iteration") == pytest.approx(500.0)  # 4 ms / 8 iterations


def test_knob_filter_selects_one_variant(tmp_path):
    agg = _phase_doc(tmp_path)
    assert agg.cell("g", "raval.ep", "ms").value == pytest.approx(1.0)
    assert agg.cell("g", "raval.ep", "ms", knobs={"chunk": 0}).value == pytest.approx(2.0)
    assert agg.cell("g", "raval.ep", "ms", knobs={"chunk": 7}).status == "missing"


def test_short_reason_cuts_at_a_word_boundary():
    assert short_reason("no usable GPU: CuPy is not installed") == "no usable GPU: CuPy…"
    assert short_reason("short reason") == "short reason"
    # a first word longer than the width stays whole
    assert short_reason("ModuleNotFoundError: no module named cupy") == "ModuleNotFoundError…"
    for reason in ("no usable GPU: CuPy is not installed", "CUDA_ERROR_ILLEGAL_ADDRESS in kernel expand"):
        kept = short_reason(reason)[:-1]
        assert reason.startswith(kept) and reason[len(kept)] in " ,;:"  # ends where a word ends


def test_terminal_tables_shorten_reasons_other_formats_keep_them(tmp_path):
    doc = overview(load_many([write(tmp_path, "m.json", main_doc())]), "ms")
    row = {r[0].text: r for r in doc.tables[0].rows}["g2"]
    col = doc.tables[0].columns.index("luo.hierarchical")
    assert row[col].text == "unavailable: no usable GPU: CuPy is not installed"
    shorten_reasons(doc)
    assert row[col].text == "unavailable: no usable GPU: CuPy…"
    assert "unavailable (no usable GPU: CuPy is not installed): luo.hierarchical on g2" in doc.tables[0].footnotes


def test_gteps_na_when_every_source_is_low_reach(tmp_path):
    s = [sample("g", "cpu.sequential", src, 0.01, edges=2, low_reach=True) for src in SOURCES]
    s += [sample("g", "merrill.hybrid", src, 0.02, edges=2, low_reach=(src < 2)) for src in SOURCES]
    doc = overview(load_many([write(tmp_path, "l.json", document(s, {"g": dataset_entry(1000, 8000)}))]), "gteps")
    cells = dict(zip(doc.tables[0].columns, doc.tables[0].rows[0], strict=True))
    seq = cells["cpu.sequential"]
    assert (seq.text, seq.status, seq.value, seq.reason) == (f"n/a: {ALL_LOW_REACH}", "n/a", None, ALL_LOW_REACH)
    assert cells["merrill.hybrid"].value == pytest.approx(2 / 0.02 / 1e6)  # two sources keep a rate
    assert f"n/a ({ALL_LOW_REACH}): cpu.sequential (every dataset)" in doc.tables[0].footnotes


def test_teps_convention_in_titles_and_graph500_rates(tmp_path):
    s = [sample("g", "cpu.sequential", src, 1.0) for src in SOURCES]
    for x in s:
        x.measures["edges_graph500"] = 3000
    s += [sample("g", "merrill.hybrid", src, 1.0) for src in SOURCES]  # no Graph500 count
    results = load_many([write(tmp_path, "t.json", document(s, {"g": dataset_entry(1000, 8000)}))])
    plain = overview(results, "gteps")
    assert "TEPS: directed edges of the reached vertices" in plain.tables[0].title
    assert any(h.startswith("TEPS: directed edges") for h in plain.header)
    assert plain.tables[0].rows[0][1].value == pytest.approx(EDGES / 1e6)
    g500 = overview(results, "gteps", teps="graph500")
    assert "TEPS: Graph500, undirected input edges" in g500.tables[0].title
    seq, hyb = g500.tables[0].rows[0][1:]
    assert seq.value == pytest.approx(3000 / 1e6)
    assert (hyb.status, hyb.reason) == ("n/a", NO_GRAPH500_COUNT)
    assert any(h.startswith("TEPS: Graph500") for h in overview(results, "ms", teps="graph500").header)


def test_a_peer_gets_a_speedup_table_of_its_own(tmp_path):
    """Where peer.gunrock ran (samples timed by the peer), the overview adds every
    strategy's paired speedup over it; without a peer there is no such table."""
    s = [sample("g", "cpu.sequential", src, 40.0) for src in SOURCES]
    s += [sample("g", "merrill.hybrid", src, t) for src, t in zip(SOURCES, [1.0, 1.0, 2.0, 2.0], strict=True)]
    peer = [sample("g", "peer.gunrock", src, 4.0, valid=None) for src in SOURCES]
    for p in peer:
        p.timed_by = "peer.gunrock"
    entry = {"g": dataset_entry(100, 400)}
    doc = overview(load_many([write(tmp_path, "p.json", document(s + peer, entry))]), "ms")
    vs = [t for t in doc.tables if t.id == "overview-vs-peer.gunrock"]
    assert len(vs) == 1 and "speedup over peer.gunrock" in vs[0].title
    cells = dict(zip(vs[0].columns, vs[0].rows[0], strict=True))
    assert cells["merrill.hybrid"].value == pytest.approx(3.0)  # ratios 4, 4, 2, 2
    assert cells["cpu.sequential"].value == pytest.approx(0.1)
    assert any("timed by the peer itself" in f for f in doc.tables[0].footnotes)
    alone = overview(load_many([write(tmp_path, "q.json", document(s, entry))]), "ms")
    assert [t.id for t in alone.tables] == ["overview"]


def test_an_ok_sample_that_failed_validation_fails_its_cell(tmp_path):
    # a hand-edited file: status "ok" but valid false is a wrong answer, and decides the
    # cell although the other samples are fine (an ok sample without a time never gets
    # this far: the loader rejects it)
    ds = {"g": dataset_entry(100, 400)}
    s = [sample("g", "cpu.sequential", src, 1.0) for src in SOURCES]
    s += [sample("g", "classic.harish", src, 1.0) for src in SOURCES[1:]]
    s.append(sample("g", "classic.harish", SOURCES[0], 1.0, valid=False))
    agg = Aggregate(load_many([write(tmp_path, "edited.json", document(s, ds))]))
    assert agg.cell("g", "classic.harish", "ms").status == "wrong-answer"
    assert agg.cell("g", "cpu.sequential", "ms").status == "ok"


def test_a_group_is_named_by_its_knobs_and_its_gpu_count():
    """Group.variant is the knobs' key (what --compare pairs variants by) and Group.gpus
    the `gpus` knob (what keeps each GPU count in a column of its own); a strategy
    without the knob has no count."""
    s = [sample("g1", "mgpu.bfs", src, 1.0, knobs={"gpus": gpus, "chunk": 64}) for gpus in (1, 2) for src in SOURCES]
    one, two = group_samples(s)
    assert (one.gpus, two.gpus) == (1, 2)
    assert json.loads(one.variant) == {"gpus": 1, "chunk": 64} and json.loads(two.variant)["gpus"] == 2
    assert group_samples([sample("g1", "cpu.sequential", 0, 1.0)])[0].gpus is None


def test_a_source_timed_twice_counts_at_its_mean():
    """Two rounds from source 0 (1 and 3 ms) give it 2 ms; source 1, timed once, its own 5 ms."""
    s = [sample("g1", "merrill.hybrid", 0, 1.0), sample("g1", "merrill.hybrid", 1, 5.0),
         sample("g1", "merrill.hybrid", 0, 3.0)]
    (group,) = group_samples(s)
    assert group.times == {0: 2.0, 1: 5.0}


def test_a_failed_cell_gives_the_reason_of_its_own_status():
    """An out-of-time sample with its reason, then a wrong answer with its own: the cell
    is a wrong answer, and its reason is the wrong answer's, not the first one found."""
    s = [sample("g1", "classic.harish", 0, None, status="out-of-time", reason="over the limit of 60 s"),
         sample("g1", "classic.harish", 1, 1.0, status="wrong-answer", reason="vertex 7 at distance 3, expected 2")]
    (group,) = group_samples(s)
    assert (group.status, group.reason) == ("wrong-answer", "vertex 7 at distance 3, expected 2")


def test_summaries_name_each_group_by_its_variant_in_the_run_config():
    """The results file's summaries carry the run config's name of each variant; a group
    without one (or no names given) is named by its strategy."""
    knobs = {"gather": "scan_warp_cta", "culling": "history"}
    s = [sample("g1", "merrill.hybrid", src, 1.0, knobs=knobs).to_dict() for src in SOURCES]
    s += [sample("g1", "cpu.sequential", src, 9.0).to_dict() for src in SOURCES]
    named = summaries(s, {label_key("bfs", "merrill.hybrid", knobs): "hybrid-history"})
    assert [e["variant"] for e in named] == ["hybrid-history", "cpu.sequential"]
    assert [e["variant"] for e in summaries(s)] == ["merrill.hybrid", "cpu.sequential"]


def test_a_batch_of_one_source_is_one_call():
    """Six sources in two rounds, batches of two: each round is a batch of two and one of
    one, four timed calls in all (one time each: the first sample of each batch)."""
    s = [sample("g1", "msbfs.bfs", src, t) for src, t in zip(range(6), [1.0, 1.0, 2.0, 3.0, 3.0, 4.0], strict=True)]
    for one, size in zip(s, [2, 2, 1, 2, 2, 1], strict=True):
        one.batch = size
    (group,) = group_samples(s)
    assert group.call_times() == [1.0, 2.0, 3.0, 4.0]


def _gapbs_doc(copied: bool) -> dict:
    """peer.gapbs at 1 and 16 threads, distances only and +pred, as an old file holds them
    (`copied`: the +pred rows copy the distance rows' times) or as measured apart."""
    s = [sample("g", "cpu.sequential", src, 160.0 + src, predecessors=p) for src in SOURCES for p in (False, True)]
    for th, base in ((1, 40.0), (0, 4.0)):
        for src in SOURCES:
            for pred in (False, True):
                t = base + src / 10 + (0 if copied or not pred else 0.5)
                x = sample("g", "peer.gapbs", src, t, knobs={"threads": th}, valid=None, predecessors=pred)
                x.timed_by = "peer.gapbs"
                s.append(x)
    return document(s, {"g": dataset_entry(100, 400)})


def test_a_variant_that_copies_another_is_marked_never_shown_as_a_measurement(tmp_path):
    results = load_many([write(tmp_path, "t.json", _gapbs_doc(copied=True))])
    agg = Aggregate(results)
    why = ("the same times as peer.gapbs without +pred, source for source: a copy of its samples, not a "
           "measurement")
    for metric in ("ms", "gteps", "speedup"):
        cell = agg.cell("g", "peer.gapbs", metric, predecessors=True)
        assert (cell.status, cell.value, cell.text, cell.reason) == ("n/a", None, f"n/a: {why}", why), metric
        assert agg.cell("g", "peer.gapbs", metric).status == "ok"  # the row that was measured
    # a speedup over the peer with predecessors divides into its measured distance row
    vs = Aggregate(results, baseline="peer.gapbs")
    base = vs.baseline("g", True, like=next(g for g in vs.groups if g.strategy == "cpu.sequential" and g.predecessors))
    assert base is not None and not base.predecessors
    groups = [g for g in overview(results, "ms").data["groups"] if g["strategy"] == "peer.gapbs"]
    assert [g.get("suspect") for g in groups] == [None, why, None, why]
    # measured apart, nothing is marked
    agg = Aggregate(load_many([write(tmp_path, "u.json", _gapbs_doc(copied=False))]))
    assert agg.cell("g", "peer.gapbs", "ms", predecessors=True).status == "ok"


def test_a_compare_side_that_is_a_copy_has_no_ratio(tmp_path):
    from gpubfs_cli.report.build import compare

    a = load_many([write(tmp_path, "a.json", _gapbs_doc(copied=True))])
    b = load_many([write(tmp_path, "b.json", _gapbs_doc(copied=False))])
    d = compare(a, b)
    cell = next(c for c in d.data["cells"] if c["strategy"] == "peer.gapbs" and c["predecessors"])
    assert cell["ratio"] is None and cell["text"].startswith("n/a: A: the same times as peer.gapbs without +pred")
