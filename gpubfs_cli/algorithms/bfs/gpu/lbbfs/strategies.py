"""Zhu et al., "Load-Balanced Breadth-First Search on GPUs" (Springer, 2014, pp. 435-447),
sections 3-4.

Each BFS level is two phases: work redistribution (the frontier's neighbour lists,
flattened by an *expand*: output j of the level goes to the frontier vertex whose
degree prefix sum brackets j, computed as a merge path of the prefix sums against
0, 1, 2, ... and cut into equal parts per CTA, then per thread: section 3) and
neighbour gathering (read the neighbour, look it up in the visited bitmask, enqueue it).
Four couplings of the two (section 4), one kernel file (lbbfs.cu; lbbfs.cuh holds the
constants; the merge-path search lives in gpu/include/mergepath.cuh):

- ``lbbfs.perfect`` (4.1, perfect balance + global data movement): tiles of TILE
  merge-path steps expand into a global array of column positions; then tiles of TILE
  positions gather. Both phases perfectly balanced; the array is written and read back.
- ``lbbfs.balanced_gather`` (4.2, imbalanced redistribution + balanced gathering): tile
  t owns outputs [t*TILE, (t+1)*TILE) (the merge path cut vertically: two upper-bound
  searches of the prefix sums); its CTA expands however many vertices that takes, then
  gathers exactly TILE neighbours, in the same kernel.
- ``lbbfs.balanced_redistribution`` (4.3, balanced redistribution + imbalanced
  gathering): tile t owns diagonals [t*TILE, (t+1)*TILE) of the merge path, then gathers
  the 0..TILE neighbours it produced.
- ``lbbfs.hybrid`` (4.4): per level, the expand factor output_total / input_total
  against ``f0``: balanced redistribution when it is at least f0, else balanced
  gathering. f0 = 0 runs every level as balanced redistribution, a huge f0 (or inf)
  every level as balanced gathering. The paper says "larger than f0"; ">=" only differs
  on a level whose factor is exactly f0, and makes f0 = 0 mean "always".

What changed for today's GPUs (GTX 580, CUDA 5.5 -> H100/H200):

- One persistent cooperative kernel per BFS: CTAs loop over tiles and meet at grid
  barriers (about 1.5 us), one per level (two for perfect, whose separate kernels become
  phases between barriers). Input and output totals stay on the device: no launch and
  no host read-back per level (the paper's host loop read the totals every iteration,
  some 25 us per level today: seconds on a 100,000-level path).
- The prefix sum of the frontier's degrees is not a separate pass. Gathering enqueues
  its winners with one packed 64-bit atomicAdd per tile, (count << shift) | degree sum,
  which returns the tile's queue position and the degree total enqueued before it; a
  block scan of the same packed words places each winner. So the queue comes out
  holding, per vertex, its prefix sum s and b = row_offset - s (output j of vertex i is
  column index b[i] + j), and the level's queue word holds input_total and
  output_total. Work the paper counted as redistribution (degrees, scan) thus sits in
  the previous level's gathering; redistribution keeps the coarse and fine merge-path
  partitions and the expand.
- Coarse partition: each CTA of the persistent grid takes a contiguous run of tiles,
  so a tile starts where the previous one ended, and the CTA finds the tile's end (the
  binary search of its diagonal, or of its vertical cut) cooperatively: its threads
  test spread pivots at once, a few rounds of one parallel L2 load where one thread's
  binary search would chain some 20 dependent loads per tile on a large frontier.
  Fine partition as in the paper: each thread searches its equal share of the tile's
  path in shared memory and runs the sequential expand.
- Status lookup: the bitmask word is read from L2 (__ldcg) and a clear bit is claimed
  with atomicOr, so every vertex is enqueued exactly once (the paper's bitmap lookup does
  not say how duplicates were handled; exact claims bound the queues by n and make
  input_total the true frontier). On a level with at most one output per thread of the
  grid (latency-bound: paths, lattices) the claim goes out without the read and the
  winner's row offsets are fetched alongside it. Predecessors: the vertex an output was
  expanded from.
- Balanced gathering's vertical tiles may span any number of zero-degree vertices (a
  directed graph's sinks): the CTA stages its vertices TILE + 1 at a time in shared
  memory and gathers per chunk, so only such tiles lose balance.
- Edge offsets and prefix sums are 32-bit when n + m < 2^31, else 64-bit (one build of
  each).

Knobs:

- ``tile_size``: TILE_SIZE, merge-path steps (4.1 expand, 4.3) or outputs (4.1
  gather, 4.2) per CTA tile; ``cta_size``: CTA_SIZE, threads per CTA. Each thread
  gathers TILE_SIZE / CTA_SIZE neighbours per tile. The paper gives no values; 1024 and
  256 by default (a thread keeps 4 gathers in flight; 11 to 23 KB of shared memory per
  CTA, 45 KB at most with tiles of 2048). CTAs are capped at 64 registers per thread
  (1024 threads per SM, as merrill.cu); that spills a few words to L1 (about 100 bytes
  per thread in the default build; 80 registers would spill none at 768 threads).
- ``blocks_per_sm``: CTAs per SM of the persistent grid (0 = as many as fit).
- ``f0`` (hybrid only): the expand-factor threshold, 10 as in section 5.1.
- ``profile``: thread 0 of each CTA stamps %globaltimer at phase boundaries; counters
  ``redistribution_ns`` and ``gathering_ns`` are then the CTAs' busy time in each
  phase, summed over the traversal and averaged over the CTAs (the wall-clock share
  when CTAs are balanced; barrier waits are in neither), and ``kernel_ns`` the
  kernel's wall time. Off: no stamp is taken (a null pointer test per tile).

Counters: ``levels``, ``kernel_launches`` (1), ``frontier_vertices`` and
``frontier_edges`` per level (input_total, output_total), ``vertices_enqueued`` and
``edges_expanded`` (their sums), and for the hybrid ``levels_balanced_gather`` and
``levels_balanced_redistribution``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from gpubfs_cli.core.answer import Answer, to_host
from gpubfs_cli.core.device import Device
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.gpu.launch import (
    INT32_MAX,
    SLOT,
    ArgTemplate,
    i32,
    persistent_grid,
    require_int32_ids,
)
from gpubfs_cli.gpu.modules import header_constants, instantiation, load_module
from gpubfs_cli.graph.csr import CSRGraph

KERNELS = Path(__file__).with_name("lbbfs.cu")
C = header_constants(Path(__file__).with_name("lbbfs.cuh"))  # defined once, in the header
CTA_SIZES = (128, 256, 512)
TILE_SIZES = (512, 1024, 2048)
STRATEGY = {"perfect": C["LB_PERFECT"], "balanced_gather": C["LB_BGATHER"],
            "balanced_redistribution": C["LB_BREDIST"], "hybrid": C["LB_HYBRID"]}  # fmt: skip
CTL_WORDS, CTL_LEVELS = C["CTL_WORDS"], C["CTL_LEVELS"]
CTL_BGATHER, CTL_BREDIST, CTL_PERFECT = C["CTL_BGATHER"], C["CTL_BREDIST"], C["CTL_PERFECT"]
PROF_WORDS = C["PROF_WORDS"]
PROF_REDIST, PROF_GATHER, PROF_START, PROF_END = (
    C["PROF_REDIST"], C["PROF_GATHER"], C["PROF_START"], C["PROF_END"])  # fmt: skip


def kernel_defines(cta_size: int, tile_size: int) -> dict[str, int]:
    """The -D defines of the build for CTAs of `cta_size` threads and tiles of
    `tile_size` (registers capped so that 1024 threads fit an SM)."""
    return {
        "LBBFS_CTA": cta_size,
        "LBBFS_TILE": tile_size,
        "LBBFS_MIN_BLOCKS": max(1, 1024 // cta_size),
    }


KERNEL_DEFINES = [kernel_defines(c, t) for c in CTA_SIZES for t in TILE_SIZES]  # every build


def kernel_name(wide: bool, predecessors: bool) -> str:
    return instantiation("lbbfs_bfs", "long long" if wide else "int", predecessors)


def compiled_module(cta_size: int, tile_size: int, device: Device | None = None):
    names = tuple(kernel_name(w, p) for w in (False, True) for p in (False, True))
    return load_module(KERNELS, defines=kernel_defines(cta_size, tile_size), cooperative=True,
                       name_expressions=names, device=device)  # fmt: skip


def wide_offsets(n: int, m: int, tile_size: int) -> bool:
    """64-bit edge offsets and prefix sums unless every merge-path coordinate (up to
    n + m, plus a tile of slack) fits in 32 bits."""
    return n + m + 2 * tile_size >= INT32_MAX


def packing_shift(n: int, m: int) -> int:
    """Bits of the degree sum in a packed queue word (count above them)."""
    shift = max(1, int(m).bit_length())
    if n >= 2 ** (64 - shift):
        raise ValueError(f"n = {n} and m = {m} do not fit one 64-bit queue word")
    return shift


@dataclass(frozen=True)
class LbbfsKnobs:
    tile_size: int = knob(1024, among=TILE_SIZES)
    cta_size: int = knob(256, among=CTA_SIZES)
    blocks_per_sm: int = knob(0, 0, means="0: as many as fit")
    profile: bool = False

    def __post_init__(self) -> None:
        if int(self.cta_size) not in CTA_SIZES:
            raise ValueError(f"cta_size must be one of {', '.join(map(str, CTA_SIZES))}")
        if int(self.tile_size) not in TILE_SIZES:
            raise ValueError(f"tile_size must be one of {', '.join(map(str, TILE_SIZES))}")
        if int(self.blocks_per_sm) < 0:
            raise ValueError("blocks_per_sm must be >= 0 (0 = as many as fit)")
        if not isinstance(self.profile, bool):
            raise ValueError("profile must be true or false")


@dataclass(frozen=True)
class HybridKnobs(LbbfsKnobs):
    f0: float = knob(10.0, 0, infinite=True, means="0: always balanced redistribution")

    def __post_init__(self) -> None:
        super().__post_init__()
        try:
            f0 = float(self.f0)
        except (TypeError, ValueError):
            raise ValueError(f"f0 must be a number >= 0, not {self.f0!r}") from None
        if not f0 >= 0:  # NaN too
            raise ValueError(
                f"f0 must be >= 0 (0 = always balanced redistribution), not {self.f0!r}"
            )


@dataclass
class LbbfsResult(Answer):
    """Answer whose counters are read from the device words in to_host(), after the
    runner has stopped its timer (traverse() reads nothing back)."""

    ctl: Any = None
    fv: Any = None
    fe: Any = None
    prof: Any = None
    grid: int = 1
    hybrid: bool = False

    def to_host(self) -> Answer:
        ctl = np.asarray(to_host(self.ctl), dtype=np.int64)
        levels = int(ctl[CTL_LEVELS])
        fv = np.asarray(to_host(self.fv[:levels]), dtype=np.int64)
        fe = np.asarray(to_host(self.fe[:levels]), dtype=np.int64)
        counters = dict(self.counters)
        counters.update({
            "levels": levels,
            "frontier_vertices": fv,
            "frontier_edges": fe,
            "vertices_enqueued": int(fv.sum()),
            "edges_expanded": int(fe.sum()),
        })  # fmt: skip
        if self.hybrid:
            counters["levels_balanced_gather"] = int(ctl[CTL_BGATHER])
            counters["levels_balanced_redistribution"] = int(ctl[CTL_BREDIST])
        if self.prof is not None:
            p = np.asarray(to_host(self.prof), dtype=np.uint64).astype(np.int64)
            counters["redistribution_ns"] = int(round(p[PROF_REDIST] / self.grid))
            counters["gathering_ns"] = int(round(p[PROF_GATHER] / self.grid))
            counters["kernel_ns"] = int(p[PROF_END] - p[PROF_START])
        return Answer(to_host(self.distances), to_host(self.parents), counters)


class _Lbbfs(GpuStrategy):
    paper = "lbbfs"
    caveats = (
        "one persistent cooperative kernel per BFS: totals stay on the device, no host read per level",
        "the degree prefix sum comes out of the previous level's gathering (packed 64-bit atomics), not a separate pass",
        "exact claims (atomicOr) enqueue every vertex once; the paper does not say how duplicates were handled",
        "tile and CTA sizes are not given by the paper: 1024 and 256 by default",
    )
    Knobs: ClassVar[type] = LbbfsKnobs
    code: ClassVar[int]

    def prepare(self, graph: CSRGraph) -> None:
        require_int32_ids(graph, self.name)
        super().prepare(graph)
        cp = self.cupy()
        k = self.knobs
        n, m = graph.n, graph.m
        self._cta, self._tile = int(k.cta_size), int(k.tile_size)
        try:
            self._shift = packing_shift(n, m)
        except ValueError as exc:
            raise StrategyUnavailable(f"{self.name}: {exc}") from None
        self._wide = wide_offsets(n, m, self._tile) or self.dgraph.row_offsets32 is None
        edge = cp.int64 if self._wide else cp.int32
        module = compiled_module(self._cta, self._tile, self.device)
        self._kernels = {p: module.get_function(kernel_name(self._wide, p)) for p in (False, True)}
        self._grid = {p: self._grid_size(kern) for p, kern in self._kernels.items()}
        self.buffer("_dist", n, cp.int32)
        self.buffer("_parent", n, cp.int32)
        self.buffer("_bitmask", max((n + 31) // 32, 1), cp.uint32)
        self.buffer("_qs", (2, n), edge)
        self.buffer("_qb", (2, n), edge)
        self.buffer("_qv", (2, n), cp.int32)
        perfect = self.code == STRATEGY["perfect"]
        self.buffer("_loc", max(m, 1) if perfect else 1, edge)
        self.buffer("_locpar", max(m, 1) if perfect else 1, cp.int32)
        self.buffer("_ctl", CTL_WORDS, cp.uint64, fill=0)
        self.buffer("_fv", n + 1, cp.int32)
        self.buffer("_fe", n + 1, cp.int64)
        self.buffer("_prof", PROF_WORDS, cp.uint64, fill=0)
        self.derived("_args", self._arg_template())

    def _arg_template(self) -> ArgTemplate:
        """The kernel's arguments (both builds take the same), the source a SLOT: the
        queue views are made once, here, not per traversal."""
        g = self.graph
        row = self.dgraph.row_offsets if self._wide else self.dgraph.row_offsets32
        return ArgTemplate(
            row, self.dgraph.col_indices, i32(g.n), SLOT, i32(self.code),
            np.float64(self._f0()), i32(self._shift), self._dist, self._parent, self._bitmask,
            self._qs[0], self._qs[1], self._qb[0], self._qb[1], self._qv[0], self._qv[1],
            self._loc, self._locpar, self._ctl, self._fv, self._fe,
            self._prof if self.knobs.profile else np.uint64(0),
        )  # fmt: skip

    def _grid_size(self, kernel) -> int:
        return persistent_grid(self.name, (kernel,), self._cta, self.knobs.blocks_per_sm, self.device)

    def _f0(self) -> float:
        return 0.0  # only the hybrid reads it

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        g = self.graph
        if not 0 <= source < g.n:
            raise ValueError(f"source {source} out of range [0, {g.n})")
        kernel = self._kernels[predecessors]
        grid = self._grid[predecessors]
        profile = bool(self.knobs.profile)
        kernel((grid,), (self._cta,), self._args(i32(source)))
        return LbbfsResult(
            distances=self._dist,
            parents=self._parent if predecessors else None,
            counters={"kernel_launches": 1},
            ctl=self._ctl, fv=self._fv, fe=self._fe, prof=self._prof if profile else None,
            grid=grid, hybrid=self.code == STRATEGY["hybrid"],
        )  # fmt: skip


@register
class Perfect(_Lbbfs):
    name = "lbbfs.perfect"
    section = (
        "Load-balanced BFS on GPUs, sections 3 and 4.1 (perfect balance + global data movement)"
    )
    summary = "merge-path expand into a global location array, then balanced gathering"
    code = STRATEGY["perfect"]


@register
class BalancedGather(_Lbbfs):
    name = "lbbfs.balanced_gather"
    section = "Load-balanced BFS on GPUs, sections 3 and 4.2 (imbalanced redistribution + balanced gathering)"
    summary = "tiles of TILE outputs: vertical merge-path cut, fused expand and gather"
    code = STRATEGY["balanced_gather"]


@register
class BalancedRedistribution(_Lbbfs):
    name = "lbbfs.balanced_redistribution"
    section = "Load-balanced BFS on GPUs, sections 3 and 4.3 (balanced redistribution + imbalanced gathering)"
    summary = "tiles of TILE merge-path steps: diagonal cut, fused expand and gather"
    code = STRATEGY["balanced_redistribution"]


@register
class Hybrid(_Lbbfs):
    name = "lbbfs.hybrid"
    section = "Load-balanced BFS on GPUs, section 4.4 (hybrid on the expand factor, f0 = 10 in 5.1)"
    summary = "per level: balanced redistribution when output/input >= f0, else balanced gathering"
    code = STRATEGY["hybrid"]
    Knobs = HybridKnobs

    def _f0(self) -> float:
        f0 = float(self.knobs.f0)
        return f0 if math.isfinite(f0) else 1e308
