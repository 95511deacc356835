"""`import gpubfs`, the Python API (docs/api.md): each function a thin call into the layer
the command line calls, bad input one UserError line, and every python block of
docs/api.md run in order (in a temporary folder, CPU only, tiny graphs)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import gpubfs
import gpubfs_cli
from gpubfs_cli.bench import runner as runner_module
from gpubfs_cli.cli import app
from gpubfs_cli.core import strategy as strategy_module
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.problem import discover
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.gpu import backend
from gpubfs_cli.graph.samples import grid, path
from gpubfs_cli.results.schema import load_results

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "api.md"


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")


@pytest.fixture
def small(monkeypatch):
    """Every dataset a run loads is a 5 x 5 grid (nothing generated)."""
    monkeypatch.setattr(runner_module, "default_loader", lambda spec, d, p: (grid(5, 5, name=spec.name), {}))


def one_line_error(fn, *expected: str) -> str:
    with pytest.raises(gpubfs.UserError) as caught:
        fn()
    text = str(caught.value)
    assert "\n" not in text and all(e in text for e in expected), text
    return text


# ---------------------------------------------------------------- the package
def test_import_is_light_and_the_version_is_the_packages():
    """`import gpubfs` loads no numpy, CuPy, strategy or harness: a notebook starts fast."""
    code = ("import sys, gpubfs; print(gpubfs.__version__); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'cupy', 'typer', 'rich') "
            "or m.startswith(('gpubfs_cli.core', 'gpubfs_cli.bench', 'gpubfs_cli.algorithms'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [gpubfs_cli.__version__, "[]"]
    assert set(gpubfs.__all__) == {"RunDocument", "UserError", "__version__", "bfs", "load_graph", "read_results",
                                   "run", "sssp", "strategies"}
    assert gpubfs.UserError is gpubfs_cli.errors.UserError


def test_strategies_lists_the_registry():
    assert "cpu.sequential" in gpubfs.strategies() and "cpu.msbfs" in gpubfs.strategies("bfs")
    assert "cpu.dijkstra" in gpubfs.strategies("sssp") and "cpu.sequential" not in gpubfs.strategies("sssp")
    one_line_error(lambda: gpubfs.strategies("dfs"), "unknown problem 'dfs'")


# ---------------------------------------------------------------- graphs
def test_load_graph_by_name_generates_once_then_reads_the_cache(tmp_path, no_gpu):
    g = gpubfs.load_graph("smoke-grid", data_dir=tmp_path)
    assert (g.name, g.n, g.m) == ("smoke-grid", 24**3, 79488) and (tmp_path / "smoke-grid" / "meta.json").is_file()
    again = gpubfs.load_graph("smoke-grid", data_dir=tmp_path)
    assert isinstance(again.row_offsets, np.memmap) and np.array_equal(again.col_indices, g.col_indices)


def test_load_graph_reads_a_file_as_fetch_dataset_does(tmp_path):
    mtx = tmp_path / "square.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate pattern general\n4 4 4\n1 2\n2 3\n3 4\n4 1\n")
    g = gpubfs.load_graph(mtx, format="mtx", data_dir=tmp_path / "data")
    assert (g.name, g.n, g.m) == ("square", 4, 4)
    assert gpubfs.load_graph("square", data_dir=tmp_path / "data").m == 4  # cached under its stem
    named = gpubfs.load_graph(mtx, format="mtx", name="ring", undirected=True, data_dir=tmp_path / "data")
    assert (named.name, named.m, named.directed) == ("ring", 8, False)
    one_line_error(lambda: gpubfs.load_graph(mtx, data_dir=tmp_path / "data"), "square.mtx", "format=", "mtx")
    one_line_error(lambda: gpubfs.load_graph(mtx, format="png", data_dir=tmp_path / "data"), "unknown format 'png'")
    one_line_error(lambda: gpubfs.load_graph(tmp_path / "none.mtx", format="mtx", data_dir=tmp_path / "data"),
                   "none.mtx: no such file")
    one_line_error(lambda: gpubfs.load_graph("smoke-gridd", data_dir=tmp_path / "data"),
                   "unknown dataset 'smoke-gridd' (did you mean: smoke-grid")
    one_line_error(lambda: gpubfs.load_graph("smoke-grid", name="x"), "apply only to a file read with format=")
    one_line_error(lambda: gpubfs.load_graph(42), "expected a dataset name or a file path, got 42")


# ---------------------------------------------------------------- traversals
def test_bfs_by_two_strategies_agrees_and_checks():
    g = grid(6, 7)
    a = gpubfs.bfs(g, 0)
    b = gpubfs.bfs(g, 0, "cpu.scipy", predecessors=True, check=True)
    assert isinstance(a, Answer) and isinstance(a.distances, np.ndarray) and a.parents is None
    assert np.array_equal(a.distances, b.distances) and a.distances.max() == 5 + 6
    assert b.parents[0] == 0 and b.distances[b.parents[41]] == 10
    assert a.time_ms > 0 and b.time_ms > 0
    c = gpubfs.bfs(g, 3, "cpu.networkx", max_edges=1000, check=True)  # a knob as a keyword
    assert c.distances[3] == 0


class Wrong(Strategy):
    """Every distance one too many: what check=True must catch."""

    name = "fakeapi.wrong"
    paper = "cpu"
    section = "test"

    def traverse(self, source, predecessors=False):
        from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs

        answer = sequential_bfs(self.graph, source)
        answer.distances[answer.distances > 0] += 1
        return answer


def test_check_holds_the_answer_to_the_baseline(monkeypatch):
    discover()
    monkeypatch.setitem(strategy_module._REGISTRY["bfs"], Wrong.name, Wrong)
    g = path(5)
    assert list(gpubfs.bfs(g, 0, Wrong.name).distances) == [0, 2, 3, 4, 5]  # unchecked: returned as it is
    one_line_error(lambda: gpubfs.bfs(g, 0, Wrong.name, check=True), "fakeapi.wrong from source 0: wrong answer: ")


def test_sssp_gets_the_catalogues_weights_and_checks(tmp_path, no_gpu):
    g = gpubfs.load_graph("smoke-grid", data_dir=tmp_path)
    d = gpubfs.sssp(g, 0, parents=True, check=True, data_dir=tmp_path)
    assert d.distances.dtype == np.int64 and d.distances[0] == 0 and d.distances[1] > 0 and d.parents[0] == 0
    assert np.array_equal(gpubfs.sssp("smoke-grid", 0, "cpu.scipy", data_dir=tmp_path).distances, d.distances)
    one_line_error(lambda: gpubfs.sssp(grid(3, 3), 0), "graph 'grid3x3' has no edge weights")


@pytest.mark.parametrize("call, expected", [
    (lambda g: gpubfs.bfs(g, 99), "source: vertex 99 is out of range for grid3x3 (0 <= v < 9)"),
    (lambda g: gpubfs.bfs(g, "0"), "source: '0' is not a vertex id"),
    (lambda g: gpubfs.bfs(g, 0, "cpu.sequentail"), "unknown bfs strategy 'cpu.sequentail' (did you mean: "),
    (lambda g: gpubfs.bfs(g, 0, "cpu.dijkstra"), "unknown bfs strategy 'cpu.dijkstra'"),
    (lambda g: gpubfs.bfs(g, 0, "cpu.networkx", max_edgs=5), "unknown knob of cpu.networkx 'max_edgs'"),
    (lambda g: gpubfs.bfs(g, 0, "cpu.networkx", max_edges=0), "knobs of cpu.networkx: max_edges: "),
    (lambda g: gpubfs.bfs(g, 0, "merrill.hybrid"), "merrill.hybrid cannot run here: disabled for this test"),
    (lambda g: gpubfs.bfs(g, 0, "cpu.networkx", max_edges=2), "cpu.networkx cannot run on grid3x3: "),
    (lambda g: gpubfs.bfs(g.row_offsets, 0), "bfs: expected a graph (gpubfs.load_graph) or a dataset name"),
    (lambda g: gpubfs.bfs(g, 0, None), "bfs: strategy: expected a name"),
], ids=["source-range", "source-type", "strategy-typo", "strategy-of-sssp", "knob-name", "knob-value",
        "no-gpu", "strategy-unavailable", "not-a-graph", "strategy-none"])
def test_bad_input_is_one_user_error_line(no_gpu, call, expected):
    one_line_error(lambda: call(grid(3, 3)), expected)


# ---------------------------------------------------------------- runs
def test_run_is_the_commands_run(tmp_path, no_gpu, small):
    """The same options through `gpubfs run` and gpubfs.run: the same config recorded, the
    same samples' cells, a results file and no journal left."""
    options = ["-d", "smoke-gnm", "-s", "cpu.sequential,cpu.scipy", "--sources", "3", "--warmup", "0",
               "--predecessors", "both", "--dir", str(tmp_path / "data")]
    result = CliRunner().invoke(app, ["run", "smoke", *options, "--out", str(tmp_path / "cli.json")])
    assert result.exit_code == 0, result.output
    doc = gpubfs.run("smoke", datasets="smoke-gnm", strategies=["cpu.sequential", "cpu.scipy"], sources=3,
                     warmup=0, predecessors="both", data_dir=tmp_path / "data", out=str(tmp_path / "api.json"))
    assert isinstance(doc, gpubfs.RunDocument) and isinstance(doc, dict)
    assert doc.path == tmp_path / "api.json" and doc.journal is None and not list(tmp_path.glob("*.jsonl"))
    on_disk, by_cli = load_results(doc.path), load_results(tmp_path / "cli.json")
    assert json.loads(json.dumps(doc)) == on_disk
    assert {**on_disk["config"], "out": None} == {**by_cli["config"], "out": None}
    cells = lambda d: sorted((s["strategy"], s["source"], s["predecessors"], s["status"]) for s in d["samples"])  # noqa: E731
    assert cells(on_disk) == cells(by_cli) and len(on_disk["samples"]) == 2 * 3 * 2


