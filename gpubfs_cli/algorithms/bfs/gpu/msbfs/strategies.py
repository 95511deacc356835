"""Bit-parallel multi-source BFS on the GPU: ``msbfs.bfs``. Not one of the five papers:
the family is gpubfs's own (paper key ``beyond``), so the paper tables stay faithful.

Method. Then, Kaufmann, Chirigati, Hoang-Vu, Pham, Kemper, Neumann, Vo, "The More the
Merrier: Efficient Multi-Source Graph Traversal" (PVLDB 8(4), 2014): up to 64 BFSs share
one pass over the graph, bit i of a vertex's 64-bit words belonging to source i
(``seen``: the sources that reached it; ``visit``: those whose frontier holds it). A
frontier vertex's list is read once for every source it carries; an edge costs an AND,
an OR and, where it finds something, one atomic. With the paper's direction-optimizing
extension (Beamer et al., SC'12): a bottom-up level lets every vertex not yet reached by
all live sources (those whose frontier is not empty) scan its in-edges, or-ing its
neighbours' frontier bits, until every live source has reached it. The switch, from
counts the warps add up after every level (n_f frontier vertices, m_f their out-edges,
m_u the in-edges of the vertices some source has not reached): top-down -> bottom-up
when ``m_f * alpha > m_u``, back when ``n_f * beta < n``. cpu.msbfs is the same
algorithm, top-down only, on one CPU core.

Adapted for a GPU (msbfs.cu):

- One persistent cooperative kernel per batch: one grid barrier per level, every CTA
  taking the same direction decision from the same counts; no level costs a launch or a
  host read-back. Its fixed state is one parameter struct (msbfs.cuh's MsbfsParams)
  built in prepare.
- The frontier is a compacted queue of the vertices with a nonzero ``visit`` word,
  built by both directions as they go (one reservation a warp), so a top-down level
  costs its frontier's edges rather than a scan of n words, and a switch converts
  nothing. Top-down levels gather the queue's lists load-balanced over tiles
  (gpu/include/tiled.cuh, expand.cuh), shrunk so a small frontier spreads over every CTA.
- Labels are written in the level that wins them, exactly once per source and vertex:
  top-down as an atomicOr on ``seen[u]`` wins bits; bottom-up, parents as found and
  distances once the warp's scans are done, one coalesced row store per source (dist
  is k rows of n, far past the L2). ``visit`` is three rotating arrays: level L reads
  one, fills the next and clears level L - 1's words in the third.
- Directed graphs get the transpose for bottom-up levels (DeviceGraph.with_in_edges);
  undirected graphs use the CSR itself. 32-bit edge offsets below 2^31 edges, a 64-bit
  build (MSBFS_OFFSET64) from there on. A batch of one passes its source as a kernel
  argument; a larger batch copies its sources into a buffer allocated in prepare.

Rates are equivalent GTEPS (``teps = "equivalent"``): each source's top-down edge count
over its share of the batch's time.

Knobs:

- ``width``: sources per batch, 1 to 256 (default 256). Up to 64 a vertex's source sets
  are one 64-bit word; 65 to 128 take a build of 2 words, 129 to 256 one of 4
  (MSBFS_WORDS), whose launch bounds give an SM 768 and 512 threads so as not to spill.
  256 by default: a wide set's in-edge probe reads one 32-byte sector as a word does, so
  a pass of 256 costs less a source than four of 64 on all four msbfs graphs
  (docs/performance.md). A batch of fewer sources takes the width's build all the same. A set of
  several words has no one word whose atomic says who was first, so there a vertex's
  marks (the last level that queued it, how many sources have reached it: 2n ints)
  decide its queueing and its leaving m_u.
- ``alpha``, ``beta``: the switch thresholds (>= 0; read in thousandths). ``alpha = 0``
  never goes bottom-up; a huge alpha and beta go bottom-up from the first level and
  stay. Defaults 8 and 18: lower than Beamer's, since a bit-parallel bottom-up level
  stops scanning a vertex only once every live source has reached it, so early levels
  cost about m_u; 8 rather than 4 since the bottom-up hub pass made such a level cheaper
  than the top-down one it replaces (docs/performance.md).
- ``bottom_up``: False holds every level top-down (the paper's plain MS-BFS).
- ``cta_size``: threads per CTA (128 to 1024; a build each). ``blocks_per_sm``: CTAs per
  SM of the persistent grid (0 = as many as fit).
- ``thread_edges``: in-edges a vertex's thread scans alone in a bottom-up level; past
  them its warp scans the rest of the list with it, a lane an edge (0: never).
- ``warp_edges``: a bottom-up level's lists still lacking sources past this many
  in-edges (their thread's and warp's) are held for a hub pass after the level's
  barrier: their remaining in-edges go to the grid's warps MSBFS_HELD_CHUNK (1,024) at a
  time, each find an atomicOr into the vertex's next-frontier set, then a settling pass
  labels and queues those vertices. Two more grid barriers, only on levels with such a
  list. Default 1,024 (docs/performance.md); 0: a vertex's warp scans its whole list, 32
  in-edges a dependent step. A value under which a level could hold 2^24 lists or more
  (the bits its counter has) is unavailable on that graph.
- ``probe_batch``: a bottom-up lane loads this many in-edges and their frontier words at
  once (1, 2, 4 or 8; a build each, BU_BATCH), then takes them in order, so the edges
  examined and the parents are a serial scan's.
- ``frontier_cache``: ``l2`` (default: frontier words cached in L2 only) or ``l1`` (in
  the SM's L1 too; a build each, BU_FRONT_L1, as do.bfs's).
- ``hub_edges``: a top-down level leaves every list of at least this many out-edges (the
  first MSBFS_SPREAD, 1024) to a hub pass after its barrier that spreads their edges
  over every warp of the grid (gpu/include/spread.cuh): one more grid barrier, only on
  levels with such a list. Default 4096, do.bfs's; 0: no hub pass.
- ``counters``: per-level counters of the pass (below), from a second instantiation of
  the kernel that counts; off for timings. ``profile``: as ``counters``, plus
  %globaltimer stamps (the kernel's start, each level's start, the end of the last).

Counters, per answer: ``levels`` (that source's depth + 1), ``bottom_up_levels``,
``hub_levels`` (levels that ran a hub pass, either direction) and ``pass_levels`` (the batch's:
levels run, the last one empty), ``batch`` (its size). A hub pass's edges and labels
count in its level's series.
With ``counters`` or ``profile``, the batch's per-level series, int64 arrays of
``pass_levels`` entries in every answer of the batch (level L expands frontier L and
labels distance L + 1): ``direction`` (0 top-down, 1 bottom-up), ``frontier`` (its
vertices), ``vertices_examined`` (top-down: queue entries expanded; bottom-up: vertices
some live source still needed), ``edges_examined`` (top-down: out-edges gathered;
bottom-up: in-edges scanned, the warp's part and the hub pass's included) and ``labels`` ((source, vertex)
distances written). With ``profile``, ``profile``: ``pass_levels + 2`` nanosecond
stamps. ``level_rows`` turns them into a table with each level's least traffic
(``level_bytes``; scripts/device/msbfs_profile.py prints it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from gpubfs_cli.core.answer import Answer, to_host
from gpubfs_cli.core.knobs import (
    PROBE_BATCHES,
    check_edge_count,
    check_flags,
    check_frontier_cache,
    check_launch,
    check_probe_batch,
    check_thread_edges,
    check_thresholds,
    knob,
    whole,
)
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import (
    FRONTIER_CACHE,
    POINTER,
    PROBE_BATCH,
    i32,
    kernel_struct,
    level_capacity,
    param_struct,
    persistent_builds,
    persistent_defines,
    persistent_grid,
    require_int32_ids,
)
from gpubfs_cli.gpu.modules import header_constants, instantiation, load_module
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("msbfs.cu")
C = header_constants(Path(__file__).with_name("msbfs.cuh"))
CTA_SIZES = (128, 256, 512, 1024)
WORD = C["MSBFS_WORD"]  # sources a 64-bit word holds
WIDEST = WORD * C["MSBFS_MAX_WORDS"]  # sources a pass holds in the widest build
MILLI = C["MSBFS_MILLI"]
CTL_WORDS, CTL_LEVELS, CTL_BU_LEVELS = C["MS_CTL_WORDS"], C["MS_CTL_LEVELS"], C["MS_CTL_BU_LEVELS"]
CTL_HUB_LEVELS = C["MS_CTL_HUB_LEVELS"]
SPREAD = C["MSBFS_SPREAD"]  # the hub queue's room (a build may define less; never more)
HELD_MAX = 1 << (64 - C["MS_HELD_SHIFT"])  # bottom-up held lists a level counts: the bits above the chunks
HUB_EDGES = 4096  # hub_edges' default
WARP_EDGES = 1024  # warp_edges' default
OFFSET64_EDGES = 2**31  # from this many edges on, the 64-bit offset build (int32 holds 0..m below)
CNT_KINDS = C["MS_CNT_KINDS"]
# the per-level series, by counters row (msbfs.cuh's MS_CNT_*)
PER_LEVEL = {"direction": C["MS_CNT_DIR"], "frontier": C["MS_CNT_FRONTIER"],
             "vertices_examined": C["MS_CNT_VERTICES"], "edges_examined": C["MS_CNT_EDGES"],
             "labels": C["MS_CNT_LABELS"]}
PROF_KERNEL, PROF_LEVEL0 = C["MS_PROF_KERNEL"], C["MS_PROF_LEVEL0"]
COLUMN_BYTES, WORD_BYTES = 4, 8  # an edge examined reads its column id and its other end's frontier set
LABEL_BYTES = 4  # a label writes one int32 distance
# msbfs.cuh's msbfs::Params, field by field in its order (the emulated tests compare offsets)
PARAMS = param_struct(
    *((name, POINTER) for name in ("row", "col", "in_row", "in_col", "dist", "parent", "seen", "visit", "queue",
                                   "ctl", "levels", "counters", "prof", "marks")),
    *((name, "i8") for name in ("m_in", "alpha_milli", "beta_milli")),
    *((name, "i4") for name in ("n", "hub_edges", "counter_cap", "prof_cap", "bottom_up", "thread_edges",
                                    "warp_edges")),
)
if PARAMS.itemsize != C["MSBFS_PARAMS_BYTES"]:
    raise ImportError(f"msbfs.cuh's Params has {C['MSBFS_PARAMS_BYTES']} bytes, PARAMS {PARAMS.itemsize}")


def offsets64(m: int) -> bool:
    """Whether a graph of m edges needs the 64-bit edge offset build."""
    return int(m) >= OFFSET64_EDGES


# Threads an SM in the wider builds' launch bounds (the 64-source build's: 1024): at 256
# threads a CTA, 80 registers a thread for 128 sources, 128 for 256 (nvcc 13, sm_90).
WIDE_THREADS = {2: 768, 4: 512}


def held_lists(n: int, m: int, warp_edges: int) -> int:
    """The most lists a bottom-up level can hold for its hub pass: those of more than
    warp_edges in-edges (none when it is 0)."""
    return 0 if warp_edges == 0 else min(n, m // (warp_edges + 1))


def check_held_lists(graph: CSRGraph, warp_edges: int) -> int:
    """held_lists on `graph`; a warp_edges that could hold more lists than a level's
    counter holds is unavailable, with the least one that fits."""
    held = held_lists(graph.n, graph.m, warp_edges)
    if held >= HELD_MAX:
        raise StrategyUnavailable(
            f"msbfs.bfs: warp_edges {warp_edges} could hold {held:,} lists a level on this graph, and its "
            f"counter holds fewer than {HELD_MAX:,}; use warp_edges {graph.m // HELD_MAX} or more, or 0")
    return held


def words_for(width: int) -> int:
    """64-bit words a vertex's source sets take for passes of `width` sources: 1, 2 or 4."""
    words = 1
    while words * WORD < width:
        words *= 2
    return words


