"""Aggregation values on a hand-made results document (tests/report/docs.py)."""

from __future__ import annotations

import pytest

from gpubfs_cli.report.aggregate import Aggregate, knob_label, status_text
from gpubfs_cli.report.build import overview
from gpubfs_cli.report.load import load_many
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
    assert agg.speedup(hyb) == pytest.approx(52.0 / 8.0)
    pred = agg.variants("g1", "merrill.hybrid", predecessors=True)[0]
    assert agg.speedup(pred) == pytest.approx(52.0 / 16.0)  # distance baseline when no pred one
    base = agg.variants("g1", "cpu.sequential")[0]
    assert agg.speedup(base) == pytest.approx(1.0)


def test_speedup_pairs_only_common_sources(tmp_path):
    s = [sample("g", "cpu.sequential", src, t) for src, t in zip(SOURCES, [10.0, 10.0, 10.0, 100.0], strict=True)]
    s += [sample("g", "merrill.hybrid", src, 1.0) for src in SOURCES[:3]]  # source 3 not run
    agg = Aggregate(load_many([write(tmp_path, "a.json", document(s, {"g": dataset_entry(100, 400)}))]))
    assert agg.speedup(agg.variants("g", "merrill.hybrid")[0]) == pytest.approx(30.0 / 3.0)


def test_best_knob_pick(agg):
    cell = agg.cell("g1", "classic.vwarp", "ms")
    assert cell.text == "2.000 (W4)"
    assert cell.knob == "W4" and cell.value == 2.0
    assert agg.cell("g1", "classic.vwarp", "gteps").knob == "W4"
    assert agg.cell("g1", "classic.vwarp", "speedup").value == pytest.approx(52.0 / 8.0)
    # a single variant carries no label
    assert agg.cell("g1", "merrill.hybrid", "ms").knob is None
    assert knob_label({"gather": "warp", "W": 8}, ["W", "gather"]) == "W8,gather=warp"


def test_failure_cells_are_statuses_not_numbers(agg):
    oot = agg.cell("g2", "classic.harish", "ms")
    assert (oot.text, oot.status, oot.value) == ("out-of-time", "out-of-time", None)
    wrong = agg.cell("g2", "classic.edge_coo", "gteps")
    assert (wrong.text, wrong.value) == ("wrong answer", None)
    unav = agg.cell("g2", "luo.hierarchical", "ms")
    assert unav.status == "unavailable" and unav.value is None
    assert unav.text.startswith("unavailable: no usable GPU") and unav.text.endswith("…")
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
    assert g["median_ms"] == 1.5 and g["speedup"] == pytest.approx(6.5) and g["edges_mean"] == EDGES
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
