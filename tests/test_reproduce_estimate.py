"""The time estimate of `gpubfs reproduce` from the shipped results (docs/results), on a
machine that claims to be the shipped H100: its GPU name and host CPU model, its 16 cores,
GPU strategies available (no GPU is used: a dry run runs nothing). Nothing here is cached
and there is no local history (the tests run in a temporary folder).
"""

from __future__ import annotations

import os
import re
import shutil
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from gpubfs_cli.bench.config import load_config
from gpubfs_cli.cli import app
from gpubfs_cli.gpu import backend
from gpubfs_cli.results.schema import load_results
from gpubfs_cli.workflows import history
from gpubfs_cli.workflows.estimate import Estimate, graph_estimate
from gpubfs_cli.workflows.reproduce import variant_knobs

runner = CliRunner()
H100 = "NVIDIA H100 80GB HBM3"
HOST_CPU = "Intel(R) Xeon(R) Processor"  # the shipped H100 host's, as its files record it
SHIPPED_MERRILL = history.shipped_dir() / "h100-2026-11-23" / "merrill.json.gz"


@pytest.fixture
def h100(tmp_path, monkeypatch):
    monkeypatch.setattr(backend, "gpus_unavailable_reason", lambda count=1: None)
    monkeypatch.setattr(history, "device_label", lambda: (H100, HOST_CPU))
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def dry_run(tmp: Path, paper: str) -> str:
    result = runner.invoke(app, ["reproduce", paper, "--dry-run", "--dir", str(tmp / "data"),
                                 "--results", str(tmp / "out")])
    assert result.exit_code == 0, result.output
    return result.output


def test_merrill_is_estimated_from_the_shipped_h100_files(h100):
    out = dry_run(h100, "merrill")
    assert f"estimates for {H100}: shipped H100, then shipped H200 scaled " in out
    for config in ("merrill", "merrill-fig10", "merrill-pred", "merrill-cpu"):
        assert re.search(rf"^merrill · {config}: \d+ cell\(s\) to run, 0 finished, about [\d.]+ (s|min)"
                         r"(, plus \d+ download\(s\) of unknown time)? \(from shipped H100: \d+\)$", out, re.M), out
    # every graph is built once, by the first config that needs it, and listed once
    assert out.count("grid5pt.5000: generate first") == 1
    assert out.count("  grid5pt.5000: generated here") == 1
    # Table 1's nine downloads, their time unknown here (no download measured on this machine)
    assert re.search(r"^merrill: 224 cell\(s\) to run, about [\d.]+ min, plus 9 download\(s\) of unknown time "
                     r"in all \(from shipped H100: \d+\); ", out, re.M), out
    assert "  europe.osm: download about 173 MB (estimated), 840 MB converted" in out


def test_estimate_is_within_2x_of_the_shipped_run(h100):
    """The shipped H100 merrill run (2026-11-23: Table 2's graphs, merrill.hybrid, 100
    sources, every answer checked) took finished - created = 144 s by its own timestamps,
    graphs cached and kernels compiled beforehand (its prepares took milliseconds). The
    estimate of that same config, graphs cached, covers that span: loads, uploads,
    baselines, prepares, warm-ups, traversals and the host's work per call. It says 82 s:
    that run also computed per-level counters on the host (about 19 ns per vertex checked),
    which today's defaults leave off, so it is low against that file and should be near a
    run of today's code. A first compile of each kernel (about 30 s each) is never counted."""
    doc = load_results(SHIPPED_MERRILL)
    took = (datetime.fromisoformat(doc["finished"]) - datetime.fromisoformat(doc["created"])).total_seconds()
    shipped_cfg = doc["config"]
    path = h100 / "merrill-as-shipped.yaml"
    path.write_text(yaml.safe_dump({
        "name": "merrill", "datasets": [d["name"] for d in shipped_cfg["datasets"]],
        "strategies": [{"name": v["strategy"], "knobs": v["knobs"]} for v in shipped_cfg["variants"]],
        **{k: shipped_cfg[k] for k in ("sources", "seed", "validate", "predecessors", "warmup", "time_limit_s")},
    }))
    cfg = load_config(path)
    machine = history.this_machine(H100, HOST_CPU, [], cores=doc["environment"]["cpu"]["cores"])
    total = Estimate()
    for name in (d.name for d in cfg.datasets):
        info = doc["datasets"][name]
        total += graph_estimate(machine, cfg, name, True, info["m"], info["n"],
                                [(v, variant_knobs(cfg, v)) for v in cfg.variants])
    assert dict(total.how) == {"shipped H100": 10}  # 5 graphs x (the variant + its baseline)
    assert took / 2 <= total.seconds <= took * 2, (total.seconds, took)


