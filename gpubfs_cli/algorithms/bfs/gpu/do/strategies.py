"""Direction-optimizing BFS on the GPU: ``do.bfs`` (and ``do.top_down``, the same
kernel held to top-down steps, for comparison). Not one of the five papers: the family
is gpubfs's own (paper key ``beyond``), so the paper tables stay faithful.

Method. Beamer, Asanovic, Patterson, "Direction-Optimizing Breadth-First Search" (SC'12):
a level is expanded top-down (the frontier's out-edges gathered, unvisited neighbours
claimed) or bottom-up (every unvisited vertex scans its in-edges for a parent in the
frontier and stops at the first). After every level, from counts the CTAs accumulate
(n_f frontier vertices, m_f their out-edges, m_u in-edges of the unvisited vertices):
top-down -> bottom-up when ``m_f * alpha > m_u``, back when ``n_f * beta < n``.

Adapted for a GPU (do.cu):

- One persistent cooperative kernel per BFS: CTAs meet at a grid barrier after each
  level and all take the same decision from the same control words, so a level costs
  no launch and no host round trip; a switch converts the frontier in the kernel
  (queue -> bitmap from the labels, bitmap -> queue by ballots), one more barrier.
- Top-down: load-balanced gathering (gpu/include/expand.cuh, Merrill et al.'s CTA, warp
  and scan stages) over tiles of the frontier (gpu/include/tiled.cuh), claims by an
  exact atomic test-and-set on the visited bitmap, so a queue never holds more than n.
- Bottom-up: a warp per 32-bit bitmap word, a lane per vertex, the frontier bitmap read
  through L1 or L2 (gpu/include/bottom_up.cuh); the warp writes the next frontier and
  visited words whole from a ballot (no atomics, no clearing pass). Directed graphs get
  the transpose built in prepare; undirected graphs use the CSR itself.
- Small, mid-size and hub-heavy frontiers get modes of their own (knobs below).
- 32-bit edge offsets below 2^31 edges, a 64-bit build (DO_OFFSET64) from there on.
- No fixed cost beyond one launch: buffers and the kernel's parameter struct (do.cuh's
  DoParams) are built in prepare, the launch is captured there as a CUDA graph, and
  nothing is read back during a traversal. Per-level counters are compiled out unless
  ``counters`` or ``profile`` asks for them.

Rates are equivalent GTEPS (``teps = "equivalent"``): a bottom-up level does not look at
every edge, so the top-down edge count (out-degrees of the reached vertices) over the
time is reported; every table says so.

Knobs:

- ``alpha``, ``beta``: the switch thresholds (>= 0; read in thousandths). ``alpha = 0``
  never goes bottom-up; a huge alpha and beta go bottom-up from the first level and
  stay. Defaults 48 and 24 (Beamer's CPU values are 14 and 24; a GPU's bottom-up step is
  cheap next to a top-down one, so it switches earlier; docs/performance.md).
- ``bottom_up``: False holds every level top-down (the ``do.top_down`` variant).
- ``growth``: Beamer et al.'s state machine (their Fig. 3): to bottom-up only while the
  frontier grows, back only while it shrinks, so a lattice's shrinking tail does not
  flip direction every level. On by default.
- ``cta_size``: threads per CTA (128 to 1024; a build each). ``blocks_per_sm``: CTAs per
  SM of the persistent grid (0 = as many as fit).
- ``spread_edges``: a top-down frontier of at most DO_SPREAD (1024) vertices and at
  least this many out-edges spreads its edges over every warp of the grid
  (gpu/include/spread.cuh) instead of tiling vertices over CTAs, which leaves a hub near
  the source to one CTA. 0: every small frontier; -1: never.
- ``hub_edges``: a tiled top-down level leaves every list of at least this many
  out-edges (the first DO_SPREAD of them) to a hub pass after its barrier, spread as
  above: one more grid barrier, only on levels with such a list. 0: never; default 4096.
- ``small_frontier``: while a top-down frontier and its out-edges number at most this,
  CTA 0 alone runs the levels from shared-memory queues while the rest of the grid
  parks (gpu/include/small_frontier.cuh); those levels stay top-down. 0: off; at most
  and by default DO_SMALL_CAP (512).
- ``mid_frontier``: the same for frontiers up to this size (above ``small_frontier``),
  run by a team of ``mid_ctas`` CTAs with a barrier of its own; the team hands a level
  back past the threshold, when the heuristic would go bottom-up, or when its lists
  average DO_HUB_DEGREE (32) or more. 0: off; at most and by default DO_MID_CAP (32768).
- ``mid_ctas``: the team's size; 0 (default) = one CTA per SM.
- ``thread_edges``: a bottom-up lane scans this many in-edges of its vertex, then its
  warp takes the rest of the list, 32 a step, so one hub does not hold a warp for its
  whole degree. 0 (default): a lane scans its whole list. Parents and counts are a
  serial scan's whatever the value.
- ``probe_batch``: a bottom-up lane loads this many in-edges and their bitmap words at
  once past its first (1, 2, 4 or 8; a build each, BU_BATCH): fewer dependent round
  trips for probes past the hit. Parents and counts do not change.
- ``frontier_cache``: ``l1`` (default: the bottom-up bitmap reads cached in L1 too,
  BU_FRONT_L1) or ``l2`` (L2 only); a build each. Both read the same bits: the bitmap
  is written only before a grid barrier.
- ``in_order``: the order of the in-lists bottom-up lanes scan: ``stored`` (default) or
  ``degree`` (neighbours by out-degree, largest first: a second copy of the column ids
  sorted on the device in prepare). Hubs are the likeliest frontier members, so fewer
  probes; parents are the first frontier neighbour in that order.
- ``launch``: ``graph`` (default): prepare captures, per predecessors flag, a CUDA graph
  of a 4-byte copy from a pinned host word to a device word and the cooperative launch,
  the kernel reading its source from that word; traverse() writes the pinned word and
  launches the graph, which passes no arguments. ``direct``: the kernel launched each
  time with the source as an argument. When the capture fails the direct launch runs,
  and the counters say so.
- ``counters``: per-level counters (direction, vertices and edges examined); off for
  timings. ``profile``: the same plus %globaltimer stamps per level in
  counters["profile"] (PROF_WORDS words a level: start ns, step ns, direction, frontier
  size; the end time after the last level) and counters["profile_header"] (kernel
  entry, end of set-up); ``profile_rows`` and ``profile_span`` tabulate them
  (scripts/device/do_profile.py).

Counters (always): ``levels``, ``bottom_up_levels``, ``switches``, ``small_levels``
(levels run by CTA 0 alone), ``mid_levels`` (levels run by the team), ``hub_levels``
(top-down levels that ran the hub pass; device scalars, read after timing), ``launch``
(``graph`` or ``direct``: which launch ran; with ``launch_error``, why a graph could not
be captured). With ``counters``/``profile``: ``direction`` (0 top-down, 1 bottom-up),
``vertices_examined``, ``edges_examined`` per level.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.device import Device
from gpubfs_cli.core.knobs import (
    PROBE_BATCHES,
    check_edge_count,
    check_flags,
    check_frontier_cache,
    check_launch,
    check_probe_batch,
    check_small_frontier,
    check_thread_edges,
    check_thresholds,
    knob,
    whole,
)
from gpubfs_cli.core.strategy import register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import (
    POINTER,
    PROBE_BATCH,
    captured,
    copy_to_device_async,
    i32,
    kernel_struct,
    level_capacity,
    param_struct,
    persistent_builds,
    persistent_defines,
    persistent_grid,
    require_int32_ids,
    sm_count,
)
from gpubfs_cli.gpu.modules import header_constants, instantiation, load_module
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("do.cu")
C = header_constants(Path(__file__).with_name("do.cuh"))
CTA_SIZES = (128, 256, 512, 1024)
MILLI = C["DO_MILLI"]
CTL_WORDS, CTL_LEVELS, CTL_BU_LEVELS, CTL_SWITCHES, CTL_SMALL_LEVELS = (
    C["CTL_WORDS"], C["CTL_LEVELS"], C["CTL_BU_LEVELS"], C["CTL_SWITCHES"], C["CTL_SMALL_LEVELS"])
CNT_VERTICES, CNT_EDGES, CNT_DIR, CNT_KINDS = C["CNT_VERTICES"], C["CNT_EDGES"], C["CNT_DIR"], C["CNT_KINDS"]
PROF_WORDS = C["PROF_WORDS"]
PROF_ENTRY, PROF_READY = C["PROF_ENTRY"], C["PROF_READY"]
SMALL_CAP = C["DO_SMALL_CAP"]  # the largest small_frontier threshold
MID_CAP = C["DO_MID_CAP"]  # the largest mid_frontier threshold
CTL_MID_LEVELS, CTL_HUB_LEVELS = C["CTL_MID_LEVELS"], C["CTL_HUB_LEVELS"]
HUB_EDGES = 4096  # hub_edges' default
OFFSET64_EDGES = 2**31  # from this many edges on, the 64-bit offset build (int32 holds 0..m below)
LAUNCHES = ("graph", "direct")  # the launch knob's values
IN_ORDERS = ("stored", "degree")  # the in_order knob's values: in-lists as stored, or hubs first
FRONTIER_CACHE = "l1"  # frontier_cache's default: the bitmap through L1 (docs/performance.md)
# do.cuh's dobfs::Params, field by field in its order (the emulated tests compare offsets)
PARAMS = param_struct(
    *((name, POINTER) for name in ("row", "col", "in_row", "in_col", "dist", "parent", "visited", "front0",
                                   "front1", "q0", "q1", "ctl", "counters", "prof", "mq")),
    *((name, "i8") for name in ("m_in", "alpha_milli", "beta_milli", "spread_edges")),
    *((name, "i4") for name in ("n", "rule", "small_frontier", "mid_ctas", "counter_cap", "prof_cap", "mq_cap",
                                "hub_edges", "mid_frontier", "thread_edges")),
)
if PARAMS.itemsize != C["DO_PARAMS_BYTES"]:
    raise ImportError(f"do.cuh's Params has {C['DO_PARAMS_BYTES']} bytes, PARAMS {PARAMS.itemsize}")


def offsets64(m: int) -> bool:
    """Whether a graph of m edges needs the 64-bit edge offset build."""
    return int(m) >= OFFSET64_EDGES


def kernel_defines(cta_size: int, offset64: bool = False, probe_batch: int = PROBE_BATCH,
                   frontier_cache: str = FRONTIER_CACHE) -> dict[str, int]:
    """The -D defines of the build for CTAs of `cta_size` threads (64-bit edge offsets
    when `offset64`; bottom-up lanes probing `probe_batch` in-edges at once)."""
    return persistent_defines("DO", cta_size, offset64, probe_batch, frontier_cache)


# every build, for the compile test
KERNEL_DEFINES = persistent_builds("DO", CTA_SIZES, frontier_cache=FRONTIER_CACHE)


def kernel_name(predecessors: bool, stats: bool) -> str:
    return instantiation("do_bfs", predecessors, stats)


KERNEL_NAMES = tuple(kernel_name(p, s) for s in (False, True) for p in (False, True))


@dataclass(frozen=True)
class DoKnobs:
    alpha: float = knob(48.0, 0)
    beta: float = knob(24.0, 0)
    bottom_up: bool = True
    cta_size: int = knob(256, among=CTA_SIZES)
    blocks_per_sm: int = knob(0, 0, means="0: as many as fit")
    spread_edges: int = knob(1024, -1, means="-1: never spread")
    small_frontier: int = knob(SMALL_CAP, 0, SMALL_CAP, means="0: off")
    mid_frontier: int = knob(MID_CAP, 0, MID_CAP, means="0: off")
    mid_ctas: int = knob(0, 0, means="0: one per SM")
    thread_edges: int = knob(0, 0, 2**31 - 1, means="0: the warp at once")
    probe_batch: int = knob(PROBE_BATCH, among=PROBE_BATCHES)
    frontier_cache: str = FRONTIER_CACHE
    hub_edges: int = knob(HUB_EDGES, 0, 2**31 - 1, means="0: no hub pass")
    in_order: str = "stored"
    growth: bool = True
    launch: str = "graph"
    counters: bool = False
    profile: bool = False

    def __post_init__(self) -> None:
        check_thresholds(self, MILLI)
        check_flags(self, ("bottom_up", "growth", "counters", "profile"))
        check_launch(self.cta_size, CTA_SIZES, self.blocks_per_sm)
        if not whole(self.spread_edges) or self.spread_edges < -1:
            raise ValueError("spread_edges must be an integer >= -1 (-1 = never spread)")
        check_small_frontier(self.small_frontier, SMALL_CAP)
        if not whole(self.mid_frontier) or not 0 <= self.mid_frontier <= MID_CAP:
            raise ValueError(f"mid_frontier must be an integer between 0 (off) and {MID_CAP}")
        if not whole(self.mid_ctas) or self.mid_ctas < 0:
            raise ValueError("mid_ctas must be an integer >= 0 (0 = one per SM)")
        check_thread_edges(self.thread_edges)
        check_probe_batch(self.probe_batch)
        check_frontier_cache(self.frontier_cache)
        check_edge_count("hub_edges", self.hub_edges, "no hub pass")
        if not isinstance(self.launch, str) or self.launch not in LAUNCHES:
            raise ValueError(f"launch must be one of {', '.join(LAUNCHES)}, not {self.launch!r}")
        if not isinstance(self.in_order, str) or self.in_order not in IN_ORDERS:
            raise ValueError(f"in_order must be one of {', '.join(IN_ORDERS)}, not {self.in_order!r}")


def direction_rule(k: DoKnobs) -> int:
    """The kernel's DO_RULE_* for the knobs (do.cuh)."""
    if not k.bottom_up:
        return C["DO_RULE_TOP_DOWN"]
    return C["DO_RULE_GROWTH"] if k.growth else C["DO_RULE_COUNTS"]


