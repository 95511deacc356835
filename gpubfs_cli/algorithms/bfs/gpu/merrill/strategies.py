"""Merrill, Garland, Grimshaw, "Scalable GPU Graph Traversal" (PPoPP'12), sections 4-5.

Four strategies, one kernel file (merrill.cu beside this one; merrill.cuh holds the
constants both sides read and the kernel's parameter struct). The launcher picks the
kernel's instantiation: expand-contract's vertex frontier has its own; the three
edge-frontier strategies share one, which runs an iteration as contract-expand while the
edge frontier is at most the switch threshold and as two-phase above (contract-expand:
always; two-phase: never; hybrid: ``switch_factor`` x the resident threads):

- ``merrill.expand_contract`` (5.1): out-of-core vertex queue; one phase per iteration
  gathers the queue's adjacency lists and culls each neighbour in-core.
- ``merrill.contract_expand`` (5.2): out-of-core edge queue; one phase culls the edge
  frontier, labels the survivors and gathers their lists into the next edge queue.
- ``merrill.two_phase`` (5.3): a contraction phase (edge queue -> vertex queue) and an
  expansion phase (vertex queue -> edge queue) per iteration.
- ``merrill.hybrid`` (5.4): contract-expand while the edge frontier is no larger than
  ``switch_factor`` x the resident threads, two-phase above.

Knobs. The defaults are the paper's best gathering and culling (scan+warp+CTA, history)
plus two adaptations that are not in the paper (claims on every list, grid-wide
gathering of long lists; see below). ``claim_threshold=0, grid_threshold=0`` is the
paper's behaviour; the Merrill run configs measure both and the paper tables label them
"(adapted)" and "(paper's knobs)".

- ``gather`` (4.1): ``serial`` (a thread walks its own list), ``warp`` (lanes vie for
  the warp, which strip-mines the winner's list), ``scan`` (a CTA prefix sum packs all
  lists into shared gather offsets), ``scan_warp_cta`` (lists >= CTA size by the CTA,
  >= 32 by a warp, the rest by scan).
- ``culling`` (4.2), cumulative: ``bitmask`` (visited bitmask lookup), ``label`` (+ the
  distance label when the bit is clear), ``warp`` (+ warp-level duplicate culling),
  ``history`` (+ a per-CTA table of recently seen ids). ``atomic`` (not in the paper)
  adds an exact atomic test-and-set: no duplicates at all.
- ``grid_threshold``: with ``scan_warp_cta``, adjacency lists at least this long are
  deferred to a per-iteration list that the whole grid reads straight from the
  column indices in the next phase (0 turns this off).
- ``claim_threshold``: in contract-expand and expand-contract, a vertex whose list has
  at least this many neighbours is expanded only by the first of its duplicates to
  claim it (one atomicOr on a second bitmask); the two-phase expansion claims every
  list. 0 turns claiming off everywhere (the paper's behaviour). Default 1: every list
  is claimed, so short lattice lists cannot escape the claims and compound duplicates.
- ``blocks_per_sm``: CTAs per SM of the persistent grid (0 = as many as fit).
- ``cta_size``: threads per CTA (128 to 1024; compiled per size, registers capped so
  that 1024 threads fit an SM). Fewer, larger CTAs make each grid barrier cheaper.
- ``switch_factor`` (hybrid only): the switch point, in resident threads.
- ``profile``: thread 0 stamps %globaltimer at every phase boundary; the first
  sample's counters["profile"] then holds PROF_WORDS words per iteration (start ns,
  mid-iteration ns, frontier size, phase kind; see merrill.cuh). Off for timings.
- ``counters``: the per-level counters below (Fig. 7 and 8's measures). Off, they are
  compiled out of the kernel (no reductions, barriers or atomics for them) and only the
  logical frontiers, levels and iterations are reported; ``profile`` turns them on.
- ``small_frontier`` (not in the paper; 0 = off, the paper configs keep it off): while
  a frontier has at most this many items (vertex queue for expand-contract, edge queue
  for the others; at most MERRILL_SMALL_CAP), CTA 0 alone iterates levels with block
  barriers and shared-memory queues while the other CTAs park on a flag
  (gpu/include/small_frontier.cuh), with exact culling. A frontier over the threshold
  is handed back to the grid (expand-contract: as its vertex queue; the others: as a
  vertex queue the grid expands, as two-phase's second phase does). For
  high-diameter graphs, where the grid barrier is the whole cost of a level.

How it adapts the paper (C2050 -> today's GPUs):

- Persistent cooperative kernel: a whole BFS is one launch; CTAs loop over tiles and
  meet at grid barriers between phases, and queue lengths stay on the device in three
  rotating counter slots. The paper launched a kernel and read the queue length back
  each iteration, which today costs more than a high-diameter graph's work.
- Warp gathering elects its leader with ``__ballot_sync``/``__ffs`` and broadcasts with
  shuffles instead of racing writes to a shared word; warp culling is one
  ``__match_any_sync`` (exact within the warp) instead of a shared hash.
- The bitmask lives in L2: lookups read it with ``ld.global.cg`` (never a stale L1
  line) and bits are set with a fire-and-forget ``atomicOr``, so no bit is ever lost and
  a vertex seen at an earlier level is never relabelled (the paper's non-atomic byte
  writes could lose bits, which its label check repaired). Lookups still race with
  discoveries of the same level: those duplicates are what label, warp and history
  culling remove, and what the counters measure.
- History tables are 4096 entries per CTA.
- Huge lists (``grid_threshold``): one CTA strip-mining a hub's list would hold up the
  whole grid for the level.
- Claims (``claim_threshold``): with many more threads in flight than on the C2050, a hub
  in a small edge frontier is discovered by many CTAs at once whatever the culling, and
  each copy would re-expand its whole list. One L2 atomic per long list stops that;
  duplicates are still labelled and counted (``vertices_enqueued``), only their
  expansion is skipped. The two-phase expansion claims every list (one atomic per
  vertex-queue entry): without it duplicates compound level after level on lattices.
- No fixed cost per traversal: every buffer and the kernel's parameter struct are made
  in prepare (the launch passes the CSR arrays, the struct, the source and the culling);
  the control words come back into page-locked memory after the timer, with the counters
  (to_host).
  The parent queues are the exception: allocated on the first predecessor BFS, as only
  predecessor runs need them (m words each).
- Control words (queue lengths) are read once per CTA after each grid barrier and
  shared through shared memory, not by every warp.
- Lookups batch their global loads (bitmask words, then labels, for several items per
  thread in the contraction phase) so that they are in flight together; warp and
  history culling run after the lookup and only on ids that look unvisited.
- Queue reservations: one atomicAdd per tile (per warp round in expand-contract),
  offsets within the tile from block or warp prefix sums, as in the paper.
- A queue that would overflow (possible with heavy duplication, as the paper saw on
  kron_g500-logn20 without culling) sets a flag; the kernel then reruns the traversal
  with ``atomic`` culling, whose queues are bounded by n and m (``exact_rerun``
  counter), in the same launch: traverse() reads nothing back.

Counters (per BFS level d, device-side; computed after timing in ``to_host``):
``frontier_vertices``/``frontier_edges`` (logical: unique vertices at distance d and
the sum of their out-degrees, Fig. 3), ``vertices_enqueued`` (actual: labelled at d,
duplicates included), ``vertices_expanded``, ``edges_expanded`` (actual neighbours
gathered from level d), ``duplicates`` (actual - logical), ``redundant_expansion``
(edges gathered / edges logically traversed, Fig. 7), ``false_negatives`` (total
duplicates; Fig. 8 divides by m - n), ``levels``, ``iterations`` and
``kernel_launches``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.device import Device
from gpubfs_cli.core.knobs import check_small_frontier, knob
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import (
    INT32_MAX,
    POINTER,
    i32,
    kernel_struct,
    param_struct,
    persistent_grid,
    require_int32_ids,
)
from gpubfs_cli.gpu.modules import header_constants, instantiation, load_module
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("merrill.cu")
C = header_constants(Path(__file__).with_name("merrill.cuh"))  # defined once, in the header
BLOCK = C["MERRILL_BLOCK"]  # default CTA size
CTA_SIZES = (128, 256, 512, 1024)

GATHER = {"serial": C["GATHER_SERIAL"], "warp": C["GATHER_WARP"], "scan": C["GATHER_SCAN"],
          "scan_warp_cta": C["GATHER_SCAN_WARP_CTA"]}
CULLING = {"bitmask": C["CULL_BITMASK"], "label": C["CULL_LABEL"], "warp": C["CULL_WARP"],
           "history": C["CULL_HISTORY"], "atomic": C["CULL_ATOMIC"]}
STRATEGY = {"expand_contract": C["STRAT_EXPAND_CONTRACT"], "contract_expand": C["STRAT_CONTRACT_EXPAND"],
            "two_phase": C["STRAT_TWO_PHASE"], "hybrid": C["STRAT_HYBRID"]}

CTL_OVERFLOW, CTL_ITERS, CTL_RERUNS, CTL_WORDS = C["CTL_OVERFLOW"], C["CTL_ITERS"], C["CTL_RERUNS"], C["CTL_WORDS"]
SMALL_CAP = C["MERRILL_SMALL_CAP"]  # the largest small_frontier threshold
CNT_ENQUEUED, CNT_EXPANDED, CNT_EDGES, CNT_KINDS = (
    C["CNT_ENQUEUED"], C["CNT_EXPANDED"], C["CNT_EDGES"], C["CNT_KINDS"])
PROF_WORDS = C["PROF_WORDS"]  # per iteration: start ns, mid-iteration ns, frontier size, phase kind
MAX_COUNTER_LEVELS = 1 << 20
BIG_COUNT_LIMIT = C["BIG_COUNT_LIMIT"]  # huge-list entries the packed counter holds
EDGE_LIMIT = 2**31 - 2**27  # edge offsets are 32-bit; the margin keeps the exact rerun's queue under INT32_MAX


def kernel_defines(cta_size: int) -> dict[str, int]:
    """The -D defines of the build for CTAs of `cta_size` threads (registers capped so
    that 1024 threads fit an SM)."""
    return {"MERRILL_BLOCK": cta_size, "MERRILL_MIN_BLOCKS": max(1, 1024 // cta_size)}


KERNEL_DEFINES = [kernel_defines(c) for c in CTA_SIZES]  # every build, for the compile test


def compiled_module(cta_size: int, device: Device | None = None):
    """merrill.cu compiled for CTAs of `cta_size` threads."""
    return load_module(KERNELS, defines=kernel_defines(cta_size), cooperative=True,
                       name_expressions=kernel_names(), device=device)


def kernel_name(code: int, gather: int, predecessors: bool, counters: bool, small: bool) -> str:
    """The kernel of strategy `code` (STRATEGY's): expand-contract's vertex frontier is
    an instantiation of its own; the edge-frontier strategies share one, told apart by
    their switch threshold (switch_threshold)."""
    return instantiation("merrill_bfs", code == STRATEGY["expand_contract"], str(gather), predecessors,
                         counters, small)


def kernel_names() -> tuple[str, ...]:
    tf = (False, True)
    return tuple(dict.fromkeys(kernel_name(x, g, p, c, s) for x in STRATEGY.values() for s in tf for c in tf
                               for p in tf for g in range(4)))


ALWAYS = 2**62  # above any edge frontier (at most 2 x INT32_MAX items)


def switch_threshold(code: int, resident_threads: int, switch_factor: float = 1.0) -> int:
    """The largest edge frontier an iteration runs as contract-expand (a larger one runs
    as two-phase): every one for contract-expand, none for two-phase, `switch_factor` x
    the resident threads for the hybrid. Expand-contract never reads it."""
    if code == STRATEGY["contract_expand"]:
        return ALWAYS
    if code == STRATEGY["hybrid"]:
        return int(float(switch_factor) * resident_threads)
    return -1


# merrill.cuh's MerrillParams: every kernel argument but the CSR arrays (kernel
# parameters of their own: the header says why), the source and the culling, in its
# order (test_merrill_emulated.py compares the layout with the compiled one).
PARAMS = param_struct(
    ("dist", POINTER), ("parent", POINTER), ("bitmask", POINTER),
    ("vq0", POINTER), ("vq1", POINTER), ("eq0", POINTER), ("eq1", POINTER), ("ep0", POINTER),
    ("ep1", POINTER), ("big0", POINTER), ("big1", POINTER), ("ctl", POINTER), ("big_ctl", POINTER),
    ("counters", POINTER), ("claimed", POINTER), ("prof", POINTER), ("switch_threshold", "i8"),
    ("n", "i4"), ("vq_cap", "i4"), ("eq_cap", "i4"), ("big_cap", "i4"), ("counter_cap", "i4"),
    ("grid_threshold", "i4"), ("claim_threshold", "i4"), ("prof_cap", "i4"), ("small_threshold", "i4"),
)


@dataclass(frozen=True)
class Caps:
    vq: int
    eq: int
    big: int
    counters: int


def buffer_caps(n: int, m: int, grid_threshold: int) -> Caps:
    """Queue capacities. With exact culling a vertex queue holds at most n entries, an
    edge queue at most m and a huge list at most min(n, m / grid_threshold) (distinct
    vertices of that degree); the slack absorbs duplicates before the overflow rerun.
    Queue positions are 32-bit, so the slack stops at INT32_MAX (n and m still fit)."""
    big = (min(n, m // grid_threshold) if grid_threshold > 0 else 0) + 1024
    return Caps(
        vq=min(n + n // 4 + 1024, INT32_MAX),
        eq=min(m + m // 8 + 1024, INT32_MAX),
        big=big,
        counters=min(n + 2, MAX_COUNTER_LEVELS),
    )


def graph_caps(graph, name: str, grid_threshold: int) -> Caps:
    """The capacities for `graph`, or StrategyUnavailable with the reason when the
    kernel's 32-bit ids, offsets or packed huge-list counter cannot hold it. Checked in
    prepare, before anything is allocated."""
    require_int32_ids(graph, name)
    if graph.m >= EDGE_LIMIT:
        raise StrategyUnavailable(f"{name} keeps edge offsets in 32 bits (m < 2^31 - 2^27)")
    caps = buffer_caps(graph.n, graph.m, grid_threshold)
    if caps.big >= BIG_COUNT_LIMIT:
        raise StrategyUnavailable(
            f"{name}: grid_threshold {grid_threshold} allows {caps.big} huge lists per level, "
            f"more than the packed counter holds ({BIG_COUNT_LIMIT}); raise grid_threshold"
        )
    return caps


@dataclass(frozen=True)
class MerrillKnobs:
    gather: str = "scan_warp_cta"
    culling: str = "history"
    grid_threshold: int = knob(4096, 0, means="0: no grid gathering")
    claim_threshold: int = knob(1, 0, means="0: no claiming")
    blocks_per_sm: int = knob(0, 0, means="0: as many as fit")
    cta_size: int = knob(BLOCK, among=CTA_SIZES)
    profile: bool = False
    counters: bool = False
    small_frontier: int = knob(0, 0, SMALL_CAP, means="0: off")

    def __post_init__(self) -> None:
        if self.gather not in GATHER:
            raise ValueError(f"gather must be one of {', '.join(GATHER)}, not {self.gather!r}")
        if self.culling not in CULLING:
            raise ValueError(f"culling must be one of {', '.join(CULLING)}, not {self.culling!r}")
        if int(self.grid_threshold) < 0:
            raise ValueError("grid_threshold must be >= 0 (0 turns grid gathering off)")
        if int(self.claim_threshold) < 0:
            raise ValueError("claim_threshold must be >= 0 (0 turns claiming off)")
        if int(self.cta_size) not in CTA_SIZES:
            raise ValueError(f"cta_size must be one of {', '.join(map(str, CTA_SIZES))}")
        if int(self.blocks_per_sm) < 0:
            raise ValueError("blocks_per_sm must be >= 0 (0 = as many as fit)")
        check_small_frontier(self.small_frontier, SMALL_CAP)


@dataclass(frozen=True)
class HybridKnobs(MerrillKnobs):
    switch_factor: float = knob(1.0, 0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not float(self.switch_factor) >= 0:
            raise ValueError("switch_factor must be >= 0")


@dataclass
class MerrillResult(Answer):
    """Answer whose logical frontier counters are computed in to_host(), after the
    runner has stopped its timer (they need the final distances)."""

    degrees: Any = None
    level_counts: Any = None  # the kernel's counter buffer (CNT_KINDS x cap), None when compiled out
    profile: Any = None  # the profile buffer, None when off

    ctl: Any = None  # the control words (device) and their pinned host copy, read here
    ctl_host: Any = None

    def to_host(self) -> Answer:
        dist = self.distances
        counters = dict(self.counters)
        ctl = self.ctl.get(out=self.ctl_host) if hasattr(self.ctl, "get") else np.asarray(self.ctl)
        if int(ctl[CTL_OVERFLOW]):
            raise RuntimeError("merrill: queues overflowed even with exact culling")
        iterations = int(ctl[CTL_ITERS])
        counters.update(iterations=iterations, exact_rerun=int(ctl[CTL_RERUNS]))
        if hasattr(dist, "get") and not isinstance(dist, np.ndarray):
            import cupy as cp

            reached = dist[dist >= 0]
            levels = int(reached.max()) + 1
            fv = cp.bincount(reached, minlength=levels).get()
            fe = cp.bincount(reached, weights=self.degrees[dist >= 0], minlength=levels).get()
            dist = dist.get()
        else:
            reached = dist[dist >= 0]
            levels = int(reached.max()) + 1
            fv = np.bincount(reached, minlength=levels)
            fe = np.bincount(reached, weights=np.asarray(self.degrees)[dist >= 0], minlength=levels)
        fe = np.rint(fe).astype(np.int64)
        counters["frontier_vertices"] = fv.astype(np.int64)
        counters["frontier_edges"] = fe
        counters["levels"] = levels
        if self.profile is not None:
            prof = _host(self.profile)
            counters["profile"] = prof[: PROF_WORDS * (min(iterations + 1, len(prof) // PROF_WORDS - 1) + 1)]
        if self.level_counts is None:
            return _answer(dist, self.parents, counters)
        raw = _host(self.level_counts).reshape(CNT_KINDS, -1)
        for key, kind in (("vertices_enqueued", CNT_ENQUEUED), ("vertices_expanded", CNT_EXPANDED),
                          ("edges_expanded", CNT_EDGES)):  # fmt: skip
            v = raw[kind, : min(levels, iterations + 1)].astype(np.int64)
            counters[key] = np.pad(v, (0, levels - len(v)))
        counters["duplicates"] = counters["vertices_enqueued"] - counters["frontier_vertices"]
        counters["false_negatives"] = int(counters["duplicates"].sum())
        logical = int(fe.sum())
        counters["redundant_expansion"] = (
            float(counters["edges_expanded"].sum()) / logical if logical else 1.0
        )
        return _answer(dist, self.parents, counters)


def _host(a) -> np.ndarray:
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _answer(dist, parents, counters) -> Answer:
    host = Answer(dist, None, counters).to_host()
    return Answer(host.distances, None if parents is None else _host(parents), host.counters)


class _Merrill(GpuStrategy):
    paper = "merrill"
    caveats = (
        "one persistent cooperative kernel per BFS with grid barriers between phases; the paper launched a kernel and read the queue length back every iteration",
        "visited bits are set with atomicOr (no lost bits); warp culling uses __match_any_sync instead of a shared hash",
        "today's defaults are adaptations: huge lists go grid-wide (grid_threshold) and long lists are claimed once (claim_threshold); claim_threshold=0, grid_threshold=0 is the paper's behaviour",
        "an overflowing queue reruns the traversal with exact atomic culling (counter exact_rerun)",
    )
    Knobs: ClassVar[type] = MerrillKnobs
    code: ClassVar[int]

    def prepare(self, graph: CSRGraph) -> None:
        k = self.knobs
        grid_threshold = int(k.grid_threshold) if k.gather == "scan_warp_cta" else 0
        caps = graph_caps(graph, self.name, grid_threshold)
        super().prepare(graph)
        cp = self.cupy()
        self._block = int(k.cta_size)
        self._gather = GATHER[k.gather]
        self._culling = CULLING[k.culling]
        self._grid_threshold = grid_threshold
        self._counting = bool(k.counters or k.profile)
        n = graph.n
        self._caps = caps
        small = int(k.small_frontier)
        module = compiled_module(self._block, self.device)
        self._kernels = {
            p: module.get_function(kernel_name(self.code, self._gather, p, self._counting, small > 0))
            for p in (False, True)
        }
        self._grid = {p: self._grid_size(kern) for p, kern in self._kernels.items()}
        one = self.buffer("_dummy", 4, cp.int32, fill=0)
        if self.code == STRATEGY["expand_contract"]:
            vq = [cp.empty(caps.vq, cp.int32) for _ in range(2)]
        elif self.code == STRATEGY["contract_expand"]:
            # No vertex queue, except where small-frontier mode hands levels back in one.
            vq = [cp.empty(small, cp.int32) if small else one, one]
        else:
            vq = [cp.empty(caps.vq, cp.int32), one]
        self.keep("_vq", vq)
        self.buffer("_bitmask", (n + 31) // 32, cp.uint32, fill=0)
        self.buffer("_claimed", (n + 31) // 32, cp.uint32, fill=0)
        edge_queues = self.code != STRATEGY["expand_contract"]
        self.keep("_eq", [cp.empty(caps.eq, cp.int32) if edge_queues else one for _ in range(2)])
        self.keep("_ep", None)  # parent queues, allocated on the first predecessor BFS
        self.keep("_big", [cp.empty(caps.big * 4, cp.int32) for _ in range(2)])
        self.buffer("_big_ctl", 3, cp.uint64, fill=0)
        self.buffer("_dist", n, cp.int32)
        self.buffer("_parent", n, cp.int32)
        self.buffer("_ctl", CTL_WORDS, cp.int32, fill=0)
        self.pinned("_ctl_host", CTL_WORDS, np.int32)
        self.buffer("_counts", CNT_KINDS * caps.counters if self._counting else 4, cp.int32, fill=0)
        self.buffer("_prof", PROF_WORDS * (caps.counters + 1) if k.profile else 4, cp.uint64, fill=0)
        self.keep("_degrees", cp.diff(self.dgraph.row_offsets32))
        self.derived("_params", {False: self._launch_params(False)})  # predecessors: on the first such BFS

    def _grid_size(self, kernel) -> int:
        return persistent_grid(self.name, (kernel,), self._block, self.knobs.blocks_per_sm, self.device)

    def _switch_threshold(self, grid: int) -> int:
        return switch_threshold(self.code, grid * self._block)

    def _launch_params(self, predecessors: bool) -> tuple:
        """The kernel's arguments but the source and the culling for one kind of BFS: the
        CSR arrays and the parameter struct. Predecessor BFSs get the parent queues (m
        words each) on their first call. The struct holds addresses only: the arrays it
        names are kept on the strategy."""
        caps, dg, n = self._caps, self.dgraph, self.graph.n
        edge_queues = self.code != STRATEGY["expand_contract"]
        if predecessors:
            cp = self.cupy()
            ep = self.keep("_ep", [cp.empty(caps.eq, cp.int32) if edge_queues else self._dummy
                                   for _ in range(2)])  # fmt: skip
        else:
            ep = [self._dummy, self._dummy]
        profile = bool(self.knobs.profile)
        return dg.row_offsets32, dg.col_indices, kernel_struct(
            PARAMS, dist=self._dist,
            parent=self._parent if predecessors else self._dummy, bitmask=self._bitmask,
            vq0=self._vq[0], vq1=self._vq[1], eq0=self._eq[0], eq1=self._eq[1], ep0=ep[0], ep1=ep[1],
            big0=self._big[0], big1=self._big[1], ctl=self._ctl, big_ctl=self._big_ctl,
            counters=self._counts, claimed=self._claimed, prof=self._prof if profile else None,
            switch_threshold=self._switch_threshold(self._grid[predecessors]), n=n, vq_cap=caps.vq,
            eq_cap=caps.eq, big_cap=caps.big, counter_cap=caps.counters,
            grid_threshold=self._grid_threshold, claim_threshold=int(self.knobs.claim_threshold),
            prof_cap=caps.counters if profile else 0, small_threshold=int(self.knobs.small_frontier),
        )  # fmt: skip

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        if not 0 <= source < n:
            raise ValueError(f"source {source} out of range [0, {n})")
        if predecessors not in self._params:
            self._params[predecessors] = self._launch_params(predecessors)
        kernel, grid = self._kernels[predecessors], self._grid[predecessors]
        # One launch, nothing read back: an overflow reruns inside the kernel, and the
        # control words are read in to_host(), after the timer.
        kernel((grid,), (self._block,), (*self._params[predecessors], i32(source), i32(self._culling)))
        return MerrillResult(
            distances=self._dist,
            parents=self._parent if predecessors else None,
            counters={"kernel_launches": 1},
            ctl=self._ctl,
            ctl_host=self._ctl_host,
            degrees=self._degrees,
            level_counts=self._counts if self._counting else None,
            profile=self._prof if self.knobs.profile else None,
        )


@register
class ExpandContract(_Merrill):
    name = "merrill.expand_contract"
    section = "Merrill et al. PPoPP'12, section 5.1 (expand-contract, out-of-core vertex queue)"
    summary = "vertex queue in, vertex queue out: gather and cull in-core, one phase per level"
    code = STRATEGY["expand_contract"]


@register
class ContractExpand(_Merrill):
    name = "merrill.contract_expand"
    section = "Merrill et al. PPoPP'12, section 5.2 (contract-expand, out-of-core edge queue)"
    summary = "edge queue in, edge queue out: cull, label, gather, one phase per level"
    code = STRATEGY["contract_expand"]


@register
class TwoPhase(_Merrill):
    name = "merrill.two_phase"
    section = "Merrill et al. PPoPP'12, section 5.3 (two-phase, vertex and edge queues)"
    summary = "separate contraction and expansion phases, two grid barriers per level"
    code = STRATEGY["two_phase"]


@register
class Hybrid(_Merrill):
    name = "merrill.hybrid"
    section = "Merrill et al. PPoPP'12, section 5.4 (hybrid of contract-expand and two-phase)"
    summary = "contract-expand for small edge frontiers, two-phase for large ones"
    code = STRATEGY["hybrid"]
    Knobs = HybridKnobs

    def _switch_threshold(self, grid: int) -> int:
        return switch_threshold(self.code, grid * self._block, self.knobs.switch_factor)
