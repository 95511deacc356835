"""The launcher every raval.* strategy shares, for SSSP and BFS: raval.cu beside it,
compiled once per problem (RAVAL_SSSP) and, for SSSP, per weight type (RAVAL_WEIGHT64).

Raval, Nasre, Kumar, Vasudevan, Vadhiyar, Pingali, "Dynamic Load Balancing Strategies
for Graph Applications on GPUs", sections II-IV. Every strategy runs the paper's
data-driven host loop (Fig. 2, Fig. 4): init; while the worklist is not empty, launch
the round's kernels (they relax the worklist's edges with atomicMin and push every node
whose distance dropped onto the other worklist), then read the new worklist's size back
(one read per round, the paper's design; HP also reads each sublist's size, as its
sub-iterations are sized by it). What the strategies differ in is how a round's work
is dealt to threads (strategies.py).

SSSP is the paper's worklist Bellman-Ford: a node re-enters the worklist whenever its
distance drops; a per-node stamp keeps it there once per round, so a worklist never
exceeds n nodes (EP: m edges) and needs no condensing pass. BFS runs the same kernels
on unit weights (int32 levels): each round's worklist is then exactly one BFS level, and
the atomicMin that takes a vertex from unreached is the only one that succeeds, so BFS
needs no stamp. The number of rounds is the counter "iterations" (BFS: depth + 1; EP one
less when the last level has no out-edges, as its worklists hold edges).

Parents (predecessors=True) come from a pass over the edges after the distances:
BFS takes any in-neighbour one level up. SSSP cannot just take any tight in-edge: with
zero-weight edges the tight edges can form cycles, so parents are assigned in rounds
(raval.cu, parents section): round 0 through tight edges of positive weight, round r
through tight zero-weight edges out of vertices that got theirs before round r, until
every reached vertex has one (one device read per round; without zero-weight edges a
single round; in general one more round per zero-weight edge on the longest chain of
them that a vertex's shortest path ends with, each a pass over all edges: a few on the
catalogue's weights, where 1 edge in 100 or 256 weighs 0). That is a shortest-path tree
whatever zero-weight cycles exist.

Adapted to today's GPU:
- Distances use the all-ones bit pattern for "unreached" (-1 in the returned int32/int64
  array, the largest unsigned value in the kernels' comparisons), so no final pass
  converts infinity to -1.
- Every relaxation kernel is compiled with __launch_bounds__(1024), so the paper's
  1024-thread blocks (block_size) fit whatever the register use; smaller blocks work too.
- "As many threads as can be active" (EP, WD) is the occupancy API's resident blocks x
  block size on this GPU (132 SMs x 2,048 threads on an H100), not the K20c's 13 x 2,048.

phase_timing (every strategy): False (default) adds nothing. True records CUDA events
around every relaxation kernel (BS/NS node kernels, EP's edge kernel, WD's relaxation,
HP's sub-iteration kernels) and around the whole traversal; the counters "kernel_ms"
(sum of the relaxation kernels) and "overhead_ms" (the rest of the traversal: init,
scans and offset searches, worklist bookkeeping and size reads, NS's propagation pass,
the parents pass) are the two parts of the paper's stacked bars (Fig. 7, 8). The event
times are collected after each worklist-size read (which waits for the GPU anyway) and
at the end, which waits for the GPU once more: use the runs without it for timings.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import i32, require_int32_ids, resident_blocks, sm_count
from gpubfs_cli.gpu.modules import header_constants, load_module
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("raval.cu")
C = header_constants(Path(__file__).with_name("raval.cuh"))
MAX_BLOCK = C["RAVAL_MAX_BLOCK"]
CTL_OUT, CTL_SUB, CTL_REACHED, CTL_ANCHORED = C["CTL_OUT"], C["CTL_SUB"], C["CTL_REACHED"], C["CTL_ANCHORED"]
# BFS; SSSP with int32 weights; SSSP with int64 weights.
KERNEL_DEFINES = [{"RAVAL_SSSP": 0}, {"RAVAL_SSSP": 1, "RAVAL_WEIGHT64": 0},
                  {"RAVAL_SSSP": 1, "RAVAL_WEIGHT64": 1}]
# Grid-stride helper kernels (init, COO build, propagation, parents).
UTIL_BLOCK = 256
UTIL_BLOCKS_PER_SM = 8
RELAX_KERNELS = ("raval_node_relax", "raval_ep_relax", "raval_wd_relax", "raval_hp_sub")
# The (2, n) worklist buffers the rounds alternate between (whichever a strategy has).
PAIRED = ("items", "counts", "edges", "sub_items", "sub_skip", "sub_counts")
OTHER_KERNELS = ("raval_init", "raval_ns_propagate", "raval_coo_src", "raval_wd_offsets",
                 "raval_parents_init", "raval_parents_tight")


def kernel_defines(sssp: bool, weights=None) -> dict[str, int]:
    if not sssp:
        return KERNEL_DEFINES[0]
    return KERNEL_DEFINES[2 if np.dtype(weights.dtype) == np.int64 else 1]


def check_block(block_size: int) -> None:
    if block_size % 32 or not 32 <= block_size <= MAX_BLOCK:
        raise ValueError(f"block_size must be a multiple of 32 in [32, {MAX_BLOCK}]")


@dataclasses.dataclass(frozen=True)
class RavalKnobs:
    """block_size: threads per block of the relaxation kernels (the paper's 1024).
    phase_timing: record kernel vs overhead time (counters kernel_ms, overhead_ms)."""

    block_size: int = knob(1024, 32, MAX_BLOCK)
    phase_timing: bool = False

    def __post_init__(self):
        check_block(self.block_size)
        if not isinstance(self.phase_timing, bool):
            raise ValueError("phase_timing must be true or false")


class _NoTimer:
    def begin(self) -> None:
        pass

    def relax(self, kernel, grid: int, block: int, args: tuple) -> None:
        kernel((grid,), (block,), args)

    def flush(self) -> None:
        pass

    def end(self) -> dict[str, float]:
        return {}


class PhaseTimer:
    """CUDA events around each relaxation kernel and around the whole traversal; a few
    event pairs, reused: their times are added up at each flush (after a worklist-size
    read, when the GPU has finished them anyway)."""

    PAIRS = 16

    def __init__(self, cp):
        self.cp = cp
        self.start, self.stop = cp.cuda.Event(), cp.cuda.Event()
        self.pairs = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(self.PAIRS)]
        self.used = 0
        self.kernel_ms = 0.0

    def begin(self) -> None:
        self.used = 0
        self.kernel_ms = 0.0
        self.start.record()

    def relax(self, kernel, grid: int, block: int, args: tuple) -> None:
        if self.used == len(self.pairs):
            self.flush()
        a, b = self.pairs[self.used]
        a.record()
        kernel((grid,), (block,), args)
        b.record()
        self.used += 1

    def flush(self) -> None:
        if not self.used:
            return
        self.pairs[self.used - 1][1].synchronize()
        elapsed = self.cp.cuda.get_elapsed_time
        self.kernel_ms += sum(elapsed(a, b) for a, b in self.pairs[: self.used])
        self.used = 0

    def end(self) -> dict[str, float]:
        self.stop.record()
        self.stop.synchronize()
        self.flush()
        total = self.cp.cuda.get_elapsed_time(self.start, self.stop)
        return {"kernel_ms": float(self.kernel_ms), "overhead_ms": float(max(total - self.kernel_ms, 0.0))}


class RavalStrategy(GpuStrategy):
    """prepare(): module, per-strategy structures (_prepare_work), then the buffers every
    strategy has; traverse(): init, the rounds (_round), the parents pass."""

    problem = "sssp"
    paper = "raval"
    caveats = (
        "the paper's data-driven host loop: one worklist-size read per round",
        "\"as many threads as can be active\" is this GPU's occupancy (132 SMs x 2,048 threads on an H100), not the K20c's",
        "BFS runs the SSSP kernels on unit weights: each round is one BFS level",
        "phase_timing=True adds CUDA events (kernel_ms, overhead_ms): use runs without it for timings",
    )
    Knobs = RavalKnobs
    edge_items: ClassVar[bool] = False  # EP: worklists of edge ids

    # ---- prepare ------------------------------------------------------------------
    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cp = self.cupy()
        self.sssp = self.problem == "sssp"
        dg = self.dgraph
        self.weights = None
        if self.sssp:
            w = dg.weights
            if np.dtype(w.dtype) not in (np.dtype(np.int32), np.dtype(np.int64)):
                w = self.keep("weights64", w.astype(cp.int64))
            self.weights = w
        module = load_module(KERNELS, defines=kernel_defines(self.sssp, self.weights), device=self.device)
        for name in RELAX_KERNELS + OTHER_KERNELS:
            setattr(self, "k_" + name.removeprefix("raval_"), module.get_function(name))
        self.block = self.knobs.block_size
        self.sms = sm_count(self.device)
        n = graph.n
        self.n_total = n
        self.child_off = None  # NS
        self._prepare_work(cp)
        self.buffer("dist", self.n_total, cp.int64 if self.sssp else cp.int32)
        if self.sssp:
            self.buffer("stamp", self.n_total, cp.int32)
            self.buffer("anchor", n, cp.int32)
        else:
            self.keep("stamp", None)
            self.keep("anchor", None)
        self.buffer("parent", n, cp.int32)
        self.buffer("ctl", C["CTL_WORDS"], cp.int32, fill=0)
        # Views, argument tuples and pinned status words made once: traverse() makes no
        # view of a buffer (each costs microseconds in CuPy) and reads into page-locked memory.
        ctl = self.ctl
        self.derived("ctl_out", (ctl[CTL_OUT:CTL_OUT + 2], ctl[CTL_OUT + 2:CTL_OUT + 4]))
        self.derived("ctl_sub", (ctl[CTL_SUB:CTL_SUB + 1], ctl[CTL_SUB + 1:CTL_SUB + 2]))
        self.derived("ctl_parents", ctl[CTL_REACHED:CTL_ANCHORED + 1])
        self.derived("ctl_anchored", ctl[CTL_ANCHORED:CTL_ANCHORED + 1])
        self.pinned("out_host", 2, np.int32)
        self.pinned("sub_host", 1, np.int32)
        self.pinned("parents_host", 2, np.int32)
        self.pinned("anchored_host", 1, np.int32)
        for name in PAIRED:  # a (2, n) worklist buffer, as its two rows
            if name in self._buffers:
                rows = self._buffers[name]
                self.derived(name, (rows[0], rows[1]))
        self.derived("dist_n", self.dist[:n])
        self.derived("relax_args", (dg.row_offsets, dg.col_indices, self.weights, self.dist, self.stamp, self.ctl))
        self.timer = PhaseTimer(cp) if self.knobs.phase_timing else _NoTimer()

    def _prepare_work(self, cp) -> None:
        """Strategy structures and worklists; may raise n_total (NS's children)."""
        raise NotImplementedError

    def release(self) -> None:
        self.weights = None
        super().release()

    def _util_grid(self, work: int) -> int:
        return max(1, min(-(-max(int(work), 1) // UTIL_BLOCK), self.sms * UTIL_BLOCKS_PER_SM))

    def _resident_threads(self, kernel) -> int:
        """As many threads of `kernel` as can be active at once (the paper's choice)."""
        return max(1, resident_blocks(kernel, self.block, device=self.device)) * self.block

    # ---- traverse -----------------------------------------------------------------
    def _launch(self, kernel, grid: int, block: int, args: tuple) -> None:
        self.launches += 1
        kernel((grid,), (block,), args)

    def _relax(self, kernel, grid: int, args: tuple) -> None:
        self.launches += 1
        self.timer.relax(kernel, grid, self.block, args)

    def _read_out(self, r: int) -> int:
        """The size of round r's output worklist (one device read)."""
        size = int(self.read_back(self.ctl_out[r & 1], self.out_host).sum())
        self.timer.flush()
        return size

    def _first(self, source: int) -> tuple[Any, Any, int]:
        """(items, counts, size) of the first worklist, which init fills."""
        raise NotImplementedError

    def _round(self, r: int, size: int) -> int:
        """Launch round r over a worklist of `size`; return the next worklist's size."""
        raise NotImplementedError

    def _begin(self) -> None:
        """Per-traversal host state."""

    def _counters(self) -> dict[str, Any]:
        return {}

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        self.launches = 0
        self.timer.begin()
        self._begin()
        items, counts, size = self._first(source)
        self._launch(self.k_init, self._util_grid(max(self.n_total, size)), UTIL_BLOCK,
                     (i32(n), i32(self.n_total), i32(source), self.dist, self.stamp, self.ctl,
                      self.dgraph.row_offsets, self.child_off, items, counts, i32(self.edge_items)))
        rounds = 0
        while size > 0:
            # After round k every vertex whose shortest path has at most k edges is final,
            # so more than n_total + 1 rounds means a broken kernel, not a long search.
            if rounds > self.n_total + 1:
                raise RuntimeError(f"{self.name}: still relaxing after {rounds} rounds on {n} vertices")
            size = self._round(rounds, size)
            rounds += 1
        parent = self._parents(source) if predecessors else None
        counters = {"iterations": rounds, **self._counters()}
        counters.update(self.timer.end())
        counters["kernel_launches"] = self.launches
        return Answer(distances=self.dist_n, parents=parent, counters=counters)

    def _parents(self, source: int):
        n = self.graph.n
        dg = self.dgraph
        self._launch(self.k_parents_init, self._util_grid(n), UTIL_BLOCK,
                     (i32(n), i32(source), self.dist, self.parent, self.anchor, self.ctl))

        def tight(r: int) -> None:
            self._launch(self.k_parents_tight, self._util_grid(32 * n), UTIL_BLOCK,
                         (i32(n), i32(r), dg.row_offsets, dg.col_indices, self.weights, self.dist,
                          self.parent, self.anchor, self.ctl))

        tight(0)
        if self.sssp:  # zero-weight edges may leave vertices for later rounds
            reached, anchored = (int(x) for x in self.read_back(self.ctl_parents, self.parents_host))
            r = 0
            while anchored < reached - 1:
                r += 1
                tight(r)
                before, anchored = anchored, int(self.read_back(self.ctl_anchored, self.anchored_host)[0])
                if anchored == before:
                    raise RuntimeError(f"{self.name}: {reached - 1 - anchored} reached vertices found no parent")
        return self.parent


class WorkloadDecomposition:
    """WD's round over any worklist of (node, edges done, edges left) entries: the scan,
    find_offsets and the relaxation (section III-A, Fig. 4). Shared by raval.wd and
    raval.hp (which switches to it for small lists)."""

    traverse_allocates = "cupy.cumsum (CUB's scan, the paper's library scan) allocates its workspace each pass"

    def _prepare_wd(self, cp, capacity: int) -> None:
        self.buffer("scan", max(capacity, 1), cp.int64)
        threads = self.knobs.threads or self._resident_threads(self.k_wd_relax)
        self.wd_threads = threads
        self.wd_grid = -(-threads // self.block)
        self.buffer("node_off", threads, cp.int32)
        self.buffer("edge_off", threads, cp.int64)

    def _wd_pass(self, r: int, size: int, items, skip, counts, out_items, out_counts) -> None:
        # The library scan (CUB through cupy.cumsum) into the prepared buffer.
        self.cp.cumsum(counts[:size], out=self.scan[:size])
        self.launches += 1
        t = i32(self.wd_threads)
        self._launch(self.k_wd_offsets, self.wd_grid, self.block,
                     (i32(size), self.scan, t, self.node_off, self.edge_off))
        self._relax(self.k_wd_relax, self.wd_grid,
                    (i32(r), i32(size), items, skip, self.scan, self.node_off, self.edge_off, t,
                     out_items, out_counts, *self.relax_args))
