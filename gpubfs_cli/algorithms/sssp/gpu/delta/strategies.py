"""Delta-stepping SSSP on the GPU: ``sssp.delta`` (Meyer and Sanders, "Delta-stepping: a
parallelizable shortest path algorithm", J. Algorithms 49, 2003) and ``sssp.near_far``
(Davidson, Baxter, Garland, Owens, "Work-Efficient Parallel GPU Methods for Single-Source
Shortest Paths", IPDPS 2014: the near-far pile). Not one of the five papers: the family
is gpubfs's own (paper key ``beyond``).

Buckets. Bucket i holds the vertices whose tentative distance lies in [i*delta,
(i+1)*delta). Only the current bucket is a queue of its own (the frontier); every vertex
with a larger finite distance sits in the far pile, one unsorted list. When the current
bucket is done, a min-reduction over the far pile's live distances gives the next
non-empty bucket (lo = min // delta * delta: empty buckets cost nothing, which is what
makes delta = 1 on weights of 2^58 finish), and a compaction moves that bucket's
vertices to the frontier and the rest to a second far pile (the two alternate). Far
entries whose distance has dropped below the bucket are settled and dropped there.

A bucket (delta-stepping): light rounds relax the frontier's light edges (weight <=
delta) until no distance inside the bucket changes (a vertex re-enters the frontier
whenever its distance drops: Bellman-Ford inside the bucket); then one heavy round
relaxes the heavy edges (weight > delta) of every vertex the bucket settled, once, with
its final distance: their new distances all lie beyond the bucket. near-far is the same
kernel with no edge heavy: the frontier relaxes whole lists and the bucket [lo, lo +
delta) is Davidson's near pile, its upper end the threshold that advances by delta when
the near pile empties (to the far pile's smallest distance's bucket when the next one
would be empty).

Relaxation: atomicMin on the 64-bit distance (unsigned; unreached is all ones, -1 in
the returned int64 array). The thread whose atomicMin lowered the value pushes the
vertex, to the next round's frontier (new distance inside the bucket) or to the far
pile. Pushes are deduplicated, not filtered on pop: a per-vertex stamp per round
(frontier) and per bucket (far pile) lets one push through with one atomicMin on the
stamp, so a frontier or a far pile holds each vertex at most once and is bounded by n
(no overflow check, no condensing pass); filtering on pop would let a pile grow with
every lowering of a vertex (up to its in-degree per bucket). The heavy round's list of
settled vertices is deduplicated the same way (a per-vertex bucket stamp).

The loop is one persistent cooperative kernel (the launch sized by the occupancy API:
``blocks_per_sm`` CTAs per SM, at most as many as fit, as do.bfs): CTAs meet at a grid
barrier after each round and read the same control words, so a bucket costs a grid
barrier per light round plus three (heavy round, min-reduction, compaction; near-far
two) and no host round trip; nothing is read back during a traversal.
Queue sizes rotate through three control words, so each is cleared between its last
read and its next append with a barrier on either side.

Load balancing is expand.cuh's (Merrill et al.'s CTA, warp and scan gathering, as in
do.bfs). A round of fewer vertices than the grid has threads is spread over every CTA,
a warp's worth of vertices or more each, not a CTA's (a road network's round of a few
thousand vertices was a handful of CTAs' while the rest waited at the barrier). The
kernel gathers ``pcol``, the neighbours in the order of ``perm``, an int32 array of
edge ids in which each vertex's light edges come first (built in prepare by
delta_partition, one warp per vertex; split[v] marks where its heavy edges start), and
its sinks take each neighbour's offset (expand.cuh's kOffsets) to read the weight
beside it in ``pw``: no edge-id hop between the list and the neighbour. near-far's perm
is the identity (every edge light), so its pcol and pw are the graph's own arrays;
delta-stepping's are copies (8 or 12 bytes an edge). perm itself is prepare's alone (4
bytes an edge while it orders them), not kept.

Small-frontier mode (``small_frontier``, on by default): while a light round's frontier
and its light edges number at most the thresholds, CTA 0 runs the bucket's light rounds
alone from shared-memory queues with block barriers, and the other CTAs park until it
hands a round back (gpu/include/small_frontier.cuh, as do.bfs). On road networks most
rounds relax a few hundred edges, so their cost is the chain of dependent memory
accesses plus the grid barrier: the leader's round drops the barrier. It relaxes with
one SM, though, so past a few hundred vertices the grid's spread round is the cheaper:
the defaults (256 vertices, 1,024 light edges) are the best of a sweep on road, lattice
and R-MAT graphs (docs/performance.md, "Spread rounds").

Hub pass (``hub_edges``): a grid round leaves each list of hub_edges or more edges (the
first DELTA_HUB_CAP of them) to a pass after its barrier, which spreads their edges over
every warp of the grid (gpu/include/spread.cuh, do.bfs's hub pass): the tiles give a
list to one CTA however long it is, so on a power-law graph a hub of 10^5 edges held
the whole grid at the round's barrier while one CTA walked it. A round with such lists
costs one more grid barrier; graphs without them (road networks, lattices) never pay it.

Parents (predecessors=True), after the distances, inside the same kernel: round 0 gives
every reached vertex with a tight in-edge of positive weight (dist[u] + w == dist[v],
w > 0) that edge's source as parent; rounds 1, 2, ... are a BFS over tight zero-weight
edges from the vertices anchored in the round before (the source is anchored in round
0), each vertex anchored once (atomicCAS). Along every parent link (distance, round)
falls strictly: a positive edge's source is strictly closer, a zero-weight edge's source
is as close and was anchored in an earlier round. So the links cannot cycle, even over
zero-weight cycles, and every reached vertex is anchored (the last positive edge of a
shortest path, or the source, starts a chain of tight zero-weight edges to it). Writing
the parent at the relaxation instead would need the distance and the parent in one
atomic word, which 64-bit distances leave no room for.

The default delta (``delta = 0``): max(1, round(32 * mean weight / mean out-degree *
f)), f = depth / 64 from 1 to 16, depth the mean BFS depth of the probe (the host's BFS
from 10 random sources, algorithms/bfs/probe.py, as auto.bfs measures it; in prepare).
A bucket then spans about 32 / d mean-weight hops: on power-law graphs (d of 16 to 64)
about a mean weight, where a wider bucket mostly buys re-relaxations because each vertex
already reaches many neighbours. A deep graph (road networks, lattices: thousands of
levels) pays a round's fixed cost per level of each bucket, so its buckets widen up to 16
times (about 100-200 mean weights): fewer, fuller rounds for a few more relaxations. The
sweep behind f (H200, 2026-11-30): docs/performance.md, "The bucket width".

Knobs:

- ``delta``: the bucket width, >= 1; 0 = the default rule above. A delta above every
  distance (2^62) makes one bucket: Bellman-Ford with a worklist.
- ``delta_scale``: instead of ``delta``, the width as that many times the mean edge
  weight (rounded, at least 1); the counters' ``delta`` says the width used.
- ``depth_widen``: the default rule's widening by depth (True); False gives 32 x mean
  weight / mean out-degree alone, the rule before it, and skips the probe.
- ``cta_size``: threads per CTA, 128, 256, 384 or 512 (compiled per size; at 1024 the
  64-register cap spills).
- ``blocks_per_sm``: CTAs per SM of the persistent grid (0 = as many as fit).
- ``small_frontier``: the most vertices of a light round the leader runs alone; 0 turns
  the mode off. At most DELTA_SMALL_CAP (its shared-memory queues).
- ``hub_edges``: the shortest list a grid round leaves to its hub pass (0: no hub pass;
  a graph without a list that long runs without it too: hub_threshold).
- ``small_edges``: the most light edges of a round the leader runs alone (near-far
  issues 4 edges a thread at once, so up to 4 x the CTA size they cost one round's
  latency; delta-stepping 1, within its registers).
- ``direct_below`` (sssp.near_far only): a round the grid runs with fewer vertices than
  this takes its atomics (the distance's atomicMin, the stamp's claim) straight away,
  without reading the word first (0: every round reads first; 32,768 by default, which led
  or tied off on every graph of studies/sssp-direct.yaml). The read spares a large
  round the atomics of relaxations that lower nothing; in a round of a few hundred vertices
  it is one more L2 round trip in the chain every round waits for. (sssp.delta's kernel
  has no registers to spare for the second form of its rounds.)
- ``profile``: the profile build (DELTA_PROFILE): thread 0 of the leader splits its rounds
  into phases on its SM's clock, the counters ``prof_gather_cycles`` (the round's lists
  found, their neighbours, weights and sources' distances loaded), ``prof_relax_cycles``
  (the distances' atomicMin), ``prof_claim_cycles`` (the pushed vertices' lists read, the
  far pile's claims; the near ones take none), ``prof_push_cycles`` (the next round's and
  the far pile's places) and ``prof_sync_cycles`` (the round's block barrier: the slowest
  warp), summed over the leader's rounds; their sum against ``ns_small`` shows the
  take-overs' and hand-backs' share. For profiles only: the clock reads wait for each phase's answers.
- ``leader_async``: the asynchronous leader (DELTA_ASYNC, a build of its own): instead of
  rounds with a block barrier each, the leader's warps take up to 32 vertices at a time
  from one shared pool, relax their light edges from the distances they find, and put
  each vertex they lower inside the bucket back into the pool; the bucket's light work
  ends when every pushed vertex is taken and done. A hop then waits for its own loads and
  atomicMin only. It hands the rest to the grid (as a round, each vertex once) once the
  pool holds more than ``small_frontier`` vertices or a warp takes more than
  ``small_edges`` / (warps of a CTA) light edges at once. A take-over counts as one light
  round (``small_rounds``); the counter ``async_batches`` sums the batches the warps took.
  Not with ``profile``.

Counters: ``buckets`` (buckets processed), ``light_rounds`` (near-far: near rounds; with
``small_rounds`` of them run by the leader alone, over ``small_entries`` take-overs),
``far_scanned`` (far-pile entries read by the bucket changes), ``ns_search`` (the
distances' time on CTA 0's clock, nanoseconds) with ``ns_small`` of it in the leader's
rounds and ``ns_grid_rounds`` in the grid's light rounds (the rest: heavy rounds and
bucket changes),
``heavy_rounds`` (buckets that relaxed heavy edges; 0 for near-far), ``hub_rounds`` (grid
rounds that ran a hub pass) and ``hub_lists`` (the lists they spread), ``relaxations``
(edges relaxed, light and heavy), ``delta`` (the width used), ``probe_depth`` (the
probe's mean depth, where the default rule measured it); with predecessors,
``parent_rounds``.

Limits: vertex ids and edge offsets are 32-bit (2^31 edges or more: unavailable).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from gpubfs_cli.algorithms.sssp.inputs import bucket_width
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import (
    check_delta_scale,
    check_edge_count,
    check_flags,
    check_launch,
    check_small_frontier,
    knob,
    whole,
)
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import (
    POINTER,
    i32,
    i64,
    kernel_struct,
    param_struct,
    persistent_grid,
    require_int32_ids,
)
from gpubfs_cli.gpu.modules import header_constants, instantiation, load_module
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("delta.cu")
C = header_constants(Path(__file__).with_name("delta.cuh"))
CTA_SIZES = (128, 256, 384, 512)
MAX_DELTA = 2**62  # with distances below 2^63, a bucket's end stays below 2^64 - 1
LIGHT_ALL = np.iinfo(np.int64).max  # near-far: every weight counts as light
PARTITION_BLOCK = 256
COUNTERS = {"buckets": C["CTL_BUCKETS"], "light_rounds": C["CTL_LIGHT_ROUNDS"],
            "heavy_rounds": C["CTL_HEAVY_ROUNDS"], "relaxations": C["CTL_RELAXATIONS"],
            "small_rounds": C["CTL_SMALL_ROUNDS"], "small_entries": C["CTL_SMALL_ENTRIES"],
            "far_scanned": C["CTL_FAR_SCANNED"], "ns_search": C["CTL_NS_SEARCH"], "ns_small": C["CTL_NS_SMALL"],
            "ns_grid_rounds": C["CTL_NS_GRID"], "hub_rounds": C["CTL_HUB_ROUNDS"],
            "hub_lists": C["CTL_HUB_LISTS"]}
SMALL_CAP = C["DELTA_SMALL_CAP"]  # the largest small_frontier threshold
SMALL_EDGES_MAX = C["DELTA_SMALL_EDGES_MAX"]
HUB_CAP = C["DELTA_HUB_CAP"]  # the lists one hub pass spreads at most


# The profile build's words (knob `profile`): the leader's rounds by phase, in cycles
PROFILE_COUNTERS = {"prof_gather_cycles": C["CTL_PROF_GATHER"], "prof_relax_cycles": C["CTL_PROF_RELAX"],
                    "prof_claim_cycles": C["CTL_PROF_CLAIM"], "prof_push_cycles": C["CTL_PROF_PUSH"],
                    "prof_sync_cycles": C["CTL_PROF_SYNC"]}


def kernel_defines(cta_size: int, weight64: bool, profile: bool = False, leader_async: bool = False) -> dict[str, int]:
    return {"DELTA_BLOCK": cta_size, "DELTA_WEIGHT64": int(weight64), **({"DELTA_PROFILE": 1} if profile else {}),
            **({"DELTA_ASYNC": 1} if leader_async else {})}


# the timed builds, the profile builds and the asynchronous leader's, at every CTA size and weight width
KERNEL_DEFINES = [kernel_defines(c, w, p, a) for p, a in ((False, False), (True, False), (False, True))
                  for c in CTA_SIZES for w in (False, True)]


def kernel_name(heavy: bool, predecessors: bool) -> str:
    return instantiation("delta_sssp", heavy, predecessors)


KERNEL_NAMES = tuple(kernel_name(h, p) for h in (True, False) for p in (False, True))

# delta.cuh's DeltaParams: every argument of delta_sssp but the read-only graph arrays
# before it (the header says why) and the source after it, in its order
# (test_delta_emulated.py compares the layout with the compiled one).
PARAMS = param_struct(
    ("dist", POINTER), ("lstamp", POINTER), ("fstamp", POINTER), ("rstamp", POINTER), ("q0", POINTER),
    ("q1", POINTER), ("settled", POINTER), ("far0", POINTER), ("far1", POINTER), ("ctl", POINTER),
    ("parent", POINTER), ("anchor", POINTER), ("hubs", POINTER), ("delta", "i8"), ("n", "i4"),
    ("small_frontier", "i4"), ("small_edges", "i4"), ("hub_edges", "i4"), ("direct_below", "i4"),
)


DEPTH_UNIT = 64  # the default rule widens the bucket by depth / DEPTH_UNIT ...
DEPTH_CAP = 16  # ... at most this many times (docs/performance.md, "The bucket width")
RULE = "delta 0 = 32 x mean weight / mean out-degree, x depth / 64 (1 to 16) (a rule of this project, not the paper's)"


def depth_factor(depth: float | None) -> float:
    """How many times the default bucket widens on a graph of BFS depth `depth` (None:
    not probed): depth / DEPTH_UNIT, from 1 to DEPTH_CAP."""
    return 1.0 if depth is None else min(max(depth / DEPTH_UNIT, 1.0), float(DEPTH_CAP))


def default_delta(graph: CSRGraph, scale: float | None = None, depth: float | None = None) -> int:
    """32 x the mean weight / the mean out-degree, widened on deep graphs by
    depth_factor(depth) (see the module text), or `scale` x the mean weight; at least 1,
    at most MAX_DELTA."""
    if graph.m == 0 or graph.n == 0:
        return 1
    if scale is None:
        scale = 32 / (graph.m / graph.n) * depth_factor(depth)
    return bucket_width(graph.weights, scale, MAX_DELTA)


def hub_threshold(graph: CSRGraph, hub_edges: int) -> int:
    """The hub pass's threshold the kernel gets: hub_edges, or 0 (no pass) where no list
    of the graph is that long. A round then skips reading its hub count after its barrier,
    which costs a road graph's thousands of rounds about 3% (docs/performance.md, "Hubs")."""
    if hub_edges <= 0 or graph.n == 0 or int(graph.out_degrees().max()) < hub_edges:
        return 0
    return hub_edges


