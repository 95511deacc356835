"""peer.gapbs: the GAP benchmark suite's `bfs` binary (Beamer's direction-optimizing BFS,
C++ and OpenMP; a static build and its notes are in ../shared/peers/gapbs/) on the graph
exported from the cache, from the run's own sources, on the host of the run.

prepare() writes the graph in gapbs's serialized format (`sg`, graph/io/export.py: the
CSR as it is, loaded in a fraction of a second, where an edge list takes gapbs minutes
to read and build). plan_sources() runs the binary once per source,
`bfs -f G.sg -r SOURCE -n TRIALS -v` with OMP_NUM_THREADS set, and keeps the last
trial's `Trial Time` (gapbs's own timer around its BFS, graph loading excluded; the
trials before it warm up). gapbs prints seconds to 5 decimals, so its times are
multiples of 10 us.

gapbs returns no distances or parents to gpubfs: `-v` has gapbs check each trial's
parent tree against its own serial BFS (`Verification: PASS`), and the sample is valid
when every trial passed, wrong-answer when one failed. Its `Graph has N nodes` line is
checked against the exported graph, so a file gapbs misread is an error, not a sample.
gapbs's BFS always builds the parent tree: the distance and predecessor samples are the
same kind of run. Samples carry timed_by: peer.gapbs.

Knobs: binary (path; else $GPUBFS_GAPBS_BFS, else ../shared/peers/gapbs/bfs or
.peers/gapbs/bfs beside the checkout, the first that exists), threads (OMP_NUM_THREADS;
0 = numba's thread count, the one cpu.parallel_do's threads = 0 uses), trials (runs per
source; the last is the sample).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gpubfs_cli.algorithms.bfs.peer import binaries
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import Strategy, StrategyUnavailable, register

ENV = "GPUBFS_GAPBS_BFS"
CHECKOUT = Path(__file__).resolve().parents[4]
DEFAULTS = (CHECKOUT.parent / "shared" / "peers" / "gapbs" / "bfs", CHECKOUT / ".peers" / "gapbs" / "bfs")
GRAPH = re.compile(r"Graph has (\d+) nodes and (\d+) (un)?directed edges")
TRIAL = re.compile(r"Trial Time:\s*([0-9.]+)")
VERIFIED = re.compile(r"Verification:\s*(\w+)")


@dataclass(frozen=True)
class GapbsKnobs:
    binary: str = ""  # empty: $GPUBFS_GAPBS_BFS, else a default path that exists
    threads: int = 0  # OMP_NUM_THREADS; 0: numba's thread count (all cores)
    trials: int = 2  # runs per source; the last one is the sample

    def __post_init__(self):
        if self.threads < 0:
            raise ValueError(f"threads: expected 0 (all cores) or a positive count, got {self.threads}")
        if self.trials < 1:
            raise ValueError(f"trials: expected 1 or more, got {self.trials}")


@dataclass(frozen=True)
class GapbsRun:
    """What one `bfs -v` run printed."""

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


def find_binary(path: str = "") -> tuple[Path | None, str]:
    """(the binary, '') or (None, why not)."""
    return binaries.find_binary(path, ENV, "gapbs bfs", f"none at {' or '.join(map(str, DEFAULTS))}", DEFAULTS)


def default_threads() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


@register
class GapbsBfs(Strategy):
    name = "peer.gapbs"
    paper = "peer"
    section = "peer: GAP benchmark suite BFS (Beamer's direction-optimizing, OpenMP), timed by itself"
    summary = "gapbs's bfs binary on the exported graph, from the same sources, same threads"
    caveats = (
        "times are gapbs's own (its Trial Time, 10 us resolution), not gpubfs's timer; graph loading excluded",
        "checked by gapbs's own verifier (-v: its serial BFS), not by gpubfs",
        "gapbs always builds the parent tree: distance and predecessor samples are the same run",
    )
    device_kind = "cpu"
    timing = "self"  # gapbs's own Trial Time
    Knobs = GapbsKnobs

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return binaries.unavailable_from_env(ENV, find_binary)

    def prepare(self, graph) -> None:
        from gpubfs_cli.graph.io.export import GAPBS_MAX_ID, export_graph

        binary, why = find_binary(self.knobs.binary)
        if binary is None:
            raise StrategyUnavailable(why)
        if graph.n - 1 > GAPBS_MAX_ID:
            raise StrategyUnavailable(f"{graph.n:,} vertices: gapbs's vertex ids are 32-bit")
        self.binary = binary
        self.graph = graph
        self.threads = self.knobs.threads or default_threads()
        self.folder = Path(tempfile.mkdtemp(prefix="gpubfs-gapbs-"))
        self.sg = self.folder / "graph.sg"
        export_graph(graph, self.sg, "sg")
        self.runs: dict[int, GapbsRun] = {}

    def _run(self, source: int) -> GapbsRun:
        cmd = [str(self.binary), "-f", str(self.sg), "-r", str(source), "-n", str(self.knobs.trials), "-v"]
        env = dict(os.environ, OMP_NUM_THREADS=str(self.threads))
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        tail = " ".join((done.stderr or done.stdout).split())[-300:]
        if done.returncode != 0:
            raise RuntimeError(f"gapbs bfs exited with {done.returncode}: {tail}")
        try:
            run = parse_output(done.stdout)
        except ValueError as exc:
            raise RuntimeError(f"gapbs bfs output: {exc}: {tail}") from None
        edges = self.graph.m if run.directed else self.graph.m // 2
        if (run.nodes, run.edges) != (self.graph.n, edges):
            raise RuntimeError(f"gapbs read {run.nodes:,} nodes and {run.edges:,} edges from the export; "
                               f"the graph has {self.graph.n:,} and {edges:,}")
        if len(run.times_ms) != self.knobs.trials:
            raise RuntimeError(f"gapbs bfs printed {len(run.times_ms)} trial times for {self.knobs.trials} trials")
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
                      counters={"threads": self.threads})

    def release(self) -> None:
        folder = getattr(self, "folder", None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
            self.folder = None
        super().release()
