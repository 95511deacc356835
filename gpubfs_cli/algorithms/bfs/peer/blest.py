"""peer.blest: BLEST (tensor-core BFS, Elbek & Kaya, arXiv:2512.21967; the user's build and
the run.sh that runs it) on the graph exported from the cache.

prepare() writes the graph as Matrix Market (graph/io/export.py) into a temporary folder
and runs BLEST once from vertex 0 with BLEST_CACHE_DIR in that folder: BLEST loads the
file and reorders it (Jaccard window or RCM) into its cache there, so the load and the
reordering are prepare time, and BLEST's own figure for the reordering (the JSON's
`reorder_s`) is each sample's counter reorder_ms. plan_sources() then runs BLEST once
over every new source, listed twice (run.sh's REPEAT=2: the first pass warms up), which
finds the cached graph; traverse(source) answers with the second pass's time for that
source from the JSON's `process_times` (ms, host omp_get_wtime around BLEST's one
cooperative kernel launch + synchronize; the BVSS build and the uploads are outside).

BLEST returns no distances and checks nothing: its JSON gives each run's `levels` (max
depth + 1) and `visited` (vertices reached, the source included). The warm pass's two
counts are the answer's peer_counts, which the harness checks against the problem's
baseline for the same source (bench/measure.py); the two passes disagreeing is a wrong
answer too. Samples carry timed_by: peer.blest and counters levels, visited.

Knobs: binary (run.sh or its folder; else $GPUBFS_BLEST; with neither the cell is
unavailable, saying which to set), jaccard (run.sh's JACCARD: Jaccard-window reordering of graphs BLEST
classifies as social, natural order for them when off; others always get RCM), window
(run.sh's WINDOW, the Jaccard window).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from gpubfs_cli.algorithms.bfs.peer import binaries
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob, whole
from gpubfs_cli.core.strategy import StrategyUnavailable, register

ENV = "GPUBFS_BLEST"
NO_GPU = (35, 100)  # cudaErrorInsufficientDriver, cudaErrorNoDevice: BLEST exits with the error
MAX_EDGES = 2**32 - 1  # BLEST counts directed edges in 32 bits


@dataclass(frozen=True)
class BlestKnobs:
    binary: str = ""  # run.sh or its folder; empty: $GPUBFS_BLEST
    jaccard: bool = False
    window: int = knob(65536, 1)

    def __post_init__(self):
        if not isinstance(self.jaccard, bool):
            raise ValueError(f"jaccard: expected true or false, got {self.jaccard!r}")
        if not whole(self.window) or self.window < 1:
            raise ValueError(f"window: expected a positive whole number of vertices, got {self.window!r}")


@dataclass(frozen=True)
class BlestSource:
    """One source's runs: the warm pass's time and counts, and the cross-check."""

    time_ms: float
    levels: int
    visited: int
    valid: bool  # both passes gave the same counts


def find_binary(path: str = "") -> tuple[Path | None, str]:
    """(run.sh, '') or (None, why not); a folder stands for its run.sh."""
    given = path or os.environ.get(ENV, "")
    if given and os.path.isdir(given):
        given = os.path.join(given, "run.sh")
    return binaries.find_binary(given, ENV, "BLEST run.sh", "peer.blest")


@register
class BlestBfs(binaries.ScratchFolder):
    name = "peer.blest"
    paper = "peer"
    section = "peer: BLEST tensor-core BFS (Elbek & Kaya, arXiv:2512.21967), timed by itself"
    summary = "BLEST's run.sh on the exported graph, from the same sources"
    caveats = (
        "times are BLEST's own (host clock around its one cooperative kernel + synchronize), not gpubfs's timer",
        "load and reordering (RCM or Jaccard window) are in the prepare time; BVSS build and uploads are untimed",
        "BLEST returns counts, not distances: its levels and visited are checked against the baseline's",
        "directed graphs are untested by BLEST's authors",
    )
    device_kind = "cpu"  # gpubfs starts a process on the host
    timing = "self"  # BLEST's own host clock around its kernel
    # a bitmap (BVSS) traversal, not a top-down one: its rate is the top-down count over its time
    teps = "equivalent"
    Knobs = BlestKnobs
    supports_predecessors = False

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return binaries.unavailable_from_env(ENV, find_binary)

    @classmethod
    def find(cls, path: str = "") -> tuple[Path | None, str]:
        return find_binary(path)

    @classmethod
    def peer_binaries(cls, knobs) -> list[Path]:
        """run.sh and the BLEST binary it runs ($BLEST, else `blest` beside it)."""
        script, _ = find_binary(knobs.binary)
        if script is None:
            return []
        binary = Path(os.environ.get("BLEST") or script.parent / "blest")
        return [script] + ([binary] if binary.is_file() else [])

    def prepare(self, graph) -> None:
        from gpubfs_cli.graph.io.export import export_graph

        script, why = find_binary(self.knobs.binary)
        if script is None:
            raise StrategyUnavailable(why)
        if graph.n < 1:
            raise StrategyUnavailable("BLEST needs at least one vertex")
        if graph.m > MAX_EDGES:
            raise StrategyUnavailable(f"{graph.m:,} directed edges: BLEST counts edges in 32 bits")
        self.script = script
        self.graph = graph
        self.results: dict[int, BlestSource] = {}
        self.folder = Path(tempfile.mkdtemp(prefix="gpubfs-blest-"))
        self.mtx = self.folder / "graph.mtx"
        export_graph(graph, self.mtx, "mtx", comment=f"gpubfs export of {graph.name} for peer.blest")
        # Load and reorder into BLEST's cache now, so that both are prepare time.
        first = self._run([0], repeat=1, tag="prepare")
        self.reorder_ms = _ms(first.get("reorder_s"))
        self.bvss_build_ms: float | None = None

    def _run(self, sources: list[int], repeat: int, tag: str) -> dict:
        out = self.folder / f"{tag}.json"
        out.unlink(missing_ok=True)
        cmd = [str(self.script), str(self.mtx), ",".join(map(str, sources)), str(out),
               "1" if self.knobs.jaccard else "0", str(self.knobs.window)]
        env = dict(os.environ, BLEST_CACHE_DIR=str(self.folder / "cache"), REPEAT=str(repeat))
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        try:
            doc = json.loads(out.read_text())
        except (OSError, ValueError) as exc:
            doc, missing = {}, exc
        else:
            missing = None
        said = doc.get("error") if isinstance(doc, dict) else None
        tail = said or " ".join((done.stderr or done.stdout).split())[-300:]
        if done.returncode in NO_GPU:
            raise StrategyUnavailable(f"BLEST found no usable GPU (exit {done.returncode}): {tail}")
        if done.returncode != 0:
            raise RuntimeError(f"BLEST exited with {done.returncode}: {tail}")
        if missing is not None or not isinstance(doc, dict):
            raise RuntimeError(f"BLEST wrote no usable JSON ({missing or 'not an object'}): {tail}")
        want = [int(s) for s in sources] * repeat
        try:
            runs = [(int(s), float(t), int(lv), int(vi)) for s, t, lv, vi in
                    zip(doc["srcs"], doc["process_times"], doc["levels"], doc["visited"], strict=True)]
        except (KeyError, TypeError, ValueError) as exc:
            raise RuntimeError(f"BLEST's JSON has no usable srcs, process_times, levels and visited ({exc})") from None
        if [r[0] for r in runs] != want:
            raise RuntimeError(f"BLEST ran {len(runs)} runs for {len(want)}, or other sources than asked")
        doc["runs"] = runs
        return doc

    def plan_sources(self, sources: list[int]) -> None:
        todo = list(dict.fromkeys(int(s) for s in sources if int(s) not in self.results))
        if not todo:
            return
        doc = self._run(todo, repeat=2, tag="sources")
        self.bvss_build_ms = _ms(doc.get("bvss_build_s"))
        runs = doc["runs"]
        for s in todo:
            mine = [r for r in runs if r[0] == s]
            _, t, lv, vi = mine[-1]  # the warm pass
            # the harness checks the warm pass's counts; the passes must agree among themselves
            self.results[s] = BlestSource(t, lv, vi, all((r[2], r[3]) == (lv, vi) for r in mine))

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        res = self.results.get(int(source))
        if res is None:
            raise RuntimeError(f"source {source} was not in the batch BLEST ran")
        counters: dict[str, int | float] = {"levels": res.levels, "visited": res.visited}
        if self.reorder_ms is not None:
            counters["reorder_ms"] = self.reorder_ms
        if self.bvss_build_ms is not None:
            counters["bvss_build_ms"] = self.bvss_build_ms
        return Answer(None, timed_by=self.name, time_ms=res.time_ms, peer_valid=None if res.valid else False,
                      peer_counts=(res.levels, res.visited), counters=counters)


def _ms(seconds) -> float | None:
    return None if seconds is None else float(seconds) * 1000.0
