"""mgpu.bfs: direction-optimizing BFS over several GPUs, gpubfs's own (paper key
"beyond"; merrill.multi_gpu stays the paper's section-6 algorithm).

How it works (Beamer et al.'s direction optimization, distributed as a 1-D partition):

- **Partition.** Each rank (one process per GPU) owns a contiguous range of vertices,
  cut where the out-edges balance (partition.py), and reads only its rows from the
  dataset cache's CSR files through a memory map. Memory per GPU: its rows (and in-rows
  for a directed graph), O(n/p) labels, and four bits a vertex: two n-bit bitmaps every
  rank holds alike (visited, and the level's frontier) and a two-bit exchange field
  (four bits past 3 GPUs, eight past 15). No per-edge temporaries, no O(n) maps.
- **A level** (mgpu.cu): top-down, each rank expands its owned frontier vertices, their
  lists cut into tasks of `chunk` edges so a hub spreads over many warps, claiming
  unvisited neighbours in its visited bitmap (exact test-and-set); bottom-up, a lane per
  unvisited owned vertex scans its in-edges and stops at the first frontier vertex.
  Either way a rank marks the exchange field of every vertex it found, and the
  exchange leaves a field non-zero exactly where some rank found the vertex: that is
  the next frontier, on every rank at once. Then the ranks sum the new frontier's
  vertices and out-edges, from which every rank takes the same decision: Beamer's
  switch (alpha, beta, with the growth test of do.bfs) and the end of the search.
- **The exchange** (`exchange`, chosen by the ranks together with `auto`):
  - `p2p`, where every rank's GPU maps every other's memory (one host; NVLink or PCIe
    peer access): each rank ORs the peers' fields, read in place over the link, once
    they signal theirs complete, and writes its counts into their inboxes (a flag
    written after the data, waited for on the GPU with a time limit);
  - `nccl` (several hosts, or no peer access): an all-reduce (a sum) of the fields and
    one of the counts.
- **The level loop** (`loop`). The direction, the level and the end of the search live
  on the device. Peer to peer (and on one GPU) the loop itself runs there too: one
  cooperative launch runs every level, its steps as phases between grid barriers, the
  ranks meeting through the inbox flags alone; the host waits for the end, watching the
  peers. Otherwise (`loop: host`, or the NCCL exchange) the host launches each level as one CUDA graph captured once per graph (`graph`;
  with the NCCL exchange on several GPUs the level's steps are launched one by one,
  since captured all-reduces between two processes did not finish on the H200 pair),
  runs `ahead` levels ahead and reads one page-locked word per level, never the device
  (rank.py).
- **Parents** (predecessors): an owned vertex found by another rank looks, after the
  exchange, for an in-neighbour in the level's frontier (any one is a BFS parent).

Timing (`self`): every rank times its traversal with CUDA events on its own stream; the
sample is the slowest rank's; labels travel to rank 0 after timing (to_host()).

Knobs: ``gpus`` (ranks, one GPU each), ``alpha``/``beta``/``growth``/``bottom_up`` (as
do.bfs's), ``chunk`` (edges per top-down task: 64, 256, 1024), ``thread_edges`` (a
bottom-up lane scans this many in-edges of its vertex before its warp takes the rest of
the list, as do.bfs's; 0: never), ``cta_size`` (1024),
``blocks_per_sm`` (CTAs per SM of each kernel's grid, 1), ``graph`` (the level as one CUDA
graph; refused with ``exchange: nccl`` on several GPUs, where it falls back to launches
one by one under ``auto``), ``exchange`` (auto, p2p, nccl; the samples' counters say
which ran), ``ahead`` (levels the host launches before reading the publication that
says whether they run, with the host loop: more hides the host's time per level, and
costs that many no-op levels at the end), ``loop`` (auto, device, host: where the level
loop runs; auto is the device wherever the exchange is peer to peer), ``profile`` (the
device loop's %globaltimer stamps: counters profile_<phase>_us, the mean microseconds a
level spends queueing, searching, exchanging and applying, and deciding, and
profile_level_us), ``timeout_s`` (longest wait on a rank, on the host and on the GPU).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.mgpu import partition as pt
from gpubfs_cli.algorithms.bfs.gpu.mgpu.rank import CHUNKS, LOOPS, C, Plan, field_bits
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import check_flags, check_thread_edges, check_thresholds, knob, whole
from gpubfs_cli.core.strategy import register
from gpubfs_cli.gpu.ranks.strategy import GatheredAnswer, RankedStrategy

CTA_SIZES = (64, 128, 256, 512, 1024)
EXCHANGES = ("auto", "p2p", "nccl")
RING = C["PUB_RING"]


@dataclass(frozen=True)
class MgpuKnobs:
    gpus: int = knob(1, 1, 255)
    alpha: float = knob(48.0, 0)
    beta: float = knob(24.0, 0)
    growth: bool = True
    bottom_up: bool = True
    chunk: int = knob(256, among=CHUNKS)
    thread_edges: int = knob(32, 0, 2**31 - 1)
    # One CTA of 1024 an SM: 2.4 % faster paired than 4 of 256 on 2 x H200 (docs/scaling.md)
    cta_size: int = knob(1024, among=CTA_SIZES)
    blocks_per_sm: int = knob(1, 1, 32)
    graph: bool = True
    exchange: str = "auto"
    ahead: int = knob(1, 1, RING - 1)
    loop: str = "auto"
    profile: bool = False
    timeout_s: float = knob(300.0, 0, above=True, unit="seconds")

    def __post_init__(self) -> None:
        if not whole(self.gpus) or self.gpus < 1:
            raise ValueError(f"gpus: expected an integer >= 1, got {self.gpus!r}")
        field_bits(self.gpus)
        check_thresholds(self, C["MGPU_MILLI"])
        check_flags(self, ("growth", "bottom_up", "graph", "profile"))
        check_thread_edges(self.thread_edges)
        if self.chunk not in CHUNKS:
            raise ValueError(f"chunk must be one of {', '.join(map(str, CHUNKS))}")
        if not whole(self.cta_size) or self.cta_size not in CTA_SIZES:
            raise ValueError(f"cta_size must be one of {', '.join(map(str, CTA_SIZES))}")
        if not whole(self.blocks_per_sm) or not 1 <= self.blocks_per_sm <= 32:
            raise ValueError("blocks_per_sm must be an integer between 1 and 32")
        if self.exchange not in EXCHANGES:
            raise ValueError(f"exchange must be one of {', '.join(EXCHANGES)}, not {self.exchange!r}")
        if self.graph and self.exchange == "nccl" and self.gpus > 1:
            raise ValueError("graph: CUDA-graph levels with the NCCL exchange run on one GPU only (with 2 ranks "
                             "on the H200 pair the captured all-reduces did not finish); use exchange p2p or auto, "
                             "or graph false")
        if not whole(self.ahead) or not 1 <= self.ahead < RING:
            raise ValueError(f"ahead must be an integer between 1 and {RING - 1}, not {self.ahead!r}")
        if self.loop not in LOOPS:
            raise ValueError(f"loop must be one of {', '.join(LOOPS)}, not {self.loop!r}")
        if self.loop == "device" and self.exchange == "nccl" and self.gpus > 1:
            raise ValueError("loop: the device loop needs the peer-to-peer exchange; with exchange nccl on several "
                             "GPUs use loop host or auto")
        if self.profile and self.loop == "host":
            raise ValueError("profile: the phase stamps come from the device loop; not with loop host")
        if not float(self.timeout_s) > 0:
            raise ValueError(f"timeout_s: expected a positive number of seconds, got {self.timeout_s}")


def make_plan(graph, knobs: MgpuKnobs) -> Plan:
    return Plan(n=graph.n, m=graph.m, bounds=tuple(int(b) for b in pt.bounds(graph.row_offsets, knobs.gpus)),
                directed=bool(graph.directed), alpha=float(knobs.alpha if knobs.bottom_up else 0.0),
                beta=float(knobs.beta), growth=knobs.growth, chunk=knobs.chunk,
                thread_edges=knobs.thread_edges, cta_size=knobs.cta_size,
                blocks_per_sm=knobs.blocks_per_sm, graph=knobs.graph, exchange=knobs.exchange,
                timeout_s=float(knobs.timeout_s), ahead=knobs.ahead, loop=knobs.loop,
                profile=knobs.profile)


@register
class MgpuBfs(RankedStrategy):
    name = "mgpu.bfs"
    paper = "beyond"
    section = "Beamer et al. SC'12 direction optimization over a 1-D partition: bitmap exchange by NCCL all-reduce"
    summary = "multi-GPU direction-optimizing BFS: device-resident levels, bitmap exchange by two all-reduces a level"
    Knobs = MgpuKnobs
    RANK_CLASS = "gpubfs_cli.algorithms.bfs.gpu.mgpu.rank:MgpuRank"
    teps = "equivalent"
    caveats = ("the time is the slowest rank's event-timed traversal; labels are gathered to rank 0 afterwards, "
               "untimed",)

    def prepare(self, graph) -> None:
        self.plan = make_plan(graph, self.knobs)
        self.files = pt.graph_files(graph)
        spec = {"files": self.files.folder, "plan": asdict(self.plan)}
        self.start_ranks(graph, lambda r: spec, spec)

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        n = self.graph.n
        if not 0 <= source < n:
            raise ValueError(f"source {source} out of range [0, {n})")
        (ms, counters), others = self.run_everywhere("bfs", int(source), bool(predecessors))
        times = [ms] + [a[0] for a in others]
        counters = dict(counters)
        counters["rank_ms"] = np.asarray(times, np.float64)
        counters["ranks"] = self.plan.ranks
        counters["exchange_bytes_per_level"] = self.plan.exchange_bytes(self.rank0.exchange)
        return GatheredAnswer(lambda: self._gather(predecessors), counters, max(times))

    def _gather(self, predecessors: bool):
        """Every rank's labels (and parents) to rank 0 over NCCL, in rank order."""
        cp = self.cupy()
        r0, b = self.rank0, self.plan.bounds
        self.group.call("send_answer", bool(predecessors))
        out = []
        for key in ("dist", "parent") if predecessors else ("dist",):
            bufs = [cp.empty(b[r + 1] - b[r], cp.int32) for r in range(1, self.plan.ranks)]
            with r0.stream:
                r0.comm.grouped(range(1, len(bufs) + 1),
                                lambda bufs=bufs: [r0.comm.recv(buf, r) for r, buf in enumerate(bufs, start=1)])
            r0.comm.wait_event(r0._recorded())
            out.append(np.concatenate([getattr(r0, key).get()] + [buf.get() for buf in bufs]))
        self.group.results()
        return out[0], (out[1] if predecessors else None)

    def release(self) -> None:
        super().release()
        files = getattr(self, "files", None)
        if files is not None:
            files.drop()
            self.files = None
