"""`gpubfs report --graph500`: the Graph 500 reference's statistics, by hand, and the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.report.graph500 import get_statistics, graph500_stats
from tests.report.docs import dataset_entry, document, sample, write
from tests.tools import one_line

runner = CliRunner()


# ---------------------------------------------------------------- statistics
def test_three_sources_by_hand():
    s = graph500_stats([1.0, 2.0, 4.0], [10, 10, 10])
    # order statistics: n = 3 puts both quartile indices of each pair on one element
    assert (s["min_time"], s["firstquartile_time"], s["median_time"], s["thirdquartile_time"],
            s["max_time"]) == (1.0, 1.0, 2.0, 4.0, 4.0)
    assert s["mean_time"] == pytest.approx(7 / 3)
    # deviations -4/3, -1/3, 5/3: squares sum to 42/9, over n - 1 = 2
    assert s["stddev_time"] == pytest.approx(math.sqrt(21 / 9))
    assert s["min_nedge"] == s["max_nedge"] == s["mean_nedge"] == 10 and s["stddev_nedge"] == 0
    # seconds per edge 0.1, 0.2, 0.4
    assert s["harmonic_mean_TEPS"] == pytest.approx(3 / (0.1 + 0.2 + 0.4))
    assert (s["min_TEPS"], s["median_TEPS"], s["max_TEPS"]) == pytest.approx((2.5, 5.0, 10.0))
    assert (s["firstquartile_TEPS"], s["thirdquartile_TEPS"]) == pytest.approx((2.5, 10.0))
    # std of seconds per edge: deviations -0.4/3, -0.1/3, 0.5/3 -> sqrt(0.42 / 9 / 2)
    std, mean = math.sqrt(0.21) / 3, 0.7 / 3
    assert s["harmonic_stddev_TEPS"] == pytest.approx(std / (mean**2 * math.sqrt(2)))


def test_quartiles_average_the_reference_elements():
    # n = 4: (x[0] + x[1]) / 2, (x[1] + x[2]) / 2, (x[3] + x[2]) / 2 on the sorted values
    q = get_statistics([4.0, 1.0, 3.0, 2.0])
    assert (q["firstquartile"], q["median"], q["thirdquartile"]) == (1.5, 2.5, 3.5)
    # n = 5: x[1], x[2], x[3]
    q = get_statistics([5.0, 1.0, 4.0, 2.0, 3.0])
    assert (q["min"], q["firstquartile"], q["median"], q["thirdquartile"], q["max"]) == (1, 2, 3, 4, 5)
    # not numpy's linear quantile, which interpolates at (n - 1) / 4 = 0.5 for n = 3
    assert get_statistics([1.0, 2.0, 4.0])["firstquartile"] == 1.0
    assert np.quantile([1.0, 2.0, 4.0], 0.25) == 1.5


def test_teps_quartiles_swap():
    # one second each, 1, 2, 4, 8 edges: seconds per edge 1, 0.5, 0.25, 0.125
    s = graph500_stats([1.0] * 4, [1, 2, 4, 8])
    assert s["min_TEPS"] == 1 and s["max_TEPS"] == 8
    assert s["firstquartile_TEPS"] == pytest.approx(1 / ((1 + 0.5) / 2))
    assert s["median_TEPS"] == pytest.approx(1 / ((0.5 + 0.25) / 2))
    assert s["thirdquartile_TEPS"] == pytest.approx(1 / ((0.25 + 0.125) / 2))
    assert s["harmonic_mean_TEPS"] == pytest.approx(4 / 1.875)
    assert s["median_nedge"] == 3 and s["mean_nedge"] == 3.75


def test_one_source():
    s = graph500_stats([0.5], [100])
    assert s["min_time"] == s["firstquartile_time"] == s["thirdquartile_time"] == s["max_time"] == 0.5
    assert s["stddev_time"] == s["stddev_nedge"] == s["harmonic_stddev_TEPS"] == 0
    assert s["harmonic_mean_TEPS"] == s["median_TEPS"] == pytest.approx(200)


# ---------------------------------------------------------------- the command
def _sample(dataset, strategy, source, time_ms, edges500, *, problem="bfs", **kw):
    s = sample(dataset, strategy, source, time_ms, **kw)
    s.problem = problem
    s.measures = {} if edges500 is None else {"edges_graph500": edges500}
    return s


def _doc() -> dict:
    s = [_sample("kron", "merrill.hybrid", 0, t, 10) for t in (500.0, 1000.0, 1500.0)]  # 3 rounds: median 1 s
    s += [_sample("kron", "merrill.hybrid", 1, 2000.0, 10), _sample("kron", "merrill.hybrid", 2, 4000.0, 10),
          _sample("kron", "merrill.hybrid", 3, 9.0, 10, status="wrong-answer", valid=False),
          _sample("kron", "merrill.hybrid", 4, None, None, status="out-of-time", valid=None)]
    s += [_sample("kron", "cpu.dijkstra", src, 2000.0, e, problem="sssp") for src, e in ((0, 10), (1, 20), (2, 40))]
    s += [_sample("kron", "luo.hierarchical", 0, None, None, status="unavailable", valid=None)]
    s += [_sample("web", "cpu.sequential", src, 1.0, None) for src in (0, 1)]  # a directed graph: no count
    kron = dataset_entry(1024, 16384)
    kron["meta"] = {"source": {"generator": "kronecker", "params": {"scale": 10, "edgefactor": 16}, "seed": 1},
                    "times": {"generate_s": 1.5, "parse_s": 9.0, "build_s": 0.25}}
    return document(s, {"kron": kron, "web": dataset_entry(100, 300, directed=True)})


@pytest.fixture()
def results(tmp_path):
    return str(write(tmp_path, "g500.json", _doc()))


def _values(text: str) -> dict[str, str]:
    """key -> value of the `key: value` lines (the last of a repeated key)."""
    return {k: v.strip() for k, _, v in (line.partition(":") for line in text.splitlines() if ":" in line)}


def test_table(results):
    r = runner.invoke(app, ["report", "--graph500", results])
    assert r.exit_code == 0, r.output
    blocks = r.stdout.split("\n\n")
    kron = _values(next(b for b in blocks if b.startswith("graph:") and "kron" in b))
    assert (kron["SCALE"], kron["edgefactor"], kron["graph_generation"], kron["num_mpi_processes"]) == \
        ("10", "16", "1.75", "1")
    bfs = _values(next(b for b in blocks if "merrill.hybrid" in b))
    assert bfs["knobs"] == "{}" and bfs["NBFS"] == "3"
    assert bfs["left_out"] == "2 (wrong-answer: 1, out-of-time: 1)"
    assert (bfs["bfs  min_time"], bfs["bfs  median_time"], bfs["bfs  thirdquartile_time"]) == ("1", "2", "4")
    assert bfs["bfs  harmonic_mean_TEPS"] == f"{3 / 0.7:.12g}" and bfs["mean_nedge"] == "10"
    assert "bfs  harmonic_mean_TEPS:        4.28571428571\n" in r.stdout  # the reference's %.12g, aligned
    sssp = _values(next(b for b in blocks if "cpu.dijkstra" in b))
    assert sssp["sssp harmonic_mean_TEPS"] == f"{3 / (0.2 + 0.1 + 0.05):.12g}"
    assert sssp["median_nedge"] == "20" and "left_out" not in sssp
    assert "bfs  no ok sample with a Graph 500 edge count (unavailable: 1)" in r.stdout
    web = next(b for b in blocks if "web" in b)
    assert "SCALE" not in web and "graph_generation" not in web
    assert "bfs  no ok sample with a Graph 500 edge count (no edges_graph500: 2)" in r.stdout


def test_md_and_json(results):
    r = runner.invoke(app, ["report", "--graph500", results, "--format", "md"])
    assert r.exit_code == 0, r.output
    assert r.stdout.count("```") == 2 and "\nbfs  harmonic_mean_TEPS:" in r.stdout
    r = runner.invoke(app, ["report", "--graph500", results, "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)["datasets"]
    assert list(data) == ["kron", "web"]
    bfs, luo, sssp = data["kron"]  # BFS variants first
    assert (bfs["problem"], bfs["kernel"], bfs["strategy"], bfs["nbfs"]) == ("bfs", 2, "merrill.hybrid", 3)
    assert bfs["stats"]["harmonic_mean_TEPS"] == pytest.approx(3 / 0.7)
    assert bfs["left_out"] == {"wrong-answer": 1, "out-of-time": 1}
    assert (sssp["kernel"], sssp["stats"]["max_TEPS"]) == (3, pytest.approx(20))
    assert luo["stats"] is None and luo["nbfs"] == 0


def test_out_file(results, tmp_path):
    out = tmp_path / "g500.txt"
    r = runner.invoke(app, ["report", "--graph500", results, "--out", str(out)])
    assert r.exit_code == 0 and r.stdout == "", r.output
    assert "sssp harmonic_mean_TEPS:" in out.read_text()
    one_line(runner.invoke(app, ["report", "--graph500", results, "--out", results, "--force"]),
             "one of this report's own inputs")


def test_one_source_says_so(tmp_path):
    doc = document([_sample("g", "merrill.hybrid", 0, 500.0, 100)], {"g": dataset_entry(100, 200)})
    r = runner.invoke(app, ["report", "--graph500", str(write(tmp_path, "one.json", doc))])
    assert r.exit_code == 0, r.output
    values = _values(r.stdout)
    assert values["NBFS"] == "1 (one source: every stddev printed as 0)"
    assert values["bfs  harmonic_stddev_TEPS"] == "0" and values["bfs  harmonic_mean_TEPS"] == "200"


@pytest.mark.parametrize(("extra", "words"), [
    (["--paper", "luo"], "--graph500 and --paper cannot be combined"),
    (["--compare", "a.json", "b.json"], "--graph500 and --compare cannot be combined"),
    (["--plot", "figs"], "--plot"),
    (["--metric", "ms"], "--metric"),  # the default value, given: still refused
    (["--check"], "--graph500 and --check cannot be combined"),
    (["--teps", "graph500"], "--graph500 and --teps cannot be combined"),
    (["--format", "csv"], "--graph500 prints table, md or json"),
    (["--format", "html"], "--graph500 prints table, md or json"),
])
def test_refusals(results, extra, words):
    r = runner.invoke(app, ["report", "--graph500", results, *extra])
    one_line(r, words)
    assert "Traceback" not in r.output
