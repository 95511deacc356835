"""The Merrill kernels (gpu/kernels/merrill.cu) run on the CPU under a small CUDA
emulator (tests/gpu/emu): no GPU needed, only g++.

The emulator runs every CUDA thread as a fiber, switching at barriers, warp
collectives and (randomly, seeded) at memory lookups and atomics, so concurrent
discovery happens and duplicate handling is exercised. CTAs have 64 threads and
history tables 64 entries here, so the CTA, warp and grid gathering paths and table
collisions all occur on graphs of a few hundred vertices.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.merrill import strategies as merrill_strategies
from gpubfs_cli.algorithms.bfs.gpu.merrill.strategies import (
    CULLING,
    GATHER,
    PARAMS,
    STRATEGY,
    buffer_caps,
)
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import merrill_graphs as mg
from tests.gpu import emulated_cupy as ec

MERRILL_DIR = Path(merrill_strategies.__file__).parent
EMU_BLOCK = 64
EMU_BLOCKS = 3
CNT_KINDS = 3
EMU_SMALL_CAP = 256  # small-frontier queue entries (the history table is only 64 here)


def build_driver(*flags: str) -> Path:
    defines = {"MERRILL_BLOCK": EMU_BLOCK, "MERRILL_HISTORY": 64, "MERRILL_SMALL_CAP": EMU_SMALL_CAP}
    try:
        return ec.emulator_build("merrill_driver.cpp", MERRILL_DIR, defines, *flags)
    except RuntimeError as e:
        if flags and "asan" in str(e).lower():
            pytest.skip(f"g++ cannot build with {' '.join(flags)}: {str(e).strip()[-200:]}")
        raise


@pytest.fixture(scope="module")
def driver() -> Path:
    return build_driver()


@pytest.fixture(scope="module")
def asan_driver() -> Path:
    """The driver under AddressSanitizer: an out-of-bounds queue access aborts it."""
    return build_driver("-fsanitize=address", "-fno-omit-frame-pointer", "-g")


def test_params_mirror_the_compiled_struct(driver, tmp_path):
    """PARAMS has the fields of merrill.cuh's MerrillParams, in its order, at its
    offsets, and its size (as g++ lays it out for the emulator: the same ABI as nvcc's)."""
    ec.assert_mirrors(ec.driver_layout(driver, tmp_path), PARAMS)


def run_emulated(driver: Path, g, sources, tmp_path: Path, *, strategy: str, gather: str,
                 culling: str, pred: bool, grid_threshold: int = 100, switch_factor: float = 1.0,
                 seed: int = 1, yield_permille: int = 100, caps=None,
                 claim_threshold: int = 40, small: int = 0, count: bool = True) -> list[dict]:  # fmt: skip
    caps = caps or buffer_caps(g.n, g.m, grid_threshold if gather == "scan_warp_cta" else 0)
    # The driver's words are 32-bit: contract-expand's threshold is capped, still far
    # above any frontier here.
    switch = min(merrill_strategies.switch_threshold(STRATEGY[strategy], EMU_BLOCKS * EMU_BLOCK, switch_factor),
                 2**31 - 1)
    header = [g.n, g.m, len(sources), STRATEGY[strategy], GATHER[gather], CULLING[culling],
              int(pred), grid_threshold if gather == "scan_warp_cta" else 0, switch, EMU_BLOCKS,
              seed, yield_permille, caps.vq, caps.eq, caps.big, caps.counters,
              claim_threshold, small, int(count)]  # fmt: skip
    words = np.concatenate([
        np.asarray(header, np.int32), g.row_offsets.astype(np.int32),
        g.col_indices.astype(np.int32), np.asarray(sources, np.int32)])  # fmt: skip
    inp, outp = tmp_path / "in.bin", tmp_path / "out.bin"
    words.tofile(inp)
    proc = subprocess.run([str(driver), str(inp), str(outp)], capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = np.fromfile(outp, np.int32)
    results, pos = [], 0
    for _ in sources:
        iters, passes = int(out[pos]), int(out[pos + 1])
        pos += 2
        dist = out[pos : pos + g.n].copy()
        parent = out[pos + g.n : pos + 2 * g.n].copy()
        pos += 2 * g.n
        counters = out[pos : pos + CNT_KINDS * caps.counters].reshape(CNT_KINDS, caps.counters)
        pos += CNT_KINDS * caps.counters
        results.append({"iterations": iters, "passes": passes, "dist": dist,
                        "parent": parent, "counters": counters[:, : iters + 1].copy()})  # fmt: skip
    return results


def check(g, sources, results, pred: bool) -> None:
    for s, r in zip(sources, results, strict=True):
        ref = sequential_bfs(g, s)
        np.testing.assert_array_equal(r["dist"], ref.distances, err_msg=f"{g.name} source {s}")
        if pred:
            mg.check_parents(g, r["dist"], r["parent"], s)
        # Every reached vertex was labelled at least once at its own level.
        levels = int(ref.distances.max()) + 1
        logical = np.bincount(ref.distances[ref.distances >= 0], minlength=levels)
        enq = np.pad(r["counters"][0], (0, max(0, levels - r["counters"].shape[1])))[:levels]
        assert np.all(enq >= logical), f"{g.name} source {s}: enqueued {enq} < logical {logical}"


GRAPHS = {g.name: g for g in mg.nasty() if g.name != "path300"}
GRAPHS["path100"] = samples.path(100)


def emu_sources(g) -> list[int]:
    """Vertex 0, the hub, and the last vertex (isolated in `disconnected`)."""
    return sorted({0, int(np.argmax(g.out_degrees())), g.n - 1})


@pytest.mark.parametrize("strategy", list(STRATEGY))
@pytest.mark.parametrize("gather", list(GATHER))
def test_every_gather_every_strategy(driver, tmp_path, strategy, gather):
    for name in ("stars", "grid23x17", "rmat10", "disconnected"):
        g = GRAPHS[name]
        sources = emu_sources(g)
        res = run_emulated(driver, g, sources, tmp_path, strategy=strategy, gather=gather,
                           culling="history", pred=False)  # fmt: skip
        check(g, sources, res, pred=False)


@pytest.mark.parametrize("strategy", list(STRATEGY))
@pytest.mark.parametrize("culling", list(CULLING))
def test_every_culling_with_predecessors(driver, tmp_path, strategy, culling):
    for name in ("stars", "loops_dups", "directed", "path100", "single"):
        g = GRAPHS[name]
        sources = emu_sources(g)
        res = run_emulated(driver, g, sources, tmp_path, strategy=strategy, gather="scan_warp_cta",
                           culling=culling, pred=True)  # fmt: skip
        check(g, sources, res, pred=True)


def test_counters_on_a_path(driver, tmp_path):
    """A path from one end: one vertex and (except at the ends) two edges per level."""
    g = samples.path(50)
    (r,) = run_emulated(driver, g, [0], tmp_path, strategy="two_phase", gather="scan",
                        culling="history", pred=False)  # fmt: skip
    c = r["counters"]
    np.testing.assert_array_equal(c[0][:50], np.ones(50))  # enqueued
    np.testing.assert_array_equal(c[1][:50], np.ones(50))  # expanded
    np.testing.assert_array_equal(c[2][:50], np.r_[1, np.full(48, 2), 1])  # edges


def test_overflow_reruns_exactly(driver, tmp_path):
    """A vertex queue that holds the largest level exactly, and bitmask-only culling
    with frequent thread switches: duplicates overflow it, the kernel reruns with atomic
    culling inside the same launch (over the first pass's leftovers, not fresh poisoned
    buffers), and the answer is still exact."""
    g = samples.rmat(10, 12, 7)
    sources = emu_sources(g)
    widest = max(
        int(np.bincount(d[d >= 0]).max())
        for d in (sequential_bfs(g, s).distances for s in sources)
    )
    caps = buffer_caps(g.n, g.m, 0)
    tight = type(caps)(vq=widest, eq=caps.eq, big=caps.big, counters=caps.counters)
    res = run_emulated(driver, g, sources, tmp_path, strategy="expand_contract", gather="warp",
                       culling="bitmask", pred=True, yield_permille=900, caps=tight)  # fmt: skip
    check(g, sources, res, pred=True)
    assert max(r["passes"] for r in res) == 2, "no overflow happened: the test tests nothing"


@pytest.mark.parametrize("strategy", list(STRATEGY))
def test_claims_on_every_list(driver, tmp_path, strategy):
    """claim_threshold=1: every expansion goes through the claim; duplicates that lose
    it are labelled but not expanded, and the answer stays exact."""
    for name in ("stars", "rmat10", "loops_dups"):
        g = GRAPHS[name]
        sources = emu_sources(g)
        for culling in ("bitmask", "history"):
            res = run_emulated(driver, g, sources, tmp_path, strategy=strategy,
                               gather="scan_warp_cta", culling=culling, pred=True,
                               claim_threshold=1, yield_permille=300)  # fmt: skip
            check(g, sources, res, pred=True)


def test_huge_list_overflow_without_claims(asan_driver, tmp_path):
    """Expand-contract with claims off (the paper's behaviour): duplicates of a hub each
    defer its list, so a huge-list capacity that holds one level's distinct hubs
    overflows. The grid-wide phase must then be skipped (the rerun with atomic culling
    is exact); reading the entries past the capacity is caught by AddressSanitizer."""
    g = samples.funnel()
    threshold = 8  # the source's and the hubs' lists, not the middle vertices'
    sources = [0]
    hubs = g.out_degrees() >= threshold
    d = sequential_bfs(g, 0).distances
    distinct = int(np.bincount(d[(d >= 0) & hubs]).max())
    caps = buffer_caps(g.n, g.m, threshold)
    tight = type(caps)(vq=caps.vq, eq=caps.eq, big=distinct, counters=caps.counters)
    res = run_emulated(asan_driver, g, sources, tmp_path, strategy="expand_contract",
                       gather="scan_warp_cta", culling="bitmask", pred=True,
                       grid_threshold=threshold, claim_threshold=0, yield_permille=900,
                       caps=tight)  # fmt: skip
    check(g, sources, res, pred=True)
    assert max(r["passes"] for r in res) == 2, "no overflow happened: the test tests nothing"


# Small-frontier mode: 0 (off), tiny (a path's 1 or 2 vertices fit, a lattice's wavefront
# does not: hand-offs back and forth), and the whole capacity (most levels run by CTA 0).
SMALL = [0, 3, EMU_SMALL_CAP]


@pytest.mark.parametrize("strategy", list(STRATEGY))
@pytest.mark.parametrize("small", SMALL)
def test_small_frontier_mode(driver, tmp_path, strategy, small):
    """CTA 0 iterates levels alone while the frontier fits, the others parked; the
    hand-back to the grid (EC: a vertex queue; the others: a vertex queue the grid
    expands) keeps distances, parents and the per-level counters exact."""
    for name in ("path100", "grid23x17", "stars", "disconnected", "rmat10"):
        g = GRAPHS[name]
        sources = emu_sources(g)
        for pred in (False, True):
            res = run_emulated(driver, g, sources, tmp_path, strategy=strategy,
                               gather="scan_warp_cta", culling="history", pred=pred,
                               small=small, yield_permille=300)  # fmt: skip
            check(g, sources, res, pred=pred)


@pytest.mark.parametrize("strategy", list(STRATEGY))
def test_small_frontier_counters_on_a_path(driver, tmp_path, strategy):
    """A path from one end, every level in small-frontier mode: one vertex enqueued and
    expanded per level, the edges of its list gathered, as in the grid's phases."""
    g = samples.path(50)
    (r,) = run_emulated(driver, g, [0], tmp_path, strategy=strategy, gather="scan",
                        culling="history", pred=False, small=EMU_SMALL_CAP)  # fmt: skip
    c = r["counters"]
    np.testing.assert_array_equal(c[0][:50], np.ones(50))  # enqueued
    np.testing.assert_array_equal(c[1][:50], np.ones(50))  # expanded
    np.testing.assert_array_equal(c[2][:50], np.r_[1, np.full(48, 2), 1])  # edges
    assert r["iterations"] == 50


def test_small_frontier_star_hands_back(driver, tmp_path):
    """From a leaf of the stars graph the frontier is 1 vertex, then its hub's 700
    neighbours: more than the threshold, so CTA 0 hands the hub back to the grid
    after one level, and takes over again when the frontier shrinks."""
    g = GRAPHS["stars"]
    sources = [3, 5, g.n - 1]
    for strategy in STRATEGY:
        res = run_emulated(driver, g, sources, tmp_path, strategy=strategy, gather="scan_warp_cta",
                           culling="bitmask", pred=True, small=16, yield_permille=500)  # fmt: skip
        check(g, sources, res, pred=True)


def test_counters_compiled_out(driver, tmp_path):
    """count 0: the build without per-level counters leaves the counter buffer as the
    driver filled it (0x5A5A5A5A), and the answer is the same."""
    g = GRAPHS["grid23x17"]
    for small in (0, 8):
        (r,) = run_emulated(driver, g, [0], tmp_path, strategy="hybrid", gather="scan_warp_cta",
                            culling="history", pred=True, small=small, count=False)  # fmt: skip
        check_distances = sequential_bfs(g, 0).distances
        np.testing.assert_array_equal(r["dist"], check_distances)
        mg.check_parents(g, r["dist"], r["parent"], 0)
        assert np.all(r["counters"] == 0x5A5A5A5A)
