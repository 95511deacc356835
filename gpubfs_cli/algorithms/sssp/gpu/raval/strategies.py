"""raval.bs, raval.ep, raval.wd, raval.ns, raval.hp for SSSP (the BFS classes in
algorithms/bfs/gpu/raval reuse these on unit weights): Raval, Nasre, Kumar, Vasudevan,
Vadhiyar, Pingali, "Dynamic Load Balancing Strategies for Graph Applications on GPUs".
base.py has the host loop, the SSSP/BFS relaxation, parents and phase timing they share.

- raval.bs (section II-A, IV "BS"): the LonestarGPU node-based baseline; one thread per
  worklist node walks its whole adjacency list.
- raval.ep (section II-B, Fig. 2; IV-D, Fig. 11): edge-based. prepare() builds the COO
  copy's source array on the device (4 bytes per edge, counter "coo_bytes"; the
  destination and weight arrays are the CSR's own, which are already in COO order). The
  worklist holds edge ids, dealt round-robin to as many threads as can be active (fewer
  blocks when the list is shorter than that, which changes no thread's share); a thread
  that lowers a distance pushes the destination's out-edges, `chunk_edges` per atomic.
  Memory: two edge worklists of m int32 plus the COO sources, 12 bytes per edge. A graph
  of 2^31 or more edges is unavailable (32-bit edge ids).
- raval.wd (section III-A, Fig. 4): workload decomposition. The worklist keeps each
  node's out-degree beside it; per round an inclusive scan of the degrees (cupy.cumsum
  into a prepared buffer: CUB), then find_offsets (each of T threads binary-searches its
  first edge in the scan), then the relaxation: each thread takes ceil(edges / T)
  consecutive edges, moving on to the next node's list as the paper's inner while does.
- raval.ns (section III-B): node splitting. MDT from the degree histogram
  (splitting.py); in prepare() each node of degree d > MDT becomes ceil(d / MDT) nodes
  of at most MDT edges (a parent and its children, edge ranges of the CSR: no edge is
  copied), built with cupy. In-edges stay on the parent; its distance is reflected onto
  its children: `propagation="atomic"` (default) as the paper describes, with one more
  atomicMin per child whenever the parent is lowered, inside the relaxation (so it counts
  as kernel time); `"pass"`, a separate kernel after each round copies each pushed
  parent's distance to its children and appends them (counted as overhead). The split
  itself is prepare() time, reported apart (the paper counted it in NS's overhead).
- raval.hp (section III-C): hierarchical processing. Each round (super-iteration) runs
  sub-iterations: one thread per entry relaxes at most MDT of its node's remaining edges
  (MDT from the same histogram), entries with edges left form the next sublist, until
  none is left. A list (the super worklist or a sublist) smaller than `wd_threshold`
  (the paper: the block size, 1024) is processed by WD instead, in one pass.

Knobs (all: block_size = 1024, the paper's block size; phase_timing, see base.py):
  raval.ep  chunk_edges   edges pushed per atomicAdd when a node's out-edges enter the
                          worklist: 0 = all of them with one atomic (the paper's work
                          chunking, default), 1 = one atomic per edge (Fig. 11's plain
                          EP), k = k edges per atomic.
  raval.wd  threads       T, the threads the edges are shared among: 0 = as many as can
                          be active on this GPU (default), else that many.
  raval.ns  histogram_bins  HistogramBinCount (10: what the paper's MDTs imply).
            mdt           0 = from the histogram (default); else this MDT.
            propagation   "atomic" (default) or "pass", as above.
  raval.hp  histogram_bins, mdt  as raval.ns.
            wd_threshold  lists with fewer entries go to WD (1024; 0 = never).
            threads       WD's T, as raval.wd.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from gpubfs_cli.algorithms.sssp.gpu.raval import base
from gpubfs_cli.algorithms.sssp.gpu.raval.base import (
    RavalKnobs,
    RavalStrategy,
    WorkloadDecomposition,
)
from gpubfs_cli.algorithms.sssp.gpu.raval.splitting import children_of, histogram_mdt, split_graph
from gpubfs_cli.core.knobs import knob
from gpubfs_cli.core.strategy import StrategyUnavailable, register
from gpubfs_cli.gpu.launch import INT32_MAX, i32, i64

PAPER = "Raval, Nasre, Kumar, Vasudevan, Vadhiyar, Pingali, Dynamic Load Balancing Strategies for Graph Applications on GPUs"
PROPAGATION = ("atomic", "pass")


def _check_count(name: str, value: int, low: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= INT32_MAX:
        raise ValueError(f"{name} must be a whole number in [{low}, {INT32_MAX}]")


@dataclasses.dataclass(frozen=True)
class EpKnobs(RavalKnobs):
    chunk_edges: int = knob(0, 0, INT32_MAX, means="0: all of a node's edges with one atomic")

    def __post_init__(self):
        super().__post_init__()
        _check_count("chunk_edges", self.chunk_edges, 0)


@dataclasses.dataclass(frozen=True)
class WdKnobs(RavalKnobs):
    threads: int = knob(0, 0, INT32_MAX, means="0: as many as can be active")

    def __post_init__(self):
        super().__post_init__()
        _check_count("threads", self.threads, 0)


@dataclasses.dataclass(frozen=True)
class NsKnobs(RavalKnobs):
    histogram_bins: int = knob(10, 1, INT32_MAX)
    mdt: int = knob(0, 0, INT32_MAX, means="0: from the histogram")
    propagation: str = "atomic"

    def __post_init__(self):
        super().__post_init__()
        _check_count("histogram_bins", self.histogram_bins, 1)
        _check_count("mdt", self.mdt, 0)
        if self.propagation not in PROPAGATION:
            raise ValueError(f"propagation must be one of {', '.join(PROPAGATION)}")


@dataclasses.dataclass(frozen=True)
class HpKnobs(RavalKnobs):
    histogram_bins: int = knob(10, 1, INT32_MAX)
    mdt: int = knob(0, 0, INT32_MAX, means="0: from the histogram")
    wd_threshold: int = knob(1024, 0, INT32_MAX, means="0: never")
    threads: int = knob(0, 0, INT32_MAX, means="0: as many as can be active")

    def __post_init__(self):
        super().__post_init__()
        _check_count("histogram_bins", self.histogram_bins, 1)
        _check_count("mdt", self.mdt, 0)
        _check_count("wd_threshold", self.wd_threshold, 0)
        _check_count("threads", self.threads, 0)


def _degree(graph, v: int) -> int:
    return int(graph.row_offsets[v + 1] - graph.row_offsets[v])


def _degrees(graph) -> np.ndarray:
    return np.diff(np.asarray(graph.row_offsets))


def _mdt(degrees: np.ndarray, knobs) -> int:
    """The knob's MDT, or the histogram's over these out-degrees."""
    return knobs.mdt or histogram_mdt(degrees, knobs.histogram_bins)


@register
class RavalBs(RavalStrategy):
    name = "raval.bs"
    section = f"{PAPER}, sections II-A and IV (BS: the LonestarGPU node-based baseline)"
    summary = "data-driven worklist, one thread per worklist node walks its whole adjacency list"

    def _prepare_work(self, cp) -> None:
        self.buffer("items", (2, max(self.graph.n, 1)), cp.int32)

    def _first(self, source: int):
        return self.items[0], None, 1

    def _round(self, r: int, size: int) -> int:
        self._relax(self.k_node_relax, -(-size // self.block),
                    (i32(r), i32(size), self.items[r & 1], self.items[(r + 1) & 1], None, None, None,
                     None, i32(self.graph.n), *self.relax_args))
        return self._read_out(r)


@register
class RavalEp(RavalStrategy):
    name = "raval.ep"
    section = f"{PAPER}, section II-B (Fig. 2, edge-based) and IV-D (Fig. 11, work chunking)"
    summary = "edge worklist over a COO copy, edges dealt round-robin; a node's edges pushed chunk_edges per atomic"
    Knobs = EpKnobs
    edge_items = True

    def _prepare_work(self, cp) -> None:
        n, m = self.graph.n, self.graph.m
        if m >= INT32_MAX:
            raise StrategyUnavailable(f"{self.name}: the edge worklists hold 32-bit edge ids (m < 2^31)")
        self.buffer("coo_src", m, cp.int32)
        if m:
            self.k_coo_src((self._util_grid(m),), (base.UTIL_BLOCK,),
                           (i32(n), i64(m), self.dgraph.row_offsets, self.coo_src))
        self.buffer("edges", (2, max(m, 1)), cp.int32)
        self.max_grid = -(-self._resident_threads(self.k_ep_relax) // self.block)

    def _first(self, source: int):
        return self.edges[0], None, _degree(self.graph, source)

    def _round(self, r: int, size: int) -> int:
        grid = min(self.max_grid, -(-size // self.block))
        self._relax(self.k_ep_relax, grid,
                    (i32(r), i32(size), self.edges[r & 1], self.edges[(r + 1) & 1], self.coo_src,
                     i32(self.knobs.chunk_edges), *self.relax_args))
        return self._read_out(r)

    def _counters(self):
        return {"coo_bytes": int(self.coo_src.nbytes)}


@register
class RavalWd(WorkloadDecomposition, RavalStrategy):
    name = "raval.wd"
    section = f"{PAPER}, section III-A (workload decomposition, Fig. 4)"
    summary = "scan of the worklist's degrees (CUB), equal shares of its edges per thread, binary-searched starts"
    Knobs = WdKnobs

    def _prepare_work(self, cp) -> None:
        n = max(self.graph.n, 1)
        self.buffer("items", (2, n), cp.int32)
        self.buffer("counts", (2, n), cp.int64)
        self._prepare_wd(cp, n)

    def _first(self, source: int):
        return self.items[0], self.counts[0], 1

    def _round(self, r: int, size: int) -> int:
        cur, nxt = r & 1, (r + 1) & 1
        self._wd_pass(r, size, self.items[cur], None, self.counts[cur], self.items[nxt], self.counts[nxt])
        return self._read_out(r)

    def _counters(self):
        return {"threads": self.wd_threads}


@register
class RavalNs(RavalStrategy):
    name = "raval.ns"
    section = f"{PAPER}, section III-B (node splitting, histogram MDT)"
    summary = "nodes above the histogram MDT split into children of <= MDT edges; parent distances reflected onto children"
    Knobs = NsKnobs

    def _prepare_work(self, cp) -> None:
        n = self.graph.n
        self.mdt = _mdt(_degrees(self.graph), self.knobs)
        sg = split_graph(self.dgraph.row_offsets, self.mdt, cp)
        if n + sg.children >= INT32_MAX:
            raise StrategyUnavailable(f"{self.name}: {sg.children:,} child nodes take the ids past 2^31")
        self.keep("split_begin", sg.begin)
        self.keep("split_end", sg.end)
        self.keep("child_off", sg.child_off)
        self.children, self.split_nodes = sg.children, sg.split
        self.n_total = n + sg.children
        self.buffer("items", (2, max(self.n_total, 1)), cp.int32)
        self.atomic = self.knobs.propagation == "atomic"
        self.prop_grid = self._util_grid(n)

    def _first(self, source: int):
        return self.items[0], None, 1 + children_of(_degree(self.graph, source), self.mdt)

    def _round(self, r: int, size: int) -> int:
        nxt = self.items[(r + 1) & 1]
        self._relax(self.k_node_relax, -(-size // self.block),
                    (i32(r), i32(size), self.items[r & 1], nxt, None, self.split_begin, self.split_end,
                     self.child_off if self.atomic else None, i32(self.graph.n), *self.relax_args))
        if not self.atomic:
            self._launch(self.k_ns_propagate, self.prop_grid, base.UTIL_BLOCK,
                         (i32(r), nxt, self.child_off, i32(self.graph.n), self.dist, self.ctl))
        return self._read_out(r)

    def _counters(self):
        return {"mdt": self.mdt, "split_nodes": self.split_nodes, "child_nodes": self.children}


@register
class RavalHp(WorkloadDecomposition, RavalStrategy):
    name = "raval.hp"
    section = f"{PAPER}, section III-C (hierarchical processing)"
    summary = "super-worklist in sub-iterations of <= MDT edges per node; lists below the block size go to WD"
    Knobs = HpKnobs

    def _prepare_work(self, cp) -> None:
        n = max(self.graph.n, 1)
        degrees = _degrees(self.graph)
        self.mdt = _mdt(degrees, self.knobs)
        self.max_subs = -(-int(degrees.max(initial=0)) // self.mdt)  # sub-iterations a round can need
        self.buffer("items", (2, n), cp.int32)
        self.buffer("counts", (2, n), cp.int64)
        self.buffer("sub_items", (2, n), cp.int32)
        self.buffer("sub_skip", (2, n), cp.int64)
        self.buffer("sub_counts", (2, n), cp.int64)
        self._prepare_wd(cp, n)

    def _first(self, source: int):
        return self.items[0], self.counts[0], 1

    def _begin(self) -> None:
        self.sub = 0  # sub-iterations so far: its parity picks the sublist and control word
        self.wd_passes = 0

    def _round(self, r: int, size: int) -> int:
        cur, nxt = r & 1, (r + 1) & 1
        out = (self.items[nxt], self.counts[nxt])
        threshold = self.knobs.wd_threshold
        if size < threshold:
            self._wd_pass(r, size, self.items[cur], None, self.counts[cur], *out)
            self.wd_passes += 1
            return self._read_out(r)
        items, skip, left = self.items[cur], None, size
        first = self.sub
        while True:
            if self.sub - first >= self.max_subs + 1:
                raise RuntimeError(f"{self.name}: round {r} still has edges after {self.sub - first} sub-iterations")
            s = self.sub & 1
            self._relax(self.k_hp_sub, -(-left // self.block),
                        (i32(r), i32(self.sub), i32(left), items, skip, i64(self.mdt), self.sub_items[s],
                         self.sub_skip[s], self.sub_counts[s], *out, *self.relax_args))
            self.sub += 1
            left = int(self.read_back(self.ctl_sub[s], self.sub_host)[0])  # sizes the next kernel
            self.timer.flush()
            if left == 0:
                break
            items, skip = self.sub_items[s], self.sub_skip[s]
            if left < threshold:
                self._wd_pass(r, left, items, skip, self.sub_counts[s], *out)
                self.wd_passes += 1
                break
        return self._read_out(r)

    def _counters(self):
        return {"mdt": self.mdt, "sub_iterations": self.sub, "wd_passes": self.wd_passes,
                "threads": self.wd_threads}
