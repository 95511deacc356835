"""bfs4k.bfs4k: Busato, Bombieri, "BFS-4K: an efficient implementation of BFS for Kepler
GPU architectures" (IEEE TPDS 2015), sections 4-6, with the knobs K1-K7 of section 7.

Each BFS level (frontier propagation step) expands the frontier Fd into the next one,
Fdnew (bfs4k.cu), with the techniques of section 5:

- dynamic virtual warps (5.2): W lanes per frontier vertex, W the power of two below
  resident threads / |Fd|, kept within [K1, 32];
- dynamic parallelism (5.3): the lists of the K2% highest-degree vertices (only those
  of at least K3 * K6 neighbours) are expanded by child kernels launched from the
  device, of ceil(degree / (K3 * K6)) blocks of K6 threads, K3 neighbours per thread;
- edge-discover (5.4): when |Fd| * K4 < resident threads, threads are given edges, not
  vertices: a warp prefix-sums the degrees of 32 frontier vertices and each lane finds
  its edge's vertex by a binary search through shuffles;
- single-block vs multi-block (5.5): a frontier of at most FT = 1024 * K5 vertices is
  expanded by one block of 1024 threads holding Fd and Fdnew in shared memory, level
  after level inside the kernel, the rest of its shared memory the hash table;
- the two-level exclusive prefix sum (5.1): warp shuffles (common.cuh), the ballot/popc
  binary variant when each lane holds at most one vertex, and the block level through
  shared-memory atomics (single-block kernel) or one global atomic per warp flush;
- induced coalescing of frontier writes (5.6): a warp whose local queues hold at least
  K7 vertices per lane on average writes the first min(queue lengths) of each as full
  coalesced rows, the rest by prefix sum;
- duplicate detection (6): a hash table in shared memory.

How it adapts the paper to today's GPUs:

- Exact claims. A vertex that looks unvisited in the visited bitmask (read through L1:
  a stale word only lacks bits) and survives the duplicate detection is claimed with
  an atomicOr; only the winner writes its distance and parent and enqueues it. The paper
  checks the distance label and lets the hash table remove what duplicates it can;
  exact claims bound each frontier by n (no overflow handling) and no list is ever
  expanded twice (a duplicated hub would also launch its child kernel twice). The hash
  tables then save atomics rather than frontier entries: their effect is in the
  ``hash_duplicates`` and ``claims_lost`` counters.
- Few host round trips. Every kernel starts by reading the level's frontier size
  from a device status word and returns at once unless the frontier is its own, so the
  host launches a fixed sequence of kernels (``SCLLLCS``: single, cooperative, level x3,
  cooperative, single) and reads the status back once per sequence (``host_syncs``),
  not once per level as the paper's host loop did.
- A persistent multi-block kernel: frontiers above FT and up to the cooperative grid's
  thread count run level after level in one cooperative grid with a grid barrier between
  levels, down to FT / 2 (hysteresis) when the single-block kernel takes over again.
  Larger frontiers, and every level whose frontier holds a vertex for a child kernel (a
  grid waits for its children only by ending: CUDA 12's dynamic parallelism has no
  device-side synchronization), run as the paper's multi-block kernel, one launch per
  level over every resident thread (64 registers per thread: 1024 per SM).
- Thresholds from today's sizes: FT = 1024 * K5 (1024 threads per block, as on Kepler);
  the multi-block hash table is the paper's share of the SM's shared memory per block
  (shared memory per SM * K6 / threads per SM, less the local queues, rounded down to a
  power of two; the rest of the SM is L1, which caches the visited bitmask); the
  single-block table is the power of two below what one block's shared memory leaves;
  ResThreads is the launched grid's thread count.
- Local queues (5.6) live in shared memory, one column per thread (registers cannot be
  indexed at run time), LQ = 16 entries; a warp flushes when a lane could overflow.
- Dynamic parallelism: which lists go to child kernels is one degree threshold per
  graph (the degree of the ceil(K2% * V)-th longest list, at least K3 * K6), computed
  in prepare, rather than a selection among each frontier's vertices: no sort per level,
  and still at most K2% of V lists, the longest, per level. Child grids go to the
  fire-and-forget stream; the level ends when the parent grid and its children have.
  A refused launch (pending-launch buffer full) is counted and the parent expands that
  list itself, so answers never depend on the launch limit (raised in prepare to the
  number of DP-sized lists). Child launches need relocatable device code (NVRTC,
  -rdc=true): the level kernel that launches them is a second build (BFS4K_DP=1) of the
  same file, loaded only when the graph has a DP-sized list; the CPU emulator runs the
  BFS4K_DP=0 build.
- The kernels' buffers and configuration are one struct (bfs4k.cuh's Bfs4kParams),
  built once in prepare and passed by value to every launch beside the CSR arrays.

Knobs (defaults are the paper's, section 7):

- ``K1`` (4): the smallest virtual warp (1 to 32).
- ``dynamic_warps`` (on): W chosen per level as above; off, always K1 (the static
  virtual warps of Hong et al.).
- ``K2`` (0.15): percent of the vertices whose lists go to child kernels (0: no dynamic
  parallelism).
- ``K3`` (16): neighbours per child thread.
- ``dp_min_degree`` (0): overrides the K3 * K6 floor of a child-kernel list.
- ``K4`` (2; the paper tries 1, 2, 4): edge-discover when |Fd| * K4 < resident threads
  (0: off).
- ``ext`` (on): the edge-discover extension that skips the search while one list covers
  a whole round.
- ``K5`` (1): FT = 1024 * K5 (0: no single-block kernel).
- ``K6`` (128): threads per multi-block and child block (64, 128 or 256: one build each).
- ``K7`` (10): induced coalescing threshold (0: off, and then no coalesced frontier
  reads either: with W = 32 and more frontier than threads, a warp reads 32 frontier
  vertices at once and shares them through shuffles).
- ``dedup`` (``hash64``): ``hash64`` (the paper's: one table per block, vertex and
  thread id merged in one 64-bit word), ``warp`` (Merrill et al.'s: one table per warp,
  vertex and lane written apart) or ``off``.
- ``binary_scan`` (on): the ballot/popc prefix sum when every lane holds at most one
  vertex.
- ``persistent`` (on): the cooperative kernel above; off, every multi-block level is one
  launch followed by a status read (``SL``: the paper's host loop).
- ``coop_blocks_per_sm`` (4): blocks of K6 threads per SM in the cooperative grid.

Counters: levels, kernel_launches, host_syncs, single_block_levels, coop_levels,
level_kernel_levels, child_launches, child_launch_failures, edge_discover_levels,
vwarp_levels (levels per virtual-warp size 1, 2, 4, 8, 16, 32), hash_duplicates,
claims_lost, kernels_active, flushes, coalesced_flushes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gpubfs_cli.core.answer import Answer, to_host
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import (
    POINTER,
    blocks_for,
    blocks_per_sm,
    by_address,
    i32,
    kernel_struct,
    param_struct,
    require_int32_ids,
    sm_count,
)
from gpubfs_cli.gpu.modules import header_constants, load_module
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("bfs4k.cu")
C = header_constants(Path(__file__).with_name("bfs4k.cuh"))  # defined once, in the header
SINGLE_BLOCK = C["BFS4K_SINGLE_BLOCK"]
LQ = C["BFS4K_LQ"]
K6_SIZES = (64, 128, 256)
WARP_SIZES = (1, 2, 4, 8, 16, 32)
DEDUP = {"hash64": C["DEDUP_HASH64"], "warp": C["DEDUP_WARP"], "off": C["DEDUP_OFF"]}
MODE = {"S": C["MODE_SINGLE"], "C": C["MODE_COOP"], "L": C["MODE_LEVEL"]}
KERNEL_NAME = {"S": "bfs4k_single", "C": "bfs4k_coop", "L": "bfs4k_level"}
PROGRAM_PERSISTENT = "SCLLLCS"  # single, cooperative, 3 x one level, cooperative, single
PROGRAM_PAPER = "SL"  # the paper's host loop: a status read after every multi-block level
MAX_HASH_MULTI = 2048  # entries per multi-block (and child) block: 16 KB
MIN_HASH = 64
DEFAULT_MAX_SHARED = 48 * 1024  # above this a kernel needs the opt-in attribute
RESERVED_PER_BLOCK = 1024  # shared memory the driver keeps per block (sm_80 and later)
INIT_BLOCK = 256


def kernel_defines(k6: int, dp: bool) -> dict[str, int]:
    """The -D defines of one build: multi-block size K6, child launches on or off."""
    return {"BFS4K_K6": int(k6), "BFS4K_DP": int(bool(dp))}


KERNEL_DEFINES = [kernel_defines(k6, dp) for k6 in K6_SIZES for dp in (False, True)]


@dataclass(frozen=True)
class Bfs4kKnobs:
    K1: int = knob(4, among=WARP_SIZES)
    dynamic_warps: bool = True
    K2: float = knob(0.15, 0, 100)
    K3: int = knob(16, 1)
    dp_min_degree: int = knob(0, 0, means="0: K3 * K6")
    K4: int = knob(2, 0, means="0: no edge-discover")
    ext: bool = True
    K5: int = knob(1, 0, 20, means="0: no single-block kernel")
    K6: int = knob(128, among=K6_SIZES)
    K7: int = knob(10, 0, means="0: no induced coalescing")
    dedup: str = "hash64"
    binary_scan: bool = True
    persistent: bool = True
    coop_blocks_per_sm: int = knob(4, 1)

    def __post_init__(self) -> None:
        if self.K1 not in WARP_SIZES:
            raise ValueError(f"K1 (smallest virtual warp) must be one of {', '.join(map(str, WARP_SIZES))}")
        if not 0 <= float(self.K2) <= 100:
            raise ValueError("K2 (percent of the vertices expanded by child kernels) must be in [0, 100]")
        if int(self.K3) < 1:
            raise ValueError("K3 (neighbours per child thread) must be >= 1")
        if int(self.dp_min_degree) < 0:
            raise ValueError("dp_min_degree must be >= 0 (0: K3 * K6)")
        if int(self.K4) < 0:
            raise ValueError("K4 must be >= 0 (0 turns edge-discover off)")
        if not 0 <= int(self.K5) <= 20:
            raise ValueError("K5 must be in [0, 20] (0 turns the single-block kernel off; "
                             "20 * 1024 frontier vertices twice fill the shared memory)")
        if int(self.K6) not in K6_SIZES:
            raise ValueError(f"K6 (multi-block block size) must be one of {', '.join(map(str, K6_SIZES))}")
        if int(self.K7) < 0:
            raise ValueError("K7 must be >= 0 (0 turns induced coalescing off)")
        if self.dedup not in DEDUP:
            raise ValueError(f"dedup must be one of {', '.join(DEDUP)}, not {self.dedup!r}")
        if int(self.coop_blocks_per_sm) < 1:
            raise ValueError("coop_blocks_per_sm must be >= 1")


@dataclass(frozen=True)
class Geometry:
    """What the kernels' sizes depend on besides the knobs (measured in prepare(); the
    emulated tests pass their own)."""

    coop_threads: int  # threads of the cooperative grid (its largest frontier)
    hash_multi: int  # hash entries per multi-block block
    hash_single: int  # hash entries of the single-block kernel


def floor_pow2(x: int) -> int:
    return 1 << (int(x).bit_length() - 1) if x >= 1 else 0


def dp_degree(knobs: Bfs4kKnobs, degrees: np.ndarray) -> int:
    """The shortest list a child kernel expands: the degree of the ceil(K2% * n)-th
    highest-degree vertex, and at least K3 * K6 (or dp_min_degree). 0 when K2 is 0 or no
    vertex qualifies (no child kernel at all)."""
    n = len(degrees)
    if float(knobs.K2) <= 0 or n == 0:
        return 0
    count = min(n, max(1, int(np.ceil(round(float(knobs.K2) * n / 100.0, 6)))))
    kth = int(np.partition(degrees, n - count)[n - count])
    floor = int(knobs.dp_min_degree) or int(knobs.K3) * int(knobs.K6)
    threshold = max(kth, floor, 1)
    return threshold if n and int(degrees.max()) >= threshold else 0


def single_threshold(knobs: Bfs4kKnobs) -> int:
    """FT: the largest frontier of the single-block kernel (section 5.5)."""
    return SINGLE_BLOCK * int(knobs.K5)


# bfs4k.cuh's Bfs4kCfg: the knobs and sizes every kernel reads, in its order.
CONFIG = (("dp_degree", "i8"), ("n", "i4"), ("K1", "i4"), ("dynamic", "i4"), ("K4", "i4"), ("ext", "i4"),
          ("K7", "i4"), ("dedup", "i4"), ("binary", "i4"), ("K3", "i4"), ("ft", "i4"), ("ft_low", "i4"),
          ("coop_limit", "i4"), ("hash_multi", "i4"), ("hash_single", "i4"), ("hash_child", "i4"))
# bfs4k.cuh's Bfs4kParams, its config's fields in line (the same layout: config starts
# 8-aligned after the pointers; test_bfs4k_emulated.py compares it with the compiled one).
# The CSR arrays are kernel parameters of their own, before it (the header says why).
PARAMS = param_struct(
    ("dist", POINTER), ("parent", POINTER), ("bitmask", POINTER),
    ("q0", POINTER), ("q1", POINTER), ("status", POINTER), ("counters", POINTER), *CONFIG,
)


def kernel_config(knobs: Bfs4kKnobs, n: int, dp: int, geo: Geometry) -> dict[str, int]:
    """The kernels' Bfs4kCfg (bfs4k.cuh) by field name."""
    ft = single_threshold(knobs)
    return {
        "dp_degree": int(dp), "n": int(n), "K1": int(knobs.K1), "dynamic": int(bool(knobs.dynamic_warps)),
        "K4": int(knobs.K4), "ext": int(bool(knobs.ext)), "K7": int(knobs.K7), "dedup": DEDUP[knobs.dedup],
        "binary": int(bool(knobs.binary_scan)), "K3": int(knobs.K3), "ft": ft, "ft_low": ft // 2,
        "coop_limit": geo.coop_threads if knobs.persistent else 0, "hash_multi": geo.hash_multi,
        "hash_single": geo.hash_single, "hash_child": geo.hash_multi,
    }


