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
from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.edges import EdgeList

# ---- graphs -----------------------------------------------------------------------


def _undirected(src, dst, n, **policy) -> CSRGraph:
    return build_csr(EdgeList(np.asarray(src), np.asarray(dst), n, directed=False), **policy)


def path(n: int) -> CSRGraph:
    v = np.arange(n - 1)
    return _undirected(v, v + 1, n)


def grid2d(rows: int, cols: int) -> CSRGraph:
    ids = np.arange(rows * cols).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return _undirected(src, dst, rows * cols)


def star(leaves: int) -> CSRGraph:
    return _undirected(np.zeros(leaves, dtype=np.int64), np.arange(1, leaves + 1), leaves + 1)


def broom(handle: int, bristles: int) -> CSRGraph:
    """A path whose far end is a hub of `bristles` leaves, whose leaves each lead to
    a second path: frontier sizes go 1, 1, ..., bristles, then 1 again."""
    src = [np.arange(handle - 1)]
    dst = [np.arange(1, handle)]
    hub = handle - 1
    leaves = np.arange(handle, handle + bristles)
    src.append(np.full(bristles, hub))
    dst.append(leaves)
    tail0 = handle + bristles
    src.append(leaves)
    dst.append(np.full(bristles, tail0))
    src.append(np.arange(tail0, tail0 + 199))
    dst.append(np.arange(tail0 + 1, tail0 + 200))
    return _undirected(np.concatenate(src), np.concatenate(dst), tail0 + 200)


def disconnected() -> CSRGraph:
    """A path of 50, a star of 20 leaves, a triangle, and 10 isolated vertices."""
    src = [np.arange(49), np.full(20, 50), np.array([71, 72, 73])]
    dst = [np.arange(1, 50), np.arange(51, 71), np.array([72, 73, 71])]
    return _undirected(np.concatenate(src), np.concatenate(dst), 84)


def loops_and_duplicates(seed: int = 1) -> CSRGraph:
    rng = np.random.default_rng(seed)
    n, m = 300, 1500
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    src = np.concatenate([src, np.arange(0, n, 7), src[:200]])  # self-loops, repeats
    dst = np.concatenate([dst, np.arange(0, n, 7), dst[:200]])
    return _undirected(src, dst, n, self_loops="keep", duplicates="keep")


def directed_gnm(n: int = 2000, m: int = 7000, seed: int = 2) -> CSRGraph:
    rng = np.random.default_rng(seed)
    e = EdgeList(rng.integers(0, n, m), rng.integers(0, n, m), n, directed=True)
    return build_csr(e)


def gnm(n: int = 3000, m: int = 12000, seed: int = 3) -> CSRGraph:
    rng = np.random.default_rng(seed)
    return _undirected(rng.integers(0, n, m), rng.integers(0, n, m), n)


def rmat(scale: int, edge_factor: int, seed: int, permute: bool) -> CSRGraph:
    """R-MAT with (a, b, c) = (0.57, 0.19, 0.19); permute=True relabels the vertices
    at random, as the Graph500 Kronecker generator does."""
    rng = np.random.default_rng(seed)
    m = edge_factor << scale
    src = np.zeros(m, dtype=np.int64)
    dst = np.zeros(m, dtype=np.int64)
    for bit in range(scale):
        r = rng.random(m)
        down = r >= 0.57 + 0.19  # quadrants c, d: source bit set
        right = ((r >= 0.57) & (r < 0.76)) | (r >= 0.95)  # quadrants b, d
        src |= down.astype(np.int64) << bit
        dst |= right.astype(np.int64) << bit
    n = 1 << scale
    if permute:
        perm = rng.permutation(n)
        src, dst = perm[src], perm[dst]
    return _undirected(src, dst, n)


GRAPHS = {
    "path3000": lambda: path(3000),
    "grid3x2000": lambda: grid2d(3, 2000),
    "grid60x60": lambda: grid2d(60, 60),
    "star100k": lambda: star(100_000),
    "broom": lambda: broom(300, 5000),
    "disconnected": disconnected,
    "single": lambda: build_csr(EdgeList(np.zeros(0, np.int64), np.zeros(0, np.int64), 1, directed=False)),
    "loops_dups": loops_and_duplicates,
    "directed": directed_gnm,
    "gnm": gnm,
    "rmat": lambda: rmat(12, 8, 4, permute=False),
    "kronecker": lambda: rmat(11, 16, 5, permute=True),
}


@functools.cache
def graph(name: str) -> CSRGraph:
    return GRAPHS[name]()


@functools.cache
def sources(name: str) -> tuple[int, ...]:
    """Every vertex of small graphs; otherwise vertex 0, the last vertex, the largest
    degree, an isolated vertex when there is one, and random ones."""
    g = graph(name)
    if g.n <= 90:
        return tuple(range(g.n))
    deg = g.out_degrees()
    picks = [0, g.n - 1, int(np.argmax(deg))]
    isolated = np.flatnonzero(deg == 0)
    if len(isolated):
        picks.append(int(isolated[0]))
    picks += np.random.default_rng(7).integers(0, g.n, 4).tolist()
    return tuple(dict.fromkeys(picks))


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
