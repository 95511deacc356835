"""The results files shipped under docs/results/ (one folder per machine and date, every
results file gzipped) still render every paper layout, with strategies recorded under
their earlier names (hong.vwarp, harish...) read under today's, and the figures
docs/performance.md quotes from them unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.report.load import load_many
from tests.report.pools import pooled_sets

RESULTS = Path(__file__).parents[2] / "docs" / "results"
PAPERS = ("merrill", "luo", "bfs4k", "raval", "lbbfs")
# The shipped sets: folder name -> what it holds (docs/performance.md cites each file).
SETS = {
    # Merrill's Table 2, Fig. 10 and predecessor runs, BFS-4K's Table 2 (classic columns)
    "h200-2026-11-22": "NVIDIA H200",
    # the papers' own families (bfs4k, lbbfs, raval), Merrill's Table 2 and knobs, Luo's
    # tables through `gpubfs reproduce luo`, warm/cold L2, cpu.parallel_* beside gapbs
    "h100-2026-11-23": "NVIDIA H100 80GB HBM3",
    # do.bfs beside Gunrock, its per-level cost and defaults, merrill.hybrid's CTA sizes,
    # the catalogue behind auto.bfs's table and its held-out checks
    "h100-2026-11-24": "NVIDIA H100 80GB HBM3",
    # mgpu.bfs on 1 and 2 GPUs beside do.bfs (docs/scaling.md): Graph500 scales 24-26,
    # the cost per level and its profile, the same run under mpiexec
    "h200x2-2026-11-26": "NVIDIA H200",
    # sssp.delta and sssp.near_far beside raval.*, gapbs's sssp and cpu.dijkstra; do.bfs
    # and mgpu.bfs with and without the bottom-up hand-off to the warp (an interrupted run);
    # do.bfs beside Gunrock and BLEST (peers-*), each family with and without reordering,
    # msbfs.bfs beside do.bfs with its alpha sweep, hub pass, probe batches and per-level
    # profiles; do.bfs's probe batches; the catalogue behind auto.bfs's table and its
    # held-out check; BLEST and Gunrock on more catalogue graphs
    "h100-2026-11-26": "NVIDIA H100 80GB HBM3",
    # mgpu.bfs on 1 and 2 GPUs beside do.bfs, the current code (docs/scaling.md)
    "h100x2-2026-11-26": "NVIDIA H100 80GB HBM3",
    # msbfs.bfs beside do.bfs, 64 sources; sssp.* over a sweep of delta
    "h200-2026-11-26": "NVIDIA H200",
    # do.bfs's per-level profiles with the kernel's span beside the timed figure, its
    # targets unprimed and primed; BLEST and Gunrock on thirteen more catalogue graphs
    # (a run interrupted, then resumed onto grid5pt.5000 and part of the Graph 500
    # scale-24 graph), then on that graph whole; the contenders run behind auto.bfs's
    # table and its held-out check; do.bfs with its in-lists as stored and hubs first;
    # make test-gpu's two passes on the current GPU code
    "h100-2026-11-27": "NVIDIA H100 80GB HBM3",
    # the real New York road graph read from a mirror folder: Luo's Table 2 row through
    # `gpubfs reproduce luo`, and SSSP on its distance weights (cpu.dijkstra, raval.*,
    # sssp.*); make test-gpu's two passes on the current code
    "h200-2026-11-29": "NVIDIA H200",
}
# Folders of printed tables only (no results file): the 2-core CPU box's generator timings;
# its counts of do.bfs's bottom-up probes and warp steps with in-lists stored and hubs
# first, and its replays of do.bfs's levels (scripts/level_shape.py) with their check.
TABLES = {"epyc2-2026-11-22": ["generators.md"],
          "epyc2-2026-11-27": ["probe-order.txt", "probe-order-in-order.txt", "level-shape.txt",
                               "level-shape-check.txt", "level-shape-s24-ef16.txt"],
          # stand-ins of four large catalogue graphs converted at their real sizes
          # (scripts/convert_scale.py): time and peak host memory beside the plan
          "epyc2-2026-11-29": ["convert-scale.txt"]}


def results_in(folder: Path) -> list[Path]:
    """The results files of a folder (shipped gzipped)."""
    return sorted(folder.glob("*.json.gz"))


SHIPPED = {name: results_in(RESULTS / name) for name in SETS}
EVERY = sorted(p for files in SHIPPED.values() for p in files)


def _render(files, paper) -> str:
    r = CliRunner().invoke(app, ["report", "--paper", paper, "--format", "md", *map(str, files)])
    assert r.exit_code == 0, r.output
    return r.stdout


def _report(*args) -> str:
    r = CliRunner().invoke(app, ["report", "--format", "md", *map(str, args)])
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.fixture(scope="module")
def rendered() -> dict[tuple[str, str], str]:
    """Every paper layout over each shipped set, as `gpubfs report --paper KEY FOLDER/*`
    (each set read once for its five layouts: tests/report/pools.py)."""
    with pooled_sets(SHIPPED):
        return {(name, paper): _render(files, paper) for name, files in SHIPPED.items() for paper in PAPERS}


def test_the_shipped_sets_are_the_folders_under_docs_results():
    # One folder per machine and date, nothing deeper: a folder or file added beside these
    # would be rendered by no test.
    assert sorted(p.name for p in RESULTS.iterdir()) == sorted([*SETS, *TABLES])
    assert all(files for files in SHIPPED.values())
    for name, files in TABLES.items():
        assert sorted(p.name for p in (RESULTS / name).iterdir()) == sorted(files)


def test_every_results_file_is_gzipped_and_in_a_shipped_set():
    everything = {p for p in RESULTS.rglob("*") if p.is_file() and ".json" in p.name}
    assert everything == set(EVERY), "a results file under docs/results/ that is not *.json.gz in a shipped set"


@pytest.mark.parametrize("name", SETS)
@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_layout_renders_each_set(rendered, name, paper):
    text = rendered[(name, paper)]
    assert "| Graph |" in text
    assert SETS[name] in text  # each set's files were measured on its folder's machine


def test_old_names_load_under_the_current_ones():
    results = load_many(EVERY)
    names = {s.strategy for s in results.samples}
    assert {"classic.vwarp", "classic.harish", "classic.edge_coo", "classic.spmv"} <= names
    assert not names & {"hong.vwarp", "harish", "edge.coo", "algebraic.spmv"}
    assert {s.problem for s in results.samples} == {"bfs", "sssp"}  # raval's SSSP runs


@pytest.mark.parametrize("path", EVERY, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_shipped_file_renders_alone(path):
    out = _report(path)
    assert str(path) in out and "median time per" in out
    assert re.search(r"\| \d+\.\d+", out)  # at least one measured cell


def test_h200_figures_unchanged(rendered):
    merrill, bfs4k = rendered[("h200-2026-11-22", "merrill")], rendered[("h200-2026-11-22", "bfs4k")]
    # Merrill Table 2, rmat.2Mv.128Me: hybrid predecessor 44.28 GTEPS, 165.2x speedup (the
    # median of per-source ratios with their interquartile range)
    assert "| 2.6 \\| 44.28 | 17 \\| 165.2 [158.6-183.1] |" in merrill
    # BFS-4K Table 2, rmat.2Mv.128Me: Harish 5.427 ms, edge-parallel 2.292, vwarp 1.544 (W32)
    assert "| 103.0 \\| 5.427 | 62.0 \\| 2.292 | 56.0 (W4) \\| 1.544 (W32) |" in bfs4k


def test_h100_2026_11_23_figures_unchanged(rendered):
    name = "h100-2026-11-23"
    # Luo Table 3 the paper's way: UIUC-BFS split 0.487 ms on the 1M scale-free graph beside
    # IIIT-BFS 2.493, the unsplit variant 5.060
    assert "| 1M | 161.5 \\| 2.493 | 52.8 \\| 57.58 | 100.7 \\| 0.487 | - \\| 5.060 |" in rendered[(name, "luo")]
    # Luo Table 1, 10M grid: UIUC-BFS 4.587 ms, 80.05x cpu.sequential
    assert "| 10M | 11019.8 \\| 31.08 | 5023.0 \\| 367.1 | 488.0 \\| 4.587 | 10.3 \\| 80.05 |" in rendered[(name, "luo")]
    # lbbfs Fig. 7, R-MAT d = 64: perfect, balanced gathering, balanced redistribution, hybrid
    assert "| rmat d=64 | 64.0 | 51.85 | 66.78 | 74.95 | 74.93 |" in rendered[(name, "lbbfs")]
    # BFS-4K Table 2, random.2Mv.128Me: BFS-4K 1.594 ms (its best variant over the Table 2
    # and ablation runs) where the paper has 52.0
    assert "| 52.0 \\| 1.594 (K1=16," in rendered[(name, "bfs4k")]
    # Raval Fig. 11, rmat20: SSSP EP 77.88 ms without chunking, 4.143 with; BFS 22.96, 1.361
    assert "| rmat20 | 77.88 | 4.143 | 22.96 | 1.361 |" in rendered[(name, "raval")]


def test_cpu_parallel_figures_unchanged():
    # gapbs's rows over gapbs are 1.000 (each thread count divided into its own run);
    # cpu.parallel_do with parents, best of 1 and 16 threads, 1.235x gapbs's speed
    out = _report(RESULTS / "h100-2026-11-23" / "cpu-parallel.json.gz")
    vs = out[out.index("speedup over peer.gapbs"):]
    assert "| peer.gapbs | 1.000 (threads=1) |" in vs and "| cpu.parallel_do +pred | 1.235 [1.016-1.307]" in vs


def test_do_defaults_figures_unchanged():
    # do.bfs on g500-s20-ef16, 50 sources over 10 rounds: growth alone 0.153 ms
    out = _report("--metric", "ms", RESULTS / "h100-2026-11-24" / "do-defaults.json.gz")
    assert "| g500-s20-ef16 | 0.153 (growth=True,small_frontier=0)! |" in out, out


def test_mid_frontier_figures_unchanged():
    # grid5pt.5000: do.bfs with the mid-frontier mode (default) 5.81 us a level, merrill.hybrid 6.11
    out = _report("--metric", "us_level", RESULTS / "h100-2026-11-24" / "do-levels.json.gz")
    assert "| grid5pt.5000 | 5.810 (mid_ctas=0,mid_frontier=32768,small_frontier=512) | 6.114 |" in out, out


def test_gunrock_figures_unchanged():
    # do.bfs (thresholds alone) on g500-s20-ef16 0.166 ms against Gunrock's 5.919, 64 sources
    out = _report("--metric", "ms", RESULTS / "h100-2026-11-24" / "do-gunrock.json.gz")
    assert "| g500-s20-ef16 | 0.166 (growth=False,small_frontier=0)! | 2.360! | 1.262! | 5.919! |" in out, out


def test_mgpu_figures_unchanged():
    # g500-s24-ef16 and s26: do.bfs on one H200, mgpu.bfs on 1 and 2 (peer-to-peer exchange)
    folder = RESULTS / "h200x2-2026-11-26"
    out = _report("--metric", "ms", folder / "mgpu-g500-s24-ef16.json.gz", folder / "mgpu-g500-s26-ef16.json.gz")
    assert "| do.bfs | 1.127 | 5.065 |" in out and "| mgpu.bfs (1 GPU) | 1.406 | 5.270 |" in out, out
    assert "| mgpu.bfs (2 GPUs) | 0.862 (blocks_per_sm=1,cta_size=1024," in out, out
    assert "| 3.134 (blocks_per_sm=1,cta_size=1024," in out, out
    # levels-path-100k: microseconds a level (the level loop on the device)
    out = _report("--metric", "us_level", folder / "mgpu-levels.json.gz")
    assert "| mgpu.bfs (2 GPUs) | 18.25 (" in out and "| do.bfs | 0.888 |" in out, out
    # Merrill's Fig. 11 (a run stopped by its limit): one column per GPU count
    out = _report("--paper", "merrill", folder / "merrill-fig11.json.gz")
    fig = out[out.index("Fig. 11."):]
    assert "| random.2Mv.128Me | 12.46 | 14.50 | 4.451 | 5.745 | 282.5 | 320.3 |" in fig, fig


def test_do_hub_pass_figures_unchanged():
    # g500-s26-ef16 on an H100: do.bfs with the hub pass (4096) and without, 8 sources
    out = _report("--metric", "ms", RESULTS / "h100-2026-11-26" / "do-hubs.json.gz")
    assert "| g500-s26-ef16 | 4.937 (hub_edges=1024) |" in out, out


def test_sssp_delta_figures_unchanged():
    # grid5pt.5000: sssp.near_far 174.1 ms against raval.bs 2,044 and gapbs's 344.9 (16 threads)
    out = _report("--metric", "ms", RESULTS / "h100-2026-11-26" / "sssp-delta.json.gz")
    assert "| raval.bs | 290.9 | 8.403 | 2,044 | 91.77 | 3.554 |" in out, out
    assert "| sssp.near_far | 100.3 | 4.565 | 174.1 | 7.096 | 1.214 |" in out, out
    assert "| peer.gapbs | 171.7 | 21.27 | 344.9 | 47.84 | 18.62 |" in out, out
    # the sweep: delta 262144 (32x the default rule's) is near_far's best on geo-road-1M
    out = _report("--metric", "ms", RESULTS / "h200-2026-11-26" / "sssp-delta-sweep.json.gz")
    assert "| geo-road-1M | 83.76 (delta=262144) | 76.43 (delta=262144) |" in out, out


def test_msbfs_figures_unchanged():
    # 64 sources a pass: msbfs.bfs 0.076 ms a source on g500-s20-ef16 against do.bfs's 0.168
    out = _report("--metric", "ms", RESULTS / "h200-2026-11-26" / "msbfs.json.gz")
    assert "| g500-s20-ef16 | 0.168! |" in out and "| g500-s20-ef16 | 34.25! | 0.076! |" in out, out


def test_peers_figures_unchanged():
    # one H100, 16 sources: do.bfs, Gunrock's three modes and BLEST on the same exported graphs
    folder = RESULTS / "h100-2026-11-26"
    out = _report("--metric", "ms", *(folder / f"peers-{g}.json.gz" for g in ("s20-uniform", "kron", "rmat")))
    assert "| do.bfs | 0.137! | 0.443 | 0.162 | 0.277 |" in out, out
    assert "| peer.blest | 0.167 (jaccard=False)! | 0.390 (jaccard=False) | 1.112 (jaccard=False) |" in out, out
    # BLEST's counts are checked by the harness (one Jaccard-ordered kron source disagreed);
    # Gunrock checks only its last source itself
    assert "- peer.blest: timed by the peer itself (its own timer); it returns no distances" in out, out
    assert "- peer.gunrock: timed by the peer itself (its own timer) and checked only as far" in out, out


def test_reorder_and_msbfs_figures_unchanged():
    folder = RESULTS / "h100-2026-11-26"
    out = _report("--metric", "ms", folder / "reorder.json.gz")
    assert "| do.bfs (rcm order) | 0.223 | 0.185 | 0.225 | 1.128 |" in out, out
    assert "| merrill.hybrid (degree order) | 2.128 | 1.118 | 0.428 | 1.012 |" in out, out
    out = _report("--metric", "ms", folder / "msbfs.json.gz")
    assert "| g500-s20-ef16 | 36.86! | 0.067! |" in out and "| kron_g500-logn20-gen | 0.149 |" in out, out
    # the default alpha (4): 2.7x and 1.9x do.bfs's throughput
    out = _report("--metric", "ms", folder / "msbfs-alpha4.json.gz")
    assert "| g500-s20-ef16 | 40.19! | 0.058! |" in out and "| kron_g500-logn20-gen | 60.64 | 0.086 |" in out, out


def test_probe_batch_hub_pass_and_catalogue_peers_figures_unchanged():
    folder = RESULTS / "h100-2026-11-26"
    # do.bfs's bottom-up lanes probing 1, 2, 4 or 8 in-edges at once: 4 best but on uniform
    out = _report("--metric", "ms", folder / "probe-batch.json.gz")
    assert "| g500-s20-ef16 | 0.117 (probe_batch=4)! |" in out and "| uniform-n21-e26 | 0.412 (probe_batch=2) |" in out, out
    # msbfs.bfs with the hub pass, 64 sources in one pass: 2.9x and 4.2x do.bfs's throughput
    out = _report("--metric", "ms", folder / "msbfs-onepass.json.gz")
    assert "| g500-s20-ef16 | 0.147! |" in out and "| kron_g500-logn20-gen | 67.18 | 0.036 |" in out, out
    out = _report("--metric", "ms", folder / "msbfs-probe.json.gz")
    assert "| kron_g500-logn20-gen | 0.106 (probe_batch=4) |" in out, out
    # BLEST ahead on lbbfs-rmat-d16 and lbbfs-rmat-d4, do.bfs on the others
    out = _report("--metric", "ms", folder / "peers-catalogue.json.gz", folder / "peers-catalogue2.json.gz")
    assert "| lbbfs-rmat-d16 | 0.303 | 0.954 | 0.427 | 0.229 (jaccard=False) | 2.624 (load_balance=block_mapped) |" in out, out
    assert "| luo-scalefree-5M | 0.668 | 1.326 | 0.931 | 0.806 (jaccard=True) | 3.206 (load_balance=block_mapped) |" in out, out


def test_frontier_cache_and_third_peers_figures_unchanged():
    folder = RESULTS / "h100-2026-11-26"
    # do.bfs's bitmap through L1: best on the four graphs whose bitmap fits, not on scale 24
    out = _report("--metric", "ms", folder / "frontier-cache.json.gz")
    assert "| uniform-n21-e26 | 0.314 (frontier_cache=l1) |" in out, out
    assert "| kron_g500-logn20-gen | 0.117 (frontier_cache=l1) |" in out, out
    assert "| g500-s24-ef16 | 1.134 (frontier_cache=l2) |" in out, out
    out = _report("--metric", "ms", folder / "msbfs-cache.json.gz")
    assert "| kron_g500-logn20-gen | 0.108 (frontier_cache=l2) |" in out, out
    # with it, do.bfs ahead of BLEST on uniform-n21-e26; BLEST ahead on lbbfs-random-d32;
    # the run cut on lbbfs-rmat-d32 says so
    out = _report("--metric", "ms", folder / "peers-catalogue3.json.gz")
    assert "| uniform-n21-e26 | 0.322 | 0.388 (jaccard=True) | 4.969 (load_balance=block_mapped) |" in out, out
    assert "| lbbfs-random-d32 | 0.298 | 0.266 (jaccard=True) | 3.224 (load_balance=block_mapped) |" in out, out
    assert "the run did not complete: interrupted by SIGINT" in out, out


def test_targets_figures_unchanged():
    # do.bfs on g500-s20-ef16, 16 sources: 0.129 ms unprimed, 0.092 primed (H100, one call)
    folder = RESULTS / "h100-2026-11-27"
    assert "| g500-s20-ef16 | 0.129! |" in _report("--metric", "ms", folder / "targets-idle.json.gz")
    primed = _report("--metric", "ms", folder / "targets-primed.json.gz")
    assert "| g500-s20-ef16 | 0.092! |" in primed and ", primed; " in primed, primed


def test_seventh_peers_figures_unchanged():
    # ER23 and grid7pt.300 beside Gunrock's modes and BLEST's orders; the run ended during
    # BLEST on grid5pt.5000, after Gunrock's modes, and says so
    out = _report("--metric", "ms", RESULTS / "h100-2026-11-27" / "peers-catalogue7.json.gz")
    assert "| ER23 | 1.266 | 1.634 (jaccard=False) | 5.661 (load_balance=thread_mapped) |" in out, out
    assert "| grid7pt.300 | 12.33 | 21.88 (jaccard=True) | 111.0 (load_balance=merge_path) |" in out, out
    assert "| grid5pt.5000 | missing | missing | 1,175 (load_balance=merge_path) |" in out, out
    assert "the run did not complete: interrupted by SIGINT during peer.blest" in out, out


def test_in_order_and_eighth_peers_figures_unchanged():
    # hubs first wins on g500-s24-ef16 (1.002 against 1.043 ms) and loses on
    # uniform-n21-e26, so the stored variant is that graph's best
    folder = RESULTS / "h100-2026-11-27"
    out = _report("--metric", "ms", folder / "in-order.json.gz")
    assert "| g500-s24-ef16 | 1.002 (in_order=degree,profile=False) |" in out, out
    assert "| uniform-n21-e26 | 0.319 (in_order=stored,profile=False) |" in out, out
    # the seventh run resumed: grid5pt.5000 whole, the Graph 500 graph cut during BLEST
    out = _report("--metric", "ms", folder / "peers-catalogue8.json.gz")
    assert "| grid5pt.5000 | 36.27 | 60.13 (jaccard=True) | 1,175 (load_balance=merge_path) |" in out, out
    # ER23's do.bfs twice: before the in_order knob existed, and after the resume
    assert "| ER23 | 1.266 (no in_order) |" in out, out
    assert "| graph500-s24-ef20-seed1 | missing | 1.161 | 25.76 (load_balance=merge_path) |" in out, out
    assert "interrupted by SIGINT during peer.blest[jaccard=True] on graph500-s24-ef20-seed1" in out, out


def test_ninth_peers_figures_unchanged():
    # the last catalogue graph whole: BLEST's natural order 1% ahead of do.bfs on the medians,
    # do.bfs ahead on the median of per-source ratios, both 22x Gunrock's best mode
    out = _report("--metric", "ms", RESULTS / "h100-2026-11-27" / "peers-catalogue9.json.gz")
    assert "| do.bfs | 1.171 |" in out and "| peer.blest | 1.159 (jaccard=False) |" in out, out
    assert "| peer.gunrock | 26.38 (load_balance=merge_path) |" in out, out
    assert "| do.bfs | 1.044 [0.770-1.670] |" in out, out
    assert "did not complete" not in out, out


def test_real_new_york_figures_unchanged(rendered):
    """docs/reproduce.md and docs/performance.md quote these: Luo's Table 2 row of the real
    New York road graph on the H200, and SSSP on its distance weights."""
    luo = rendered[("h200-2026-11-29", "luo")]
    assert "| New York | 264,346 \\| 264,346 | 79.9 \\| 18.69 | 41.6 \\| 8.943 | 19.4 \\| 2.995 |" in luo, luo
    assert "USA-road-d.NY: archive sha256 5c9d7d163afba2a8... differs from the catalogue's pin" in luo
    sssp = _report(RESULTS / "h200-2026-11-29" / "sssp-ny.json.gz")
    for strategy, ms in (("cpu.dijkstra", "33.98"), ("raval.bs", "28.29"), ("sssp.delta", "13.96"),
                         ("sssp.near_far", "12.91")):
        assert f"| {strategy} | {ms} |" in sssp, sssp