def test_run_takes_a_mapping_and_writes_to_the_results_folder(tmp_path, monkeypatch, no_gpu, small):
    monkeypatch.setenv("GPUBFS_RESULTS_DIR", str(tmp_path / "results"))
    doc = gpubfs.run({"name": "mine", "datasets": ["smoke-grid"], "sources": 2, "warmup": 0,
                      "strategies": [{"name": "cpu.networkx", "knobs": {"max_edges": [10, 1000]}}]},
                     fixed_sources=[0, 24])
    assert doc.path.parent == tmp_path / "results" and doc.path.name.startswith("mine-")
    assert sorted((s["knobs"]["max_edges"], s["status"]) for s in doc["summaries"]) == [
        (10, "unavailable"), (1000, "ok")]
    assert doc["sources"]["smoke-grid"] == [0, 24]


def test_run_bad_input_is_one_line(tmp_path, no_gpu, small):
    data = str(tmp_path / "data")
    one_line_error(lambda: gpubfs.run("smoke", soruces=3), "unknown gpubfs.run option 'soruces' (did you mean: sources")
    one_line_error(lambda: gpubfs.run(), "give a config", "datasets=")
    one_line_error(lambda: gpubfs.run("no-such-config"), "unknown run config 'no-such-config'")
    one_line_error(lambda: gpubfs.run({"datasets": ["smoke-grid"], "sources": 0}),
                   "gpubfs.run's config mapping: sources: ")
    one_line_error(lambda: gpubfs.run(42), "config: expected a config name, a file or a mapping, got int")
    one_line_error(lambda: gpubfs.run(datasets=[{"name": "smoke-grid"}]), "datasets: expected names")
    one_line_error(lambda: gpubfs.run({"datasets": ["smoke-grid"]}, resume="x.journal.jsonl"),
                   "resume goes on with the journal's config")
    one_line_error(lambda: gpubfs.run(datasets="smoke-grid", strategies="merrill.hybrid", data_dir=data,
                                      out=str(tmp_path / "r.json")),
                   "nothing was measured: no strategy of this run can run here", "no results file written")
    assert not (tmp_path / "r.json").exists()


