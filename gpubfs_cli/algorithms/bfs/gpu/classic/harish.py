"""harish: IIIT-BFS, Harish & Narayanan (HiPC 2007), the baseline of Luo et al. (DAC
2010, section 2 and Tables 1-3) and BFS-4K's Table 2 "Harish" column.

One thread per vertex; every level inspects every vertex. Three boolean masks
(frontier, visited, updating) and two kernels per level: kernel 1 expands the
vertices whose frontier flag is set and marks unvisited neighbours as updating;
kernel 2 turns the updating vertices into the next frontier and raises a flag. The
host reads the flag after every level and stops when it stayed down. That host
round trip per level is the algorithm (its O(V*L + E) work and per-level latency
are what Luo's paper measures against), so it is kept.

Adapted: distances are written as level + 1 (the original computed cost[v] + 1, the
same value); parents are recorded on request (any frontier neighbour is valid).

Knobs:
  block_size  threads per block (the original code used 512, the GTX 280's maximum).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.classic.levels import classic_module
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import SLOT, ArgTemplate, i32, require_int32_ids
from gpubfs_cli.graph.csr import CSRGraph


@dataclasses.dataclass(frozen=True)
class HarishKnobs:
    block_size: int = knob(512, 32, 1024)

    def __post_init__(self):
        if self.block_size % 32 or not 32 <= self.block_size <= 1024:
            raise ValueError("block_size must be a multiple of 32 in [32, 1024]")


@register
class HarishBfs(GpuStrategy):
    name = "classic.harish"
    caveats = (
        "the per-level host read of the done flag is kept: it is what Luo et al. measure against",
    )
    paper = "classic"
    section = "Harish & Narayanan, HiPC 2007 (IIIT-BFS), as described in Luo et al. DAC 2010, section 2"
    summary = "one thread per vertex, every vertex every level, host-checked done flag"
    Knobs = HarishKnobs

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cupy()
        n = graph.n
        self.buffer("dist", n, cp.int32)
        self.buffer("parent", n, cp.int32)
        self.buffer("masks", (3, n), cp.uint8)  # frontier, visited, updating
        self.buffer("changed", 1, cp.int32, fill=0)
        self.pinned("changed_host", 1, np.int32)
        module = classic_module(self.device)
        self.k_init = module.get_function("harish_init")
        self.k_expand = module.get_function("harish_expand")
        self.k_commit = module.get_function("harish_commit")
        block = self.knobs.block_size
        self.grid, self.block = (-(-n // block),), (block,)
        frontier, visited, updating = self.masks
        dg = self.dgraph
        args = {}
        for pred in (False, True):  # init(source), expand(level), commit
            parent = self.parent if pred else None
            args[pred] = (
                ArgTemplate(i32(n), SLOT, self.dist, parent, frontier, visited, updating),
                ArgTemplate(i32(n), SLOT, dg.row_offsets, dg.col_indices, self.dist, parent,
                            frontier, visited, updating, self.changed),
                (i32(n), frontier, visited, updating, self.changed),
            )  # fmt: skip
        self.derived("args", args)

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        grid, block = self.grid, self.block
        init, expand, commit = self.args[predecessors]
        self.k_init(grid, block, init(i32(source)))
        launches = 1
        level = 0
        while True:
            self.k_expand(grid, block, expand(i32(level)))
            self.k_commit(grid, block, commit)
            launches += 2
            level += 1
            if not self.read_back(self.changed, self.changed_host)[0]:  # the per-level host round trip
                break
        return Answer(
            distances=self.dist,
            parents=self.parent if predecessors else None,
            counters={"levels": level, "kernel_launches": launches},
        )
