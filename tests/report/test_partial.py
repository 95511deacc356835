"""Partial cells: an ok group with fewer sources than its run planned shows its numbers
with the count it holds, in every table and format, and pooled files complete it."""

from __future__ import annotations

import json

import pytest

from gpubfs_cli.report.build import overview
from gpubfs_cli.report.layouts import rank_cells
from gpubfs_cli.report.load import Results, add_doc, load_many, results_from_doc
from gpubfs_cli.report.render import render
from gpubfs_cli.report.table import Cell
from tests.report.docs import SEQ_MS, SOURCES, dataset_entry, document, sample


def stopped_doc(sources=SOURCES, measured=3) -> dict:
    """cpu.sequential on all four sources, merrill.hybrid on the first `measured`, then Ctrl-C."""
    samples = [sample("g1", "cpu.sequential", s, t) for s, t in zip(sources, SEQ_MS, strict=True)]
    samples += [sample("g1", "merrill.hybrid", s, 1.0 + s) for s in sources[:measured]]
    doc = document(samples, {"g1": dataset_entry(1000, 8000)})
    doc.update(complete=False, interrupted=True, stopped_by="SIGTERM", interrupted_during="merrill.hybrid on g1")
    return doc


def cell_of(doc, column, fmt_metric="ms"):
    table = overview(results_from_doc(doc, "stopped.json"), fmt_metric).tables[0]
    return table.rows[0][table.columns.index(column)], table


def test_a_partial_cell_keeps_its_number_and_says_how_many_sources():
    cell, table = cell_of(stopped_doc(), "merrill.hybrid")
    assert (cell.text, cell.status, cell.value) == ("2.000 (3/4)", "partial", 2.0)
    assert cell.reason == "3 of 4 sources measured: the run stopped before the rest"
    assert "partial (3 of 4 sources measured: the run stopped before the rest): merrill.hybrid" in " ".join(
        table.footnotes)
    whole, _ = cell_of(stopped_doc(), "cpu.sequential")
    assert whole.status == "ok" and "(" not in whole.text
    speedup, _ = cell_of(stopped_doc(), "merrill.hybrid", "speedup")
    assert speedup.status == "partial" and speedup.text.endswith(" (3/4)")


def test_every_format_carries_the_partial_status():
    doc = overview(results_from_doc(stopped_doc(), "stopped.json"), "ms")
    assert ",2.000 (3/4),2.0,1.5,2.5,partial," in render(doc, "csv")  # low, high: its times' IQR
    cells = [c for t in json.loads(render(doc, "json"))["tables"] for row in t["rows"] for c in row]
    assert {"text": "2.000 (3/4)", "value": 2.0, "status": "partial", "low": 1.5, "high": 2.5,
            "reason": "3 of 4 sources measured: the run stopped before the rest"} in cells
    groups = json.loads(render(doc, "json"))["groups"]
    hybrid = next(g for g in groups if g["strategy"] == "merrill.hybrid")
    assert (hybrid["sources_planned"], hybrid["sources_measured"], hybrid["partial"]) == (4, 3, True)


def test_the_header_says_the_run_did_not_complete():
    header = overview(results_from_doc(stopped_doc(), "stopped.json"), "ms").header
    assert ("stopped.json: the run did not complete: interrupted by SIGTERM during merrill.hybrid on g1; a cell "
            "with fewer sources than planned shows how many it holds, (measured/planned)") in header
    done = stopped_doc(measured=4)
    done.update(complete=True, interrupted=False)
    assert not any("did not complete" in line for line in overview(results_from_doc(done, "d.json"), "ms").header)
    old = stopped_doc(measured=4)  # a file from before `complete`: complete unless it says otherwise
    for key in ("complete", "interrupted", "stopped_by", "interrupted_during"):
        del old[key]
    assert not any("did not complete" in line for line in overview(results_from_doc(old, "o.json"), "ms").header)


def test_a_later_file_of_the_same_run_completes_the_cell(tmp_path):
    first, rest = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(stopped_doc(measured=3)))
    doc = document([sample("g1", "merrill.hybrid", 3, 4.0)], {"g1": dataset_entry(1000, 8000)})
    rest.write_text(json.dumps(doc))
    table = overview(load_many([first, rest]), "ms").tables[0]
    assert table.rows[0][table.columns.index("merrill.hybrid")].status == "ok"


def test_files_with_other_sources_plan_their_own():
    """A file that drew other sources does not make a complete cell of another file partial."""
    a = stopped_doc(measured=4)
    b = stopped_doc(sources=[10, 11, 12, 13], measured=4)
    b["sources"] = {"g1": [10, 11, 12, 13]}
    pool = add_doc(add_doc(Results(), a, "a.json"), b, "b.json")
    table = overview(pool, "ms").tables[0]
    assert table.rows[0][table.columns.index("merrill.hybrid")].status == "ok"


def test_a_ranked_partial_cell_stays_marked():
    cells = [Cell("2.000 (3/4)", value=2.0, status="partial"), Cell("1.000", value=1.0)]
    rank_cells(cells)
    assert [c.text for c in cells] == ["2 (3/4)", "1"]