def knob_delta(graph: CSRGraph, k) -> tuple[int, float | None]:
    """The bucket width the knobs give on `graph`, and the probe's depth where the
    default rule asked for it (delta 0, no delta_scale, depth_widen)."""
    if k.delta:
        return int(k.delta), None
    depth = None
    if k.delta_scale is None and k.depth_widen:
        from gpubfs_cli.algorithms.bfs.probe import probe_depth

        depth = probe_depth(graph)
    return default_delta(graph, k.delta_scale, depth), depth


@dataclass(frozen=True)
class DeltaKnobs:
    delta: int = knob(0, 0, MAX_DELTA, means="0: the default rule")
    # the bucket width over the mean edge weight, instead of delta: one sweep fits graphs
    # whose weights differ by orders of magnitude
    delta_scale: float | None = knob(None, 0, above=True, whole=False)
    depth_widen: bool = True  # the default rule's widening on deep graphs (False: 32 x w / d alone)
    cta_size: int = knob(256, among=CTA_SIZES)
    blocks_per_sm: int = knob(0, 0, means="0: as many as fit")
    small_frontier: int = knob(256, 0, SMALL_CAP, means="0: off")
    small_edges: int = knob(1024, 1, SMALL_EDGES_MAX)
    hub_edges: int = knob(2048, 0, 2**31 - 1, means="0: no hub pass")
    profile: bool = False  # the leader's rounds by phase (a build of its own: counters prof_*_cycles)
    leader_async: bool = False  # the leader without rounds (a build of its own; see the module text)

    def __post_init__(self) -> None:
        if not whole(self.delta) or not 0 <= self.delta <= MAX_DELTA:
            raise ValueError(f"delta must be a whole number in [1, 2^62], or 0 for the default rule, not {self.delta!r}")
        check_delta_scale(bool(self.delta), self.delta_scale)
        check_flags(self, ("depth_widen", "profile", "leader_async"))
        if self.profile and self.leader_async:
            raise ValueError("profile times the leader's rounds, and leader_async has none: set one of them")
        check_launch(self.cta_size, CTA_SIZES, self.blocks_per_sm)
        check_small_frontier(self.small_frontier, SMALL_CAP)
        if not whole(self.small_edges) or not 1 <= self.small_edges <= SMALL_EDGES_MAX:
            raise ValueError(f"small_edges must be a whole number between 1 and {SMALL_EDGES_MAX}, "
                             f"not {self.small_edges!r}")
        check_edge_count("hub_edges", self.hub_edges, "no hub pass")


