"""classic.* (harish, vwarp, edge_coo, spmv) run end to end on the CPU: the real
launchers with numpy in place of CuPy, classic.cu under the CUDA emulator
(tests/gpu/emu/classic_driver.cpp, tests/gpu/emulated_cupy.py) and classic.spmv's
cupyx.scipy.sparse on scipy. No GPU needed, only g++.

Every kernel of classic.cu runs: classic_init, harish_init/expand/commit, coo_rows,
edge_level and vwarp_level for every width W. Blocks of 32 and 64 threads on 1 SM
(blocks_for caps grids at 32 blocks per SM), so grids of several blocks loop
grid-stride; fibers switch at atomics and __ldcg at random (seeded), and the
"status array" kernels' benign races (several frontier vertices writing one
distance and parent) happen on the hubs, duplicates and R-MAT graphs.
"""

from __future__ import annotations

import pytest

from gpubfs_cli.algorithms.bfs.gpu.classic import edge_coo, harish, levels, vwarp
from tests.algorithms.bfs.gpu import emulated_bfs as eb
from tests.gpu import emulated_cupy as ec
from tests.gpu import fixed_cost as fc

CLASSIC = ec.Family(levels.KERNELS, "classic_driver.cpp", (levels, harish, vwarp, edge_coo))


@pytest.fixture(scope="module")
def emulation() -> ec.Emulation:
    return ec.Emulation(CLASSIC, ec.build_libraries(CLASSIC))


DEFAULTS = [
    ("classic.harish", {"block_size": 32}),
    ("classic.vwarp", {"block_size": 32}),
    ("classic.edge_coo", {"block_size": 32}),
    ("classic.spmv", {}),
]
KNOB_VARIANTS = [
    ("classic.harish", {"block_size": 64}),
    *[("classic.vwarp", {"W": w, "block_size": 64, "levels_per_check": 3}) for w in levels.VWARP_WIDTHS],
    ("classic.vwarp", {"W": 32, "block_size": 32, "levels_per_check": 1}),
    ("classic.edge_coo", {"block_size": 64, "levels_per_check": 1}),
    ("classic.edge_coo", {"block_size": 32, "levels_per_check": 5}),
]


def _id(v) -> str:
    name, knobs = v
    return name + "".join(f"-{k}={x}" for k, x in knobs.items())


@pytest.mark.parametrize("variant", DEFAULTS, ids=[_id(v) for v in DEFAULTS])
def test_every_strategy_on_every_graph(monkeypatch, emulation, variant):
    eb.run(monkeypatch, emulation, *variant, list(eb.GRAPHS))


@pytest.mark.parametrize("variant", KNOB_VARIANTS, ids=[_id(v) for v in KNOB_VARIANTS])
def test_every_knob(monkeypatch, emulation, variant):
    eb.run(monkeypatch, emulation, *variant, eb.HARD)


def test_every_kernel_is_launched(monkeypatch, emulation):
    """The variants above between them launch every kernel of classic.cu."""
    seen = set()
    for name, knobs in DEFAULTS[:3] + KNOB_VARIANTS[1:7]:
        eb.run(monkeypatch, emulation, name, knobs, ["star300"])
        seen |= set(emulation.launches)
    assert seen == {"classic_init", "harish_init", "harish_expand", "harish_commit", "coo_rows",
                    "edge_level", *(f"vwarp_level<{w}>" for w in levels.VWARP_WIDTHS)}


def test_launch_counters(monkeypatch, emulation):
    """Harish: init plus two kernels per level; the batched strategies: init plus whole
    batches of levels_per_check, the last batch past the last level; edge_coo inspects
    m edges per level."""
    def harish_launches(strategy, g, s, got):
        assert got.counters["kernel_launches"] == 1 + 2 * got.counters["levels"]

    def batched(strategy, g, s, got):
        lpc = strategy.knobs.levels_per_check
        launches = got.counters["kernel_launches"] - 1
        assert launches % lpc == 0 and launches >= got.counters["levels"] > launches - lpc

    def edges(strategy, g, s, got):
        batched(strategy, g, s, got)
        assert got.counters["edges_inspected"] == g.m * got.counters["levels"]

    eb.run(monkeypatch, emulation, "classic.harish", {"block_size": 32}, ["broom"], check=harish_launches)
    eb.run(monkeypatch, emulation, "classic.vwarp", {"block_size": 32, "levels_per_check": 3}, ["broom"],
           check=batched)
    eb.run(monkeypatch, emulation, "classic.edge_coo", {"block_size": 32, "levels_per_check": 4}, ["broom"],
           check=edges)


@pytest.mark.parametrize("seed", [2, 3])
def test_more_thread_interleavings(monkeypatch, emulation, seed):
    """Other seeds of the emulator's thread switches where many frontier vertices
    reach one vertex in one level."""
    for name, knobs in [("classic.harish", {"block_size": 32}), ("classic.vwarp", {"W": 2, "block_size": 32}),
                        ("classic.edge_coo", {"block_size": 32})]:
        eb.run(monkeypatch, emulation, name, knobs, ["loops_dups", "rmat"], seed=seed)


@pytest.mark.parametrize("variant", DEFAULTS, ids=[_id(v) for v in DEFAULTS])
def test_traverse_has_no_fixed_cost_leaks(monkeypatch, emulation, variant):
    """No device allocation and no pageable read inside traverse()."""
    fc.check_fixed_cost(monkeypatch, emulation, "bfs", *variant)