def test_all_prints_each_paper_and_the_grand_total(h100):
    out = dry_run(h100, "all")
    papers = re.findall(r"^(\w+): \d+ cell\(s\) to run, .+ in all \(from (.+)\); results in ", out, re.M)
    assert [p for p, _ in papers] == ["bfs4k", "lbbfs", "luo", "merrill", "raval"], out
    assert all("shipped H100" in how for _, how in papers)
    total = re.search(r"^all 5 papers: (\d+) cell\(s\) to run, (about|at least) [\d.]+ (min|h).* in all \(from (.+)\)$",
                      out, re.M)
    assert total, out
    cells = sum(int(n) for n in re.findall(r"^\w+: (\d+) cell\(s\) to run, .+; results in ", out, re.M))
    assert int(total.group(1)) == cells


def test_local_history_wins(h100):
    """A results file of this machine under results/ comes before the shipped ones."""
    (h100 / "results").mkdir()
    shutil.copy(SHIPPED_MERRILL, h100 / "results" / "merrill-mine.json.gz")
    out = dry_run(h100, "merrill")
    assert f"estimates for {H100}: local history, then shipped H100, then " in out
    # merrill.hybrid from this machine; the baselines (cpu.sequential) from the shipped files
    assert re.search(r"^merrill · merrill: 28 cell\(s\) to run, 0 finished, about .+ "
                     r"\(from local history: 28, shipped H100: 14\)$", out, re.M), out


def test_another_gpu_scales_the_nearest_model():
    """An A100 (1.6 TB/s) has no shipped files: the H100's (3.35 TB/s, the nearest) times
    scaled by the bandwidth ratio. An H200 takes the H100 rows it lacks at the ratio the
    two measured on the cells both ran."""
    a100 = history.this_machine("NVIDIA A100-SXM4-40GB", HOST_CPU, [], cores=16)
    assert [s.label for s in a100.sources] == ["local history", "shipped H100 scaled 2.15x"]
    ms, _, how = a100.traversal("bfs", "merrill.hybrid", {}, False, "grid5pt.5000", 124_980_000)
    h100_ms, _, _ = history.this_machine(H100, HOST_CPU, [], cores=16).traversal(
        "bfs", "merrill.hybrid", {}, False, "grid5pt.5000", 124_980_000)
    assert how == "shipped H100 scaled 2.15x" and ms == pytest.approx(h100_ms * 3350 / 1555)
    h200 = history.this_machine("NVIDIA H200", HOST_CPU, [], cores=16)
    assert h200.sources[1].label == "shipped H200"
    assert re.fullmatch(r"shipped H100 scaled 0\.\d\dx", h200.sources[2].label)


def test_a_graph_not_measured_scales_by_edges():
    machine = history.this_machine(H100, HOST_CPU, [], cores=16)
    base, _, _ = machine.traversal("bfs", "merrill.hybrid", {}, False, "grid5pt.5000", 124_980_000)
    # grid5pt.5000 is the measured graph nearest in edges (the 128M-edge ones are 3% further)
    other, _, how = machine.traversal("bfs", "merrill.hybrid", {}, False, "no-such-graph", 124_000_000)
    assert how == "shipped H100"
    assert other == pytest.approx(base * 124_000_000 / 124_980_000)
    assert machine.traversal("bfs", "no.such_strategy", {}, False, "grid5pt.5000", 1)[2] == "unknown"


def test_without_a_gpu_nothing_is_guessed():
    machine = history.this_machine(None, HOST_CPU, [], cores=16)
    assert [s.label for s in machine.sources] == ["local history"]
    assert machine.traversal("bfs", "cpu.sequential", {}, False, "grid5pt.5000", 124_980_000) == (None, 0.0, "unknown")


