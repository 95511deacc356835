"""Region-local asynchronous BFS on the GPU: ``regions.bfs``, for graphs of thousands of
levels (road networks, meshes). Not one of the five papers: gpubfs's own (paper key
``beyond``).

Why. A level-synchronous BFS pays a grid-wide barrier and a chain of dependent global
loads every level; a road network has thousands of levels of a few hundred vertices
each, so that chain, not the work, is its time (docs/performance.md, "Per-level cost").
Asynchronous BFS on a work queue (Atos: Chen, Sitaraman, Owens, 2022) drops the barrier
but still crosses global memory at every hop.

Method (regions.cu):

- prepare() cuts the graph into regions of at most ``region_size`` vertices grown
  around random seeds (partition.py) and renumbers it region by region; on a road
  network about 97 % of the edges then stay inside a region.
- One persistent cooperative kernel a traversal. A CTA takes a queued region, copies
  its labels into shared memory and runs BFS levels there (one block barrier a level,
  the frontier in shared memory) from the region's marked vertices; an edge leaving the
  region lowers its head's global label (atomicMin), marks it and queues its region.
  No grid barrier between regions: the search is over when no region is queued or
  running. Labels only fall, so a region run twice, or by two CTAs at once, repeats
  work and never loses it.
- A last pass writes distances (and parents: an in-neighbour one level up) in the
  input's numbering.

Distances and parents are exact BFS ones (validated like every strategy's); rates are
traversed-edge rates of the reached component, not of the work done (a region run more
than once relaxes its edges again: ``runs`` and ``steps`` say how much).

Knobs:

- ``region_size``: the most vertices a region holds (a multiple of 32, at most
  RG_REGION_CAP = 2048, the shared-memory labels' room). Larger regions keep more
  edges inside and cost more a run.
- ``cta_size``: threads per CTA (128 to 1024; a build each). ``blocks_per_sm``: CTAs per
  SM of the persistent grid (0 = as many as fit).
- ``flush_steps``: a run keeps the edges it lowers into other regions in shared memory
  and sends them (global atomicMin, mark, queue) every this many levels and at its end,
  so a level waits for no global atomic; 1 sends after every level.
- ``seed``: the seeds' draw (partition.py).

Counters: ``levels`` (the largest distance + 1), ``runs`` (regions run), ``steps``
(local levels, summed over the runs), ``pushes`` (regions queued), ``deferred``
(vertices a full local queue handed back to their region), ``copied`` (runs whose
region's edges fit shared memory, RG_EDGE_CAP), ``regions`` (how many there are).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.regions.partition import Regions, regions
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import check_launch, knob
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import i32, persistent_defines, persistent_grid, require_int32_ids
from gpubfs_cli.gpu.modules import header_constants, instantiation, load_module
from gpubfs_cli.graph.build import reverse_csr
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.reorder import gather_rows

KERNELS = Path(__file__).with_name("regions.cu")
C = header_constants(Path(__file__).with_name("regions.cuh"))
CTA_SIZES = (128, 256, 512, 1024)
REGION_CAP = C["RG_REGION_CAP"]
RG_EMPTY = C["RG_EMPTY"]
COUNTERS = {"levels": C["RG_LEVELS"], "runs": C["RG_RUNS"], "steps": C["RG_STEPS"], "pushes": C["RG_PUSHES"],
            "deferred": C["RG_DEFERRED"], "copied": C["RG_COPIED"]}
INT32_EDGES = 2**31 - 1  # the kernel's edge offsets are int


def kernel_defines(cta_size: int) -> dict[str, int]:
    """The -D defines of the build for CTAs of `cta_size` threads."""
    return persistent_defines("RG", cta_size)


KERNEL_DEFINES = [kernel_defines(c) for c in CTA_SIZES]  # every build, for the compile test
KERNEL_NAMES = tuple(instantiation("regions_bfs", p) for p in (False, True))


@dataclass(frozen=True)
class RegionsKnobs:
    region_size: int = knob(REGION_CAP, 32, REGION_CAP)
    cta_size: int = knob(256, among=CTA_SIZES)
    blocks_per_sm: int = knob(0, 0, means="0: as many as fit")
    flush_steps: int = knob(8, 1, 2**31 - 1)
    seed: int = knob(0, 0, 2**32 - 1)

    def __post_init__(self) -> None:
        check_launch(self.cta_size, CTA_SIZES, self.blocks_per_sm)
        if self.region_size % 32:
            raise ValueError(f"region_size must be a multiple of 32, not {self.region_size!r}")


def relabelled(row: np.ndarray, col: np.ndarray, parts: Regions) -> tuple[np.ndarray, np.ndarray]:
    """(row offsets, columns) of the CSR (row, col) in region order: id i's list is the
    list of input vertex perm[i] (empty for padding), its entries renumbered."""
    offsets, take = gather_rows(row, parts.perm)
    return offsets.astype(np.int32), parts.rank[np.asarray(col)[take]].astype(np.int32)


def ring_entries(regions_count: int, threads: int) -> int:
    """The ring's entries: a power of two above every region queued at once (one each)
    plus a ticket for every thread that may be pushing (regions.cu, push_region)."""
    need = 2 * (regions_count + threads) + 1
    return 1 << (need - 1).bit_length()


def compiled_module(cta_size: int, device=None):
    return load_module(KERNELS, defines=kernel_defines(cta_size), cooperative=True, name_expressions=KERNEL_NAMES,
                       device=device)


@register
class RegionsBfs(GpuStrategy):
    name = "regions.bfs"
    paper = "beyond"
    section = "beyond the papers: region-local asynchronous BFS, one persistent kernel"
    summary = "regions of the graph each run their levels in one CTA's shared memory; regions meet through a queue"
    caveats = (
        "not one of the five papers: gpubfs's own BFS for graphs of thousands of levels",
        "prepare() partitions and renumbers the graph (untimed, as every strategy's prepare)",
    )
    Knobs: ClassVar[type] = RegionsKnobs

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        if graph.m > INT32_EDGES:
            raise StrategyUnavailable(f"{self.name} needs fewer than 2^31 edges (32-bit edge offsets)")
        super().prepare(graph)
        cp = self.cupy()
        k = self.knobs
        parts = self.derived("_parts", regions(graph, int(k.region_size), int(k.seed)))
        row_h, col_h = np.asarray(graph.row_offsets), np.asarray(graph.col_indices)
        row, col = relabelled(row_h, col_h, parts)
        if graph.directed:  # parents are in-neighbours: the transpose (built on the host), renumbered too
            t = reverse_csr(graph)
            in_row, in_col = relabelled(np.asarray(t.row_offsets), np.asarray(t.col_indices), parts)
        else:
            in_row, in_col = row, col
        up = {name: self.keep(name, cp.asarray(a)) for name, a in (
            ("_row", row), ("_col", col), ("_roff", parts.offsets), ("_vreg", parts.region), ("_perm", parts.perm))}
        if graph.directed:
            up["_in_row"], up["_in_col"] = self.keep("_in_row", cp.asarray(in_row)), self.keep("_in_col", cp.asarray(in_col))
        else:
            up["_in_row"], up["_in_col"] = up["_row"], up["_col"]
        module = compiled_module(int(k.cta_size), self.device)
        self._kernels = {p: module.get_function(KERNEL_NAMES[p]) for p in (False, True)}
        self._grid = persistent_grid(self.name, self._kernels.values(), int(k.cta_size), k.blocks_per_sm, self.device)
        n_new = parts.n_new
        ring = self.buffer("_ring", ring_entries(parts.count, self._grid * int(k.cta_size)), cp.int32, fill=RG_EMPTY)
        label = self.buffer("_label", max(n_new, 1), cp.uint32)
        dirty = self.buffer("_dirty", max((n_new + 31) // 32, 1), cp.uint32)
        active = self.buffer("_active", max(parts.count, 1), cp.int32)
        ctl = self.buffer("_ctl", C["RG_CTL_WORDS"], cp.uint32, fill=0)
        dist = self.buffer("_dist", graph.n, cp.int32)
        parent = self.buffer("_parent", graph.n, cp.int32)
        self.derived("_args", lambda p, src: (
            up["_row"], up["_col"], up["_in_row"], up["_in_col"], up["_roff"], up["_vreg"], up["_perm"], label, dirty,
            active, ring, ctl, dist, parent if p else None, i32(n_new), i32(parts.count), i32(len(ring) - 1),
            i32(k.flush_steps), i32(src)))
        views = {key: ctl[w, ...] for key, w in COUNTERS.items()}
        views["regions"] = parts.count
        self.derived("_views", views)

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        if not 0 <= source < n:
            raise ValueError(f"source {source} out of range [0, {n})")
        src = int(self._parts.rank[source])
        self._kernels[predecessors]((self._grid,), (int(self.knobs.cta_size),), self._args(predecessors, src))
        return RegionsAnswer(self._dist, self._parent if predecessors else None, dict(self._views))


@dataclass
class RegionsAnswer(Answer):
    """The counters are device scalars until to_host(), after the timer."""

    def to_host(self) -> Answer:
        host = super().to_host()
        for key in COUNTERS:
            host.counters[key] = int(host.counters[key])
        return host
