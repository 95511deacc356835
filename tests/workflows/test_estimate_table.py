"""The estimate table the package ships (gpubfs_cli/configs/estimates.yaml): the rebuild of
docs/results by scripts/build_estimate_table.py, byte for byte, and a machine built from it
estimates exactly as one built from the results files themselves, on the cells they
measured and off them, for the shipped GPU models, a model they scale to, and no GPU."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from gpubfs_cli.errors import UserError
from gpubfs_cli.workflows import history

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_estimate_table  # noqa: E402

HOST_CPU = "Intel(R) Xeon(R) Processor"
TABLE = ROOT / "gpubfs_cli" / "configs" / "estimates.yaml"


@pytest.fixture(scope="module")
def shipped_docs():
    return history.read_docs(history.results_files_below(history.shipped_dir()))


@pytest.fixture(scope="module")
def from_files(shipped_docs):
    """The shipped figures as read from the results files themselves."""
    return history.Shipped.of_docs(shipped_docs)


def test_the_shipped_table_is_the_rebuild_of_docs_results(from_files):
    assert history.table_path() == TABLE
    assert history.table_text(from_files.table()) == TABLE.read_text(encoding="utf-8"), (
        "gpubfs_cli/configs/estimates.yaml is stale: python scripts/build_estimate_table.py")


def test_check_says_whether_the_table_is_stale(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(build_estimate_table, "build_text", lambda results: TABLE.read_text(encoding="utf-8"))
    assert build_estimate_table.main(["--check"]) == 0
    assert capsys.readouterr().out.strip() == f"{TABLE}: up to date"
    stale = tmp_path / "estimates.yaml"
    stale.write_text(TABLE.read_text(encoding="utf-8").replace("files: ", "files: 1", 1))
    assert build_estimate_table.main(["--check", "--out", str(stale)]) == 1
    assert capsys.readouterr().err.strip() == (
        f"{stale}: stale; rebuild it: python scripts/build_estimate_table.py")


@pytest.mark.parametrize("gpu, step", [("NVIDIA H100 80GB HBM3", 3), ("NVIDIA H200", 1),
                                       ("NVIDIA A100-SXM4-40GB", 7), (None, 7)])
def test_the_table_estimates_as_the_results_files_do(shipped_docs, from_files, gpu, step):
    """Every `step`-th cell the files measured asked of both (a third on the H100, whose
    files hold most of them, to keep the test short), and each strategy off the table: a
    graph of no measured size, the other option, no knobs."""
    files = history.this_machine(gpu, HOST_CPU, [], from_files, cores=16)
    table = history.this_machine(gpu, HOST_CPU, [], cores=16)
    assert [s.label for s in table.sources] == [s.label for s in files.sources]
    assert (table.load_s, table.build_s, table.upload_s) == (files.load_s, files.build_s, files.upload_s)
    cells = sorted({(c.problem, c.strategy, c.knobs, c.predecessors, c.dataset, c.m)
                    for doc in shipped_docs for c in history.measured_cells(doc)}, key=repr)
    assert len(cells) > 1000
    off = {(p, s, (), not pred, "no-such-graph", 3 * m + 1) for p, s, _, pred, _, m in cells}
    for problem, strategy, knobs, *rest in [*cells[::step], *sorted(off, key=repr)]:
        query = (problem, strategy, dict(knobs), *rest)
        assert table.traversal(*query) == files.traversal(*query), query


def test_a_newer_identical_cell_replaces_an_older_one(tmp_path):
    """Of two files measuring the same cell, the table keeps the newer one's figure only,
    the one the estimate would take; a cell measured once stays, whatever its age."""
    def doc(created: str, ms: float, graphs: tuple[str, ...]) -> dict:
        return {"created": created, "environment": {"gpu": {"name": "NVIDIA H100 80GB HBM3"}},
                "datasets": {g: {"status": "ok", "m": 100, "load_s": 0.5} for g in graphs},
                "samples": [{"dataset": g, "problem": "bfs", "strategy": "merrill.hybrid", "knobs": {},
                             "source": 0, "time_ms": ms, "status": "ok"} for g in graphs]}

    old, new = doc("2026-01-01T00:00:00+00:00", 2.0, ("a", "b")), doc("2026-02-01T00:00:00+00:00", 1.0, ("a",))
    table = history.Shipped.of_docs([old, new]).table()
    (model,) = table["models"].values()
    assert [(run["created"], [(table["graphs"][c[2]][0], c[3]) for c in run["cells"]]) for run in model["runs"]] == [
        ("2026-02-01T00:00:00+00:00", [("a", 1.0)]), ("2026-01-01T00:00:00+00:00", [("b", 2.0)])]
    assert table["times"]["a"]["load_s"] == [0.5, 0.5]  # every file's graph times stay: medians with local ones
    path = tmp_path / "estimates.yaml"
    path.write_text(history.table_text(table))
    shipped = history.load_shipped(path)
    machine = history.this_machine("NVIDIA H100 80GB HBM3", HOST_CPU, [], shipped, cores=16)
    assert machine.traversal("bfs", "merrill.hybrid", {}, False, "a", 100) == (1.0, 0.0, "shipped H100")
    assert machine.traversal("bfs", "merrill.hybrid", {}, False, "b", 100) == (2.0, 0.0, "shipped H100")


@pytest.mark.parametrize("text, why", [
    ("format: 7\n", "not an estimate table of format 1; rebuild it with scripts/build_estimate_table.py"),
    ("[1, 2\n", "not an estimate table (ParserError)"),
    ("format: 1\nvariants: []\n", "not a readable estimate table (KeyError: 'graphs'); rebuild it with "
                                  "scripts/build_estimate_table.py"),
])
def test_a_damaged_table_is_one_line(tmp_path, text, why):
    path = tmp_path / "estimates.yaml"
    path.write_text(text)
    with pytest.raises(UserError) as got:
        history.load_shipped(path)
    assert str(got.value) == f"{path}: {why}"


def test_the_build_reads_what_it_is_given(tmp_path, capsys):
    run = tmp_path / "results" / "h100-run"
    run.mkdir(parents=True)
    shutil.copy(history.shipped_dir() / "h100-2026-11-23" / "merrill.json.gz", run)
    out = tmp_path / "table.yaml"
    assert build_estimate_table.main(["--results", str(tmp_path / "results"), "--out", str(out)]) == 0
    assert "1 results files" in capsys.readouterr().out
    assert list(history.load_shipped(out).by_model) == ["NVIDIA H100 80GB HBM3"]
    assert build_estimate_table.main(["--results", str(tmp_path / "empty"), "--out", str(out)]) == 2
    assert "no results files one folder down" in capsys.readouterr().err
