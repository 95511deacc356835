"""Partial knob sweeps: a cell shows the best variant of a sweep, and where its run stopped
before every variant its config planned ran on that graph, the cell is partial and says
how many variants it holds, `5.000 (1/3 variants)`, as a cell with fewer sources does."""

from __future__ import annotations

import json

import pytest

from gpubfs_cli.report.aggregate import Aggregate
from gpubfs_cli.report.build import overview, run_summary
from gpubfs_cli.report.load import Results, add_doc, results_from_doc
from gpubfs_cli.report.render import render
from tests.report.docs import SEQ_MS, SOURCES, VWARP_MS, dataset_entry, document, sample
from tests.report.test_partial import FORMATS, reported_cell

REASON = "1 of 3 variants of its knob sweep measured: the run stopped before the rest"


def plan(*variants) -> dict:
    return {"variants": [{"problem": "bfs", "strategy": name, "knobs": knobs} for name, knobs in variants]}


SWEEP = plan(("cpu.sequential", {}), *(("classic.vwarp", {"W": w}) for w in VWARP_MS))


def sweep_doc(stopped: bool = True, graphs=("g1", "g2")) -> dict:
    """cpu.sequential and classic.vwarp W = 1, 4, 32 on every graph; `stopped`: the run was
    stopped after W = 1 on the last graph."""
    samples = []
    for ds in graphs:
        samples += [sample(ds, "cpu.sequential", s, t) for s, t in zip(SOURCES, SEQ_MS, strict=True)]
        for w, times in VWARP_MS.items():
            if stopped and ds == graphs[-1] and w != 1:
                continue
            samples += [sample(ds, "classic.vwarp", s, t, knobs={"W": w}) for s, t in zip(SOURCES, times, strict=True)]
    doc = document(samples, {ds: dataset_entry(1000, 8000) for ds in graphs})
    doc["config"] = SWEEP
    if stopped:
        doc.update(complete=False, interrupted=True, stopped_by="SIGTERM",
                   interrupted_during=f"classic.vwarp[W=4] on {graphs[-1]}")
    else:
        doc["complete"] = True
    return doc


def table_of(results: Results, metric: str = "ms"):
    return overview(results, metric).tables[0]


def cell(table, dataset: str, column: str = "classic.vwarp"):
    row = next(r for r in table.rows if r[0].text == dataset)
    return row[table.columns.index(column)]


def test_a_sweep_stopped_after_some_variants_is_partial_in_md():
    doc = overview(results_from_doc(sweep_doc(), "stopped.json"), "ms")
    stopped, whole = cell(doc.tables[0], "g2"), cell(doc.tables[0], "g1")
    assert (stopped.text, stopped.status, stopped.value, stopped.reason) == (
        "5.000 (1/3 variants)", "partial", 5.0, REASON)
    assert (whole.text, whole.status) == ("2.000 (W4)", "ok")
    md = render(doc, "md")
    assert "| g2 | 13.00 | 5.000 (1/3 variants) |" in md
    assert f"- partial ({REASON}): classic.vwarp on g2" in md


def test_the_json_cell_carries_the_variant_counts():
    out = json.loads(render(overview(results_from_doc(sweep_doc(), "stopped.json"), "ms"), "json"))
    table = out["tables"][0]
    row = next(r for r in table["rows"] if r[0]["text"] == "g2")
    got = row[table["columns"].index("classic.vwarp")]
    assert (got["text"], got["status"], got["variants_measured"], got["variants_planned"]) == (
        "5.000 (1/3 variants)", "partial", 1, 3)
    assert all("variants_measured" not in c for r in table["rows"] if r[0]["text"] == "g1" for c in r)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_marks_a_partial_sweep(tmp_path, fmt):
    text, status = reported_cell(tmp_path, sweep_doc(graphs=("g1",)), fmt, "ms", "classic.vwarp")
    assert text == "5.000 (1/3 variants)" and status in (None, "partial")


