"""One rank of mgpu.bfs: its rows on its GPU, the level program (mgpu.cu's kernels and
two all-reduces), and one timed traversal.

The program is a list of steps, ("kernel", function, args) or ("sum", send, recv), so
that one description serves three executors: a CUDA graph captured once per graph and
launched once per level (the default), the same steps launched one by one (`graph`
off), and the lockstep driver (lockstep.py) that runs p ranks in one process, summing
their buffers itself (the CPU emulation tests, and p ranks on one GPU).

The host loop runs one level ahead: level k is launched once the publication of level
k-2 says its frontier was not empty, so the GPU never waits for the host, and the host
reads one page-locked word per level, never the device. The level after the last one
runs as a no-op (its kernels return at once; its all-reduces still move their bytes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.mgpu import partition as pt
from gpubfs_cli.gpu import backend
from gpubfs_cli.gpu.launch import i32, i64, sm_count
from gpubfs_cli.gpu.modules import header_constants, load_module

KERNELS = Path(__file__).with_name("mgpu.cu")
C = header_constants(KERNELS.with_name("mgpu.cuh"))
CHUNKS = (64, 256, 1024)
KERNEL_DEFINES = [{"MGPU_FIELD_BITS": b, "MGPU_CHUNK": c} for b in (2, 4, 8) for c in CHUNKS]


def field_bits(ranks: int) -> int:
    """Bits per vertex of the exchange buffer: a field must count every rank."""
    for bits in (2, 4, 8):
        if ranks < (1 << bits):
            return bits
    raise ValueError(f"gpus: at most 255 ranks, got {ranks}")


@dataclass(frozen=True)
class Plan:
    """What every rank agrees on (rank 0 sends it in the init order)."""

    n: int
    m: int
    bounds: tuple
    directed: bool
    alpha: float
    beta: float
    growth: bool
    chunk: int
    cta_size: int
    blocks_per_sm: int
    graph: bool

    @property
    def ranks(self) -> int:
        return len(self.bounds) - 1

    @property
    def words(self) -> int:
        return (self.n + 31) // 32

    @property
    def x_words(self) -> int:
        return self.words * field_bits(self.ranks)

    @property
    def hist_cap(self) -> int:
        return min(self.n + 2, 1 << 20)

    def exchange_bytes(self) -> int:
        """The all-reduce payload of one level (exchange fields and two counts)."""
        return self.x_words * 4 + 8 * C["CNT_WORDS"]


def published_frontier(words, k: int) -> int:
    """The frontier publication k announced (the init's is 1, level L's is L + 2)."""
    return int(words[C["PUB_NF"] + k % C["PUB_RING"]])


class HostWords:
    """int64 words in page-locked host memory the GPU writes (publish) and the host polls:
    mapped into the device's address space (unified addressing: one pointer for both)."""

    def __init__(self, cp, count: int):
        import ctypes

        runtime = getattr(cp.cuda, "runtime", None)
        if runtime is None:  # the CPU emulation: plain host memory
            self.words = np.zeros(count, np.int64)
            self.address, self._ptr, self._runtime = self.words.ctypes.data, None, None
            return
        flags = getattr(runtime, "hostAllocMapped", 2) | getattr(runtime, "hostAllocPortable", 1)
        self._ptr = runtime.hostAlloc(count * 8, flags)
        self._runtime = runtime
        self.words = np.ctypeslib.as_array((ctypes.c_int64 * count).from_address(self._ptr))
        self.words[:] = 0
        self.address = self._ptr

    def free(self) -> None:
        if self._ptr is not None:
            self.words = None
            self._runtime.freeHost(self._ptr)
            self._ptr = None


