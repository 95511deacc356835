"""What the region-local strategies (regions.bfs, sssp.regions) share on the host: the
queue of regions's constants, counters and ring size (gpu/include/region_queue.cuh), their
common knobs, prepare()'s uploads, the base class that holds the queue and launches a
traversal, and the answer."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import check_launch, knob
from gpubfs_cli.core.strategy import StrategyUnavailable
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import persistent_grid, require_int32_ids
from gpubfs_cli.gpu.modules import INCLUDE_DIR, header_constants
from gpubfs_cli.graph.build import reverse_csr
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.regions import Regions, regions, relabelled

QUEUE_HEADER = INCLUDE_DIR / "region_queue.cuh"
Q = header_constants(QUEUE_HEADER)
EMPTY = Q["RQ_EMPTY"]
CTL_WORDS = Q["RQ_CTL_WORDS"]
# The counters both kernels keep in ctl[] (the answer's counter: its word).
QUEUE_COUNTERS = {"runs": Q["RQ_RUNS"], "steps": Q["RQ_STEPS"], "pushes": Q["RQ_PUSHES"],
                  "deferred": Q["RQ_DEFERRED"], "copied": Q["RQ_COPIED"], "absorbed": Q["RQ_ABSORBED"]}


def ring_entries(regions_count: int, threads: int) -> int:
    """The ring's entries: a power of two above every region queued at once (one each)
    plus a ticket for every thread that may be pushing (region_queue.cuh, push_region)."""
    need = 2 * (regions_count + threads) + 1
    return 1 << (need - 1).bit_length()


CTA_SIZES = (128, 256, 512, 1024)
INT32_MAX = 2**31 - 1  # the kernels' edge offsets (and sssp.regions's weights) are int


@dataclass(frozen=True)
class RegionKnobs:
    """The knobs both region-local strategies take (each sets region_size's bounds: its
    kernel's RG/RS_REGION_CAP). absorb 1: a run takes the marks that come for its region
    while it runs, between its steps and before it ends, so a region is run by one CTA at
    a time and a shorter label reaching a region being run costs no second run; with 0
    the mark queues the region again and another CTA may run it at the same time
    (gpu/include/region_queue.cuh)."""

    region_size: int = knob(1024, 32, 1024)
    cta_size: int = knob(256, among=CTA_SIZES)
    blocks_per_sm: int = knob(0, 0, means="0: as many as fit")
    flush_steps: int = knob(8, 1, 2**31 - 1)
    absorb: int = knob(0, among=(0, 1), means="1: a run takes the marks that come while it runs")
    seed: int = knob(0, 0, 2**32 - 1)

    def __post_init__(self) -> None:
        check_launch(self.cta_size, CTA_SIZES, self.blocks_per_sm)
        if self.region_size % 32:
            raise ValueError(f"region_size must be a multiple of 32, not {self.region_size!r}")


def require_regions(name: str, graph: CSRGraph) -> None:
    """What the region-local kernels need of a graph (before anything is uploaded): 32-bit
    ids and edge offsets."""
    require_int32_ids(graph, name)
    if graph.m > INT32_MAX:
        raise StrategyUnavailable(f"{name} needs fewer than 2^31 edges (32-bit edge offsets)")


def upload_regions(strategy, graph: CSRGraph, weights: np.ndarray | None = None) -> tuple[Regions, dict]:
    """prepare()'s host side for a region-local kernel (after require_regions): the
    graph's regions (knobs region_size, seed), and on the device the CSR in region order
    (_row, _col, with weights _w), the in-edges for parents (_in_row, _in_col, _in_w: the
    same arrays on an undirected graph) and the regions (_roff, _vreg, _perm)."""
    cp = strategy.cupy()
    k = strategy.knobs
    parts = strategy.derived("_parts", regions(graph, int(k.region_size), int(k.seed)))
    row_h, col_h = np.asarray(graph.row_offsets), np.asarray(graph.col_indices)
    out = relabelled(row_h, col_h, parts, weights)
    names = ("_row", "_col", "_w")[:len(out)]
    up = {name: strategy.keep(name, cp.asarray(a)) for name, a in (
        *zip(names, out, strict=True), ("_roff", parts.offsets), ("_vreg", parts.region), ("_perm", parts.perm))}
    in_names = ("_in_row", "_in_col", "_in_w")[:len(out)]
    if not graph.directed:  # its own transpose
        up.update(zip(in_names, (up[name] for name in names), strict=True))
        return parts, up
    # parents are in-neighbours: the transpose (on the host), renumbered too
    t = reverse_csr(graph, weights=weights is not None)
    t_w = None if weights is None else np.asarray(t.weights).astype(weights.dtype)
    ins = relabelled(np.asarray(t.row_offsets), np.asarray(t.col_indices), parts, t_w)
    up.update({name: strategy.keep(name, cp.asarray(a)) for name, a in zip(in_names, ins, strict=True)})
    return parts, up


class RegionStrategy(GpuStrategy):
    """A region-local strategy after its uploads: prepare() calls queue() and derives
    `_args` (a function of (predecessors, the source's new id)) and `_views` (the
    counters of the kernel without and with parents); traverse() is one launch."""

    def queue(self, module, names: tuple[str, str], parts: Regions, ctl_words: int) -> dict:
        """The kernels (without and with parents) and the persistent grid, kept, and the
        queue's buffers (ring, dirty, active, ctl)."""
        cp = self.cupy()
        k = self.knobs
        self._kernels = {p: module.get_function(names[p]) for p in (False, True)}
        self._grid = persistent_grid(self.name, self._kernels.values(), int(k.cta_size), k.blocks_per_sm,
                                     self.device)
        n_new = parts.n_new
        return {"ring": self.buffer("_ring", ring_entries(parts.count, self._grid * int(k.cta_size)), cp.int32,
                                    fill=EMPTY),
                "dirty": self.buffer("_dirty", max((n_new + 31) // 32, 1), cp.uint32),
                "active": self.buffer("_active", max(parts.count, 1), cp.int32),
                "ctl": self.buffer("_ctl", ctl_words, cp.uint32, fill=0)}

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        if not 0 <= source < n:
            raise ValueError(f"source {source} out of range [0, {n})")
        src = int(self._parts.rank[source])
        self._kernels[predecessors]((self._grid,), (int(self.knobs.cta_size),), self._args(predecessors, src))
        return RegionAnswer(self._dist, self._parent if predecessors else None, dict(self._views[predecessors]))


@dataclass
class RegionAnswer(Answer):
    """The counters are device scalars until to_host(), after the timer."""

    def to_host(self) -> Answer:
        host = super().to_host()
        for key, value in host.counters.items():
            if getattr(value, "shape", None) == ():
                host.counters[key] = int(value)
        return host
