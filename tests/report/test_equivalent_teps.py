"""Strategies whose rates are equivalent GTEPS (Strategy.teps == "equivalent", such as
do.bfs) are labelled so in every table that shows their GTEPS, from the results file
alone: the runner records them under `equivalent_teps`."""

from __future__ import annotations

import pytest

from gpubfs_cli.bench.config import Variant
from gpubfs_cli.bench.variants import equivalent_teps
from gpubfs_cli.core.strategy import all_strategies
from gpubfs_cli.errors import UserError
from gpubfs_cli.report.aggregate import EQUIVALENT
from gpubfs_cli.report.build import overview, run_summary
from gpubfs_cli.report.load import load_many, results_from_doc
from gpubfs_cli.report.render import render
from tests.report.docs import SOURCES, dataset_entry, document, sample, write


def _doc(equivalent=("do.bfs",)) -> dict:
    s = []
    for src in SOURCES:
        s.append(sample("g1", "cpu.sequential", src, 10.0))
        s.append(sample("g1", "do.bfs", src, 0.5))
        s.append(sample("g1", "do.top_down", src, 1.0))
    doc = document(s, {"g1": dataset_entry(1000, 8000)})
    if equivalent is not None:
        doc["equivalent_teps"] = list(equivalent)
    return doc


def test_only_direction_optimizing_strategies_are_equivalent():
    assert all_strategies()["do.bfs"].teps == "equivalent"
    assert all_strategies()["do.top_down"].teps == "traversed"
    assert all_strategies()["merrill.hybrid"].teps == "traversed"
    variants = [Variant("do.bfs"), Variant("do.top_down"), Variant("merrill.hybrid"), Variant("do.bfs", {"alpha": 2})]
    assert equivalent_teps(variants) == ["do.bfs"]


def test_gteps_table_labels_the_column_and_explains(tmp_path):
    doc = overview(load_many([write(tmp_path, "r.json", _doc())]), "gteps")
    table = doc.tables[0]
    assert f"do.bfs ({EQUIVALENT})" in table.columns
    assert "do.top_down" in table.columns and "cpu.sequential" in table.columns
    assert any(f.startswith(EQUIVALENT) for f in table.footnotes)
    assert f"do.bfs ({EQUIVALENT})" in render(doc, "md")


def test_time_tables_and_files_without_the_key_are_unlabelled(tmp_path):
    ms = overview(load_many([write(tmp_path, "r.json", _doc())]), "ms").tables[0]
    assert "do.bfs" in ms.columns and not any(EQUIVALENT in f for f in ms.footnotes)
    old = overview(load_many([write(tmp_path, "old.json", _doc(equivalent=None))]), "gteps").tables[0]
    assert "do.bfs" in old.columns


def test_run_summary_says_equivalent_in_the_cell():
    doc = run_summary(results_from_doc(_doc()), "test")
    text = render(doc, "md")
    assert f"16 {EQUIVALENT}" in text  # 8000 edges / 0.5 ms
    assert "8 GTEPS" in text and f"8 {EQUIVALENT}" not in text  # do.top_down: 8000 / 1 ms
    assert EQUIVALENT + ":" in text


def test_a_bad_key_is_one_clear_error(tmp_path):
    with pytest.raises(UserError, match="equivalent_teps"):
        load_many([write(tmp_path, "bad.json", _doc(equivalent=("do.bfs", 3)))])
