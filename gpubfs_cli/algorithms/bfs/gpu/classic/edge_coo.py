"""classic.edge_coo: edge-parallel BFS over a COO copy of the graph, the "Edge Parall." column
of BFS-4K's Table 2 (its references [7], [8]; BFS-4K section 2 describes it).

prepare() builds the source array of a COO edge list on the device (the destination
array is the CSR's col_indices, shared with the device graph, so only the sources are
extra memory: 4 bytes per directed edge, reported by prepared_bytes()). Each level
launches one thread per edge over all edges: an edge whose source has distance equal
to the level and whose destination is unvisited sets the destination's distance.
The work is perfectly balanced whatever the degrees, at the price of inspecting all
m edges on every level: O(m * levels).

Adapted: as in classic.vwarp, the host launches `levels_per_check` levels ahead and
reads back, once per batch, the last level that received a vertex (a kernel whose
previous level found nothing returns at once); the original read a flag per level.
Threads loop grid-stride (at most 32 blocks per SM).

Knobs:
  block_size        threads per block (multiple of 32).
  levels_per_check  levels launched between two host reads of the done word.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.classic.levels import classic_module, run_batched_levels
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import SLOT, ArgTemplate, blocks_for, i32, i64, require_int32_ids
from gpubfs_cli.graph.csr import CSRGraph


@dataclasses.dataclass(frozen=True)
class EdgeParallelKnobs:
    block_size: int = knob(256, 32, 1024)
    levels_per_check: int = knob(8, 1)

    def __post_init__(self):
        if self.block_size % 32 or not 32 <= self.block_size <= 1024:
            raise ValueError("block_size must be a multiple of 32 in [32, 1024]")
        if self.levels_per_check < 1:
            raise ValueError("levels_per_check must be >= 1")


@register
class EdgeParallelBfs(GpuStrategy):
    name = "classic.edge_coo"
    caveats = (
        "levels are launched levels_per_check at a time with one read of a done word per batch, not a flag per level",
        "the COO source array costs 4 bytes per directed edge (prepare memory)",
    )
    paper = "classic"
    section = "Edge-parallel BFS over COO (BFS-4K section 2, refs [7], [8]; Table 2 'Edge Parall.')"
    summary = "one thread per edge over all edges each level (COO copy built in prepare)"
    Knobs = EdgeParallelKnobs

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cupy()
        n, m = graph.n, graph.m
        module = classic_module(self.device)
        self.k_init = module.get_function("classic_init")
        self.k_level = module.get_function("edge_level")
        self.buffer("src", m, cp.int32)
        if m:
            module.get_function("coo_rows")((blocks_for(m, 256, device=self.device),), (256,),
                                            (i32(n), i64(m), self.dgraph.row_offsets, self.src))
        self.buffer("dist", n, cp.int32)
        self.buffer("parent", n, cp.int32)
        self.buffer("state", 1, cp.int32, fill=0)
        self.pinned("state_host", 1, np.int32)
        k = self.knobs
        self.init_grid = (blocks_for(n, 256, device=self.device),)
        self.grid = (blocks_for(m, k.block_size, device=self.device),)
        args = {}
        for pred in (False, True):  # init(source), level(level)
            parent = self.parent if pred else None
            args[pred] = (
                ArgTemplate(i32(n), SLOT, self.dist, parent, self.state),
                ArgTemplate(i64(m), SLOT, self.src, self.dgraph.col_indices, self.dist, parent, self.state),
            )  # fmt: skip
        self.derived("args", args)

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        m = self.graph.m
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
            counters={"levels": levels, "kernel_launches": launches + 1,
                      "edges_inspected": m * levels},
        )
