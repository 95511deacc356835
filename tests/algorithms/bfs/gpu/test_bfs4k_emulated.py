"""bfs4k.cu runs on the CPU under the CUDA emulator (tests/gpu/emu): no GPU needed, g++.

The driver (tests/gpu/emu/bfs4k_driver.cpp) follows bfs4k.py's host protocol: the init
kernel, then the kernel sequence again and again with a status read after each pass.
Built with BFS4K_DP=0: the emulator cannot launch kernels from kernels, so dynamic
parallelism (K2) is off here and checked on the GPU only (test_bfs4k.py). Blocks are
small (single block 128 threads, K6 = 64, cooperative grid 3 blocks, level grid 2) and
the thresholds scale with them, so that every kernel, every switch between them, every
technique and hash-table collisions all happen on graphs of a few hundred vertices.
Fibers switch at random (seeded) at atomics and between a hash write and its read-back,
so concurrent discoveries and detected duplicates do happen.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.bfs.gpu.bfs4k import bfs4k
from gpubfs_cli.algorithms.bfs.gpu.bfs4k.bfs4k import (
    CONFIG,
    MODE,
    PARAMS,
    Bfs4kKnobs,
    C,
    Geometry,
    kernel_config,
)
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import merrill_graphs as mg
from tests.algorithms.bfs.gpu import test_strategies as ts
from tests.gpu import emulated_cupy as ec

BFS4K_DIR = Path(bfs4k.__file__).parent
EMU_K6 = 64
EMU_SINGLE = 128
COOP_BLOCKS = 3
LEVEL_BLOCKS = 2
CNT_WORDS = C["CNT_WORDS"]


@pytest.fixture(scope="module")
def driver() -> Path:
    return ec.emulator_build("bfs4k_driver.cpp", BFS4K_DIR, {"BFS4K_K6": EMU_K6, "BFS4K_SINGLE_BLOCK": EMU_SINGLE,
                                                              "BFS4K_DP": 0})


def emu_params(knobs: Bfs4kKnobs, n: int, *, hash_multi: int = 64, hash_single: int = 256,
               ft: int | None = None) -> np.ndarray:  # fmt: skip
    """bfs4k.py's configuration for the emulator's block sizes (FT = 128 * K5 unless
    given), its fields in Bfs4kCfg's order."""
    geo = Geometry(coop_threads=COOP_BLOCKS * EMU_K6, hash_multi=hash_multi, hash_single=hash_single)
    cfg = kernel_config(knobs, n, 0, geo)
    ft = EMU_SINGLE * int(knobs.K5) if ft is None else ft
    cfg.update(ft=ft, ft_low=ft // 2)
    return np.asarray([cfg[name] for name, _ in CONFIG], np.int64)


def test_params_mirror_the_compiled_struct(driver, tmp_path):
    """PARAMS has the fields of bfs4k.cuh's Bfs4kParams (its config's in line), in its
    order, at its offsets, and its size (as g++ lays it out for the emulator: the same
    ABI as nvcc's)."""
    ec.assert_mirrors(ec.driver_layout(driver, tmp_path), PARAMS)


def run_emulated(driver: Path, g, sources, tmp_path: Path, knobs: Bfs4kKnobs, *, pred: bool,
                 seed: int = 1, yield_permille: int = 200, skip_idle: bool = True,
                 **geo) -> list[dict]:  # fmt: skip
    params = emu_params(knobs, g.n, **geo)
    program = [MODE[k] for k in bfs4k.program(knobs)]
    header = [g.n, g.m, len(sources), int(pred), seed, yield_permille, COOP_BLOCKS, LEVEL_BLOCKS,
              2, int(skip_idle), len(program), *program]  # fmt: skip
    words = np.concatenate([
        np.asarray(header, np.int64), params.astype(np.int64), g.row_offsets.astype(np.int64),
        g.col_indices.astype(np.int64), np.asarray(sources, np.int64)])  # fmt: skip
    inp, outp = tmp_path / "in.bin", tmp_path / "out.bin"
    words.tofile(inp)
    proc = subprocess.run([str(driver), str(inp), str(outp)], capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = np.fromfile(outp, np.int32)
    results, pos = [], 0
    for _ in sources:
        levels, passes, launches = (int(x) for x in out[pos : pos + 3])
        pos += 3
        dist = out[pos : pos + g.n].copy()
        parent = out[pos + g.n : pos + 2 * g.n].copy()
        pos += 2 * g.n
        raw = out[pos : pos + CNT_WORDS].copy()
        pos += CNT_WORDS
        results.append({"levels": levels, "passes": passes, "launches": launches, "dist": dist,
                        "parent": parent, "counters": bfs4k.named_counters(raw)})  # fmt: skip
    return results


def check(g, sources, results, pred: bool) -> None:
    for s, r in zip(sources, results, strict=True):
        ref = sequential_bfs(g, s)
        np.testing.assert_array_equal(r["dist"], ref.distances, err_msg=f"{g.name} source {s}")
        if pred:
            ts.check_parents(g, s, r["dist"], r["parent"])
        c = r["counters"]
        assert r["levels"] == ref.counters["levels"], f"{g.name} source {s}"
        ran = c["single_block_levels"] + c["coop_levels"] + c["level_kernel_levels"]
        assert ran == r["levels"], f"{g.name} source {s}: {c}"
        assert ran == c["edge_discover_levels"] + int(c["vwarp_levels"].sum())
        assert c["child_launches"] == 0 and c["child_launch_failures"] == 0


def graphs() -> dict:
    out = {g.name: g for g in mg.nasty() if g.name not in ("path300", "stars")}
    out["stars"] = samples.linked_stars(300, 150)
    out["path100"] = samples.path(100)
    out["broom"] = samples.broom(20, 300, 30)  # a short broom
    out["star"] = samples.star(700)
    out["uniform"] = samples.gnm(300, 2400, 11)
    out["kron"] = samples.rmat(8, 12, 3, permute=True)
    out["grid12x9"] = samples.grid(9, 12)
    return out


GRAPHS = graphs()
FAST = ("stars", "grid23x17", "rmat10", "disconnected", "loops_dups", "single", "broom")
# Variants that launch one kernel per multi-block level (slow to emulate): fewer levels.
FAST_LEVELS = ("stars", "grid12x9", "rmat10", "disconnected", "loops_dups", "single")


def emu_sources(g) -> list[int]:
    """Vertex 0, the hub, and the last vertex (isolated in `disconnected`)."""
    return sorted({0, int(np.argmax(g.out_degrees())), g.n - 1})


DEFAULT = Bfs4kKnobs()

# Each technique off alone, all of them off, and the extremes of the thresholds.
VARIANTS = {
    "default": {},
    "static_warps": {"dynamic_warps": False},
    "no_edge_discover": {"K4": 0},
    "no_ext": {"ext": False},
    "no_single_block": {"K5": 0},
    "no_coalescing": {"K7": 0},
    "no_dedup": {"dedup": "off"},
    "warp_dedup": {"dedup": "warp"},
    "no_binary_scan": {"binary_scan": False},
    "paper_host_loop": {"persistent": False},
    "all_off": {"dynamic_warps": False, "K4": 0, "ext": False, "K5": 0, "K7": 0, "dedup": "off",
                "binary_scan": False, "persistent": False, "K2": 0},
    "K1_32": {"K1": 32},
    "K1_1_static": {"K1": 1, "dynamic_warps": False},
    "K1_1": {"K1": 1},
    "K1_2": {"K1": 2},
    "K4_1": {"K4": 1},
    "K4_4": {"K4": 4},
    "always_coalesced": {"K7": 1},
    "single_block_large": {"K5": 20},
    "coop_only": {"K5": 0, "K4": 0},
    "level_only": {"K5": 0, "persistent": False, "K4": 1000},
}


def run_variant(driver, tmp_path, variant: str, pred: bool) -> None:
    knobs = dataclasses.replace(DEFAULT, **VARIANTS[variant])
    for name in FAST if knobs.persistent else FAST_LEVELS:
        g = GRAPHS[name]
        sources = emu_sources(g)
        check(g, sources, run_emulated(driver, g, sources, tmp_path, knobs, pred=pred), pred)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_knob_variant(driver, tmp_path, variant):
    run_variant(driver, tmp_path, variant, pred=True)


@pytest.mark.parametrize("variant", ["default", "all_off"])
def test_distances_alone(driver, tmp_path, variant):
    run_variant(driver, tmp_path, variant, pred=False)


@pytest.mark.parametrize("name", [n for n in GRAPHS if n not in FAST + FAST_LEVELS])
def test_default_knobs_on_the_other_graphs(driver, tmp_path, name):
    g = GRAPHS[name]
    sources = emu_sources(g)
    check(g, sources, run_emulated(driver, g, sources, tmp_path, DEFAULT, pred=True), True)


def test_kernels_switch_both_ways(driver, tmp_path):
    """From the centre of a grid the frontier grows past FT and shrinks again: the
    single-block kernel, the cooperative one and the level kernel all run, in one
    status read per pass of the sequence."""
    g = samples.grid(41, 41)
    centre = 20 * 41 + 20
    knobs = dataclasses.replace(DEFAULT, K5=1)
    (r,) = run_emulated(driver, g, [centre], tmp_path, knobs, pred=True, ft=16, skip_idle=False)
    check(g, [centre], [r], True)
    c = r["counters"]
    assert c["single_block_levels"] > 0 and c["coop_levels"] > 0, c
    assert r["passes"] <= 3, r["passes"]
    assert r["launches"] == 1 + 7 * r["passes"] and c["kernels_active"] < r["launches"] - 1
    # A cooperative grid of 3 x 64 threads: frontiers above 192 go to the level kernel.
    g = samples.gnm(2000, 16000, 11)
    (r,) = run_emulated(driver, g, [0], tmp_path, knobs, pred=False, ft=16)
    check(g, [0], [r], False)
    c = r["counters"]
    assert c["single_block_levels"] > 0 and c["level_kernel_levels"] > 0, c


def test_single_block_runs_a_path_in_one_launch(driver, tmp_path):
    g = samples.path(100)
    (r,) = run_emulated(driver, g, [0], tmp_path, DEFAULT, pred=False, skip_idle=False)
    check(g, [0], [r], False)
    c = r["counters"]
    assert c["single_block_levels"] == 100 and c["kernels_active"] == 1 and r["passes"] == 1
    assert r["launches"] == 1 + len(bfs4k.PROGRAM_PERSISTENT)  # the other six returned at once


def test_frontier_spills_out_of_shared_memory(driver, tmp_path):
    """A hub whose 700 leaves overflow a 16-vertex shared frontier: the rest goes to the
    global queue at the same positions and the next kernel reads it whole."""
    g = GRAPHS["star"]
    r = run_emulated(driver, g, [0, 5], tmp_path, DEFAULT, pred=True, ft=16)
    check(g, [0, 5], r, True)


def test_tiny_hash_tables_collide(driver, tmp_path):
    """Two-entry tables: conflicts everywhere, which must only cost atomics."""
    for dedup in ("hash64", "warp"):
        knobs = dataclasses.replace(DEFAULT, dedup=dedup)
        for name in ("rmat10", "stars", "loops_dups"):
            g = GRAPHS[name]
            sources = emu_sources(g)
            res = run_emulated(driver, g, sources, tmp_path, knobs, pred=True, hash_multi=64,
                               hash_single=64, yield_permille=500)  # fmt: skip
            check(g, sources, res, True)


def test_hash_detects_duplicates(driver, tmp_path):
    """With fibers switching between a hash write and its read-back, the table sees
    other threads' writes: it drops duplicates, and the atomics catch the rest."""
    g = GRAPHS["rmat10"]
    sources = emu_sources(g)
    for dedup in ("hash64", "warp"):
        knobs = dataclasses.replace(DEFAULT, dedup=dedup)
        res = run_emulated(driver, g, sources, tmp_path, knobs, pred=False, yield_permille=800)
        check(g, sources, res, False)
        assert sum(r["counters"]["hash_duplicates"] for r in res) > 0, dedup
    res = run_emulated(driver, g, sources, tmp_path, dataclasses.replace(DEFAULT, dedup="off"),
                       pred=False, yield_permille=800)  # fmt: skip
    assert sum(r["counters"]["hash_duplicates"] for r in res) == 0