def program(knobs: Bfs4kKnobs) -> str:
    """The kernel sequence the host launches between two status reads."""
    return PROGRAM_PERSISTENT if knobs.persistent else PROGRAM_PAPER


def multi_dynamic_bytes(k6: int, hash_entries: int) -> int:
    return LQ * k6 * 4 + hash_entries * 8


def single_dynamic_bytes(ft: int, hash_entries: int) -> int:
    return 2 * ft * 4 + LQ * SINGLE_BLOCK * 4 + hash_entries * 8


def hash_single_entries(ft: int, block_optin: int, static_bytes: int) -> int:
    """The single-block hash table: the power of two below the shared memory the
    frontiers and queues leave (section 5.5)."""
    left = block_optin - static_bytes - single_dynamic_bytes(ft, 0)
    return floor_pow2(left // 8)


def hash_multi_entries(k6: int, per_sm: int, threads_per_sm: int, static_bytes: int) -> int:
    """A multi-block block's hash table (section 5.5): its share of the SM's shared
    memory, |SM| * K6 / MaxThrPerMultiproc, less the other shared variables (local
    queues, the static part, the 1 KB the driver keeps per block), as a power of two."""
    share = per_sm * k6 // max(1, threads_per_sm)
    left = share - RESERVED_PER_BLOCK - static_bytes - multi_dynamic_bytes(k6, 0)
    return min(MAX_HASH_MULTI, floor_pow2(max(left, 0) // 8))


def named_counters(raw: np.ndarray) -> dict[str, Any]:
    """The device counters by name."""
    raw = np.asarray(raw, dtype=np.int64)
    vw = C["CNT_VWARP"]
    return {
        "single_block_levels": int(raw[C["CNT_SINGLE_LEVELS"]]),
        "coop_levels": int(raw[C["CNT_COOP_LEVELS"]]),
        "level_kernel_levels": int(raw[C["CNT_LEVEL_LEVELS"]]),
        "child_launches": int(raw[C["CNT_CHILD_LAUNCHES"]]),
        "child_launch_failures": int(raw[C["CNT_CHILD_FAILED"]]),
        "edge_discover_levels": int(raw[C["CNT_EDGE_DISCOVER"]]),
        "vwarp_levels": raw[vw : vw + len(WARP_SIZES)].copy(),
        "hash_duplicates": int(raw[C["CNT_HASH_DUPLICATES"]]),
        "claims_lost": int(raw[C["CNT_CLAIMS_LOST"]]),
        "kernels_active": int(raw[C["CNT_KERNELS_ACTIVE"]]),
        "flushes": int(raw[C["CNT_FLUSHES"]]),
        "coalesced_flushes": int(raw[C["CNT_COALESCED"]]),
    }


@dataclass
class Bfs4kAnswer(Answer):
    """Answer whose device counters are named in to_host(), after the runner has
    stopped its timer."""

    raw_counters: Any = None

    def to_host(self) -> Answer:
        host = Answer(self.distances, self.parents, self.counters).to_host()
        counters = dict(host.counters)
        if self.raw_counters is not None:
            counters.update(named_counters(to_host(self.raw_counters)))
        return Answer(host.distances, host.parents, counters)


@register
class Bfs4k(GpuStrategy):
    name = "bfs4k.bfs4k"
    caveats = (
        "exact claims (atomicOr on the visited bitmask): the hash tables save atomics, not frontier entries",
        "a fixed kernel sequence with one status read per sequence, and a persistent cooperative kernel for mid-sized frontiers, instead of a host read per level",
        "dynamic parallelism picks lists by one degree threshold per graph, computed in prepare, not per frontier",
        "thresholds and hash-table sizes follow today's shared memory (228 KB per SM)",
    )
    paper = "bfs4k"
    section = "Busato, Bombieri, IEEE TPDS 2015, sections 4-6 (knobs K1-K7 of section 7)"
    summary = ("dynamic virtual warps, child kernels for the longest lists, edge-discover, "
               "single/multi-block kernels, hash64 duplicate detection")
    Knobs = Bfs4kKnobs

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cupy()
        k = self.knobs
        n = graph.n
        k6 = int(k.K6)
        degrees = graph.out_degrees()
        self._dp = dp_degree(k, degrees)
        base = load_module(KERNELS, defines=kernel_defines(k6, False), cooperative=True,
                           device=self.device)
        self._kernels = {kind: base.get_function(name) for kind, name in KERNEL_NAME.items()}
        self._init = base.get_function("bfs4k_init")
        if self._dp:
            # The level kernel that launches children: relocatable device code, linked
            # with the device runtime; a plain (not cooperative) launch.
            with_dp = load_module(KERNELS, defines=kernel_defines(k6, True), rdc=True,
                                  device=self.device)
            self._kernels["L"] = with_dp.get_function("bfs4k_level")
            child = with_dp.get_function("bfs4k_child")
            self._raise_launch_limit(cp, int(np.count_nonzero(degrees >= self._dp)))
        else:
            child = None
        geo = self._geometry(cp, k6, child)
        self._geo = geo
        self.buffer("dist", max(n, 1), cp.int32)
        self.buffer("parent", max(n, 1), cp.int32)
        self.buffer("bitmask", max((n + 31) // 32, 1), cp.uint32)
        self.buffer("q0", max(n, 1), cp.int32)
        self.buffer("q1", max(n, 1), cp.int32)
        self.buffer("status", C["ST_WORDS"], cp.int32, fill=0)
        self.buffer("counters", C["CNT_WORDS"], cp.int32, fill=0)
        self.pinned("status_host", C["ST_WORDS"], np.int32)
        self._program = program(k)
        if not single_threshold(k):  # K5 = 0: no frontier is ever the single block's
            self._program = self._program.replace("S", "")
        # Each kind of BFS's arguments, made once: the CSR arrays and the parameter struct,
        # which holds addresses only (the arrays stay on the strategy). Init takes the
        # source after them.
        fixed = dict(dist=self.dist, bitmask=self.bitmask, q0=self.q0, q1=self.q1, status=self.status,
                     counters=self.counters, **kernel_config(k, n, self._dp, geo))
        structs = self.derived("structs", {p: kernel_struct(PARAMS, parent=self.parent if p else None, **fixed)
                                           for p in (False, True)})
        self.derived("args", {p: (self.dgraph.row_offsets, self.dgraph.col_indices, by_address(structs[p]))
                              for p in (False, True)})
        self.derived("answer_views", (self.dist[:n], self.parent[:n]))

    def _geometry(self, cp, k6: int, child) -> Geometry:
        """Grid sizes, shared-memory sizes and hash tables for this device."""
        props = cp.cuda.runtime.getDeviceProperties(self.device.index)
        per_sm = int(props.get("sharedMemPerMultiprocessor", 233_472))
        optin = int(props.get("sharedMemPerBlockOptin", 232_448))
        sms = sm_count(self.device)
        k = self.knobs
        level, coop, single = self._kernels["L"], self._kernels["C"], self._kernels["S"]
        static = max(int(level.attributes["shared_size_bytes"]), int(coop.attributes["shared_size_bytes"]))
        threads_per_sm = int(props.get("maxThreadsPerMultiProcessor", 2048))
        fit = blocks_per_sm(level, k6, multi_dynamic_bytes(k6, 0))
        if fit < 1:
            raise StrategyUnavailable(f"{self.name}: no block of {k6} threads fits an SM")
        hash_multi = hash_multi_entries(k6, per_sm, threads_per_sm, static)
        while hash_multi > MIN_HASH and blocks_per_sm(level, k6, multi_dynamic_bytes(k6, hash_multi)) < fit:
            hash_multi //= 2
        if hash_multi < MIN_HASH:
            raise StrategyUnavailable(f"{self.name}: no room for a hash table beside K6={k6} queues")
        multi = multi_dynamic_bytes(k6, hash_multi)
        ft = single_threshold(k)
        hash_single = MIN_HASH
        if ft:
            hash_single = hash_single_entries(ft, optin, int(single.attributes["shared_size_bytes"]))
            if hash_single < MIN_HASH:
                raise StrategyUnavailable(f"{self.name}: K5={k.K5} leaves no shared memory for the hash table")
        single_bytes = single_dynamic_bytes(ft, hash_single)
        for kern, size in ((level, multi), (coop, multi), (single, single_bytes), (child, multi)):
            if kern is not None and size > DEFAULT_MAX_SHARED:
                kern.max_dynamic_shared_size_bytes = size
        if ft and blocks_per_sm(single, SINGLE_BLOCK, single_bytes) < 1:
            raise StrategyUnavailable(f"{self.name}: the single-block kernel does not fit an SM")
        coop_fit = blocks_per_sm(coop, k6, multi)
        self._grids = {
            "L": blocks_per_sm(level, k6, multi) * sms,
            "C": max(1, min(int(k.coop_blocks_per_sm), coop_fit)) * sms,
            "S": 1,
        }
        self._shared = {"L": multi, "C": multi, "S": single_bytes}
        self._blocks = {"L": k6, "C": k6, "S": SINGLE_BLOCK}
        # The init kernel strides over the vertices; its module launches cooperatively,
        # so its grid stays within what fits at once.
        n = self.graph.n
        self._init_grid = min(blocks_for(n, INIT_BLOCK, device=self.device),
                              max(1, blocks_per_sm(self._init, INIT_BLOCK)) * sms)
        return Geometry(coop_threads=self._grids["C"] * k6, hash_multi=hash_multi, hash_single=hash_single)

    @staticmethod
    def _raise_launch_limit(cp, lists: int) -> None:
        """Room for one pending child launch per DP-sized list (one level can launch them
        all); a refused launch is expanded by its parent anyway."""
        limit = 0x04  # cudaLimitDevRuntimePendingLaunchCount
        try:
            want = max(2048, lists + 256)
            if cp.cuda.runtime.deviceGetLimit(limit) < want:
                cp.cuda.runtime.deviceSetLimit(limit, want)
        except Exception:  # noqa: BLE001 - best effort: refused launches are handled in the kernel
            pass

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        if not 0 <= source < n:
            raise ValueError(f"source {source} out of range [0, {n})")
        args = self.args[predecessors]
        self._init((self._init_grid,), (INIT_BLOCK,), (*args, i32(source)))
        launches, syncs = 1, 0
        slot = C["ST_SLOTS"]
        while True:
            for kind in self._program:
                self._kernels[kind]((self._grids[kind],), (self._blocks[kind],), args,
                                    shared_mem=self._shared[kind])
                launches += 1
            syncs += 1
            status = self.read_back(self.status, self.status_host)
            level = int(status[C["ST_LEVEL"]])
            if int(status[slot + (level % 3) * C["SLOT_WORDS"] + C["SLOT_COUNT"]]) == 0:
                break
            if syncs > n + 2:
                raise RuntimeError(f"{self.name}: no progress at level {level}")
        dist, parent = self.answer_views
        return Bfs4kAnswer(
            distances=dist,
            parents=parent if predecessors else None,
            counters={"levels": level, "kernel_launches": launches, "host_syncs": syncs},
            raw_counters=self.counters,
        )