def test_compare_marks_the_side_that_is_partial():
    from gpubfs_cli.report.build import compare

    whole = stopped_doc(measured=4)
    whole.update(complete=True, interrupted=False)
    doc = compare(results_from_doc(whole, "a.json"), results_from_doc(stopped_doc(measured=3), "b.json"))
    table = doc.tables[0]
    cell = table.rows[0][table.columns.index("merrill.hybrid")]
    assert cell.status == "partial" and cell.text.endswith(" (B: 3/4)")
    assert cell.reason == "B: 3 of 4 sources measured: the run stopped before the rest"


# ---- every format through `gpubfs report` ---------------------------------------

FORMATS = ("table", "md", "csv", "json", "html")
HYBRID = {"ms": "2.000", "gteps": "0.004", "speedup": "6.000 [5.333-8.000]"}  # its numbers over 3 sources


def stopped_baseline_doc() -> dict:
    """merrill.hybrid on all four sources, cpu.sequential (the baseline) on three, then Ctrl-C."""
    samples = [sample("g1", "cpu.sequential", s, t) for s, t in zip(SOURCES[:3], SEQ_MS[:3], strict=True)]
    samples += [sample("g1", "merrill.hybrid", s, 1.0 + s) for s in SOURCES]
    doc = document(samples, {"g1": dataset_entry(1000, 8000)})
    doc.update(complete=False, interrupted=True, stopped_by="SIGINT", interrupted_during="cpu.sequential on g1")
    return doc


def reported_cell(tmp_path, doc, fmt, metric, strategy="merrill.hybrid") -> tuple[str, str | None]:
    """(text, status) of `strategy`'s g1 cell as `gpubfs report --format FMT` prints it
    (the status only where the format has one)."""
    from typer.testing import CliRunner

    from gpubfs_cli.cli import app
    from tests.report.docs import write

    path = write(tmp_path, "stopped.json", doc)
    r = CliRunner().invoke(app, ["report", str(path), "--format", fmt, "--metric", metric, "--rows", "strategies"])
    assert r.exit_code == 0, r.output
    out = r.stdout
    if fmt == "csv":
        import csv
        import io

        row = next(x for x in csv.DictReader(io.StringIO(out)) if (x["row"], x["column"]) == ("g1", strategy))
        return row["text"], row["status"]
    if fmt == "json":
        table = json.loads(out)["tables"][0]
        cell = table["rows"][0][table["columns"].index(strategy)]
        return cell["text"], cell["status"]
    if fmt == "html":
        import re

        found = re.search(rf'<tr><th>{re.escape(strategy)}</th>\n<td class="([\w-]+)">([^<]*)</td>', out)
        return found.group(2), found.group(1)
    rows = ([c.strip() for c in line.replace("│", "|").split("|")[1:-1]] for line in out.splitlines())
    return next(row[1] for row in rows if row and row[0] == strategy), None


@pytest.mark.parametrize("metric", sorted(HYBRID))
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_partial_cell_is_marked_in_every_format(tmp_path, fmt, metric):
    text, status = reported_cell(tmp_path, stopped_doc(), fmt, metric)
    assert text == f"{HYBRID[metric]} (3/4)" and status in (None, "partial")
    whole, status = reported_cell(tmp_path, stopped_doc(), fmt, metric, "cpu.sequential")
    assert "(" not in whole and status in (None, "ok")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_speedup_over_a_partial_baseline_is_partial_in_every_format(tmp_path, fmt):
    """merrill.hybrid measured every source, but its speedup pairs only the baseline's
    three: the speedup cell is partial; its time and rate are whole."""
    text, status = reported_cell(tmp_path, stopped_baseline_doc(), fmt, "speedup")
    assert text == "6.000 [5.333-8.000] (3/4)" and status in (None, "partial")
    for metric in ("ms", "gteps"):
        text, status = reported_cell(tmp_path, stopped_baseline_doc(), fmt, metric)
        assert "(" not in text and status in (None, "ok")


def test_a_speedup_over_a_partial_baseline_says_why():
    cell, table = cell_of(stopped_baseline_doc(), "merrill.hybrid", "speedup")
    assert cell.reason == ("speedup over 3 of 4 sources: the run stopped before its baseline, cpu.sequential, "
                           "measured the rest")
    assert f"partial ({cell.reason}): merrill.hybrid" in " ".join(table.footnotes)
    groups = json.loads(render(overview(results_from_doc(stopped_baseline_doc(), "s.json"), "speedup"), "json"))
    flags = {g["strategy"]: (g["partial"], g["speedup_partial"], g["speedup_sources"]) for g in groups["groups"]}
    assert flags == {"cpu.sequential": (True, True, 3), "merrill.hybrid": (False, True, 3)}
    whole = stopped_baseline_doc()
    whole["samples"].append(sample("g1", "cpu.sequential", 3, SEQ_MS[3]).to_dict())
    cell, _ = cell_of(whole, "merrill.hybrid", "speedup")
    assert cell.status == "ok" and not cell.text.endswith(")")
