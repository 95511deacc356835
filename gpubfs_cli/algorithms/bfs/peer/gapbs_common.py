"""What peer.gapbs for BFS (bfs/peer/gapbs.py) and for SSSP (sssp/peer/gapbs.py) share:
the knobs both have, the binary's lookup, the export, one process per source
with OMP_NUM_THREADS, the parsing of gapbs's `Graph has`, `Trial Time` and
`Verification` lines, and the answer (timed and checked by gapbs, no distances).

Both of gapbs's kernels print the same lines (its benchmark.h), so one parser reads both.
A subclass names its kernel, its export format and its extra arguments.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from gpubfs_cli.algorithms.bfs.peer import binaries
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob, whole
from gpubfs_cli.core.strategy import StrategyUnavailable

GRAPH = re.compile(r"Graph has (\d+) nodes and (\d+) (un)?directed edges")
TRIAL = re.compile(r"Trial Time:\s*([0-9.]+)")
VERIFIED = re.compile(r"Verification:\s*(\w+)")


def host_binary(kernel: str, places: tuple[Path, ...]) -> tuple[Path | None, str]:
    """(the first build in `places` this host can run, '') or (None, why not): the builds
    the tests look for are static x86-64 Linux binaries."""
    found = next((p for p in places if os.access(p, os.X_OK)), None)
    if found is None:
        return None, f"gapbs {kernel} binary not found at {' or '.join(map(str, places))}"
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return None, f"gapbs binary is static x86-64 Linux; this is {platform.system()} {platform.machine()}"
    return found, ""


@dataclass(frozen=True)
class GapbsKnobs:
    binary: str = ""  # empty: the peer's environment variable
    threads: int = knob(0, 0, means="0: all cores")  # OMP_NUM_THREADS; 0: numba's thread count
    trials: int = knob(2, 1)  # runs per source; the last one is the sample

    def __post_init__(self):
        if not whole(self.threads) or self.threads < 0:
            raise ValueError(f"threads: expected 0 (all cores) or a positive count, got {self.threads!r}")
        if not whole(self.trials) or self.trials < 1:
            raise ValueError(f"trials: expected 1 or more, got {self.trials!r}")


@dataclass(frozen=True)
class GapbsRun:
    """What one `-v` run printed."""

    nodes: int
    edges: int  # as gapbs counts them: directed edges, or undirected ones (m / 2)
    directed: bool
    times_ms: list[float]
    verified: list[bool]


def parse_output(text: str) -> GapbsRun:
    """The graph line, every trial's time and verdict; ValueError naming what is missing."""
    graph = GRAPH.search(text)
    if graph is None:
        raise ValueError("no 'Graph has N nodes and M edges' line")
    times = [float(t) * 1000.0 for t in TRIAL.findall(text)]
    verdicts = VERIFIED.findall(text)
    if not times:
        raise ValueError("no 'Trial Time' line")
    if len(verdicts) != len(times):
        raise ValueError(f"{len(verdicts)} verification lines for {len(times)} trials (was -v given?)")
    return GapbsRun(int(graph[1]), int(graph[2]), graph[3] is None, times, [v == "PASS" for v in verdicts])


def default_threads() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


class GapbsPeer(binaries.ScratchFolder):
    """One gapbs process per source, timed and verified by gapbs (subclassed, not registered)."""

    name = "peer.gapbs"
    paper = "peer"
    device_kind = "cpu"
    timing = "self"  # gapbs's own Trial Time
    Knobs = GapbsKnobs
    env: ClassVar[str]
    kernel: ClassVar[str]  # bfs | sssp
    export_format: ClassVar[str]  # sg | wel

    @classmethod
    def find(cls, path: str = "") -> tuple[Path | None, str]:
        """(the binary, '') or (None, why not): the knob, else the subclass's variable."""
        return binaries.find_binary(path, cls.env, f"gapbs {cls.kernel} binary", cls.name)

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return binaries.unavailable_from_env(cls.env, cls.find)

    def check_graph(self, graph) -> None:
        """StrategyUnavailable where this kernel cannot take the graph (beyond 32-bit ids)."""

    def arguments(self) -> list[str]:
        """The kernel's own flags after -f, -r, -n and -v."""
        return []

    def expected_edges(self, run: GapbsRun) -> tuple[int, bool]:
        """(the edge count gapbs should print, whether it must be equal or may be lower)."""
        return (self.graph.m if run.directed else self.graph.m // 2), True

    def counters(self, source: int) -> dict[str, int | float]:
        return {"threads": self.threads}

    def prepare(self, graph) -> None:
        from gpubfs_cli.graph.io.export import GAPBS_MAX_ID, export_graph

        binary, why = self.find(self.knobs.binary)
        if binary is None:
            raise StrategyUnavailable(why)
        if graph.n - 1 > GAPBS_MAX_ID:
            raise StrategyUnavailable(f"{graph.n:,} vertices: gapbs's vertex ids are 32-bit")
        self.binary = binary
        self.graph = graph
        self.check_graph(graph)
        self.threads = self.knobs.threads or default_threads()
        self.folder = Path(tempfile.mkdtemp(prefix=f"gpubfs-gapbs-{self.kernel}-"))
        self.file = self.folder / f"graph.{self.export_format}"
        export_graph(graph, self.file, self.export_format)
        self.runs: dict[int, GapbsRun] = {}

    def _run(self, source: int) -> GapbsRun:
        what = f"gapbs {self.kernel}"
        cmd = [str(self.binary), "-f", str(self.file), "-r", str(source), "-n", str(self.knobs.trials), "-v",
               *self.arguments()]
        env = dict(os.environ, OMP_NUM_THREADS=str(self.threads))
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        tail = " ".join((done.stderr or done.stdout).split())[-300:]
        if done.returncode != 0:
            raise RuntimeError(f"{what} exited with {done.returncode}: {tail}")
        try:
            run = parse_output(done.stdout)
        except ValueError as exc:
            raise RuntimeError(f"{what} output: {exc}: {tail}") from None
        edges, exact = self.expected_edges(run)
        if run.nodes != self.graph.n or (run.edges != edges if exact else run.edges > edges):
            raise RuntimeError(f"gapbs read {run.nodes:,} nodes and {run.edges:,} edges from the export; "
                               f"the graph has {self.graph.n:,} and {edges:,}")
        if len(run.times_ms) != self.knobs.trials:
            raise RuntimeError(f"{what} printed {len(run.times_ms)} trial times for {self.knobs.trials} trials")
        return run

    def plan_sources(self, sources: list[int]) -> None:
        for s in sources:
            if int(s) not in self.runs:
                self.runs[int(s)] = self._run(int(s))

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        run = self.runs.get(int(source))
        if run is None:
            raise RuntimeError(f"source {source} was not in the batch gapbs ran")
        return Answer(None, timed_by=self.name, time_ms=run.times_ms[-1], peer_valid=all(run.verified),
                      counters=self.counters(int(source)))
