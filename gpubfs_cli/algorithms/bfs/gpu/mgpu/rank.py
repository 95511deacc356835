"""One rank of mgpu.bfs: its rows on its GPU, the level program (mgpu.cu's kernels and
the exchange), and one timed traversal.

The exchange is peer to peer where every rank's GPU maps every other's memory (one
host, NVLink or PCIe peer access: the `p2p` kernels read the peers' exchange fields and
write counts into their inboxes), else two NCCL all-reduces a level. The ranks choose
together (`exchange`: auto, p2p or nccl).

The program is a list of steps, ("kernel", function, args) or ("sum", send, recv), so
that one description serves three executors: a CUDA graph captured once per graph and
launched once per level (`graph`, on the peer-to-peer exchange or one rank: captured
NCCL all-reduces between two processes did not finish on the H200 pair), the same
steps launched one by one, and the lockstep driver (lockstep.py) that runs p ranks in
one process, each step on every rank before the next step, summing the buffers of a
"sum" step itself (the CPU emulation tests, and p ranks on one GPU).

Peer to peer (one rank, or ranks in processes of their own), the level loop runs on
the device by default (`loop`): after the source, one cooperative launch of
mgpu_levels runs every level, the steps as phases between grid barriers, and the host
only waits for its end (watching the peers). Otherwise the host loop runs `ahead`
levels ahead: level k + ahead is launched once publication
k (the frontier level k starts from) is not empty, so that the GPU does not wait for
the host, and the host reads one page-locked word per level, never the device. The
`ahead` levels launched past the last one run as no-ops (their kernels return at once;
NCCL's all-reduces still move their bytes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.mgpu import partition as pt
from gpubfs_cli.gpu import backend
from gpubfs_cli.gpu.launch import captured, i32, i64, resident_blocks, sm_count
from gpubfs_cli.gpu.modules import header_constants, load_module

KERNELS = Path(__file__).with_name("mgpu.cu")
C = header_constants(KERNELS.with_name("mgpu.cuh"))
CHUNKS = (64, 256, 1024)
LOOPS = ("auto", "device", "host")
PHASES = ("queue", "step", "apply", "publish")  # the device loop's profile, in order
KERNEL_DEFINES = [{"MGPU_FIELD_BITS": b, "MGPU_CHUNK": c} for b in (1, 2, 4, 8) for c in CHUNKS]


def field_bits(ranks: int, exchange: str = "nccl") -> int:
    """Bits per vertex of the exchange buffer: for the NCCL sum a field must count every
    rank; the peer-to-peer OR needs one."""
    if exchange == "p2p":
        return 1
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
    exchange: str = "auto"
    timeout_s: float = 300.0
    ahead: int = 1
    loop: str = "auto"
    profile: bool = False
    thread_edges: int = 32

    @property
    def ranks(self) -> int:
        return len(self.bounds) - 1

    @property
    def words(self) -> int:
        return (self.n + 31) // 32

    def x_words(self, exchange: str) -> int:
        return self.words * field_bits(self.ranks, exchange)

    @property
    def hist_cap(self) -> int:
        return min(self.n + 2, 1 << 20)

    def exchange_bytes(self, exchange: str) -> int:
        """Bytes a rank receives from the others in one level: the peers' fields and
        counts (p2p), or a ring all-reduce's 2 (p - 1) / p of the payload (nccl)."""
        payload = self.x_words(exchange) * 4 + 8 * C["CNT_WORDS"]
        if exchange == "p2p":
            return (self.ranks - 1) * payload
        return 2 * (self.ranks - 1) * payload // self.ranks


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
        self.exchange = self._choose_exchange() if comm is not None else \
            ("p2p" if p.exchange == "p2p" else "nccl")
        self.x_words = p.x_words(self.exchange)
        self.known = cp.zeros(p.words, cp.uint32)
        self.front = cp.zeros(p.words, cp.uint32)
        self.x = cp.zeros(self.x_words, cp.uint32)
        self.dist = cp.full(count, -1, cp.int32)
        self.parent = cp.full(count, -1, cp.int32)
        tasks = count + -(-len(col) // p.chunk) + 1
        self.tasks = cp.zeros(2 * tasks, cp.int32)
        self.ctl = cp.zeros(C["CTL_WORDS"], cp.int64)
        self.part = cp.zeros(C["CNT_WORDS"], cp.int64)
        self.counts = cp.zeros(C["CNT_WORDS"], cp.int64)
        self.hist = cp.zeros(2 * p.hist_cap, cp.int64)
        self.sync = cp.zeros(C["SYNC_WORDS"], cp.int64)
        self.pub = HostWords(cp, C["PUB_WORDS"])
        self.region = self.x_send = self.peers = None
        self._opened: list = []
        if self.exchange == "p2p":
            self.region = Region(cp, C["INBOX_WORDS"] * 8 + self.x_words * 4, ipc=comm is not None)
            self.x_send = self.region.view(C["INBOX_WORDS"] * 8, self.x_words)
        self.bar = cp.zeros(1, cp.int64)
        defines = {"MGPU_FIELD_BITS": field_bits(p.ranks, self.exchange), "MGPU_CHUNK": p.chunk}
        from gpubfs_cli.core.device import gpu

        module = load_module(KERNELS, defines=defines, device=gpu(device))
        self.k = {name: module.get_function(f"mgpu_{name}")
                  for name in ("clear", "source", "queue", "step", "parents", "apply", "publish", "p2p_gather",
                               "p2p_barrier")}
        self.grid = (max(1, sm_count(gpu(device)) * p.blocks_per_sm),)
        self.block = (p.cta_size,)
        self.stream = cp.cuda.Stream(non_blocking=True) if comm is not None else None
        self._graphs: dict = {}
        self.use_graph = p.graph and (self.exchange == "p2p" or p.ranks == 1)
        # the device loop needs every rank's kernel running at once: own processes (or one rank)
        self.loop_grid = None
        self.device_loop = p.loop != "host" and self.exchange == "p2p" and (comm is not None or p.ranks == 1)
        if p.loop == "device" and not self.device_loop:
            raise ValueError(f"rank {self.rank}: loop device needs the peer-to-peer exchange (here {self.exchange}) "
                             "and each rank in a process of its own; loop host or auto works here")
        if self.device_loop:
            coop = load_module(KERNELS, defines=defines, device=gpu(device), cooperative=True)
            self.k["levels"] = coop.get_function("mgpu_levels")
            fit = resident_blocks(self.k["levels"], p.cta_size, device=gpu(device))
            if fit < 1:
                raise ValueError(f"rank {self.rank}: cta_size {p.cta_size}: no CTA of the device loop fits an SM "
                                 "of this GPU; a smaller cta_size, or loop host")
            self.loop_grid = (min(self.grid[0], fit),)
        if p.profile and not self.device_loop:
            raise ValueError(f"rank {self.rank}: profile stamps the device loop's phases; this rank runs the host loop")
        self.prof = cp.zeros(C["MGPU_PROF_WORDS"] * p.hist_cap, cp.uint64) if p.profile else None
        if comm is not None:
            self._connect()
            if self.exchange == "p2p":
                self._map_peers()

    def _choose_exchange(self) -> str:
        """p2p when asked or (auto) when every rank is on this host and every GPU can map
        every other's memory; the same answer on every rank (an all-reduce of the votes)."""
        import socket
        import zlib

        cp, p, comm = self.cp, self.plan, self.comm
        if p.exchange == "nccl" or p.ranks > C["P2P_MAX"]:
            if p.exchange == "p2p":
                raise ValueError(f"exchange p2p: at most {C['P2P_MAX']} ranks, got {p.ranks}")
            return "nccl"
        me = cp.asarray(np.array([zlib.crc32(socket.gethostname().encode()), self.device], np.int64))
        everyone = comm.host(comm.allgather(me)).reshape(-1, 2)
        runtime = cp.cuda.runtime
        reach = all(int(d) == self.device or runtime.deviceCanAccessPeer(self.device, int(d))
                    for d in everyone[:, 1])
        vote = cp.asarray(np.array([int(reach and bool(np.all(everyone[:, 0] == everyone[0, 0])))], np.int64))
        comm.allreduce_sum(vote, vote)
        agreed = int(comm.host(vote)[0]) == p.ranks
        if p.exchange == "p2p" and not agreed:
            raise ValueError(f"rank {self.rank}: exchange p2p: the ranks' GPUs do not all map each other's memory "
                             "(another host, or no peer access between them); exchange nccl works there")
        return "p2p" if agreed else "nccl"

    def _map_peers(self) -> None:
        """Every rank's region handle to every rank (an NCCL all-gather); each maps the
        others' regions (CUDA IPC, peer access enabled) and keeps their addresses."""
        cp, comm = self.cp, self.comm
        mine = cp.asarray(np.frombuffer(self.region.handle(), np.uint8))
        handles = comm.host(comm.allgather(mine)).reshape(self.plan.ranks, -1)
        addresses = []
        for r in range(self.plan.ranks):
            if r == self.rank:
                addresses.append(self.region.address)
                continue
            ptr = cp.cuda.runtime.ipcOpenMemHandle(bytes(handles[r]), 1)  # cudaIpcMemLazyEnablePeerAccess
            self._opened.append(ptr)
            addresses.append(ptr)
        self.attach(addresses)

    def attach(self, addresses) -> None:
        """The peers' regions as this rank addresses them (its own at its rank)."""
        self.peers = self.cp.asarray(np.asarray(addresses, np.int64))

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
                  self.ctl, self.part, self.counts, self.hist) + ((self.x_send,) if self.x_send is not None else ())
        extra = (self.in_off, self.in_col) if self.in_off is not self.off else ()
        return int(sum(a.nbytes for a in arrays + extra))

    # -- the program ----------------------------------------------------------------

    def init_steps(self, predecessors: bool) -> list:
        p, lo, hi = self.plan, i64(self.lo), i64(self.hi)
        parent = self.parent if predecessors else None
        return [
            ("kernel", self.k["clear"], (self.known, self.front, i64(p.words), self.x, i64(self.x_words), self.dist,
                                         parent, i64(self.hi - self.lo))),
            ("kernel1", self.k["source"], (i64(self.pub.address), lo, hi, self.off, self.known, self.front,
                                           self.dist, parent, self.ctl, self.part, i64(p.m)) + self._p2p_args()),
            *self._count_steps(),
            self._publish(advance=0),
        ]

    def _p2p_args(self) -> tuple:
        """(peers, rank, ranks, sync): the kernels' exchange arguments; peers null on NCCL."""
        return (self.peers if self.exchange == "p2p" else None), i32(self.rank), i32(self.plan.ranks), self.sync

    def _wait_args(self) -> tuple:
        """(pub, timeout_ns): what a kernel that waits on the peers needs to give up."""
        return i64(self.pub.address), i64(int(self.plan.timeout_s * 1e9))

    def _count_steps(self) -> list:
        """part (this rank's counts) -> counts (everyone's): an all-reduce on NCCL; peer to
        peer, apply (or source) sends them and publish waits for the peers'."""
        return [("sum", self.part, self.counts)] if self.exchange == "nccl" else []

    def level_steps(self, predecessors: bool) -> list:
        p, lo, hi = self.plan, i64(self.lo), i64(self.hi)
        parent = self.parent if predecessors else None
        p2p = self.exchange == "p2p"
        found = self.x_send if p2p else self.x  # where step marks what this rank found
        steps = [
            ("kernel", self.k["queue"], (self.front, lo, hi, self.off, self.ctl, self.tasks,
                                         self.x_send if p2p else None, i64(self.x_words))),
            ("kernel", self.k["step"], (lo, hi, self.off, self.col, self.in_off, self.in_col, self.known, self.front,
                                        found, self.dist, parent, self.ctl, self.tasks) + self._p2p_args()
                                       + (i32(p.thread_edges),)),
        ]
        gather_in_apply = p2p and not predecessors  # parents need the gathered fields first
        if p2p and predecessors:
            steps.append(("kernel", self.k["p2p_gather"], self._p2p_args() + (self.x, i64(self.x_words))
                          + self._wait_args() + (self.ctl,)))
        elif not p2p:
            steps.append(("sum", self.x, self.x))
        if predecessors:
            steps.append(("kernel", self.k["parents"], (lo, hi, self.in_off, self.in_col, self.front, self.x,
                                                        self.dist, self.parent, self.ctl)))
        steps += [
            ("kernel", self.k["apply"], (lo, hi, i64(p.words), self.off, self.known, self.front, self.x, self.dist,
                                         self.ctl, self.part, *self._p2p_args(), i32(int(gather_in_apply)),
                                         *self._wait_args())),
            *self._count_steps(),
            self._publish(advance=1),
        ]
        return steps

    def loop_steps(self, predecessors: bool) -> list:
        """Every level after the source: one cooperative launch of mgpu_levels."""
        p = self.plan
        parent = self.parent if predecessors else None
        alpha, beta = self._thresholds()
        return [("coop", self.k["levels"], (
            i64(self.lo), i64(self.hi), i64(p.words), i64(p.n), self.off, self.col, self.in_off, self.in_col,
            self.known, self.front, self.x, self.x_send, i64(self.x_words), self.dist, parent, self.ctl, self.tasks,
            self.part, self.counts, self.hist, i64(p.hist_cap), i64(alpha), i64(beta), i32(int(p.growth)),
            *self._p2p_args(), *self._wait_args(), self.prof, i32(p.hist_cap if self.prof is not None else 0),
            i32(p.thread_edges)))]

    def _thresholds(self) -> tuple[int, int]:
        """alpha and beta in thousandths, as publish() takes them."""
        return tuple(int(round(v * C["MGPU_MILLI"])) for v in (self.plan.alpha, self.plan.beta))

    def _publish(self, advance: int) -> tuple:
        p = self.plan
        alpha, beta = self._thresholds()
        return ("kernel1", self.k["publish"], (i64(self.pub.address), self.ctl, self.counts, self.part, self.hist,
                                               i64(p.hist_cap), i64(p.n), i64(alpha), i64(beta), i32(int(p.growth)),
                                               i32(advance)) + self._p2p_args() + self._wait_args()[1:])

    def launch(self, step) -> None:
        """One kernel step on the current stream (a "sum" step is the executor's)."""
        kind, fn, args = step
        grid = {"kernel1": (1,), "coop": self.loop_grid}.get(kind, self.grid)
        fn(grid, (32,) if kind == "kernel1" else self.block, args)

    # -- one traversal on this rank's GPU (NCCL between ranks) ------------------------

    def _run(self, steps) -> None:
        for step in steps:
            if step[0] == "sum":
                self.comm.allreduce_sum(step[1], step[2], self.stream)
            else:
                self.launch(step)

    def _program(self, predecessors: bool):
        """(init, level) as callables that enqueue them on the stream, built on first use
        (untimed): CUDA graphs when the plan says so, else direct launches. With the
        device loop, `level` is the one cooperative launch of every level."""
        key = bool(predecessors)
        if key not in self._graphs:
            init = self.init_steps(key)
            level = self.loop_steps(key) if self.device_loop else self.level_steps(key)
            self._graphs[key] = (self._enqueuer(init, self.use_graph),
                                 self._enqueuer(level, self.use_graph and not self.device_loop))
        return self._graphs[key]

    def _enqueuer(self, steps, graph: bool):
        """A callable that puts `steps` on the stream: a CUDA graph captured here, or the
        launches themselves (a cooperative launch is never captured)."""
        if not graph:
            def run():
                with self.stream:
                    self._run(steps)

            return run
        g = captured(self.stream, lambda: self._run(steps))
        return lambda: g.launch(self.stream)

    def _give_up(self, why: str):
        """The error to raise, once every wait on a peer (the GPU's and NCCL's) ended."""
        self._abandon()
        return RuntimeError(f"rank {self.rank}: {why}")

    def _abandon(self) -> None:
        """End every wait on a peer: the GPU's (the abort word) and NCCL's (abort)."""
        self.pub.words[C["PUB_ABORT"]] = 1
        self.comm.abort()

    def _wait(self, ready, deadline: float, pause: float = 0.0) -> None:
        """Until ready(); gives up (every wait on a peer ended) when a peer rank died or
        the traversal passed its deadline."""
        spins = 0
        while not ready():
            spins += 1
            if pause or spins & 0x3FFF == 0:
                if not self.comm.alive():
                    raise self._give_up("a peer rank exited during the traversal")
                if time.monotonic() > deadline:
                    raise self._give_up(f"the traversal took over {self.comm.timeout_s:g} s")
                if pause:
                    time.sleep(pause)

    def bfs(self, source: int, predecessors: bool) -> tuple[float, dict]:
        """(this rank's event-timed milliseconds, its counters)."""
        cp = self.cp
        init, level = self._program(predecessors)
        words = self.pub.words
        words[:] = 0
        words[C["PUB_SOURCE"]] = int(source)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        deadline = time.monotonic() + self.comm.timeout_s
        try:
            self._start_barrier()
            start.record(self.stream)
            init()
            if self.device_loop:
                level()
                stop.record(self.stream)
                self._wait(lambda: stop.done, deadline, pause=20e-6)
            else:
                self._host_loop(level, deadline)
                stop.record(self.stream)
                self.comm.wait_event(stop)
        except BaseException:  # Ctrl-C included: no wait on a peer may outlive the traversal
            self._abandon()
            raise
        if words[C["PUB_FAILED"]]:
            raise self._give_up(f"a peer rank stopped answering (waited {self.plan.timeout_s:g} s on the GPU)")
        return float(cp.cuda.get_elapsed_time(start, stop)), self.counters()

    def _host_loop(self, level, deadline: float) -> None:
        """Launch the levels from the host, `ahead` of the publications that say whether
        they run."""
        words = self.pub.words
        for _ in range(self.plan.ahead):
            level()
        k = 1
        while True:  # publication k says whether level k runs; level k + ahead is launched
            self._wait(lambda k=k: words[C["PUB_SEQ"]] >= k, deadline)
            if published_frontier(words, k) == 0:
                return
            level()
            k += 1
            if k > self.plan.n + 2:
                raise RuntimeError(f"rank {self.rank}: more levels than vertices (the level loop did not end)")

    def _start_barrier(self) -> None:
        """Every rank's GPU waits for every other's before its start event, so that no
        rank's time includes waiting for a slower peer to be told to start."""
        if self.plan.ranks == 1:
            return
        if self.exchange == "p2p":
            with self.stream:
                self.k["p2p_barrier"]((1,), (32,), self._p2p_args() + self._wait_args() + (self.ctl,))
        else:
            self.comm.allreduce_sum(self.bar, self.bar, self.stream)

    def counters(self) -> dict:
        ctl = self.ctl.get()
        levels = int(ctl[C["CTL_LEVEL"]])
        hist = self.hist[: 2 * min(levels, self.plan.hist_cap)].get().reshape(-1, 2)
        frontier = np.concatenate([[1], hist[:, 0]])[:levels] if levels else np.zeros(0, np.int64)
        return {"exchange": self.exchange, "launch": "graph" if self.use_graph else "direct",
                "loop": "device" if self.device_loop else "host",
                "levels": levels, "bottom_up_levels": int(ctl[C["CTL_BU_LEVELS"]]),
                "switches": int(ctl[C["CTL_SWITCHES"]]), "frontier_vertices": frontier.astype(np.int64),
                "direction": hist[:, 1].astype(np.int64), **self._profile(levels)}

    def _profile(self, levels: int) -> dict:
        """Microseconds a level spent in each phase of the device loop, averaged over the
        levels (profile_<phase>_us), and in the whole level (profile_level_us)."""
        if self.prof is None or levels == 0:
            return {}
        words = C["MGPU_PROF_WORDS"]
        rows = self.prof[: words * min(levels, self.plan.hist_cap)].get().astype(np.int64).reshape(-1, words)
        spent = np.diff(rows, axis=1) / 1e3
        out = {f"profile_{name}_us": float(spent[:, i].mean()) for i, name in enumerate(PHASES)}
        out["profile_level_us"] = float(spent.sum(axis=1).mean())
        return out

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
        for ptr in self._opened:
            try:
                self.cp.cuda.runtime.ipcCloseMemHandle(ptr)
            except Exception:  # the peer's process is gone already
                pass
        self._opened = []
        if self.region is not None:
            self.region.free()
        self.pub.free()