# ---------------------------------------------------------------- results as a table
def test_read_results_is_one_plain_row_per_sample(tmp_path, no_gpu, small):
    doc = gpubfs.run(datasets="smoke-grid", strategies=["cpu.sequential", "cpu.msbfs", "merrill.hybrid"],
                     sources=2, warmup=0, out=str(tmp_path / "r.json"), data_dir=tmp_path / "data")
    rows = gpubfs.read_results(doc.path)
    assert len(rows) == len(doc["samples"]) == 2 + 2 + 1
    assert rows == gpubfs.read_results(doc) == gpubfs.read_results([str(doc.path)])
    plain = (str, int, float, bool, type(None))
    assert all(isinstance(v, plain) for row in rows for v in row.values())
    seq = next(r for r in rows if r["strategy"] == "cpu.sequential")
    assert seq["status"] == "ok" and seq["valid"] is True and seq["variant"] == "{}" and seq["depth"] >= 1
    assert seq["gteps"] == pytest.approx(seq["edges"] / seq["time_ms"] / 1e6)
    assert seq["counter.levels"] == seq["depth"] + 1
    batch = next(r for r in rows if r["strategy"] == "cpu.msbfs")
    assert batch["batch"] == 2 and batch["knob.width"] == 64
    gpu = next(r for r in rows if r["strategy"] == "merrill.hybrid")
    assert (gpu["source"], gpu["status"], gpu["gteps"], gpu["reason"]) == (-1, "unavailable", None,
                                                                           "disabled for this test")
    one_line_error(lambda: gpubfs.read_results(tmp_path / "none.json"), "none.json: no such results file")
    one_line_error(lambda: gpubfs.read_results({"samples": 3}), "no results document")
    one_line_error(lambda: gpubfs.read_results(3), "expected a results file, a list of them or a results document")


