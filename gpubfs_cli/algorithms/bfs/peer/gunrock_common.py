"""What peer.gunrock for BFS (bfs/peer/gunrock.py) and for SSSP (sssp/peer/gunrock.py)
share: the knobs, the binary's lookup, the export, one process over every source, the
metrics JSON's `process_times`, the `Number of errors` line, and the answer (timed by
Gunrock, checked by it on the last source only).

Both examples of Gunrock essentials (the same commit) take the same flags, write the same
metrics JSON and print the same errors line, so one runner serves both. A subclass names
its example (bfs | sssp), its export format and its environment variable.

The run: the binary once over every source, the list given twice like the peer's run.sh
(`-s S1,...,Sn,S1,...,Sn`: the first pass warms up), with --validate, --export_metrics and
--advance_load_balance; a source's sample is its time in the second pass (the first time
when it is listed twice). --validate checks ONLY the last run, that of the last source,
against Gunrock's own CPU code, and the binary exits 0 even on errors: that sample is
valid (`Number of errors : 0`) or wrong-answer, every other one valid = null. Each sample
says which it is: counter peer_checked (1 for the checked source, else 0) and, on the
checked one, peer_errors (Gunrock's N). With the knob `check_all`, each other source is
then run once more alone, untimed, so that Gunrock checks every source the samples have
(one more process, load and set-up included, per source).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from gpubfs_cli.algorithms.bfs.peer import binaries
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import check_flags
from gpubfs_cli.core.strategy import StrategyUnavailable

LOAD_BALANCES = ("block_mapped", "thread_mapped", "merge_path")
ERRORS = re.compile(r"Number of errors\s*:\s*(\d+)")
CHECKED_CAVEAT = ("Gunrock checks only the last source of a run (counter peer_checked 1, peer_errors its count); "
                  "the other samples are not validated unless check_all runs each alone")
RUN_CAVEAT = "one process runs every source twice (the first pass warms up); load and set-up are not timed"


@dataclass(frozen=True)
class GunrockKnobs:
    binary: str = ""  # the binary, or the folder holding it; empty: the peer's environment variable
    load_balance: str = "block_mapped"
    # after the timed run, one untimed run per other source, each its own last (checked) source
    check_all: bool = False

    def __post_init__(self):
        if self.load_balance not in LOAD_BALANCES:
            raise ValueError(f"load_balance: expected one of {', '.join(LOAD_BALANCES)}, got {self.load_balance!r}")
        check_flags(self, ("check_all",))


def last_errors(stdout: str) -> int | None:
    """N of the last `Number of errors : N` line (--validate's check), None without one."""
    found = ERRORS.findall(stdout or "")
    return int(found[-1]) if found else None


class GunrockPeer(binaries.ScratchFolder):
    """Gunrock's example over every source in one process (subclassed, not registered)."""

    name = "peer.gunrock"
    paper = "peer"
    device_kind = "cpu"  # gpubfs starts a process on the host
    timing = "self"  # the peer's own CUDA events around its traversal
    Knobs = GunrockKnobs
    supports_predecessors = False
    env: ClassVar[str]
    example: ClassVar[str]  # bfs | sssp: the binary's name in its folder
    export_format: ClassVar[str]  # mtx | wmtx

    @classmethod
    def find(cls, path: str = "") -> tuple[Path | None, str]:
        """(the binary, '') or (None, why not): the knob, else the subclass's variable."""
        return binaries.find_binary(path, cls.env, f"Gunrock {cls.example.upper()} binary", cls.name,
                                    in_folder=cls.example)

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return binaries.unavailable_from_env(cls.env, cls.find)

    def prepare(self, graph) -> None:
        from gpubfs_cli.graph.io.export import export_graph

        binary, why = self.find(self.knobs.binary)
        if binary is None:
            raise StrategyUnavailable(why)
        self.binary = binary
        self.graph = graph
        self.folder = Path(tempfile.mkdtemp(prefix=f"gpubfs-gunrock-{self.example}-"))
        self.mtx = self.folder / "graph.mtx"
        export_graph(graph, self.mtx, self.export_format, comment=f"gpubfs export of {graph.name} for {self.name}")
        self.times: dict[int, float] = {}
        self.errors: dict[int, int] = {}  # source -> Gunrock's error count, for each source it checked

    def _call(self, sources: list[int], twice: bool) -> tuple[list[float], int | None]:
        """One process of the binary over `sources` (the list given twice when `twice`):
        its process_times and its check's error count (None: no errors line)."""
        what = f"Gunrock {self.example.upper()}"
        srcs = ",".join(str(int(s)) for s in sources)
        cmd = [str(self.binary), "-m", str(self.mtx), "-s", f"{srcs},{srcs}" if twice else srcs, "--validate",
               "--export_metrics", "-d", str(self.folder), "-f", "metrics.json",
               "--advance_load_balance", self.knobs.load_balance]
        done = subprocess.run(cmd, capture_output=True, text=True)
        tail = " ".join((done.stderr or done.stdout).split())[-300:]
        if done.returncode != 0:
            raise RuntimeError(f"{what} exited with {done.returncode}: {tail}")
        try:
            times = json.loads((self.folder / "metrics.json").read_text())["process_times"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RuntimeError(f"{what} wrote no usable metrics JSON ({exc}): {tail}") from None
        runs = (2 if twice else 1) * len(sources)
        if len(times) != runs:
            raise RuntimeError(f"{what} reported {len(times)} times for {runs} runs")
        return [float(t) for t in times], last_errors(done.stdout)

    def plan_sources(self, sources: list[int]) -> None:
        times, errors = self._call(sources, twice=True)
        for s, t in zip(sources, times[len(sources):], strict=True):
            self.times.setdefault(int(s), float(t))
        if errors is not None:
            self.errors[int(sources[-1])] = errors
        if self.knobs.check_all:  # untimed: each other source alone, so Gunrock checks it
            for s in dict.fromkeys(int(x) for x in sources[:-1]):
                if s not in self.errors:
                    _, found = self._call([s], twice=False)
                    if found is not None:
                        self.errors[s] = found

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        if int(source) not in self.times:
            raise RuntimeError(f"source {source} was not in the batch Gunrock ran")
        errors = self.errors.get(int(source))
        counters: dict[str, int] = {"peer_checked": int(errors is not None)}
        if errors is not None:
            counters["peer_errors"] = int(errors)
        return Answer(None, counters=counters, timed_by=self.name, time_ms=self.times[int(source)],
                      peer_valid=(errors == 0) if errors is not None else None)
