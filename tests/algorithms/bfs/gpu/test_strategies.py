"""Every GPU strategy gives the exact distances of the sequential BFS.

Parametrized over every registered strategy with device == "gpu" (default knobs, so
strategies added later are covered too), plus each classic.vwarp width and each forced
luo.hierarchical layer, on graphs chosen to break things: paths and long grids
(thousands of levels), a vertex of degree 100,000, disconnected graphs, isolated
sources, self-loops and duplicate edges, one vertex, directed graphs, small random
graphs (R-MAT, G(n, m), Kronecker-like).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.graph import samples
from gpubfs_cli.graph.csr import CSRGraph

# ---- graphs -----------------------------------------------------------------------


GRAPHS = {
    "path3000": lambda: samples.path(3000),
    "grid3x2000": lambda: samples.grid(3, 2000),
    "grid60x60": lambda: samples.grid(60, 60),
    "star100k": lambda: samples.star(100_000),
    "broom": lambda: samples.broom(300, 5000),
    "disconnected": samples.NASTY_BFS["disconnected"],
    "single": samples.single_vertex,
    "loops_dups": samples.loops_and_duplicates,
    "directed": lambda: samples.gnm(2000, 7000, 2, directed=True),
    "gnm": lambda: samples.gnm(3000, 12000, 3),
    "rmat": lambda: samples.rmat(12, 8, 4),
    "kronecker": lambda: samples.rmat(11, 16, 5, permute=True),
}


@functools.cache
def graph(name: str) -> CSRGraph:
    return GRAPHS[name]()


@functools.cache
def sources(name: str) -> tuple[int, ...]:
    """Every vertex of small graphs; otherwise vertex 0, the last vertex, the largest
    degree, an isolated vertex when there is one, and random ones."""
    g = graph(name)
    return tuple(range(g.n)) if g.n <= 90 else tuple(samples.pick_sources(g))


@functools.cache
def reference(name: str, source: int):
    return sequential_bfs(graph(name), source)


# ---- strategies --------------------------------------------------------------------


def _variants() -> list[tuple[str, dict]]:
    gpu = [name for name, cls in all_strategies().items() if cls.device_kind == "gpu"]
    out = [(name, {}) for name in gpu]
    if "classic.vwarp" in gpu:
        out += [("classic.vwarp", {"W": w}) for w in (1, 2, 8, 16, 32)]
    if "luo.hierarchical" in gpu:
        out += [("luo.hierarchical", {"mode": m}) for m in ("block", "cooperative", "level")]
        out += [
            # tiny thresholds: every layer and many switches on small graphs
            ("luo.hierarchical", {"block_threshold": 4, "grid_threshold": 64, "levels_per_check": 3}),
            ("luo.hierarchical", {"split_degree": 3}),
            ("luo.hierarchical", {"split_degree": 2, "mode": "level", "levels_per_check": 2}),
            ("luo.hierarchical", {"split_degree": 5, "mode": "cooperative"}),
            ("luo.hierarchical", {"mode": "cooperative", "grid_block_size": 1024}),
            ("luo.hierarchical", {"mode": "cooperative", "grid_block_size": 96, "grid_blocks_per_sm": 3}),
        ]
    if "do.bfs" in gpu:
        out += [
            ("do.bfs", {"alpha": 1e9, "beta": 1e9}),  # bottom-up from the first level
            ("do.bfs", {"alpha": 2.0, "beta": 8.0, "cta_size": 1024}),  # many switches
            ("do.bfs", {"counters": True, "cta_size": 128, "blocks_per_sm": 1}),
            # the mid-frontier mode: a team of 8 CTAs, one CTA, every CTA of the grid
            ("do.bfs", {"mid_frontier": 64, "mid_ctas": 8, "small_frontier": 16}),
            ("do.bfs", {"mid_frontier": 4096, "mid_ctas": 1, "small_frontier": 0, "counters": True}),
            ("do.top_down", {"mid_frontier": 32768, "mid_ctas": 100000, "cta_size": 1024}),
        ]
    return out


VARIANTS = _variants()


def _variant_id(v: tuple[str, dict]) -> str:
    name, knobs = v
    return name + "".join(f"-{k}={x}" for k, x in knobs.items())


def _strategy(index: int):
    name, overrides = VARIANTS[index]
    cls = all_strategies()[name]
    return cls(make_knobs(cls, overrides))


def check_parents(g: CSRGraph, source: int, dist: np.ndarray, parents: np.ndarray) -> None:
    assert parents[source] == source
    reached = np.flatnonzero(dist >= 0)
    others = reached[reached != source]
    assert np.all(parents[dist < 0] == -1)
    p = parents[others].astype(np.int64)
    assert np.all(p >= 0)
    assert np.array_equal(dist[p], dist[others] - 1), "parent not one level up"
    rows = np.repeat(np.arange(g.n, dtype=np.int64), g.out_degrees())
    edge_keys = rows * g.n + g.col_indices
    assert np.all(np.isin(p * g.n + others, edge_keys)), "parent is not a neighbour"


# ---- tests -------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("graph_name", list(GRAPHS))
@pytest.mark.parametrize("variant", range(len(VARIANTS)), ids=[_variant_id(v) for v in VARIANTS])
def test_distances_match_sequential(variant, graph_name):
    strategy = _strategy(variant)
    strategy.prepare(graph(graph_name))
    for s in sources(graph_name):
        ref = reference(graph_name, s)
        got = strategy.traverse(s).to_host()
        assert got.distances.dtype == np.int32
        np.testing.assert_array_equal(got.distances, ref.distances, err_msg=f"source {s}")
        if "levels" in got.counters:
            assert got.counters["levels"] == ref.counters["levels"], f"source {s}"
    strategy.release()


PARENT_GRAPHS = ["grid60x60", "star100k", "loops_dups", "directed", "kronecker", "disconnected"]


@pytest.mark.gpu
@pytest.mark.parametrize("graph_name", PARENT_GRAPHS)
@pytest.mark.parametrize("variant", range(len(VARIANTS)), ids=[_variant_id(v) for v in VARIANTS])
def test_parents_form_a_bfs_tree(variant, graph_name):
    strategy = _strategy(variant)
    if not strategy.supports_predecessors:
        pytest.skip(f"{strategy.name} computes no predecessors")
    g = graph(graph_name)
    strategy.prepare(g)
    for s in sources(graph_name)[:4]:
        got = strategy.traverse(s, predecessors=True).to_host()
        np.testing.assert_array_equal(got.distances, reference(graph_name, s).distances)
        check_parents(g, s, got.distances, got.parents)
    strategy.release()


@pytest.mark.gpu
@pytest.mark.parametrize("mode, counter", [("block", "levels_block"), ("cooperative", "levels_cooperative"),
                                           ("level", "levels_per_kernel")])
def test_luo_forced_layer_runs_every_level(mode, counter):
    cls = all_strategies()["luo.hierarchical"]
    strategy = cls(make_knobs(cls, {"mode": mode}))
    strategy.prepare(graph("grid60x60"))
    got = strategy.traverse(0).to_host()
    ref = reference("grid60x60", 0)
    assert got.counters[counter] == got.counters["levels"] == ref.counters["levels"] == 119
    assert got.counters["vertices_enqueued"] == ref.counters["reached"] == 3600


@pytest.mark.gpu
def test_luo_auto_uses_all_three_layers():
    cls = all_strategies()["luo.hierarchical"]
    strategy = cls(make_knobs(cls, {"block_threshold": 4, "grid_threshold": 64, "levels_per_check": 3}))
    strategy.prepare(graph("grid60x60"))
    got = strategy.traverse(30 * 60 + 30).to_host()  # from the centre: frontier 4, 8, ... 116, ...
    c = got.counters
    assert c["levels_block"] > 0 and c["levels_cooperative"] > 0 and c["levels_per_kernel"] > 0
    assert c["levels_block"] + c["levels_cooperative"] + c["levels_per_kernel"] == c["levels"] == 61


@pytest.mark.gpu
def test_luo_split_enqueues_pieces():
    cls = all_strategies()["luo.hierarchical"]
    strategy = cls(make_knobs(cls, {"split_degree": 1000}))
    strategy.prepare(graph("star100k"))
    got = strategy.traverse(1).to_host()  # a leaf: 1 piece, then the hub's 100 pieces
    np.testing.assert_array_equal(got.distances, reference("star100k", 1).distances)
    assert got.counters["vertices_enqueued"] == 100_000 + 100


def test_gpu_strategies_import_without_cupy():
    """On a machine without CuPy every GPU strategy still imports, and says why it
    cannot run (checked in a fresh interpreter where importing cupy fails)."""
    import subprocess
    import sys

    code = """
import sys
class NoCupy:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('cupy', 'cupyx', 'cupy_backends'):
            raise ImportError('No module named ' + repr(name))
sys.meta_path.insert(0, NoCupy())
from gpubfs_cli.core.strategy import registry
gpu = {n: c for names in registry().values() for n, c in names.items() if c.device_kind == 'gpu'}
expected = {'classic.harish', 'classic.vwarp', 'classic.edge_coo', 'classic.spmv', 'luo.hierarchical'}
assert expected <= set(gpu), sorted(gpu)
for name, cls in gpu.items():
    reason = cls.unavailable_reason()
    assert reason and 'CuPy' in reason, (name, reason)
assert not any(m.split('.')[0] in ('cupy', 'cupyx') for m in sys.modules)
print(len(gpu))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) >= 5
