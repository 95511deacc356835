"""classic.vwarp: static virtual warps, Hong, Kim, Oguntebi, Olukotun (PPoPP 2011), as
BFS-4K (Busato & Bombieri) section 2 describes it and its Table 2 ("Static Virtual
Warp", best W per graph) measures it.

A virtual warp of W lanes is assigned to each vertex, over all vertices every
level; a vertex whose distance equals the level is in the frontier, and its W lanes
stride over its adjacency list (coalesced reads of W neighbours at a time). Small W
suits low-degree graphs, large W high-degree ones: W is static and chosen per graph.

Default W = 4. In BFS-4K's Table 2 the best W is 1 on 8 of the 18 graphs, 4 on 6,
2 on 2, and 16 and 32 on one each. W = 1 is Harish's one-thread-per-vertex mapping
(the `classic.harish` strategy covers it, and W=1 stays available here), so the default is
the most common width above one, W = 4, which is also BFS-4K's own minimum warp
size K1.

Adapted: the original checked a host "finished" flag after every level. Here the
kernel for level L returns at once when level L - 1 found nothing (a device word
records the last level that received a vertex), so the host launches
`levels_per_check` levels ahead and reads that word once per batch; at most
levels_per_check - 1 empty launches follow the last level. The grid loops
grid-stride (at most 32 blocks per SM) instead of one block per n*W/block_size.

Knobs:
  W                 virtual warp width: 1, 2, 4, 8, 16 or 32 lanes per vertex.
  block_size        threads per block (multiple of 32).
  levels_per_check  levels launched between two host reads of the done word (1 = the
                    original per-level check).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.classic.levels import (
    VWARP_WIDTHS,
    classic_module,
    run_batched_levels,
)
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import SLOT, ArgTemplate, blocks_for, i32, require_int32_ids
from gpubfs_cli.graph.csr import CSRGraph


@dataclasses.dataclass(frozen=True)
class VirtualWarpKnobs:
    W: int = knob(4, among=VWARP_WIDTHS)
    block_size: int = knob(256, 32, 1024)
    levels_per_check: int = knob(8, 1)

    def __post_init__(self):
        if self.W not in VWARP_WIDTHS:
            raise ValueError(f"W must be one of {', '.join(map(str, VWARP_WIDTHS))}")
        if self.block_size % 32 or not 32 <= self.block_size <= 1024:
            raise ValueError("block_size must be a multiple of 32 in [32, 1024]")
        if self.levels_per_check < 1:
            raise ValueError("levels_per_check must be >= 1")

@register
class VirtualWarpBfs(GpuStrategy):
    name = "classic.vwarp"
    caveats = (
        "levels are launched levels_per_check at a time with one read of a done word per batch, not a flag per level",
        "W is static and chosen per graph (default 4): sweep W for the paper's best-W column",
    )
    paper = "classic"
    section = "Hong et al. PPoPP 2011 (static virtual warps), as in BFS-4K section 2 and Table 2"
    summary = "W lanes per vertex over all vertices each level (static virtual warp)"
    Knobs = VirtualWarpKnobs

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cupy()
        self.buffer("dist", graph.n, cp.int32)
        self.buffer("parent", graph.n, cp.int32)
        self.buffer("state", 1, cp.int32, fill=0)
        self.pinned("state_host", 1, np.int32)
        module = classic_module(self.device)
        self.k_init = module.get_function("classic_init")
        self.k_level = module.get_function(f"vwarp_level<{self.knobs.W}>")
        n, k, dg = graph.n, self.knobs, self.dgraph
        self.init_grid = (blocks_for(n, 256, device=self.device),)
        self.grid = (blocks_for(n * k.W, k.block_size, device=self.device),)
        args = {}
        for pred in (False, True):  # init(source), level(level)
            parent = self.parent if pred else None
            args[pred] = (
                ArgTemplate(i32(n), SLOT, self.dist, parent, self.state),
                ArgTemplate(i32(n), SLOT, dg.row_offsets, dg.col_indices, self.dist, parent, self.state),
            )  # fmt: skip
        self.derived("args", args)

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        k = self.knobs
        init, level_args = self.args[predecessors]
        self.k_init(self.init_grid, (256,), init(i32(source)))
        grid, block = self.grid, (k.block_size,)

        def launch(level: int) -> None:
            self.k_level(grid, block, level_args(i32(level)))

        levels, launches = run_batched_levels(launch, self, k.levels_per_check)
        return Answer(
            distances=self.dist,
            parents=self.parent if predecessors else None,
            counters={"levels": levels, "kernel_launches": launches + 1},
        )
