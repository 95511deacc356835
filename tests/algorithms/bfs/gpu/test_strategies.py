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
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

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
    if "regions.bfs" in gpu:  # many small regions (many hand-overs), and each build
        out += [("regions.bfs", {"region_size": 32}), ("regions.bfs", {"region_size": 256, "cta_size": 1024}),
                ("regions.bfs", {"cta_size": 128, "blocks_per_sm": 1, "seed": 7}),
                ("regions.bfs", {"cta_size": 512, "region_size": 96}),
                ("regions.bfs", {"region_size": 32, "absorb": 1}), ("regions.bfs", {"absorb": 1, "flush_steps": 1})]
    return out


VARIANTS = _variants()


def _variant_id(v: tuple[str, dict]) -> str:
    name, knobs = v
    return name + "".join(f"-{k}={x}" for k, x in knobs.items())


# Strategies that read a count back to the host every round: make test-gpu runs their
# tests apart (the host_paced marker, Makefile).
HOST_PACED = ("raval.", "merrill.multi_gpu")
VARIANT_PARAMS = [pytest.param(i, id=_variant_id(v), marks=pytest.mark.host_paced if v[0].startswith(HOST_PACED) else ())
                  for i, v in enumerate(VARIANTS)]


def _strategy(index: int):
    name, overrides = VARIANTS[index]
    cls = all_strategies()[name]
    return cls(make_knobs(cls, overrides))


def check_parents(g: CSRGraph, source: int, dist: np.ndarray, parents: np.ndarray, label: str = "") -> None:
    """A BFS tree: `label` (what ran, on which graph, from where) starts every message."""
    at = f"{label}: " if label else ""
    assert parents[source] == source, f"{at}the source is not its own parent"
    reached = np.flatnonzero(dist >= 0)
    others = reached[reached != source]
    assert np.all(parents[dist < 0] == -1), f"{at}an unreached vertex has a parent"
    p = parents[others].astype(np.int64)
    assert np.all(p >= 0), f"{at}a reached vertex has no parent"
    assert np.array_equal(dist[p], dist[others] - 1), f"{at}parent not one level up"
    rows = np.repeat(np.arange(g.n, dtype=np.int64), g.out_degrees())
    edge_keys = rows * g.n + g.col_indices
    assert np.all(np.isin(p * g.n + others, edge_keys)), f"{at}parent is not a neighbour"


def first_parents(in_offsets, in_indices, out_degrees, dist, order: str) -> tuple[np.ndarray, int]:
    """Each reached vertex's first in-neighbour one level up, scanning its in-list as
    stored or by out-degree (largest first, ties as stored: a stable sort): the parents
    a bottom-up scan that stops at its first hit gives (-1 for the source and the
    unreached). Also how many vertices the two orders give different parents."""
    offsets, cols = np.asarray(in_offsets), np.asarray(in_indices)
    want, differ = np.full(len(dist), -1, dtype=np.int64), 0
    for v in np.flatnonzero(dist > 0):
        stored = [int(u) for u in cols[offsets[v]:offsets[v + 1]] if dist[u] == dist[v] - 1]
        hubs = sorted(stored, key=lambda u: -out_degrees[u])
        differ += stored[0] != hubs[0]
        want[v] = (hubs if order == "degree" else stored)[0]
    return want, differ


# ---- the variant matrices' harness (test_bfs4k.py, test_raval.py, sssp/gpu/test_raval.py) ----
# One test per variant loops over the graphs; graphs that a disjoint union leaves
# unchanged for the variant share one prepare().

# Undirected, more than one vertex, every degree below 2048 (bfs4k's shortest child-kernel
# list at its defaults, K3 * K6). From a source in one of them a traversal of their union
# is the traversal of that graph alone, and bfs4k's thresholds come out the same: no child
# kernel at the defaults; with K2 = 100 and no degree floor, every vertex with a neighbour.
UNION = ("path3000", "grid3x2000", "grid60x60", "disconnected", "loops_dups", "gnm", "rmat", "kronecker")


@dataclass(frozen=True)
class Part:
    """A named graph inside a batch graph: its vertices are offset .. offset + n - 1 there."""

    name: str
    offset: int
    n: int


@dataclass(frozen=True, eq=False)
class Batch:
    """What one prepare() serves: a named graph alone, or the disjoint union of several."""

    graph: CSRGraph
    parts: tuple[Part, ...]

    @property
    def union(self) -> bool:
        return len(self.parts) > 1


