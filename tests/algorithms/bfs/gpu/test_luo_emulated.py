"""luo.hierarchical run end to end on the CPU: the real launcher with numpy in place of
CuPy, luo.cu (compiled unchanged) under the CUDA emulator (tests/gpu/emu/luo_driver.cpp,
tests/gpu/emulated_cupy.py). No GPU needed, only g++.

Scaled down so every layer and switch happens on graphs of a few hundred vertices:
the one-block kernel and the per-level kernel get 64 threads, the cooperative grid 2
blocks of 64 (2 SMs, 2 resident blocks), so the grid layer takes frontiers up to 128;
auto mode gets block_threshold 4. Each block has its own copy of the kernels'
__shared__ queues (the emulator swaps them per block), fibers switch at atomics and
__ldcg at random (seeded), so warps of several blocks race for the visited bits and
the G-frontier. A star of 5000 leaves overflows the 4096-item shared B-frontier, so
warps spill straight to the G-frontier.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.gpu.luo import hierarchical
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import emulated_bfs as eb
from tests.gpu import emulated_cupy as ec
from tests.gpu import fixed_cost as fc

LUO = ec.Family(hierarchical.KERNELS, "luo_driver.cpp", (hierarchical,))
SMALL = {"BLOCK_THREADS": 64, "LEVEL_THREADS": 64}
BASE = {"grid_block_size": 64, "block_threshold": 4}


@pytest.fixture(scope="module")
def emulation() -> ec.Emulation:
    return ec.Emulation(LUO, ec.build_libraries(LUO))


def run(monkeypatch, emulation, knobs: dict, graphs, **kw):
    return eb.run(monkeypatch, emulation, "luo.hierarchical", {**BASE, **knobs}, graphs,
                  patches=SMALL, sms=2, resident=2, check=check_counters, **kw)


def check_counters(strategy, g, s, got):
    """Each level is counted in exactly one layer; a forced mode uses only its own;
    every reached vertex (every piece of one, with splitting) is enqueued once."""
    c = got.counters
    per_layer = {"block": c["levels_block"], "cooperative": c["levels_cooperative"],
                 "level": c["levels_per_kernel"]}
    assert sum(per_layer.values()) == c["levels"], c
    mode = strategy.knobs.mode
    if mode != "auto":
        assert per_layer[mode] == c["levels"], c
    reached = got.distances >= 0
    split = strategy.knobs.split_degree
    if split:
        deg = g.out_degrees()
        pieces = np.maximum(-(-deg // split), 1)
        assert c["vertices_enqueued"] == int(pieces[reached].sum()), c
    else:
        assert c["vertices_enqueued"] == int(reached.sum()), c


VARIANTS = [
    {},
    {"mode": "block"},
    {"mode": "cooperative"},
    {"mode": "level"},
    {"split_degree": 3},
    {"mode": "block", "split_degree": 2},
    {"mode": "cooperative", "split_degree": 5},
    {"mode": "level", "split_degree": 1},
    {"levels_per_check": 1},
    {"grid_threshold": 40, "levels_per_check": 3},
]


def _id(knobs) -> str:
    return "-".join(f"{k}={v}" for k, v in knobs.items()) or "auto"


@pytest.mark.parametrize("knobs", VARIANTS[:4], ids=[_id(k) for k in VARIANTS[:4]])
def test_every_layer_on_every_graph(monkeypatch, emulation, knobs):
    run(monkeypatch, emulation, knobs, [g for g in eb.GRAPHS if g != "star5000"])


@pytest.mark.parametrize("knobs", VARIANTS[4:], ids=[_id(k) for k in VARIANTS[4:]])
def test_every_knob(monkeypatch, emulation, knobs):
    run(monkeypatch, emulation, knobs, eb.HARD + ["broom"])


def test_auto_uses_all_three_layers(monkeypatch, emulation):
    """Auto mode picks the layer by frontier size: the lattice's frontiers of 5 to 13
    go to the cooperative grid (up to 128), the broom's 150 leaves to one kernel per
    level, the rest to the one block; every kernel runs."""
    answers = run(monkeypatch, emulation, {}, ["grid9x13", "broom"])
    for key in ("levels_block", "levels_cooperative", "levels_per_kernel"):
        assert any(a.counters[key] for a in answers), key
    assert {n.split("<")[0] for n in emulation.launches} == {"luo_init", "luo_block", "luo_grid", "luo_level"}


@pytest.mark.parametrize("mode", ["block", "cooperative", "level"])
def test_shared_frontier_overflow(monkeypatch, emulation, mode):
    """5000 discoveries in one level: more than a block's shared queue holds."""
    monkeypatch.setitem(eb.GRAPHS, "star5000", lambda: samples.star(5000))  # this test's graph only
    run(monkeypatch, emulation, {"mode": mode}, ["star5000"])


@pytest.mark.parametrize("seed", [2, 3])
def test_more_thread_interleavings(monkeypatch, emulation, seed):
    for knobs in ({"mode": "cooperative"}, {"mode": "level", "split_degree": 2}, {}):
        run(monkeypatch, emulation, knobs, ["loops_dups", "rmat"], seed=seed)


@pytest.mark.parametrize("mode", ["auto", "level"])
def test_traverse_has_no_fixed_cost_leaks(monkeypatch, emulation, mode):
    """No device allocation and no pageable read inside traverse();
    auto visits every layer on the grid, level the batched per-level kernels."""
    fc.check_fixed_cost(monkeypatch, emulation, "bfs", "luo.hierarchical", {**BASE, "mode": mode},
                        patches=SMALL, sms=2, resident=2)
