"""Direction-optimizing BFS on the GPU: ``do.bfs`` (and ``do.top_down``, the same
kernel held to top-down steps, for comparison). Not one of the five papers: the family
is gpubfs's own (paper key ``beyond``), so the paper tables stay faithful.

What it implements. Beamer, Asanovic, Patterson, "Direction-Optimizing Breadth-First
Search" (SC'12): a level is expanded either top-down (the frontier's out-edges are
gathered and unvisited neighbours claimed) or bottom-up (every unvisited vertex looks
through its in-edges for a parent in the frontier and stops at the first one). When the
frontier's out-edges outnumber what the unvisited vertices would check, bottom-up does
far less work: on Kronecker and uniform random graphs the two or three middle levels
hold most of the edges and almost every unvisited vertex finds a parent at once.

The heuristic (section 4 of the paper), evaluated after every level from counts the CTAs
accumulate (n_f frontier vertices, m_f edges out of the frontier, m_u in-edges of the
vertices not yet visited):

- top-down -> bottom-up when ``m_f * alpha > m_u``;
- bottom-up -> top-down when ``n_f * beta < n``.

Beamer's alpha = 14 and beta = 24 were tuned for a CPU's cost of an edge check in each
direction. Here alpha = 48, beta = 24: ``scripts/device/do_sweep.sh`` on the H100
(2026-11-23, 16 sources, alpha in {4, 14, 48} x beta in {6, 24, 96}) found alpha = 48
fastest on g500-s20-ef16 (0.35 ms against 0.38 ms at 14) and kron_g500-logn20-gen
(0.73 against 1.04 ms) and equal on uniform-n21-e26 (0.75 ms): a GPU's bottom-up step
is cheap next to a top-down one (no atomics, bitmap in L2), so it pays to switch
earlier. beta moved every time by under 3%, within the noise: Beamer's 24 is kept.

What was adapted for a GPU, and why:

- One persistent cooperative kernel per BFS (do.cu). CTAs meet at a grid barrier
  after each level, read the level's counts from one of three rotating control slots
  and all take the same decision: the switch costs no host round trip. A switch
  converts the frontier inside the kernel (queue -> bitmap from the distance labels,
  bitmap -> queue by warp ballots), one extra grid barrier.
- Top-down steps use gpubfs's load-balanced gathering (gpu/include/expand.cuh: the
  CTA, warp and scan gathering of Merrill et al.) and claim neighbours with an exact
  atomic test-and-set on the visited bitmap, so queues never overflow (at most n).
- Bottom-up steps give one warp to each 32-bit bitmap word: a lane per vertex scans its
  in-edges with an early exit, probing the frontier bitmap (n/8 bytes, read through L2
  with ld.global.cg), and hands a list longer than ``thread_edges`` to the whole warp
  (gpu/include/bottom_up.cuh); the warp writes the next frontier word and the visited word
  whole from a ballot (no atomics, no clearing pass). Directed graphs get the transpose
  (CSR of in-edges) built in prepare (DeviceGraph.with_in_edges, vectorised);
  undirected graphs use the CSR itself.
- Edge offsets are 32-bit below 2^31 edges (half the bytes per offset read) and 64-bit
  from there on (a second build, DO_OFFSET64: Graph500 scale 26 sits at about 2^31
  directed edges, scale 27 passes it); vertex ids stay 32-bit.
- No fixed cost per traversal beyond one launch: every buffer is allocated in prepare,
  the launch is captured there as a CUDA graph (``launch``; the kernel reads the source
  from a device word the graph copies it into), and nothing is read back during the
  traversal (exact claims: no overflow to check). Per-level counters are compiled out
  unless ``counters`` or ``profile`` asks for them.

Rates. A bottom-up level does not look at every edge, so its "traversed edges" are not
the edges it examined. Its GTEPS are reported as equivalent GTEPS (``teps =
"equivalent"``): the same edge count as the top-down strategies (the out-degrees of
the reached vertices) over its time; every table says so.

Knobs:

- ``alpha``, ``beta``: the switch thresholds above (>= 0; read in thousandths).
  ``alpha = 0`` never goes bottom-up; a huge alpha and a huge beta go bottom-up from
  the first level and stay there.
- ``bottom_up``: False holds every level top-down (the ``do.top_down`` variant).
- ``growth``: the switch as Beamer et al.'s state machine (their Fig. 3) has it: to
  bottom-up only while the frontier grows, back only while it shrinks. On by default.
  With the thresholds alone (``growth`` false) a lattice's shrinking tail flips direction every level (m_u falls below alpha * m_f, a
  bottom-up pass over the whole bitmap finds a small frontier, beta sends it back). On
  the H100 (2026-11-24, variants taking turns) growth takes 10% off grid5pt.5000 and is
  within 2% on g500-s20-ef16, uniform-n21-e26 and kron_g500-logn20-gen.
- ``cta_size``: threads per CTA (128 to 1024; compiled per size).
- ``blocks_per_sm``: CTAs per SM of the persistent grid (0 = as many as fit).
- ``spread_edges``: a top-down level whose frontier has at most DO_SPREAD (1024)
  vertices and at least this many out-edges spreads the edges over every warp of the
  grid (each CTA scans the frontier's degrees; a warp takes 32 consecutive edges and
  finds their vertex by binary search), instead of tiling vertices over CTAs, which
  leaves a hub near the source to one CTA. 0: every small frontier; -1: never.
- ``small_frontier``: while a top-down frontier has at most this many vertices and
  out-edges, CTA 0 alone runs the levels from shared-memory queues with one block
  barrier a level while the rest of the grid parks on a flag
  (gpu/include/small_frontier.cuh, the mode merrill.* has as a knob); the first level
  past it goes back to the grid. Those levels stay top-down whatever the heuristic says
  (a bottom-up step reads the whole bitmap). 0: off; at most DO_SMALL_CAP (512).
  512 by default: on the H100 it takes levels-path-100k from 4.3 to
  0.9 us per level and is within 1.5% on the low-diameter target graphs, where it runs
  only the source's level and hands the next one back (measured with the variants
  taking turns; an earlier 16-48 us cost was the run-order effect, docs/performance.md).
- ``mid_frontier``: while a top-down frontier has at most this many vertices and
  out-edges (and more than ``small_frontier``), a team of ``mid_ctas`` CTAs runs the
  levels with a barrier of its own while the rest of the grid parks (do.cu's
  mid-frontier mode): a queue entry carries its vertex's list, one atomic per warp
  reserves queue positions and sums out-edges, and a level's tiles are spread over
  every team member. The team hands a level back to the grid
  past the threshold, when it fits the small-frontier mode, when the heuristic would go
  bottom-up (the team keeps m_u and the frontier's growth), or when its lists average
  DO_HUB_DEGREE (32) or more (the grid spreads those). 0: off; at most DO_MID_CAP
  (32768), the default: on the H100 it takes grid5pt.5000 from 11.9
  to 5.8 us per level (the grid's barrier over 528 CTAs and a longer chain were most of
  it), within 5% on the low-diameter graphs (docs/performance.md).
- ``mid_ctas``: the team's size; 0 (default) = one CTA per SM (132 on the H100; 66 and
  264 measured 6.8 and 6.0 us per level on grid5pt.5000, 528 6.8).
- ``thread_edges``: a bottom-up lane scans this many in-edges of its vertex; a list
  still unfinished then goes to the whole warp, 32 in-edges a step
  (gpu/include/bottom_up.cuh), so a hub no frontier vertex points to does not hold its
  warp for its whole degree. Parents and counts are those of a serial scan whatever the
  value. 0 (the default): never; a lane scans its whole list (measured below).
- ``probe_batch``: past its first in-edge, a bottom-up lane loads this many in-edges and
  their bitmap words at once (1, 2, 4 or 8; a build each, BU_BATCH). A level whose
  lanes scan long lists waits on two dependent loads per batch, so larger batches trade
  probes past the hit (bytes) for fewer round trips. Parents and counts do not change.
- ``frontier_cache``: where a bottom-up lane's frontier bitmap words are cached.
  ``l1`` (the default): in the SM's L1 too (``__ldca``, BU_FRONT_L1); ``l2``: in L2
  only (``__ldcg``; a build each). The bitmap is written only in earlier levels, before
  a grid barrier, so both read the same bits. On an H100 (`gpubfs run frontier-cache`)
  L1 took 16 sources' medians from 0.128 to 0.109 ms on g500-s20-ef16, 0.143 to 0.117
  on kron_g500-logn20-gen and 0.432 to 0.314 on uniform-n21-e26, bitmaps of 128-256 KB;
  g500-s24-ef16's 2 MB bitmap gained nothing (1.134 to 1.166).
- ``in_order``: the order of each in-list a bottom-up lane scans. ``stored`` (the
  default): the graph's own; ``degree``: its neighbours by out-degree, largest first,
  ties in stored order (graph/list_order.hubs_first through
  DeviceGraph.in_indices_by_degree: a second copy of the column ids, sorted on the
  device in prepare, so its cost is prepare time). A lane stops at
  its first neighbour in the frontier, and the hubs are the likeliest to be there, so
  fewer probes a vertex; parents are the first frontier neighbour in that order.
  Top-down levels read the lists as stored. On an H100 (docs/performance.md) it took
  g500-s24-ef16's heaviest bottom-up level from 49.3 M probes in 781 us to 23.1 M in
  485 us and the Kronecker graphs' traversals 4-12% faster, but uniform-n21-e26's
  10% slower, so ``stored`` stays the default.
- ``hub_edges``: a top-down level tiled by vertices (more than DO_SPREAD of them, or
  below ``spread_edges``) leaves every list of at least this many out-edges (the first
  DO_SPREAD, 1024, of them; more such lists are many CTAs' tiles anyway) to a hub pass
  after its grid barrier: their edges spread over every warp of the grid as
  ``spread_edges`` does, at the cost of one more grid barrier on the levels that have
  such a list. Tiled, a hub is one CTA's: on g500-s26-ef16 a source's level 2 (2,240
  vertices, 29.2 M out-edges, top-down by Beamer's rule) took 32 ms of the
  traversal's 35 (an H200, profile: true). 0: never. 4096 by default: on an
  H100 (`gpubfs run do-hubs`, 8 sources, variants taking turns) it took that graph's two
  slowest sources from 37.3 and 28.2 ms to 5.8 and 5.3 ms (1024: 19.2 and 4.7, the hub
  pass's room filled before the largest lists; 16384: 9.4 and 9.6), within -4% to +7%
  of off on the low-diameter graphs and scale 24, paired by source.
- ``launch``: how traverse() starts the kernel. ``graph`` (the default): prepare
  captures, once per predecessors flag, a CUDA graph of a 4-byte copy from a pinned
  host word to a device word and the cooperative launch with every argument fixed, the
  kernel reading its source from that word; traverse() writes the source into the
  pinned word and launches the graph on the current stream. A cooperative launch
  through CuPy marshals each of the kernel's 31 arguments on every call; a graph launch
  passes none. ``direct``: the kernel launched with its arguments each time, the source
  among them. When the capture fails, the direct launch runs and the counters say so.
- ``counters``: per-level counters (direction, vertices and edges examined) in the
  answer's counters; off for timings.
- ``profile``: as ``counters``, plus %globaltimer stamps per level (start, after the
  frontier conversion) in counters["profile"]: PROF_WORDS words per level (start ns,
  step ns, direction, frontier size; do.cuh), the end time after the last level; and
  counters["profile_header"]: the kernel's entry and the end of its set-up (the
  distances and bitmap reset). ``profile_rows`` turns one into a per-level table,
  ``profile_span`` the kernel's time into set-up, levels and the rest
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
    check_edge_count,
    check_flags,
    check_frontier_cache,
    check_launch,
    check_probe_batch,
    check_thread_edges,
    check_thresholds,
    whole,
)
from gpubfs_cli.core.strategy import register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import (
    PROBE_BATCH,
    SLOT,
    ArgTemplate,
    captured,
    copy_to_device_async,
    i32,
    i64,
    level_capacity,
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
    alpha: float = 48.0
    beta: float = 24.0
    bottom_up: bool = True
    cta_size: int = 256
    blocks_per_sm: int = 0
    spread_edges: int = 1024
    small_frontier: int = SMALL_CAP
    mid_frontier: int = MID_CAP
    mid_ctas: int = 0
    thread_edges: int = 0
    probe_batch: int = PROBE_BATCH
    frontier_cache: str = FRONTIER_CACHE
    hub_edges: int = HUB_EDGES
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
        if not whole(self.small_frontier) or not 0 <= self.small_frontier <= SMALL_CAP:
            raise ValueError(f"small_frontier must be an integer between 0 (off) and {SMALL_CAP}")
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
        head = (row, dg.col_indices, in_row, in_col, i32(n))
        tail = (
            i64(graph.m), i64(round(float(k.alpha) * MILLI)), i64(round(float(k.beta) * MILLI)),
            i32(direction_rule(k)), i64(k.spread_edges), i32(k.small_frontier),
            i32(k.mid_frontier), i32(team), dist,
        )
        rest = (visited, fronts[0], fronts[1], queues[0], queues[1], ctl, counters,
                i32(cap if stats else 0), prof, i32(cap + 1 if prof is not None else 0),
                mid_queues, i32(mq_cap), i32(k.thread_edges), i32(k.hub_edges))
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
        # Built once: traverse() only puts in the source (src, src_at).
        args = {p: ArgTemplate(*head, SLOT, SLOT, *tail, parent if p else None, *rest) for p in (False, True)}
        self.derived("_args", args)
        graphs, failed = None, None
        if k.launch == "graph":
            try:
                graphs = self._capture(cp, src_word, args)
            except Exception as exc:  # noqa: BLE001 - the direct launch runs instead, said in the counters
                failed = f"{type(exc).__name__}: {exc}".splitlines()[0]
        self.derived("_graphs", graphs)
        views["launch"] = "graph" if graphs is not None else "direct"
        if failed is not None:
            views["launch_error"] = failed
        self.derived("_counter_views", views)

    def _capture(self, cp, src_word, args) -> dict:
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
            self._kernels[p]((self._grid,), block, args[p](i32(0), src_word))

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
            args = self._args[predecessors](i32(source), None)
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