def test_a_complete_sweep_shows_no_mark():
    for doc in (sweep_doc(stopped=False), {**sweep_doc(stopped=False), "complete": False, "interrupted": True}):
        table = table_of(results_from_doc(doc, "whole.json"))
        assert {(cell(table, g).text, cell(table, g).status) for g in ("g1", "g2")} == {("2.000 (W4)", "ok")}
    done = sweep_doc(stopped=False)  # a complete run that ran fewer variants than planned: as it left them
    done["samples"] = [s for s in done["samples"] if s["dataset"] == "g1" or s["knobs"].get("W", 1) == 1]
    assert cell(table_of(results_from_doc(done, "done.json")), "g2").text == "5.000"


def test_a_resumed_file_of_the_same_run_completes_the_sweep():
    rest = sweep_doc(stopped=False, graphs=("g2",))
    rest["samples"] = [s for s in rest["samples"] if s["knobs"].get("W") in (4, 32)]
    pool = add_doc(add_doc(Results(), sweep_doc(), "a.json"), rest, "b.json")
    assert (cell(table_of(pool), "g2").text, cell(table_of(pool), "g2").status) == ("2.000 (W4)", "ok")


def test_only_the_cells_own_files_plans_count():
    """A file that planned the sweep does not make a cell of another file's graph partial,
    and a complete file pooled beside the stopped one does not hide its missing variants."""
    other = sweep_doc(stopped=False, graphs=("g3",))
    other["config"] = plan(("cpu.sequential", {}), ("classic.vwarp", {"W": 1}))
    other["samples"] = [s for s in other["samples"] if s["knobs"].get("W", 1) == 1]
    pool = add_doc(add_doc(Results(), sweep_doc(), "a.json"), other, "c.json")
    table = table_of(pool)
    assert (cell(table, "g3").text, cell(table, "g3").status) == ("5.000", "ok")
    assert cell(table, "g2").text == "5.000 (1/3 variants)"


def test_variants_of_another_gpu_count_are_another_column():
    doc = document([sample(ds, "merrill.multi_gpu", s, 1.0 + g, knobs={"gpus": g}) for ds in ("g1", "g2")
                    for g in (1, 2) for s in SOURCES if (ds, g) != ("g2", 2)],
                   {ds: dataset_entry(1000, 8000) for ds in ("g1", "g2")})
    doc["config"] = plan(("merrill.multi_gpu", {"gpus": 1}), ("merrill.multi_gpu", {"gpus": 2}))
    doc.update(complete=False, interrupted=True)
    table = table_of(results_from_doc(doc, "mgpu.json"))
    assert cell(table, "g2", "merrill.multi_gpu (1 GPU)").text == "2.000"
    assert cell(table, "g2", "merrill.multi_gpu (2 GPUs)").text == "missing"


def test_a_speedup_over_a_partial_sweep_is_partial():
    agg = Aggregate(results_from_doc(sweep_doc(), "stopped.json"), baseline="classic.vwarp")
    own = agg.cell("g2", "classic.vwarp", "speedup")
    over = agg.cell("g2", "cpu.sequential", "speedup")
    assert (own.text, own.status) == ("1.000 (1/3 variants)", "partial")
    assert (over.text, over.status) == ("0.387 [0.346-0.438] (1/3 variants)", "partial")
    assert over.reason == ("speedup over the best of 1 of 3 variants of its baseline, classic.vwarp: the run "
                           "stopped before the rest")
    assert agg.cell("g1", "cpu.sequential", "speedup").status == "ok"


def test_the_end_of_run_table_keeps_the_mark():
    table = run_summary(results_from_doc(sweep_doc(), "stopped.json"), "run").tables[0]
    row = next(r for r in table.rows if r[0].text == "classic.vwarp")
    assert row[2].text.startswith("5.000 ms (1/3 variants)\n")
