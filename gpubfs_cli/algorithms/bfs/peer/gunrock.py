"""peer.gunrock: Gunrock's BFS binary (the bfs example of gunrock/gunrock "essentials", built
by the user for the GPU at hand) on the graph exported from the cache.

prepare() writes the graph as Matrix Market (graph/io/export.py) into a temporary folder;
plan_sources() runs the binary once over every source, twice in a row like the peer's
run.sh (the first pass warms up), with --validate and --export_metrics; traverse(source)
then answers with the second pass's time for that source from the metrics JSON's
`process_times` (ms, CUDA events around Gunrock's traversal, set-up excluded). A source
listed twice gets its first time.

Gunrock returns no distances, so nothing is checked by gpubfs: `--validate` compares ONLY
the last source with Gunrock's own CPU BFS (stdout `Number of errors : N`); that source's
sample is valid (N = 0) or wrong-answer, every other one valid = null. Samples carry
timed_by: peer.gunrock. The rate's edge count comes from the baseline's answer.

Knobs: binary (path; else $GPUBFS_GUNROCK_BFS; with neither the cell is unavailable, saying
which to set), load_balance (the advance's load balance:
block_mapped, Gunrock's default and its fastest on uniform graphs, thread_mapped, or
merge_path, its fastest on skewed ones; others are refused as run.sh refuses them).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gpubfs_cli.algorithms.bfs.peer import binaries
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import StrategyUnavailable, register

ENV = "GPUBFS_GUNROCK_BFS"
LOAD_BALANCES = ("block_mapped", "thread_mapped", "merge_path")
ERRORS = re.compile(r"Number of errors\s*:\s*(\d+)")


@dataclass(frozen=True)
class GunrockKnobs:
    binary: str = ""  # empty: $GPUBFS_GUNROCK_BFS
    load_balance: str = "block_mapped"

    def __post_init__(self):
        if self.load_balance not in LOAD_BALANCES:
            raise ValueError(f"load_balance: expected one of {', '.join(LOAD_BALANCES)}, got {self.load_balance!r}")


def find_binary(path: str = "") -> tuple[Path | None, str]:
    """(the binary, '') or (None, why not)."""
    return binaries.find_binary(path, ENV, "Gunrock BFS binary", "peer.gunrock")


@register
class GunrockBfs(binaries.ScratchFolder):
    name = "peer.gunrock"
    paper = "peer"
    section = "peer: Gunrock essentials BFS (push, no direction optimization), timed by itself"
    summary = "Gunrock's BFS binary on the exported graph, from the same sources"
    caveats = (
        "times are Gunrock's own (CUDA events around its traversal, its process_times), not gpubfs's timer",
        "Gunrock checks only the last source of a run; the other samples are not validated",
        "one process runs every source twice (the first pass warms up); load and set-up are not timed",
    )
    device_kind = "cpu"  # gpubfs starts a process on the host
    timing = "self"  # the peer's own CUDA events around its traversal
    Knobs = GunrockKnobs
    supports_predecessors = False

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return binaries.unavailable_from_env(ENV, find_binary)

    @classmethod
    def find(cls, path: str = "") -> tuple[Path | None, str]:
        return find_binary(path)

    def prepare(self, graph) -> None:
        from gpubfs_cli.graph.io.export import export_graph

        binary, why = find_binary(self.knobs.binary)
        if binary is None:
            raise StrategyUnavailable(why)
        self.binary = binary
        self.graph = graph
        self.folder = Path(tempfile.mkdtemp(prefix="gpubfs-gunrock-"))
        self.mtx = self.folder / "graph.mtx"
        export_graph(graph, self.mtx, "mtx", comment=f"gpubfs export of {graph.name} for peer.gunrock")
        self.times: dict[int, float] = {}
        self.last: int | None = None
        self.errors: int | None = None

    def plan_sources(self, sources: list[int]) -> None:
        srcs = ",".join(str(int(s)) for s in sources)
        cmd = [str(self.binary), "-m", str(self.mtx), "-s", f"{srcs},{srcs}", "--validate", "--export_metrics",
               "-d", str(self.folder), "-f", "metrics.json", "--advance_load_balance", self.knobs.load_balance]
        done = subprocess.run(cmd, capture_output=True, text=True)
        tail = " ".join((done.stderr or done.stdout).split())[-300:]
        if done.returncode != 0:
            raise RuntimeError(f"Gunrock BFS exited with {done.returncode}: {tail}")
        try:
            times = json.loads((self.folder / "metrics.json").read_text())["process_times"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RuntimeError(f"Gunrock BFS wrote no usable metrics JSON ({exc}): {tail}") from None
        if len(times) != 2 * len(sources):
            raise RuntimeError(f"Gunrock BFS reported {len(times)} times for {2 * len(sources)} runs")
        for s, t in zip(sources, times[len(sources):], strict=True):
            self.times.setdefault(int(s), float(t))
        self.last = int(sources[-1])
        found = ERRORS.findall(done.stdout or "")
        self.errors = int(found[-1]) if found else None

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        if int(source) not in self.times:
            raise RuntimeError(f"source {source} was not in the batch Gunrock ran")
        valid = None
        if int(source) == self.last and self.errors is not None:
            valid = self.errors == 0
        return Answer(None, timed_by=self.name, time_ms=self.times[int(source)], peer_valid=valid)
