"""gpubfs fetch-dataset / list datasets / export through the real CLI (CliRunner)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.datasets import store

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _one_line_error(result, starts: str) -> None:
    assert result.exit_code == 2, result.output
    # Progress lines may come first; the error is one line, the last.
    lines = result.stderr.strip().splitlines()
    assert [ln for ln in lines if ln.startswith("error:")] == lines[-1:], result.stderr
    assert lines[-1].startswith(f"error: {starts}"), lines[-1]
    assert "Traceback" not in result.output


@pytest.fixture
def delaunay(shared_data, tmp_path):
    """delaunay_n15.graph (METIS) fetched into a fresh cache under tmp_path."""
    d = tmp_path / "cache"
    res = run("fetch-dataset", "delaunay", "--file", shared_data / "delaunay_n15.graph", "--format", "metis", "--dir", d)
    assert res.exit_code == 0, res.output
    return d, res


def test_fetch_file_metis(delaunay, shared_data):
    d, res = delaunay
    assert "delaunay: n = 32,768, m = 196,548 (undirected)" in res.stdout
    g = store.load_graph("delaunay", d)
    assert (g.n, g.m, g.directed) == (32768, 196548, False)
    meta = store.read_meta("delaunay", d)
    assert meta["kind"] == "user" and meta["source"]["format"] == "metis"
    assert meta["source"]["sha256"] == "ae5f9f3449dac27285d45b7256e4950ba0e06d2ccf4719381c4aa4f338cd7489"
    assert meta["stats"]["n"] == 32768 and meta["stats"]["isolated"] == 0
    # Cached: the same command again is a no-op that prints the same line.
    again = run("fetch-dataset", "delaunay", "--dir", d)
    assert again.exit_code == 0 and "n = 32,768, m = 196,548" in again.stdout


def test_list_datasets_json(delaunay):
    d, _ = delaunay
    res = run("list", "datasets", "--json", "--dir", d)
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.stdout)}
    mine = rows["delaunay"]
    assert mine["cached"] is True and (mine["n"], mine["m"]) == (32768, 196548)
    assert mine["stats"]["max_degree"] == max(np.diff(store.load_graph("delaunay", d).row_offsets))
    assert mine["kind"] == "user" and mine["size_bytes"] > 196548 * 4
    europe = rows["europe.osm"]
    assert europe["cached"] is False and (europe["n"], europe["m"]) == (50912018, 108109320)
    assert europe["papers"] == ["merrill", "bfs4k"] and "stats" not in europe
    table = run("list", "datasets", "--dir", d)
    assert table.exit_code == 0 and "delaunay" in table.stdout and "europe.osm" in table.stdout


@pytest.mark.parametrize("fmt, reader_fmt", [("mtx", "mtx"), ("el", "snap")])
def test_export_round_trip(delaunay, tmp_path, fmt, reader_fmt):
    d, _ = delaunay
    out = tmp_path / f"delaunay.{fmt}"
    res = run("export", "delaunay", out, "--format", fmt, "--dir", d)
    assert res.exit_code == 0, res.output
    assert f"wrote {out}" in res.stdout
    back = run("fetch-dataset", "again", "--file", out, "--format", reader_fmt, "--dir", d)
    assert back.exit_code == 0, back.output
    a, b = store.load_graph("delaunay", d), store.load_graph("again", d)
    np.testing.assert_array_equal(a.row_offsets, b.row_offsets)
    np.testing.assert_array_equal(a.col_indices, b.col_indices)


def test_unknown_dataset(tmp_path):
    _one_line_error(run("fetch-dataset", "europe.osn", "--dir", tmp_path), "unknown dataset 'europe.osn' (did you mean: europe.osm")
    _one_line_error(run("export", "hugebubles-00020", tmp_path / "x.mtx", "--dir", tmp_path), "unknown dataset 'hugebubles-00020' (did you mean: hugebubbles-00020")
    _one_line_error(run("export", "europe.osm", tmp_path / "x.mtx", "--dir", tmp_path), "dataset 'europe.osm' is not cached")
    _one_line_error(run("fetch-dataset", "--paper", "merril", "--dir", tmp_path), "unknown paper 'merril' (did you mean: merrill")
    _one_line_error(run("fetch-dataset", "--dir", tmp_path), "name a dataset")


def test_bad_format(shared_data, tmp_path):
    f = shared_data / "delaunay_n15.graph"
    _one_line_error(run("fetch-dataset", "x", "--file", f, "--format", "metiss", "--dir", tmp_path), "unknown format 'metiss' (did you mean: metis")
    _one_line_error(run("fetch-dataset", "x", "--file", f, "--dir", tmp_path), "--url/--file need --format")
    _one_line_error(run("fetch-dataset", "x", "--format", "metis", "--dir", tmp_path), "--format/--undirected apply only")
    _one_line_error(run("export", "x", tmp_path / "x.csv", "--format", "csv", "--dir", tmp_path), "unknown export format 'csv'")
    # A file that is not in the format it is said to be: the reader's one line, no cache entry.
    _one_line_error(run("fetch-dataset", "x", "--file", shared_data / "chesapeake.mtx", "--format", "metis", "--dir", tmp_path), f"{shared_data / 'chesapeake.mtx'}:")
    assert not (tmp_path / "x").exists()


def test_missing_file(tmp_path):
    _one_line_error(
        run("fetch-dataset", "x", "--file", tmp_path / "absent.graph", "--format", "metis", "--dir", tmp_path),
        f"{tmp_path / 'absent.graph'}: no such file",
    )
