"""The lbbfs kernels (algorithms/bfs/gpu/lbbfs/lbbfs.cu) run on the CPU under the CUDA
emulator (tests/gpu/emu): no GPU needed, only g++.

The emulator runs every CUDA thread as a fiber, switching at barriers, warp collectives
and (seeded, at random) at L2 lookups and atomics, so concurrent discoveries of one
vertex happen. Builds with CTAs of 64 threads and tiles of 128 (two outputs per thread)
and CTAs of 32 and tiles of 128 (four per thread), three CTAs: on graphs of a few
hundred vertices a level spans many tiles, a hub's list spans several, and a vertical
tile over hundreds of zero-degree vertices is staged in chunks. Every answer is checked
exactly against the sequential BFS, and the per-level counters against its levels.
"""

from __future__ import annotations

import math
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.lbbfs import strategies as lb
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import test_strategies as ts
from tests.gpu import emulated_cupy as ec

LBBFS_DIR = Path(lb.__file__).parent
BUILDS = {"cta64-tile128": (64, 128), "cta32-tile128": (32, 128)}
EMU_BLOCKS = 3
STRATEGIES = list(lb.STRATEGY)


@pytest.fixture(scope="module")
def drivers() -> dict[str, Path]:
    return {name: ec.emulator_build("lbbfs_driver.cpp", LBBFS_DIR, {"LBBFS_CTA": cta, "LBBFS_TILE": tile})
            for name, (cta, tile) in BUILDS.items()}


# ---- graphs -----------------------------------------------------------------------


def sinks():
    """Directed: 0 -> 1..600; every 50th of those has three out-edges to new vertices,
    the rest are sinks. Level 1's 36 outputs lie among ~550 zero-degree vertices, which
    one vertical tile must stage in chunks."""
    src, dst = [np.zeros(600, np.int64)], [np.arange(1, 601)]
    busy = np.arange(50, 601, 50)
    nxt = 601 + np.arange(3 * len(busy))
    src.append(np.repeat(busy, 3))
    dst.append(nxt)
    return samples.from_edges(np.concatenate(src), np.concatenate(dst), 601 + len(nxt), directed=True)


def sinks_tail():
    """Directed: 0 -> 1..1000, where only 1 and 2 have out-edges (three each): level 1
    is 1000 vertices and 6 outputs, so most of its diagonal tiles are A steps only."""
    src = np.concatenate([np.zeros(1000, np.int64), [1, 1, 1, 2, 2, 2]])
    dst = np.concatenate([np.arange(1, 1001), np.arange(1001, 1007)])
    return samples.from_edges(src, dst, 1007, directed=True)


GRAPHS = {
    "path100": lambda: samples.path(100),
    "grid9x13": lambda: samples.grid(9, 13),
    "star700": lambda: samples.star(700),
    "broom": lambda: samples.broom(30, 300),
    "disconnected": samples.NASTY_BFS["disconnected"],
    "single": samples.single_vertex,
    "loops_dups": samples.loops_and_duplicates,
    "directed": lambda: samples.gnm(300, 1000, 2, directed=True),
    "rmat": lambda: samples.rmat(9, 8, 4, permute=True),
    "sinks": sinks,
    "sinks_tail": sinks_tail,
    "sinks_only": lambda: samples.star(200, directed=True),  # level 1: degree-0 vertices only
}
_CACHE: dict = {}


def graph(name: str):
    if name not in _CACHE:
        _CACHE[name] = GRAPHS[name]()
    return _CACHE[name]


def emu_sources(g) -> list[int]:
    """Vertex 0, the hub, and the last vertex (isolated in `disconnected`)."""
    return sorted({0, int(np.argmax(g.out_degrees())), g.n - 1})


# ---- running ----------------------------------------------------------------------