def kernel_defines(cta_size: int, offset64: bool = False, probe_batch: int = PROBE_BATCH,
                   frontier_cache: str = FRONTIER_CACHE, words: int = 1) -> dict[str, int]:
    """The -D defines of the build for CTAs of `cta_size` threads (64-bit edge offsets
    when `offset64`; bottom-up lanes loading `probe_batch` in-edges at once; source sets
    of `words` 64-bit words, the 64-source build naming no define)."""
    defines = persistent_defines("MSBFS", cta_size, offset64, probe_batch, frontier_cache)
    if words != 1:  # wider sets take more registers: fewer threads an SM, so as not to spill
        defines["MSBFS_WORDS"] = int(words)
        defines["MSBFS_MIN_BLOCKS"] = max(1, WIDE_THREADS[words] // cta_size)
    return defines


# every build, for the compile test: the wider source sets at the default CTA size
KERNEL_DEFINES = persistent_builds("MSBFS", CTA_SIZES) + [
    kernel_defines(256, wide, words=w) for w in (2, 4) for wide in (False, True)]


def kernel_name(predecessors: bool, stats: bool = False) -> str:
    return instantiation("msbfs_bfs", predecessors, stats)


KERNEL_NAMES = tuple(kernel_name(p, s) for s in (False, True) for p in (False, True))


def level_bytes(edges, labels, words: int = 1):
    """The least bytes a level moves: ``edges * (4 + 8 * words) + labels * 4``, each edge
    examined reading a 4-byte column id and a frontier set of `words` 8-byte words, each
    label writing a 4-byte distance (seen, queue and parent traffic left out: a floor,
    not a model)."""
    return edges * (COLUMN_BYTES + WORD_BYTES * words) + labels * LABEL_BYTES


def level_rows(counters: dict, words: int = 1) -> list[dict]:
    """Per level of a pass with counters (an answer's host counters) from a build of
    `words`-word sets: direction, frontier, microseconds (None without profile),
    vertices and edges examined, labels and ``level_bytes``."""
    prof = counters.get("profile")
    rows = []
    for L in range(len(counters["direction"])):  # the levels run, or the first MAX_LEVELS
        edges, labels = int(counters["edges_examined"][L]), int(counters["labels"][L])
        us = None if prof is None else (int(prof[PROF_LEVEL0 + L + 1]) - int(prof[PROF_LEVEL0 + L])) / 1e3
        rows.append({"level": L, "direction": "bottom-up" if counters["direction"][L] else "top-down",
                     "frontier": int(counters["frontier"][L]), "us": us,
                     "vertices_examined": int(counters["vertices_examined"][L]), "edges_examined": edges,
                     "labels": labels, "bytes": level_bytes(edges, labels, words)})
    return rows


def setup_us(counters: dict) -> float | None:
    """Microseconds from the kernel's start to level 0 (clearing k rows of distances,
    the words and the sources' seeds), or None without profile."""
    prof = counters.get("profile")
    return None if prof is None else (int(prof[PROF_LEVEL0]) - int(prof[PROF_KERNEL])) / 1e3


@dataclass(frozen=True)
class MsbfsKnobs:
    width: int = knob(WIDEST, 1, WIDEST)
    alpha: float = knob(8.0, 0)
    beta: float = knob(18.0, 0)
    bottom_up: bool = True
    cta_size: int = knob(256, among=CTA_SIZES)
    blocks_per_sm: int = knob(0, 0, means="0: as many as fit")
    thread_edges: int = knob(32, 0, 2**31 - 1, means="0: the warp at once")
    warp_edges: int = knob(WARP_EDGES, 0, 2**31 - 1, means="0: no hub pass bottom-up")
    probe_batch: int = knob(PROBE_BATCH, among=PROBE_BATCHES)
    frontier_cache: str = FRONTIER_CACHE
    hub_edges: int = knob(HUB_EDGES, 0, 2**31 - 1, means="0: no hub pass")
    counters: bool = False
    profile: bool = False

    def __post_init__(self) -> None:
        if not whole(self.width) or not 1 <= self.width <= WIDEST:
            raise ValueError(f"width must be an integer from 1 to {WIDEST} (sources per batch), not {self.width!r}")
        check_thresholds(self, MILLI)
        check_flags(self, ("bottom_up", "counters", "profile"))
        check_launch(self.cta_size, CTA_SIZES, self.blocks_per_sm)
        check_thread_edges(self.thread_edges)
        check_probe_batch(self.probe_batch)
        check_frontier_cache(self.frontier_cache)
        check_edge_count("hub_edges", self.hub_edges, "no hub pass")
        check_edge_count("warp_edges", self.warp_edges, "no hub pass bottom-up")


def compiled_module(cta_size: int, device=None, offset64: bool = False, probe_batch: int = PROBE_BATCH,
                    frontier_cache: str = FRONTIER_CACHE, words: int = 1):
    return load_module(KERNELS, defines=kernel_defines(cta_size, offset64, probe_batch, frontier_cache, words),
                       cooperative=True,
                       name_expressions=KERNEL_NAMES, device=device)


class PassSeries:
    """A pass's per-level series (device views made in prepare), copied to the host once
    for every answer of its batch, cut to the levels run."""

    __slots__ = ("_views", "_levels", "_host")

    def __init__(self, views: dict, levels):
        self._views, self._levels, self._host = views, levels, None

    def host(self) -> dict:
        if self._host is None:
            levels = int(to_host(self._levels))
            self._host = {key: np.array(to_host(v[: levels + 2 if key == "profile" else levels]), dtype=np.int64)
                          for key, v in self._views.items()}
        return self._host


@dataclass
class MsbfsAnswer(Answer):
    """An answer of a pass with counters: the batch's per-level series join its counters
    in to_host(), after the timer."""

    series: PassSeries | None = None

    def to_host(self) -> Answer:
        host = super().to_host()
        if self.series is not None:
            host.counters.update(self.series.host())
        return host


@register
class GpuMultiSourceBfs(GpuStrategy):
    name = "msbfs.bfs"
    paper = "beyond"
    section = ("beyond the papers: bit-parallel multi-source BFS (Then et al., PVLDB'14) with direction "
               "optimization, one persistent kernel per batch")
    summary = "up to 256 BFSs in one pass, one bit per source, top-down and bottom-up levels switched on the device"
    caveats = (
        "not one of the five papers: gpubfs's own multi-source BFS",
        "answers a batch of sources per call: each source's time is the batch's time over its size",
        "rates are equivalent GTEPS: each source's top-down edge count over its share of the batch's time",
    )
    teps = "equivalent"
    Knobs: ClassVar[type] = MsbfsKnobs

    def batch_size(self) -> int:
        return int(self.knobs.width)

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cupy()
        k = self.knobs
        n, width = graph.n, int(k.width)
        wide = offsets64(graph.m) or self.dgraph.row_offsets32 is None
        self.derived("_offset64", wide)  # which build runs (tests read it)
        dg = self.dgraph
        row = dg.row_offsets if wide else dg.row_offsets32
        if not k.bottom_up:  # top-down only: no in-edges read, m_u unused
            in_row, in_col = row, dg.col_indices
        else:
            dg = dg.with_in_edges()
            if dg.in_offsets is dg.row_offsets:  # undirected: the CSR is its own transpose
                in_row, in_col = row, dg.col_indices
            elif wide:  # in_offsets are int64 (DeviceGraph.with_in_edges)
                in_row, in_col = dg.in_offsets, dg.in_indices
            else:
                in_row, in_col = self.keep("_in_row", dg.in_offsets.astype(cp.int32)), dg.in_indices
        stats = bool(k.counters or k.profile)
        words = words_for(width)
        module = compiled_module(int(k.cta_size), self.device, wide, int(k.probe_batch), k.frontier_cache, words)
        self._kernels = {p: module.get_function(kernel_name(p, stats)) for p in (False, True)}
        self._grid = persistent_grid(self.name, self._kernels.values(), int(k.cta_size), k.blocks_per_sm, self.device)
        dist = self.buffer("_dist", (width, n), cp.int32)
        # width x n ints more: 64 GB at 256 sources of 2^26 vertices, left out when no
        # traverse will ask for parents (plan_predecessors)
        parent = self.buffer("_parent", (width, n), cp.int32) if self.predecessors_planned else None
        seen = self.buffer("_seen", n * words, cp.uint64)
        visit = self.buffer("_visit", 3 * n * words, cp.uint64)
        marks = self.buffer("_marks", 2 * n, cp.int32) if words > 1 else None
        # three queues, the hub queue, then two ints a held list
        queue = self.buffer("_queue", 3 * n + SPREAD + 2 * check_held_lists(graph, int(k.warp_edges)), cp.int32)
        ctl = self.buffer("_ctl", CTL_WORDS, cp.uint64)
        levels = self.buffer("_levels", width, cp.int32)
        cap = level_capacity(n)
        counters = self.buffer("_counters", CNT_KINDS * cap, cp.uint64, fill=0) if stats else None
        prof = self.buffer("_prof", cap + 2, cp.uint64, fill=0) if k.profile else None
        self.buffer("_sources", width, cp.int32)
        self.derived("_sources_host", np.zeros(width, dtype=np.int32))  # pageable: reusable once set() returns
        # Views made once (a CuPy view costs microseconds): each source's rows and level
        # count; ctl[k, ...] is a 0-d view (ctl[k] would be a copy under numpy, the emulation's).
        self.derived("_rows", [dist[i] for i in range(width)])
        self.derived("_parent_rows", None if parent is None else [parent[i] for i in range(width)])
        self.derived("_level_views", [levels[i, ...] for i in range(width)])
        self.derived("_pass_views", (ctl[CTL_LEVELS, ...], ctl[CTL_BU_LEVELS, ...], ctl[CTL_HUB_LEVELS, ...]))
        series = {key: counters[row * cap: (row + 1) * cap] for key, row in PER_LEVEL.items()} if stats else {}
        if prof is not None:
            series["profile"] = prof
        self.derived("_series_views", series)
        # The pass's state, built once: a launch passes it with the batch's sources. The
        # struct holds addresses only: the arrays stay referenced beside it.
        arrays = self.derived("_param_arrays", dict(
            row=row, col=dg.col_indices, in_row=in_row, in_col=in_col, dist=dist, seen=seen, visit=visit,
            queue=queue, ctl=ctl, levels=levels, counters=counters, prof=prof, marks=marks))
        fixed = dict(
            arrays, m_in=int(graph.m), alpha_milli=round(float(k.alpha) * MILLI),
            beta_milli=round(float(k.beta) * MILLI), n=n, bottom_up=1 if k.bottom_up else 0,
            thread_edges=int(k.thread_edges), warp_edges=int(k.warp_edges), hub_edges=int(k.hub_edges),
            counter_cap=cap if stats else 0,
            prof_cap=cap + 2 if prof is not None else 0)
        self.derived("_params", {p: kernel_struct(PARAMS, parent=parent if p else None, **fixed)
                                 for p in (False, True) if parent is not None or not p})

    def traverse_batch(self, sources: list[int], predecessors: bool = False) -> list[Answer]:
        n, k = self.graph.n, len(sources)
        if not 1 <= k <= self.batch_size():
            raise ValueError(f"a batch holds 1 to {self.batch_size()} sources, got {k}")
        for s in sources:
            if not 0 <= int(s) < n:
                raise ValueError(f"source {s} out of range [0, {n})")
        if predecessors and self._parent_rows is None:
            raise ValueError(f"{self.name} was prepared without parent rows (plan_predecessors(False)): "
                             "prepare it again for a run that asks for parents")
        if k == 1:
            args = (self._params[predecessors], None, i32(1), i32(int(sources[0])))
        else:
            self._sources_host[:k] = [int(s) for s in sources]
            self._sources.set(self._sources_host)
            args = (self._params[predecessors], self._sources, i32(k), i32(-1))
        self._kernels[predecessors]((self._grid,), (int(self.knobs.cta_size),), args)
        levels, bu_levels, hub_levels = self._pass_views
        series = PassSeries(self._series_views, levels) if self._series_views else None
        return [MsbfsAnswer(self._rows[i], self._parent_rows[i] if predecessors else None,
                            {"levels": self._level_views[i], "bottom_up_levels": bu_levels, "pass_levels": levels,
                             "hub_levels": hub_levels, "batch": k}, series=series)
                for i in range(k)]

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        return self.traverse_batch([source], predecessors)[0]