class Region:
    """The peer-to-peer region of a rank (its inbox and exchange fields), zeroed. With
    `ipc`, a cudaMalloc of its own, so that its IPC handle maps exactly it (a pool's
    block shares its allocation's handle); else an ordinary array (lockstep ranks of one
    process, the CPU emulation)."""

    def __init__(self, cp, nbytes: int, ipc: bool):
        self.cp, self.nbytes, self.ipc = cp, int(nbytes), ipc
        if ipc:
            runtime = cp.cuda.runtime
            self.address = runtime.malloc(self.nbytes)
            runtime.memset(self.address, 0, self.nbytes)
            self._memory = cp.cuda.UnownedMemory(self.address, self.nbytes, self)
        else:
            self._array = cp.zeros(self.nbytes, cp.uint8)
            data = self._array.data
            self.address = int(data.ptr) if hasattr(data, "ptr") else int(self._array.ctypes.data)

    def view(self, offset: int, words: int):
        """uint32[words] starting `offset` bytes in."""
        if not self.ipc:
            return self._array[offset: offset + 4 * words].view(self.cp.uint32)
        return self.cp.ndarray((words,), self.cp.uint32, memptr=self.cp.cuda.MemoryPointer(self._memory, offset))

    def handle(self) -> bytes:
        return bytes(self.cp.cuda.runtime.ipcGetMemHandle(self.address))

    def free(self) -> None:
        if self.ipc and self.address:
            self.cp.cuda.runtime.free(self.address)
        self.address = 0