def test_read_results_makes_a_dataframe(tmp_path, no_gpu, small):
    pd = pytest.importorskip("pandas", reason="pandas is not a dependency; the table is for it where installed")
    doc = gpubfs.run(datasets="smoke-grid", strategies="cpu.sequential", sources=2, warmup=0,
                     out=str(tmp_path / "r.json"), data_dir=tmp_path / "data")
    df = pd.DataFrame(gpubfs.read_results(doc.path))
    assert len(df) == 2 and set(df["status"]) == {"ok"}


# ---------------------------------------------------------------- docs/api.md
def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    """docs/api.md's python blocks run in order, in one namespace, in a temporary folder
    that holds the dataset cache and the results folder; without a GPU; the strategy it
    registers kept from the rest of the tests. The blocks that import pandas wait for
    `test_the_api_docs_pandas_block`."""
    tmp = tmp_path_factory.mktemp("api-doc")
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    namespace: dict = {"__name__": "api_doc"}
    discover()
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp)
        mp.setenv("GPUBFS_DATA_DIR", str(tmp / "datasets"))
        mp.setenv("GPUBFS_RESULTS_DIR", str(tmp / "results"))
        mp.setattr(backend, "unavailable_reason", lambda: "disabled for this test")
        mp.setattr(strategy_module, "_REGISTRY", {p: dict(n) for p, n in strategy_module._REGISTRY.items()})
        later = []
        for i, block in enumerate(blocks, start=1):
            if "import pandas" in block:
                later.append((i, block))
                continue
            exec(compile(block, f"{DOC}, python block {i}", "exec"), namespace)
        yield tmp, namespace, later


def test_every_python_block_of_the_api_doc_runs(walked):
    tmp, ns, later = walked
    assert len(python_blocks(DOC.read_text(encoding="utf-8"))) >= 8 and len(later) == 1
    assert ns["g"].name == "smoke-grid" and (tmp / "datasets" / "smoke-grid").is_dir()
    assert ns["t"].m == 6 and (tmp / "datasets" / "triangle").is_dir()
    assert ns["doc"].path.parent == tmp / "results" and ns["rows"]
    assert ns["q"].distances.max() == 69 and "mine.queue" in ns["QueueBfs"].name
    assert {s["strategy"]: s["status"] for s in ns["doc"]["summaries"]} == {"cpu.sequential": "ok", "mine.queue": "ok"}


def test_the_api_docs_pandas_block(walked):
    pytest.importorskip("pandas", reason="docs/api.md's pandas block needs pandas, which gpubfs does not depend on")
    _, ns, later = walked
    for i, block in later:
        exec(compile(block, f"{DOC}, python block {i}", "exec"), ns)
    assert list(ns["df"]["strategy"].unique())


def test_the_api_doc_is_linked_and_the_package_shipped():
    assert "docs/api.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert importlib.util.find_spec("gpubfs") is not None
    assert '"gpubfs"' in next(line for line in (ROOT / "pyproject.toml").read_text().splitlines()
                              if line.startswith("include = "))