def seconds(text: str) -> float:
    """'about 41 s' / 'about 1.1 min' / 'about 1.2 h' -> seconds."""
    value, unit = re.search(r"about ([\d.]+) (s|min|h)\b", text).groups()
    return float(value) * {"s": 1, "min": 60, "h": 3600}[unit]


def test_quick_dry_run_says_its_sources_and_estimates_less(h100):
    """luo runs 10 sources a graph; --quick runs 5 (the default), its CPU column kept (the
    paper's CPU-BFS and Sp.): the same cells, a smaller estimate, the quick folder."""
    full = dry_run(h100, "luo")
    result = runner.invoke(app, ["reproduce", "luo", "--dry-run", "--quick", "--dir", str(h100 / "data")])
    assert result.exit_code == 0, result.output
    quick = result.output
    assert "luo: quick mode: at most 5 sources a graph; CPU columns as in full mode" in quick
    line = re.search(r"^luo · luo \(5 sources a graph\): 52 cell\(s\) to run, 0 finished, about .+$", quick, re.M)
    assert line, quick
    whole = re.search(r"^luo: 52 cell\(s\) to run, (about .+) in all .+; results in results/reproduce-quick/luo$",
                      quick, re.M)
    full_whole = re.search(r"^luo: 52 cell\(s\) to run, (about .+) in all ", full, re.M)
    assert whole and full_whole, (quick, full)
    assert seconds(whole.group(1)) < seconds(full_whole.group(1))
    assert seconds(line.group(0)) < seconds(re.search(r"^luo · luo: .+$", full, re.M).group(0))


def test_quick_raval_times_the_parallel_cpu_bfs(h100):
    """raval's CPU columns are gpubfs's own: quick mode times cpu.parallel_do for BFS and
    leaves cpu.dijkstra's timing out (its answers still check every SSSP answer)."""
    from gpubfs_cli.workflows import reproduce as rp

    cfg = load_config(rp.paper_config_paths("raval")[0])
    quick = rp.Mode(True, 3).apply(cfg, "raval")
    assert quick.sources == 3 and quick.validate == "all"
    strategies = {(v.problem, v.strategy) for v in quick.variants}
    assert ("bfs", "cpu.parallel_do") in strategies
    assert not {("bfs", "cpu.sequential"), ("sssp", "cpu.dijkstra")} & strategies
    assert len(quick.variants) == len(cfg.variants) - 1
    assert rp.Mode(True, 3).apply(load_config(rp.paper_config_paths("luo")[0]), "luo").variants == \
        load_config(rp.paper_config_paths("luo")[0]).variants
    out = runner.invoke(app, ["reproduce", "raval", "--dry-run", "--quick", "--dir", str(h100 / "data")]).output
    assert ("raval: quick mode: at most 5 sources a graph; CPU column from cpu.parallel_do (not cpu.sequential), "
            "cpu.dijkstra not timed (every answer still checked against the baseline)") in out


def test_quick_mode_leaves_out_the_large_downloads_and_says_which(h100):
    """Quick mode runs no download over 100 MB (its cells stay missing, each said with the
    command that fills them); the generated graphs and the small downloads still run."""
    result = runner.invoke(app, ["reproduce", "merrill", "--dry-run", "--quick", "--dir", str(h100 / "data")])
    assert result.exit_code == 0, result.output
    out = result.output
    left = re.findall(r"^merrill: (\S+): its cells stay missing: quick mode leaves out downloads over 100 MB; "
                      r"to fill them: gpubfs fetch-dataset \1 \(.+ to download\), then gpubfs reproduce merrill$",
                      out, re.M)
    assert set(left) == {"europe.osm", "hugebubbles-00020", "nlpkkt160", "audikw1", "cage15", "kron_g500-logn20"}, out
    assert "merrill: kkt_power: fetch first" in out and "merrill: grid5pt.5000: generate first" in out
    assert "merrill: europe.osm: fetch first" not in out
    full = dry_run(h100, "merrill")
    assert "its cells stay missing" not in full