def run_emulated(exe: Path, g, sources, tmp_path: Path, *, strategy: str, pred: bool,
                 wide: bool = False, f0: float = 10.0, profile: bool = False, seed: int = 1,
                 yield_permille: int = 100) -> list[dict]:  # fmt: skip
    n, m = g.n, g.m
    header = [n, m, len(sources), lb.STRATEGY[strategy], int(pred), int(wide), EMU_BLOCKS, seed,
              yield_permille, lb.packing_shift(n, m), int(profile)]  # fmt: skip
    words = np.concatenate([
        np.asarray(header, np.int32),
        np.frombuffer(struct.pack("<d", f0), np.int32),
        g.row_offsets.astype(np.int64).view(np.int32),
        g.col_indices.astype(np.int32),
        np.asarray(sources, np.int32),
    ])  # fmt: skip
    inp, outp = tmp_path / "in.bin", tmp_path / "out.bin"
    words.tofile(inp)
    proc = subprocess.run(
        [str(exe), str(inp), str(outp)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    raw = outp.read_bytes()
    results, pos = [], 0

    def take(dtype, count):
        nonlocal pos
        a = np.frombuffer(raw, dtype, count, pos).copy()
        pos += a.nbytes
        return a

    for _ in sources:
        ctl = take(np.int64, lb.CTL_WORDS)
        prof = take(np.int64, lb.PROF_WORDS)
        dist = take(np.int32, n)
        parent = take(np.int32, n)
        fv = take(np.int32, n + 1)
        fe = take(np.int64, n + 1)
        levels = int(ctl[lb.CTL_LEVELS])
        results.append({"ctl": ctl, "prof": prof, "dist": dist, "parent": parent,
                        "levels": levels, "fv": fv[:levels], "fe": fe[:levels]})  # fmt: skip
    assert pos == len(raw)
    return results


def check(g, sources, results, *, pred: bool, strategy: str, f0: float = 10.0) -> None:
    degrees = g.out_degrees().astype(np.int64)
    for s, r in zip(sources, results, strict=True):
        ref = sequential_bfs(g, s)
        d = ref.distances
        np.testing.assert_array_equal(r["dist"], d, err_msg=f"{strategy} source {s}")
        if pred:
            ts.check_parents(g, s, r["dist"], r["parent"])
        levels = ref.counters["levels"]
        assert r["levels"] == levels, f"source {s}"
        # Exact claims: the queue of each level is exactly its frontier.
        reached = d >= 0
        np.testing.assert_array_equal(r["fv"], np.bincount(d[reached], minlength=levels))
        np.testing.assert_array_equal(r["fe"], np.bincount(d[reached], weights=degrees[reached],
                                                           minlength=levels).astype(np.int64))  # fmt: skip
        ctl = r["ctl"]
        kinds = ctl[[lb.CTL_BGATHER, lb.CTL_BREDIST, lb.CTL_PERFECT]]
        assert kinds.sum() == levels
        if strategy == "hybrid":
            bredist = int(np.sum(r["fe"] >= f0 * r["fv"]))
            assert ctl[lb.CTL_BREDIST] == bredist and ctl[lb.CTL_BGATHER] == levels - bredist
        else:
            which = {"perfect": lb.CTL_PERFECT, "balanced_gather": lb.CTL_BGATHER,
                     "balanced_redistribution": lb.CTL_BREDIST}[strategy]  # fmt: skip
            assert ctl[which] == levels


# ---- tests ------------------------------------------------------------------------


def test_mergepath_helpers(drivers):
    """mergepath.cuh against a naive expand: every diagonal, every vertical cut, and
    the path split into pieces of 1..9 steps, on degree sequences with zero runs."""
    proc = subprocess.run(
        [str(drivers["cta64-tile128"]), "--mergepath"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "failures: 0" in proc.stdout


@pytest.mark.parametrize("build", list(BUILDS))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_every_graph(drivers, tmp_path, build, strategy):
    for i, name in enumerate(GRAPHS):
        g = graph(name)
        sources = emu_sources(g)
        pred = i % 2 == 0
        res = run_emulated(drivers[build], g, sources, tmp_path, strategy=strategy, pred=pred)
        check(g, sources, res, pred=pred, strategy=strategy)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_predecessors_and_wide_offsets(drivers, tmp_path, strategy):
    """64-bit offsets and prefix sums (the build for n + m >= 2^31), with predecessors,
    and many thread switches."""
    for name in ("star700", "sinks", "sinks_tail", "rmat", "loops_dups", "disconnected"):
        g = graph(name)
        sources = emu_sources(g)
        res = run_emulated(drivers["cta32-tile128"], g, sources, tmp_path, strategy=strategy,
                           pred=True, wide=True, yield_permille=400, seed=3)  # fmt: skip
        check(g, sources, res, pred=True, strategy=strategy)


@pytest.mark.parametrize("f0", [0.0, 1.0, 2.0, 10.0, 1e9, math.inf])
def test_hybrid_thresholds(drivers, tmp_path, f0):
    """f0 = 0: every level balanced redistribution; 1e9 and inf: every level balanced
    gathering; in between, each level's side follows its expand factor."""
    for name in ("rmat", "grid9x13", "star700", "sinks", "sinks_only", "single"):
        g = graph(name)
        sources = emu_sources(g)
        res = run_emulated(drivers["cta64-tile128"], g, sources, tmp_path, strategy="hybrid",
                           pred=True, f0=f0)  # fmt: skip
        check(g, sources, res, pred=True, strategy="hybrid", f0=f0)
        for r in res:
            if f0 == 0:
                assert r["ctl"][lb.CTL_BREDIST] == r["levels"]
            if f0 >= 1e9:
                assert r["ctl"][lb.CTL_BGATHER] == r["levels"]


def test_degree_zero_frontiers(drivers, tmp_path):
    """A frontier of sinks only (output_total 0 ends the BFS) and an isolated source."""
    g = graph("sinks_only")
    for strategy in STRATEGIES:
        (r,) = run_emulated(
            drivers["cta64-tile128"], g, [0], tmp_path, strategy=strategy, pred=True
        )
        assert r["levels"] == 2
        np.testing.assert_array_equal(r["fv"], [1, 200])
        np.testing.assert_array_equal(r["fe"], [200, 0])
        (r,) = run_emulated(
            drivers["cta64-tile128"], g, [5], tmp_path, strategy=strategy, pred=True
        )
        assert r["levels"] == 1 and (r["dist"] >= 0).sum() == 1 and r["parent"][5] == 5


def test_profile_counts_both_phases(drivers, tmp_path):
    g = graph("rmat")
    hub = int(np.argmax(g.out_degrees()))
    for strategy in STRATEGIES:
        (r,) = run_emulated(drivers["cta64-tile128"], g, [hub], tmp_path, strategy=strategy,
                            pred=False, profile=True)  # fmt: skip
        check(g, [hub], [r], pred=False, strategy=strategy)
        p = r["prof"]
        assert p[lb.PROF_REDIST] > 0 and p[lb.PROF_GATHER] > 0
        assert p[lb.PROF_END] > p[lb.PROF_START]
        (r,) = run_emulated(
            drivers["cta64-tile128"], g, [hub], tmp_path, strategy=strategy, pred=False
        )
        assert np.all(r["prof"] == 0x5A5A5A5A5A5A5A5A), "profile off must not touch the buffer"