class MgpuRank:
    """Rank `rank` of `plan.ranks`, on GPU `device`; `comm` is its NcclComm (None under
    the lockstep driver, which sums the buffers itself)."""

    def __init__(self, rank: int, device: int, comm, files: str, plan: dict):
        cp = backend.cupy()
        cp.cuda.Device(device).use()
        self.cp, self.rank, self.device, self.comm = cp, rank, device, comm
        self.plan = p = Plan(**plan)
        self.lo, self.hi = int(p.bounds[rank]), int(p.bounds[rank + 1])
        count = self.hi - self.lo
        off, col = pt.rows(files, self.lo, self.hi)
        self.off, self.col = cp.asarray(off), cp.asarray(col)
        if p.directed:
            ioff, icol = pt.in_rows(files, self.lo, self.hi)
            self.in_off, self.in_col = cp.asarray(ioff), cp.asarray(icol)
        else:
            self.in_off, self.in_col = self.off, self.col
        self.known = cp.zeros(p.words, cp.uint32)
        self.front = cp.zeros(p.words, cp.uint32)
        self.x = cp.zeros(p.x_words, cp.uint32)
        self.dist = cp.full(count, -1, cp.int32)
        self.parent = cp.full(count, -1, cp.int32)
        tasks = count + -(-len(col) // p.chunk) + 1
        self.tasks = cp.zeros(2 * tasks, cp.int32)
        self.ctl = cp.zeros(C["CTL_WORDS"], cp.int64)
        self.part = cp.zeros(C["CNT_WORDS"], cp.int64)
        self.counts = cp.zeros(C["CNT_WORDS"], cp.int64)
        self.hist = cp.zeros(2 * p.hist_cap, cp.int64)
        self.pub = HostWords(cp, C["PUB_WORDS"])
        defines = {"MGPU_FIELD_BITS": field_bits(p.ranks), "MGPU_CHUNK": p.chunk}
        from gpubfs_cli.core.device import gpu

        module = load_module(KERNELS, defines=defines, device=gpu(device))
        self.k = {name: module.get_function(f"mgpu_{name}")
                  for name in ("clear", "source", "queue", "step", "parents", "apply", "publish")}
        self.grid = (max(1, sm_count(gpu(device)) * p.blocks_per_sm),)
        self.block = (p.cta_size,)
        self.stream = cp.cuda.Stream(non_blocking=True) if comm is not None else None
        self._graphs: dict = {}
        if comm is not None:
            self._connect()

    def _connect(self) -> None:
        """Both all-reduces once, outside any capture: NCCL connects ranks lazily at a
        collective's first call, which must not happen inside a CUDA graph capture (the
        handshake waits on the peer there). x is zero, so the sums change nothing."""
        with self.stream:
            self.comm.allreduce_sum(self.x, self.x, self.stream)
            self.comm.allreduce_sum(self.part, self.counts, self.stream)
        self.comm.wait_event(self._recorded())

    def nbytes(self) -> int:
        arrays = (self.off, self.col, self.known, self.front, self.x, self.dist, self.parent, self.tasks,
                  self.ctl, self.part, self.counts, self.hist)
        extra = (self.in_off, self.in_col) if self.in_off is not self.off else ()
        return int(sum(a.nbytes for a in arrays + extra))

    # -- the program ----------------------------------------------------------------

    def init_steps(self, predecessors: bool) -> list:
        p, lo, hi = self.plan, i64(self.lo), i64(self.hi)
        parent = self.parent if predecessors else None
        return [
            ("kernel", self.k["clear"], (self.known, self.front, i64(p.words), self.x, i64(p.x_words), self.dist,
                                         parent, i64(self.hi - self.lo))),
            ("kernel1", self.k["source"], (i64(self.pub.address), lo, hi, self.off, self.known, self.front,
                                           self.dist, parent, self.ctl, self.part, i64(p.m))),
            ("sum", self.part, self.counts),
            self._publish(advance=0),
        ]

    def level_steps(self, predecessors: bool) -> list:
        p, lo, hi = self.plan, i64(self.lo), i64(self.hi)
        parent = self.parent if predecessors else None
        steps = [
            ("kernel", self.k["queue"], (self.front, lo, hi, self.off, self.ctl, self.tasks)),
            ("kernel", self.k["step"], (lo, hi, self.off, self.col, self.in_off, self.in_col, self.known, self.front,
                                        self.x, self.dist, parent, self.ctl, self.tasks)),
            ("sum", self.x, self.x),
        ]
        if predecessors:
            steps.append(("kernel", self.k["parents"], (lo, hi, self.in_off, self.in_col, self.front, self.x,
                                                        self.dist, self.parent, self.ctl)))
        steps += [
            ("kernel", self.k["apply"], (lo, hi, i64(p.words), self.off, self.known, self.front, self.x, self.dist,
                                         self.ctl, self.part)),
            ("sum", self.part, self.counts),
            self._publish(advance=1),
        ]
        return steps

    def _publish(self, advance: int) -> tuple:
        p = self.plan
        alpha = int(round(p.alpha * C["MGPU_MILLI"]))
        beta = int(round(p.beta * C["MGPU_MILLI"]))
        return ("kernel1", self.k["publish"], (i64(self.pub.address), self.ctl, self.counts, self.part, self.hist,
                                               i64(p.hist_cap), i64(p.n), i64(alpha), i64(beta), i32(int(p.growth)),
                                               i32(advance)))

    def launch(self, step) -> None:
        """One kernel step on the current stream (a "sum" step is the executor's)."""
        kind, fn, args = step
        fn((1,) if kind == "kernel1" else self.grid, (32,) if kind == "kernel1" else self.block, args)

    # -- one traversal on this rank's GPU (NCCL between ranks) ------------------------

    def _run(self, steps) -> None:
        for step in steps:
            if step[0] == "sum":
                self.comm.allreduce_sum(step[1], step[2], self.stream)
            else:
                self.launch(step)

    def _program(self, predecessors: bool):
        """(init, level) as callables that enqueue them on the stream: CUDA graphs
        captured on first use when the plan says so, else direct launches."""
        key = bool(predecessors)
        if key not in self._graphs:
            init, level = self.init_steps(key), self.level_steps(key)
            if self.plan.graph:
                graphs = []
                for steps in (init, level):
                    self.stream.begin_capture()
                    try:
                        with self.stream:
                            self._run(steps)
                    finally:
                        g = self.stream.end_capture()
                    graphs.append(g)
                self._graphs[key] = tuple((lambda g=g: g.launch(self.stream)) for g in graphs)
            else:
                def run(steps):
                    with self.stream:
                        self._run(steps)

                self._graphs[key] = (lambda: run(init), lambda: run(level))
        return self._graphs[key]

    def _wait_seq(self, k: int, deadline: float) -> None:
        words, spins = self.pub.words, 0
        while words[C["PUB_SEQ"]] < k:
            spins += 1
            if spins & 0x3FFF == 0:
                if not self.comm.alive():
                    self.comm.abort()
                    raise RuntimeError(f"rank {self.rank}: a peer rank exited during the traversal")
                if time.monotonic() > deadline:
                    self.comm.abort()
                    raise RuntimeError(f"rank {self.rank}: level {k - 1} took over {self.comm.timeout_s:g} s")

    def bfs(self, source: int, predecessors: bool) -> tuple[float, dict]:
        """(this rank's event-timed milliseconds, its counters)."""
        cp = self.cp
        init, level = self._program(predecessors)
        words = self.pub.words
        words[:] = 0
        words[C["PUB_SOURCE"]] = int(source)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        deadline = time.monotonic() + self.comm.timeout_s
        start.record(self.stream)
        init()
        level()
        k = 1
        while True:
            self._wait_seq(k, deadline)
            if published_frontier(words, k) == 0:
                break
            level()
            k += 1
            if k > self.plan.n + 2:
                raise RuntimeError(f"rank {self.rank}: more levels than vertices (the level loop did not end)")
        stop.record(self.stream)
        self.comm.wait_event(stop)
        return float(cp.cuda.get_elapsed_time(start, stop)), self.counters()

    def counters(self) -> dict:
        ctl = self.ctl.get()
        levels = int(ctl[C["CTL_LEVEL"]])
        hist = self.hist[: 2 * min(levels, self.plan.hist_cap)].get().reshape(-1, 2)
        frontier = np.concatenate([[1], hist[:, 0]])[:levels] if levels else np.zeros(0, np.int64)
        return {"levels": levels, "bottom_up_levels": int(ctl[C["CTL_BU_LEVELS"]]),
                "switches": int(ctl[C["CTL_SWITCHES"]]), "frontier_vertices": frontier.astype(np.int64),
                "direction": hist[:, 1].astype(np.int64)}

    def send_answer(self, predecessors: bool) -> None:
        """This rank's labels (and parents) to rank 0, which posts the matching receives."""
        with self.stream:
            self.comm.send(self.dist, 0)
            if predecessors:
                self.comm.send(self.parent, 0)
        self.comm.wait_event(self._recorded())

    def _recorded(self):
        e = self.cp.cuda.Event(disable_timing=True)
        e.record(self.stream)
        return e

    def release(self) -> None:
        self._graphs = {}
        self.pub.free()