@dataclass(frozen=True)
class TopDownKnobs(DoKnobs):
    bottom_up: bool = False


def profile_rows(profile, counters: dict) -> list[dict]:
    """Per level of a profiled traversal (host arrays): direction, frontier size,
    microseconds of the frontier conversion and of the step, vertices and edges
    examined. `profile` is counters["profile"]; `counters` the same answer's counters."""
    prof = np.asarray(profile, dtype=np.int64)
    levels = min(int(counters["levels"]), len(prof) // PROF_WORDS - 1)
    rows = []
    for L in range(levels):
        start, step, direction, frontier = (int(x) for x in prof[L * PROF_WORDS: (L + 1) * PROF_WORDS])
        end = int(prof[(L + 1) * PROF_WORDS])
        rows.append({
            "level": L, "direction": "bottom-up" if direction else "top-down", "frontier": frontier,
            "convert_us": (step - start) / 1e3, "step_us": (end - step) / 1e3,
            "vertices_examined": int(np.asarray(counters["vertices_examined"])[L]),
            "edges_examined": int(np.asarray(counters["edges_examined"])[L]),
        })
    return rows


def profile_span(counters: dict) -> dict:
    """Where a profiled traversal's kernel time went (host counters, microseconds): from
    entry to the end of the set-up, from there to the first level's stamp (a level run
    by CTA 0 alone is stamped when it hands back), the levels to the end stamp, and the
    kernel's whole span."""
    head = np.asarray(counters["profile_header"], dtype=np.int64)
    prof = np.asarray(counters["profile"], dtype=np.int64)
    levels = min(int(counters["levels"]), len(prof) // PROF_WORDS - 1)
    entry, ready = int(head[PROF_ENTRY]), int(head[PROF_READY])
    first, end = int(prof[0]), int(prof[levels * PROF_WORDS])
    return {"setup_us": (ready - entry) / 1e3, "to_first_stamp_us": (first - ready) / 1e3,
            "levels_us": (end - first) / 1e3, "kernel_us": (end - entry) / 1e3}


def compiled_module(cta_size: int, device: Device | None = None, offset64: bool = False,
                    probe_batch: int = PROBE_BATCH, frontier_cache: str = FRONTIER_CACHE):
    return load_module(KERNELS, defines=kernel_defines(cta_size, offset64, probe_batch, frontier_cache),
                       cooperative=True,
                       name_expressions=KERNEL_NAMES, device=device)


@register
class DirectionOptimizing(GpuStrategy):
    name = "do.bfs"
    paper = "beyond"
    section = "beyond the papers: direction-optimizing BFS (Beamer et al., SC'12), one persistent kernel"
    summary = "top-down and bottom-up levels, switched on the device by Beamer's alpha/beta heuristic"
    caveats = (
        "not one of the five papers: gpubfs's own direction-optimizing BFS",
        "rates are equivalent GTEPS: the top-down edge count over its time (bottom-up levels examine fewer edges)",
        "alpha = 48 (tuned on the H100, scripts/device/do_sweep.sh), beta = 24 (Beamer's)",
    )
    teps = "equivalent"
    Knobs: ClassVar[type] = DoKnobs

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cupy()
        k = self.knobs
        n = graph.n
        wide = offsets64(graph.m) or self.dgraph.row_offsets32 is None
        self.derived("_offset64", wide)  # which build runs (tests read it)
        dg = self.dgraph.with_in_edges()
        row = dg.row_offsets if wide else dg.row_offsets32
        if dg.in_offsets is dg.row_offsets:  # undirected: the CSR is its own transpose
            in_row, in_col = row, dg.col_indices
        elif wide:  # in_offsets are int64 (DeviceGraph.with_in_edges)
            in_row, in_col = dg.in_offsets, dg.in_indices
        else:
            in_row, in_col = self.keep("_in_row", dg.in_offsets.astype(cp.int32)), dg.in_indices
        if k.in_order == "degree":
            in_col = dg.in_indices_by_degree()
        stats = bool(k.counters or k.profile)
        module = compiled_module(int(k.cta_size), self.device, wide, int(k.probe_batch), k.frontier_cache)
        self._kernels = {p: module.get_function(kernel_name(p, stats)) for p in (False, True)}
        self._grid = persistent_grid(self.name, self._kernels.values(), int(k.cta_size), k.blocks_per_sm, self.device)
        sms = sm_count(self.device)
        team = min(int(k.mid_ctas) or sms, self._grid)
        words = (n + 31) // 32
        dist = self.buffer("_dist", n, cp.int32)
        parent = self.buffer("_parent", n, cp.int32)
        visited = self.buffer("_visited", words, cp.uint32)
        fronts = [self.buffer(f"_front{i}", words, cp.uint32) for i in (0, 1)]
        queues = [self.buffer(f"_queue{i}", n, cp.int32) for i in (0, 1)]
        ctl = self.buffer("_ctl", CTL_WORDS, cp.uint64)
        mq_cap = max(1, min(int(k.mid_frontier), n))
        # int4 entries; between the team's levels the hub pass's DO_SPREAD vertices
        mid_queues = self.buffer("_mid_queues", max(2 * 4 * mq_cap, C["DO_SPREAD"]), cp.int32)
        cap = level_capacity(n)
        counters = self.buffer("_counters", CNT_KINDS * cap, cp.uint64, fill=0) if stats else self.keep("_counters", None)
        # the level rows (cap + 1, the end time's included), then the header row
        prof = self.buffer("_prof", PROF_WORDS * (cap + 2), cp.uint64, fill=0) if k.profile else self.keep("_prof", None)
        src_word = self.buffer("_src_word", 1, cp.int32, fill=0)  # the source a graph launch reads
        # The kernel's state, built once: a launch passes it with the source (src, src_at).
        # The struct holds addresses only: the arrays stay referenced beside it.
        arrays = self.derived("_param_arrays", dict(
            row=row, col=dg.col_indices, in_row=in_row, in_col=in_col, dist=dist, visited=visited,
            front0=fronts[0], front1=fronts[1], q0=queues[0], q1=queues[1], ctl=ctl, counters=counters,
            prof=prof, mq=mid_queues))
        fixed = dict(
            arrays, m_in=int(graph.m), alpha_milli=round(float(k.alpha) * MILLI),
            beta_milli=round(float(k.beta) * MILLI), spread_edges=k.spread_edges, n=n, rule=direction_rule(k),
            small_frontier=k.small_frontier, mid_frontier=k.mid_frontier, mid_ctas=team,
            counter_cap=cap if stats else 0, prof_cap=cap + 1 if prof is not None else 0, mq_cap=mq_cap,
            thread_edges=k.thread_edges, hub_edges=k.hub_edges)
        params = {p: kernel_struct(PARAMS, parent=parent if p else None, **fixed) for p in (False, True)}
        self.derived("_params", params)
        # The counters' views of the buffers, made once (a CuPy view costs microseconds);
        # ctl[k, ...] is a 0-d view (ctl[k] would be a copy under numpy, the emulation's).
        views = {"levels": ctl[CTL_LEVELS, ...], "bottom_up_levels": ctl[CTL_BU_LEVELS, ...],
                 "switches": ctl[CTL_SWITCHES, ...], "small_levels": ctl[CTL_SMALL_LEVELS, ...],
                 "mid_levels": ctl[CTL_MID_LEVELS, ...], "hub_levels": ctl[CTL_HUB_LEVELS, ...]}
        if counters is not None:
            for key, k_ in (("direction", CNT_DIR), ("vertices_examined", CNT_VERTICES), ("edges_examined", CNT_EDGES)):
                views[key] = counters[k_ * cap: (k_ + 1) * cap]
        if prof is not None:
            rows = PROF_WORDS * (cap + 1)
            views["profile"] = prof[:rows]
            views["profile_header"] = prof[rows:]
        graphs, failed = None, None
        if k.launch == "graph":
            try:
                graphs = self._capture(cp, src_word, params)
            except Exception as exc:  # noqa: BLE001 - the direct launch runs instead, said in the counters
                failed = f"{type(exc).__name__}: {exc}".splitlines()[0]
        self.derived("_graphs", graphs)
        views["launch"] = "graph" if graphs is not None else "direct"
        if failed is not None:
            views["launch_error"] = failed
        self.derived("_counter_views", views)

    def _capture(self, cp, src_word, params) -> dict:
        """{predecessors: a CUDA graph of one traversal}: a copy of the pinned source word
        into `src_word`, then the kernel reading its source there. Captured on a stream of
        its own: the legacy stream cannot capture, and a blocking stream would have to
        synchronize with it, which a capture forbids. Launched on the caller's stream."""
        host = self.pinned("_src_host", 1, np.int32)
        host[0] = 0
        stream = cp.cuda.Stream(non_blocking=True)
        block = (int(self.knobs.cta_size),)

        def traversal(p: bool):
            copy_to_device_async(src_word, host, stream)
            self._kernels[p]((self._grid,), block, (params[p], i32(0), src_word))

        graphs = {p: captured(stream, lambda p=p: traversal(p)) for p in (False, True)}
        # Recorded after each graph launch, waited on before the pinned word is written:
        # the host runs ahead of the GPU, and a write before the previous launch's copy
        # node has read the word would change that traversal's source.
        done = self.derived("_launched", cp.cuda.Event(disable_timing=True))
        done.record()
        return graphs

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        if not 0 <= source < n:
            raise ValueError(f"source {source} out of range [0, {n})")
        if self._graphs is not None:
            self._launched.synchronize()
            self._src_host[0] = source
            # On the current stream, where the harness records its timing events: the
            # graph runs after the start event and before the stop event, as a kernel would.
            self._graphs[predecessors].launch()
            self._launched.record()
        else:
            args = (self._params[predecessors], i32(source), None)
            self._kernels[predecessors]((self._grid,), (int(self.knobs.cta_size),), args)
        return DoAnswer(self._dist, self._parent if predecessors else None, dict(self._counter_views))


@dataclass
class DoAnswer(Answer):
    """Per-level series are cut to the levels run in to_host(), after the timer."""

    def to_host(self) -> Answer:
        host = super().to_host()
        c = host.counters
        levels = c["levels"] = int(c["levels"])
        for key in ("bottom_up_levels", "switches", "small_levels", "mid_levels", "hub_levels"):
            c[key] = int(c[key])
        for key in ("direction", "vertices_examined", "edges_examined"):
            if key in c:
                c[key] = np.asarray(c[key], dtype=np.int64)[:levels]
        if "profile" in c:
            c["profile"] = np.asarray(c["profile"], dtype=np.int64)[: PROF_WORDS * (levels + 1)]
            c["profile_header"] = np.asarray(c["profile_header"], dtype=np.int64)
        return host


@register
class TopDownOnly(DirectionOptimizing):
    name = "do.top_down"
    section = "beyond the papers: do.bfs's kernel held to top-down levels (for comparison)"
    summary = "the direction-optimizing kernel with bottom-up steps off: top-down every level"
    caveats = ("not one of the five papers: do.bfs with bottom_up off",)
    teps = "traversed"
    Knobs = TopDownKnobs
