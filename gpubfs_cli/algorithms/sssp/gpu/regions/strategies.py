"""Region-local asynchronous SSSP on the GPU: ``sssp.regions``, for graphs of thousands of
levels (road networks, meshes). Not one of the five papers: gpubfs's own (paper key
``beyond``), regions.bfs's scheme with weights.

Why. sssp.near_far pays a grid-wide barrier a round, and a road network takes thousands
of rounds of a few hundred vertices each (docs/performance.md, "SSSP"); regions.bfs runs
a road network's BFS levels inside one SM instead, 2.6-3.6x do.bfs on the H200.

Method (regions_sssp.cu):

- prepare() cuts the graph into regions of at most ``region_size`` vertices
  (graph/regions.py, regions.bfs's partition) and renumbers it, weights with it.
- One persistent cooperative kernel a traversal. A CTA takes a queued region
  (gpu/include/region_queue.cuh), copies its labels and, where they fit, its edges and
  weights into shared memory, and runs near-far there from the region's marked
  vertices: a step expands the queued vertices below a threshold and carries the rest,
  and the threshold moves to the least queued label + ``delta`` when no queued vertex is
  below it. An edge that leaves the region lowers its head's global label (atomicMin),
  marks it and queues its region. No grid barrier between regions; labels only fall, so
  a region run twice, or by two CTAs at once, repeats work and never loses it.
- A last pass writes distances in the input's numbering; with parents, rounds of the
  grid give each vertex a tight in-edge of positive weight, then tight zero-weight ones
  from vertices anchored in an earlier round (acyclic by construction).

Distances and parents are exact (validated like every strategy's).

Knobs:

- ``region_size``: the most vertices a region holds (a multiple of 32, at most
  RS_REGION_CAP = 1,024: the shared-memory room of 64-bit labels beside the weights).
- ``delta``: the threshold's step inside a run (0: sssp.delta's rule, 32 x the mean
  weight / the mean out-degree, without its widening on deep graphs).
- ``absorb`` (0 or 1): with 1, a run takes the marks that come for its region while it
  runs (gpu/region_queue.py).
- ``cta_size`` (128 to 1024), ``blocks_per_sm`` (0 = as many as fit), ``flush_steps`` (the
  outbox sent every this many steps and at a run's end), ``seed`` (the partition's).

Counters: ``runs``, ``steps``, ``pushes``, ``copied``, ``absorbed`` (region_queue.cuh's;
absorbed: the takes of marks inside a run), ``regions``, ``delta``; with parents
``parent_rounds`` (the positive-weight round included).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from gpubfs_cli.algorithms.sssp.gpu.delta.strategies import MAX_DELTA, default_delta
from gpubfs_cli.algorithms.sssp.inputs import integer_weights
from gpubfs_cli.core.knobs import knob, whole
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.launch import i32, i64, persistent_defines
from gpubfs_cli.gpu.modules import header_constants, instantiation, load_module
from gpubfs_cli.gpu.region_queue import (
    CTA_SIZES,
    INT32_MAX,
    QUEUE_COUNTERS,
    QUEUE_HEADER,
    RegionKnobs,
    RegionStrategy,
    require_regions,
    upload_regions,
)
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("regions_sssp.cu")
C = {**header_constants(QUEUE_HEADER), **header_constants(Path(__file__).with_name("regions_sssp.cuh"))}
REGION_CAP = C["RS_REGION_CAP"]
COUNTERS = {k: v for k, v in QUEUE_COUNTERS.items() if k != "deferred"}  # a queue here never overflows


def kernel_defines(cta_size: int) -> dict[str, int]:
    """The -D defines of the build for CTAs of `cta_size` threads."""
    return persistent_defines("RS", cta_size)


KERNEL_DEFINES = [kernel_defines(c) for c in CTA_SIZES]  # every build, for the compile test
KERNEL_NAMES = tuple(instantiation("regions_sssp", p) for p in (False, True))


@dataclass(frozen=True)
class RegionsSsspKnobs(RegionKnobs):
    region_size: int = knob(REGION_CAP, 32, REGION_CAP)
    delta: int = knob(0, 0, MAX_DELTA, means="0: sssp.delta's rule")

    def __post_init__(self) -> None:
        super().__post_init__()
        if not whole(self.delta):
            raise ValueError(f"delta must be a whole number, not {self.delta!r}")


def compiled_module(cta_size: int, device=None):
    return load_module(KERNELS, defines=kernel_defines(cta_size), cooperative=True, name_expressions=KERNEL_NAMES,
                       device=device)


@register
class RegionsSssp(RegionStrategy):
    name = "sssp.regions"
    problem = "sssp"
    paper = "beyond"
    section = "beyond the papers: region-local asynchronous SSSP, one persistent kernel"
    summary = "regions of the graph each run near-far in one CTA's shared memory; regions meet through a queue"
    caveats = (
        "not one of the five papers: gpubfs's own SSSP for graphs of thousands of levels",
        "prepare() partitions and renumbers the graph (untimed, as every strategy's prepare)",
        "weights up to 2^31 - 1 (a wider one makes it unavailable)",
    )
    Knobs: ClassVar[type] = RegionsSsspKnobs

    def prepare(self, graph: CSRGraph) -> None:
        require_regions(self.name, graph)
        weights = integer_weights(graph)
        if graph.m and int(weights.max()) > INT32_MAX:
            raise StrategyUnavailable(f"{self.name} takes weights up to 2^31 - 1; this graph's reach "
                                      f"{int(weights.max()):,}")
        super().prepare(graph)
        parts, up = upload_regions(self, graph, weights.astype(np.int32))
        cp = self.cupy()
        k = self.knobs
        delta = int(k.delta) or default_delta(graph)
        q = self.queue(compiled_module(int(k.cta_size), self.device), KERNEL_NAMES, parts, C["RS_CTL_WORDS"])
        label = self.buffer("_label", max(parts.n_new, 1), cp.uint64)
        anchor = self.buffer("_anchor", max(parts.n_new, 1), cp.int32)
        dist = self.buffer("_dist", graph.n, cp.int64)
        parent = self.buffer("_parent", graph.n, cp.int32)
        self.derived("_args", lambda p, src: (
            up["_row"], up["_col"], up["_w"], up["_in_row"], up["_in_col"], up["_in_w"], up["_roff"], up["_vreg"],
            up["_perm"], label, q["dirty"], q["active"], q["ring"], q["ctl"], anchor if p else None, dist,
            parent if p else None, i32(parts.n_new), i32(parts.count), i32(len(q["ring"]) - 1), i32(k.flush_steps),
            i64(delta), i32(k.absorb), i32(src)))
        views = {key: q["ctl"][word, ...] for key, word in COUNTERS.items()}
        fixed = {"regions": parts.count, "delta": delta}
        self.derived("_views", ({**views, **fixed},
                                {**views, **fixed, "parent_rounds": q["ctl"][C["RS_PARENT_ROUNDS"], ...]}))
