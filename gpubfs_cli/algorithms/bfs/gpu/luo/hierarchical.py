"""luo.hierarchical: UIUC-BFS, Luo, Wong, Hwu, "An Effective GPU Implementation of
Breadth-First Search", DAC 2010: section 3.2 (hierarchical queue management), section
3.3 (hierarchical kernel arrangement) and the node splitting of section 4.

One thread per frontier vertex walks its adjacency list; newly visited vertices go
to the next frontier through three queue levels:
  W-frontier  per warp. On the GTX 280 a warp ran as four 8-thread groups, so eight
              8-thread queues per warp could never collide. Today all 32 lanes issue
              together, so the warp itself is the collision-free unit: a warp-wide
              prefix sum of the lanes' discoveries gives each lane its slot, and the
              warp takes one reservation for all of them (no per-vertex atomics).
  B-frontier  per block, in shared memory. The paper sized it from the maximum
              degree; here it has a fixed capacity and a warp whose batch does not
              fit writes straight to the G-frontier instead, so any degree works.
  G-frontier  in global memory; each block appends its B-frontier with one atomicAdd
              and a coalesced copy.
The three kernel layers, chosen by frontier size:
  1. one block (1024 threads, the paper's 512 on the GTX 280) runs level after level
     with __syncthreads, its frontier in shared memory, while the frontier has at most
     block_threshold vertices (paper: 512, one per thread);
  2. a cooperative grid of co-resident blocks runs level after level with grid.sync()
     (cooperative groups; the paper used Xiao and Feng's hand-made inter-block barrier,
     which needs the same co-residency) while the frontier fits in its threads: the
     paper's 30 SMs x 512 = 15,360, here SMs x grid_blocks_per_sm x grid_block_size
     (132 x 1 x 256 = 33,792 on an H100 or H200). One block per SM as in the paper, but
     of 256 threads, not the largest block: measured on an H200, a 100,000-vertex path
     costs 2.9 us per level with 256-thread blocks, 3.1 with 512 and 3.6 with 1024
     (each grid.sync and __syncthreads waits for more warps), and the 1M-vertex 3D
     grid is fastest with 256 too. Frontier items are dealt to the blocks a warp's
     worth (32) at a time, so a frontier of a few thousand spreads over every SM;
  3. beyond that, one kernel per level.
Frontier sizes stay on the device. Layers 1 and 2 run until the frontier leaves their
range or the BFS ends, then the host reads one 8-word status (level, frontier size,
vertices enqueued) and picks the next layer: one read per switch, not per level.
Layer 3 is launched levels_per_check levels ahead; a level whose frontier left its
range turns the rest of that batch into empty launches. Going down a layer waits
until the frontier is half the lower layer's threshold, so a frontier hovering at a
threshold does not switch every level.

Visited test: a bitmask with atomicOr, so each vertex is enqueued exactly once and
vertices_enqueued equals the vertices reached (pieces, with splitting).

Node splitting (section 4): the paper turned high-degree vertices into several nodes
so its preallocated queues stayed small and the per-thread work even. Here, with
split_degree > 0, prepare() cuts each adjacency list into pieces of at most
split_degree edges; a discovered vertex enqueues all its pieces and one thread walks
each piece. Distances are unchanged (pieces are work items, not new vertices). Off by
default, as the paper used it for irregular graphs only: on an H200 it makes the 1M
scale-free graph 6x faster (split_degree=32) and the regular 3D grid 14-23% slower
(one more indirection per item). configs/experiments/luo.yaml runs Table 3's
scale-free graphs the paper's way (split_degree 8: pieces no longer than the regular
part's degree), the cut being prepare() work (timed apart, once per graph), and keeps
the unsplit run as a labelled variant.

Knobs:
  mode                auto (the paper's arrangement) or block / cooperative / level to
                      force one layer for the whole traversal.
  block_threshold     largest frontier layer 1 handles (default 1024).
  grid_threshold      largest frontier layer 2 handles; 0 = the cooperative grid's
                      thread count.
  grid_blocks_per_sm  blocks per SM in the cooperative grid (paper: one per SM), capped
                      by occupancy.
  grid_block_size     threads per block of the cooperative grid (paper: 512, the most;
                      here 256, measured faster).
  levels_per_check    layer-3 levels launched per status read.
  split_degree        0 = no splitting; else the most edges one thread walks.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import (
    INT32_MAX,
    SLOT,
    ArgTemplate,
    blocks_for,
    i32,
    require_int32_ids,
    resident_blocks,
    sm_count,
)
from gpubfs_cli.gpu.modules import header_constants, load_module
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("luo.cu")
_C = header_constants(KERNELS)  # block sizes and status words, as the kernels define them
MODES = ("auto", "block", "cooperative", "level")
BLOCK_THREADS = _C["BLOCK_THREADS"]
GRID_THREADS = _C["GRID_THREADS"]  # the largest grid_block_size
LEVEL_THREADS = _C["LEVEL_THREADS"]
ST_LEVEL, ST_ENQ = _C["ST_LEVEL"], _C["ST_ENQ"]
_NAMES = tuple(f"luo_{k}<{s}>" for k in ("init", "block", "level") for s in ("false", "true"))
_COOP_NAMES = ("luo_grid<false>", "luo_grid<true>")


@dataclasses.dataclass(frozen=True)
class LuoKnobs:
    mode: str = "auto"
    block_threshold: int = knob(1024, 1)
    grid_threshold: int = knob(0, 0)
    grid_blocks_per_sm: int = knob(1, 1)
    grid_block_size: int = knob(256, 32, GRID_THREADS)
    levels_per_check: int = knob(8, 1)
    split_degree: int = knob(0, 0, means="0: no splitting")

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        if self.block_threshold < 1 or self.grid_threshold < 0:
            raise ValueError("block_threshold must be >= 1 and grid_threshold >= 0")
        if self.grid_blocks_per_sm < 1 or self.levels_per_check < 1:
            raise ValueError("grid_blocks_per_sm and levels_per_check must be >= 1")
        if self.grid_block_size % 32 or not 32 <= self.grid_block_size <= GRID_THREADS:
            raise ValueError(f"grid_block_size must be a multiple of 32 in [32, {GRID_THREADS}]")
        if self.split_degree < 0:
            raise ValueError("split_degree must be >= 0 (0 = no splitting)")


@register
class LuoHierarchical(GpuStrategy):
    name = "luo.hierarchical"
    caveats = (
        "the warp, not 8-thread groups, is the collision-free W-frontier unit: a warp prefix sum and one reservation per warp",
        "the B-frontier has a fixed capacity; a batch that does not fit goes straight to the G-frontier, so any degree works",
        "layer 2 is a cooperative grid (grid.sync) of 256-thread blocks, not a hand-made inter-block barrier of 512-thread blocks",
        "frontier sizes stay on the device: one host read per layer switch, not per level",
    )
    paper = "luo"
    section = "Luo, Wong, Hwu, DAC 2010, sections 3.2-3.3 (UIUC-BFS) and section 4 (node splitting)"
    summary = "thread per frontier vertex; warp/block/grid queues; one-block, grid-barrier, per-level kernels"
    Knobs = LuoKnobs

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cupy()
        n = graph.n
        k = self.knobs
        self.split = k.split_degree > 0
        for name in ("piece_begin", "piece_owner", "vpiece"):
            self.keep(name, None)
        items = n
        if self.split:
            items = self._split_pieces(cp, k.split_degree)
        self.words = (n + 31) // 32
        self.buffer("dist", n, cp.int32)
        self.buffer("parent", n, cp.int32)
        self.buffer("visited", max(self.words, 1), cp.uint32)
        # Zero-filled: the kernels prefetch a queue slot before they know the frontier
        # size, so every slot must hold a valid item id.
        self.qcap = max(items, 1)
        self.buffer("queues", (2, self.qcap), cp.int32, fill=0)
        self.buffer("state", _C["ST_WORDS"], cp.int32, fill=0)

        tag = "true" if self.split else "false"
        module = load_module(KERNELS, name_expressions=_NAMES, device=self.device)
        self.k_init = module.get_function(f"luo_init<{tag}>")
        self.k_block = module.get_function(f"luo_block<{tag}>")
        self.k_level = module.get_function(f"luo_level<{tag}>")
        coop = load_module(KERNELS, cooperative=True, name_expressions=_COOP_NAMES, device=self.device)
        self.k_grid = coop.get_function(f"luo_grid<{tag}>")
        fit = resident_blocks(self.k_grid, k.grid_block_size, device=self.device)
        if fit < 1:
            raise StrategyUnavailable("luo.hierarchical: the cooperative kernel does not fit on an SM")
        self.grid_blocks = min(fit, sm_count(self.device) * k.grid_blocks_per_sm)
        self.level_blocks = max(1, resident_blocks(self.k_level, LEVEL_THREADS, device=self.device))
        self.t_block = k.block_threshold
        self.t_grid = k.grid_threshold or self.grid_blocks * k.grid_block_size
        self.pinned("status", _C["ST_WORDS"], np.int32)
        self.init_grid = (blocks_for(max(n, self.words, self._max_source_items()), 256, device=self.device),)
        self.derived("args", {pred: self._arg_templates(pred) for pred in (False, True)})

    def _arg_templates(self, predecessors: bool) -> dict[str, ArgTemplate]:
        """Each kernel's arguments; SLOTs: init (source), block (level), cooperative
        (level), level (level, epoch). A forced mode runs its layer to the end."""
        dg = self.dgraph
        q0, q1 = self.queues
        g = (dg.row_offsets, dg.col_indices, self.piece_begin, self.piece_owner, self.vpiece,
             self.dist, self.parent if predecessors else None, self.visited)
        forced = self.knobs.mode != "auto"
        top = i32(INT32_MAX)
        block_hi = top if forced else i32(self.t_block)
        grid_lo, grid_hi = (i32(0), top) if forced else (i32(self.t_block // 2), i32(self.t_grid))
        level_lo = i32(0) if forced else i32(self.t_grid // 2)
        qcap = i32(self.qcap)
        return {
            "init": ArgTemplate(*g, i32(self.graph.n), SLOT, i32(self.words), q0, self.state),
            "block": ArgTemplate(*g, SLOT, block_hi, q0, q1, self.state),
            "cooperative": ArgTemplate(*g, SLOT, grid_lo, grid_hi, qcap, q0, q1, self.state),
            "level": ArgTemplate(*g, SLOT, level_lo, top, SLOT, qcap, q0, q1, self.state),
        }  # fmt: skip

    def _max_source_items(self) -> int:
        """The most work items a source can have (its pieces), for the init grid."""
        if not self.split:
            return 1
        degrees = self.graph.out_degrees()
        return max(1, -(-int(degrees.max(initial=0)) // self.knobs.split_degree))

    def _split_pieces(self, cp, split: int) -> int:
        """Pieces of at most `split` edges per vertex (one empty piece for degree 0)."""
        ro = self.dgraph.row_offsets
        deg = ro[1:] - ro[:-1]
        npieces = cp.maximum((deg + split - 1) // split, 1)
        vpiece = cp.zeros(self.graph.n + 1, dtype=cp.int64)
        cp.cumsum(npieces, out=vpiece[1:])
        total = int(vpiece[-1])
        if total >= INT32_MAX:
            raise StrategyUnavailable("luo.hierarchical: too many pieces for int32 queues")
        pid = cp.arange(total, dtype=cp.int64)
        owner = cp.searchsorted(vpiece, pid, side="right") - 1
        begin = cp.empty(total + 1, dtype=cp.int64)
        begin[:total] = ro[owner] + (pid - vpiece[owner]) * split
        begin[total] = self.graph.m
        self.keep("piece_begin", begin)
        self.keep("piece_owner", owner.astype(cp.int32))
        self.keep("vpiece", vpiece.astype(cp.int32))
        return total

    def _source_items(self, source: int) -> int:
        if not self.split:
            return 1
        ro = self.graph.row_offsets
        deg = int(ro[source + 1] - ro[source])
        return max(1, -(-deg // self.knobs.split_degree))

    def _layer(self, size: int) -> str:
        if self.knobs.mode != "auto":
            return self.knobs.mode
        if size <= self.t_block:
            return "block"
        if size <= self.t_grid:
            return "cooperative"
        return "level"

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        k = self.knobs
        args = self.args[predecessors]
        size = self._source_items(source)
        self.k_init(self.init_grid, (256,), args["init"](i32(source)))
        launches, switches, epoch, level, enqueued = 1, 0, 0, 0, size
        per_layer = {"block": 0, "cooperative": 0, "level": 0}
        while size > 0:
            layer = self._layer(size)
            if layer == "block":
                self.k_block((1,), (BLOCK_THREADS,), args["block"](i32(level)))
                launches += 1
            elif layer == "cooperative":
                self.k_grid((self.grid_blocks,), (k.grid_block_size,), args["cooperative"](i32(level)))
                launches += 1
            else:
                for i in range(k.levels_per_check):
                    self.k_level((self.level_blocks,), (LEVEL_THREADS,),
                                 args["level"](i32(level + i), i32(epoch)))
                launches += k.levels_per_check
                epoch += 1
            status = self.read_back(self.state, self.status)  # one small read per layer switch
            switches += 1
            new_level = int(status[ST_LEVEL])
            if new_level <= level:
                raise RuntimeError(f"luo.hierarchical made no progress at level {level} ({layer})")
            per_layer[layer] += new_level - level
            level = new_level
            size = int(status[level % 3])
            enqueued = int(status[ST_ENQ])
        return Answer(
            distances=self.dist,
            parents=self.parent if predecessors else None,
            counters={
                "levels": level,
                "kernel_launches": launches,
                "vertices_enqueued": enqueued,
                "status_reads": switches,
                "levels_block": per_layer["block"],
                "levels_cooperative": per_layer["cooperative"],
                "levels_per_kernel": per_layer["level"],
            },
        )