@functools.cache
def _batches(names: tuple[str, ...], build: Callable[[str], CSRGraph], union: tuple[str, ...]) -> tuple[Batch, ...]:
    groups: dict[tuple, list[str]] = {}
    order: list[list[str]] = []
    for name in names:
        g = build(name)
        # a union keeps direction and weight type (the kernel build follows the weights')
        key = (name in union, g.directed, None if g.weights is None else np.dtype(g.weights.dtype).str)
        if key[0] and key in groups:
            groups[key].append(name)
            continue
        order.append([name])
        if key[0]:
            groups[key] = order[-1]
    out = []
    for members in order:
        parts = [build(m) for m in members]
        g = parts[0] if len(parts) == 1 else samples.disjoint(*parts, name="+".join(members))
        assert g.weights is None or g.weights.dtype == parts[0].weights.dtype
        offsets = np.cumsum([0] + [p.n for p in parts])
        out.append(Batch(g, tuple(Part(m, int(o), p.n) for m, o, p in zip(members, offsets, parts, strict=False))))
    return tuple(out)


def batches(names: Iterable[str], build: Callable[[str], CSRGraph] = graph,
            union: Iterable[str] = ()) -> tuple[Batch, ...]:
    """The graphs `names` (made by `build`) as batches, in their order: those also in
    `union`, grouped by direction and weight type, one disjoint union a group; the rest
    alone."""
    return _batches(tuple(names), build, tuple(union))


@dataclass(frozen=True)
class At:
    """One check's place: the batch, the named graph in it, the source in that graph's
    own numbering and in the batch's (`vertex`), and the label every message starts with."""

    batch: Batch
    part: Part
    source: int
    vertex: int
    label: str


def _label(variant: str, batch: Batch, part: Part, source: int) -> str:
    label = f"{variant} on {part.name} from {source}"
    return f"{label} (vertex {part.offset + source} of the union {batch.graph.name})" if batch.union else label


TESTS = Path(__file__).resolve().parents[3]


def _failure(label: str, e: Exception) -> str:
    frames = traceback.extract_tb(e.__traceback__)
    if isinstance(e, AssertionError):  # the test's line, not numpy's assert_array_equal
        frames = [f for f in frames if Path(f.filename).resolve().is_relative_to(TESTS)] or frames
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}"
    text = str(e).strip()
    return f"{'' if label in text else label + ': '}{type(e).__name__} at {where}: {text}"


def run_checks(variant: str, make: Callable, batch_list: Iterable[Batch], sources_of: Callable[[str], Iterable[int]],
               predecessors: bool, check: Callable[[At, object], None]) -> list[str]:
    """Per batch a fresh strategy from make(), prepared once; from each source of each
    named graph in it (sources_of(name), that graph's numbering) one traverse, then
    check(at, answer on the host). A graph stops at its first failure, as its own test
    did, and the other graphs still run: returns every failure, named."""
    failures = []
    for batch in batch_list:
        strategy = make()
        label = f"{variant} on {'+'.join(p.name for p in batch.parts)} (prepare)"
        try:
            strategy.prepare(batch.graph)
            for part in batch.parts:
                label = f"{variant} on {part.name}"
                try:
                    for s in sources_of(part.name):
                        label = _label(variant, batch, part, s)
                        at = At(batch, part, s, part.offset + s, label)
                        check(at, strategy.traverse(at.vertex, predecessors=predecessors).to_host())
                except Exception as e:  # noqa: BLE001 - recorded, named; the next graph runs
                    failures.append(_failure(label, e))
        except Exception as e:  # noqa: BLE001 - prepare failed: the batch's graphs are not run
            failures.append(_failure(label, e))
        finally:
            strategy.release()
    return failures


def report(failures: list[str]) -> None:
    """Fail once with every graph's failure."""
    if failures:
        pytest.fail(f"{len(failures)} graph(s) failed:\n\n" + "\n\n".join(failures), pytrace=False)


@functools.cache
def _union_reference(batch: Batch, vertex: int):
    return sequential_bfs(batch.graph, vertex)


def batch_reference(at: At):
    """The sequential BFS of the batch graph from at's source (the cached one of the graph
    alone when the batch is one graph)."""
    return _union_reference(at.batch, at.vertex) if at.batch.union else reference(at.part.name, at.source)


# ---- tests -------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("graph_name", list(GRAPHS))
@pytest.mark.parametrize("variant", VARIANT_PARAMS)
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
@pytest.mark.parametrize("variant", VARIANT_PARAMS)
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
