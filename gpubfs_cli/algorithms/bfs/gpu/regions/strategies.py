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
  around random seeds (graph/regions.py) and renumbers it region by region; on a road
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
- ``seed``: the seeds' draw (graph/regions.py).
- ``absorb`` (0 or 1): with 1, a run takes the marks that come for its region while it
  runs (gpu/region_queue.py).

Counters: ``levels`` (the largest distance + 1), ``runs`` (regions run), ``steps``
(local levels, summed over the runs), ``pushes`` (regions queued), ``deferred``
(vertices a full local queue handed back to their region), ``copied`` (runs whose
region's edges fit shared memory, RG_EDGE_CAP), ``absorbed`` (takes of marks inside a
run), ``regions`` (how many there are).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import register
from gpubfs_cli.gpu.launch import i32, persistent_defines
from gpubfs_cli.gpu.modules import header_constants, instantiation, load_module
from gpubfs_cli.gpu.region_queue import (
    CTA_SIZES,
    CTL_WORDS,
    EMPTY,
    QUEUE_COUNTERS,
    QUEUE_HEADER,
    RegionKnobs,
    RegionStrategy,
    require_regions,
    upload_regions,
)
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("regions.cu")
C = {**header_constants(QUEUE_HEADER), **header_constants(Path(__file__).with_name("regions.cuh"))}
REGION_CAP = C["RG_REGION_CAP"]
RG_EMPTY = EMPTY
COUNTERS = {"levels": C["RG_LEVELS"], **QUEUE_COUNTERS}


def kernel_defines(cta_size: int) -> dict[str, int]:
    """The -D defines of the build for CTAs of `cta_size` threads."""
    return persistent_defines("RG", cta_size)


KERNEL_DEFINES = [kernel_defines(c) for c in CTA_SIZES]  # every build, for the compile test
KERNEL_NAMES = tuple(instantiation("regions_bfs", p) for p in (False, True))


@dataclass(frozen=True)
class RegionsKnobs(RegionKnobs):
    region_size: int = knob(REGION_CAP, 32, REGION_CAP)


def compiled_module(cta_size: int, device=None):
    return load_module(KERNELS, defines=kernel_defines(cta_size), cooperative=True, name_expressions=KERNEL_NAMES,
                       device=device)


@register
class RegionsBfs(RegionStrategy):
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
        require_regions(self.name, graph)
        super().prepare(graph)
        parts, up = upload_regions(self, graph)
        cp = self.cupy()
        k = self.knobs
        q = self.queue(compiled_module(int(k.cta_size), self.device), KERNEL_NAMES, parts, CTL_WORDS)
        label = self.buffer("_label", max(parts.n_new, 1), cp.uint32)
        dist = self.buffer("_dist", graph.n, cp.int32)
        parent = self.buffer("_parent", graph.n, cp.int32)
        self.derived("_args", lambda p, src: (
            up["_row"], up["_col"], up["_in_row"], up["_in_col"], up["_roff"], up["_vreg"], up["_perm"], label,
            q["dirty"], q["active"], q["ring"], q["ctl"], dist, parent if p else None, i32(parts.n_new),
            i32(parts.count), i32(len(q["ring"]) - 1), i32(k.flush_steps), i32(k.absorb), i32(src)))
        views = {**{key: q["ctl"][w, ...] for key, w in COUNTERS.items()}, "regions": parts.count}
        self.derived("_views", (views, views))