@dataclass(frozen=True)
class NearFarKnobs(DeltaKnobs):
    # a grid round of fewer vertices takes its atomics without a look first (0: never);
    # 32,768 led or tied off on every graph of studies/sssp-direct.yaml (H200)
    direct_below: int = knob(32768, 0, 2**31 - 1, means="0: never")

    def __post_init__(self) -> None:
        super().__post_init__()
        check_edge_count("direct_below", self.direct_below, "never")


@register
class DeltaStepping(GpuStrategy):
    name = "sssp.delta"
    problem = "sssp"
    paper = "beyond"
    section = "beyond the papers: delta-stepping (Meyer and Sanders, J. Algorithms 2003), one persistent kernel"
    summary = "buckets of width delta on the device: light rounds until the bucket settles, then its heavy edges once"
    caveats = (
        "not one of the five papers: gpubfs's own delta-stepping",
        RULE,
        "the neighbours and weights in the light/heavy order cost 8 or 12 bytes per edge (near-far reads the "
        "graph's own), and prepare 4 more while it orders them",
    )
    Knobs: ClassVar[type] = DeltaKnobs
    heavy: ClassVar[bool] = True  # False: near-far (every edge light, no heavy round)

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cupy()
        dg = self.dgraph
        if dg.row_offsets32 is None:
            raise StrategyUnavailable(f"{self.name}: 32-bit edge offsets only (graphs below 2^31 edges)")
        k = self.knobs
        n, m = graph.n, graph.m
        w = dg.weights
        if np.dtype(w.dtype) not in (np.dtype(np.int32), np.dtype(np.int64)):
            w = self.keep("_weights64", w.astype(cp.int64))
        weight64 = np.dtype(w.dtype) == np.dtype(np.int64)
        delta, depth = knob_delta(graph, k)
        self.derived("delta", delta)
        self.derived("_rule_counters", {"delta": delta, **({"probe_depth": depth} if depth is not None else {})})
        cta = int(k.cta_size)
        module = load_module(KERNELS, defines=kernel_defines(cta, weight64, k.profile, k.leader_async), cooperative=True,
                             name_expressions=KERNEL_NAMES, device=self.device)
        self._kernels = {p: module.get_function(kernel_name(self.heavy, p)) for p in (False, True)}
        self._grid = persistent_grid(self.name, self._kernels.values(), cta, k.blocks_per_sm, self.device)

        row = dg.row_offsets32
        # edge ids, light ones first: read here only, to order pcol and pw (so not kept)
        perm = cp.empty(max(m, 1), dtype=cp.int32)
        split = self.buffer("_split", max(n, 1), cp.int32)
        if n:  # light edges first in each list (near-far: all of them, in CSR order)
            # The module is cooperative, so this grid-stride kernel's grid is what fits at once.
            partition = module.get_function("delta_partition")
            fit = persistent_grid(self.name, (partition,), PARTITION_BLOCK, device=self.device)
            blocks = min(-(-n * 32 // PARTITION_BLOCK), fit)
            light = self.delta if self.heavy else LIGHT_ALL
            partition((blocks,), (PARTITION_BLOCK,), (i32(n), row, w, i64(light), perm, split))
        if self.heavy:  # the kernel reads neighbours and weights in perm's order
            pcol = self.keep("_pcol", cp.take(dg.col_indices, perm[:m]) if m else perm)
            pw = self.keep("_pw", cp.take(w, perm[:m]) if m else w)
        else:  # near-far's perm is the identity
            pcol, pw = dg.col_indices, w
        size = max(n, 1)
        dist = self.buffer("_dist", size, cp.int64)
        lstamp = self.buffer("_lstamp", size, cp.int64)
        fstamp = self.buffer("_fstamp", size, cp.int64)
        rstamp = self.buffer("_rstamp", size, cp.int32) if self.heavy else self.keep("_rstamp", None)
        settled = self.buffer("_settled", size, cp.int32) if self.heavy else self.keep("_settled", None)
        # the leader's rounds push a vertex lowered twice twice: at most small_edges more
        queues = [self.buffer(f"_q{i}", size + min(m, int(k.small_edges)), cp.int32) for i in (0, 1)]
        fars = [self.buffer(f"_far{i}", size, cp.int32) for i in (0, 1)]
        ctl = self.buffer("_ctl", C["CTL_WORDS"], cp.int64, fill=0)
        hubs = self.buffer("_hubs", HUB_CAP, cp.int32)
        self.derived("hub_edges", hub_threshold(graph, int(k.hub_edges)))
        parent = self.buffer("_parent", size, cp.int32)
        anchor = self.buffer("_anchor", size, cp.int32)
        # Each kind of traversal's arguments but the source, made once: the read-only
        # graph arrays and the parameter struct, which holds addresses only (the arrays
        # stay on the strategy).
        fixed = dict(dist=dist, lstamp=lstamp, fstamp=fstamp, rstamp=rstamp, q0=queues[0], q1=queues[1],
                     settled=settled, far0=fars[0], far1=fars[1], ctl=ctl, hubs=hubs, delta=self.delta, n=n,
                     small_frontier=int(k.small_frontier), small_edges=int(k.small_edges),
                     hub_edges=self.hub_edges, direct_below=int(getattr(k, "direct_below", 0)))
        self.derived("_params", {p: (row, split, pcol, pw,
                                     kernel_struct(PARAMS, parent=parent if p else None,
                                                   anchor=anchor if p else None, **fixed))
                                 for p in (False, True)})
        # 0-d views of the control words, made once (ctl[k] would be a copy under numpy)
        words = {**COUNTERS, **(PROFILE_COUNTERS if k.profile else {}),
                 **({"async_batches": C["CTL_ASYNC_BATCHES"]} if k.leader_async else {})}
        views = {key: ctl[word, ...] for key, word in words.items()}
        self.derived("_views", (views, {**views, "parent_rounds": ctl[C["CTL_PARENT_ROUNDS"], ...]}))
        self.derived("_dist_n", dist[:n])
        self.derived("_parent_n", parent[:n])

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        if not 0 <= source < n:
            raise ValueError(f"source {source} out of range [0, {n})")
        self._kernels[predecessors]((self._grid,), (int(self.knobs.cta_size),),
                                    (*self._params[predecessors], i32(source)))
        counters = {**self._views[predecessors], **self._rule_counters}
        return Answer(self._dist_n, self._parent_n if predecessors else None, counters)


@register
class NearFar(DeltaStepping):
    name = "sssp.near_far"
    section = "beyond the papers: near-far (Davidson, Baxter, Garland, Owens, IPDPS'14), one persistent kernel"
    summary = "near pile below a threshold that advances by delta, far pile above; whole lists relaxed per round"
    caveats = (
        "not one of the five papers: gpubfs's own near-far, sssp.delta's kernel with every edge light",
        RULE,
    )
    Knobs: ClassVar[type] = NearFarKnobs
    heavy = False
