"""One graph of a run: load it, choose its sources, then every variant's turns on it.

The graph is generated or fetched and cached (with weights when a problem needs them);
its sources come from graph/sources.py; each problem's reference answers are computed
once, outside any timing, when the first variant of that problem needs them; a variant
with a vertex order runs on the graph relabelled in that order, built once per order
(bench/inputs.Reorders). A turn measures what the resumed journal does not hold
(bench/schedule.remaining) in the modes that have not ended (bench/measure.py does the
measuring), and its records go to the journal as it ends. A graph that cannot be loaded
is recorded as such, and the run goes on.
"""

from __future__ import annotations

import functools
import time
from typing import Any

from gpubfs_cli.bench.config import DatasetSpec, sources_origin
from gpubfs_cli.bench.inputs import ProblemInput, Reorders, problem_input
from gpubfs_cli.bench.schedule import Work
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.sources import choose_sources
from gpubfs_cli.results.keys import NO_REORDER
from gpubfs_cli.results.status import classify


class GraphRun:
    def __init__(self, runner: Any, spec: DatasetSpec, label: str):
        """`runner`: the bench/runner.Runner whose graph this is (its config, variants,
        records, measure and progress)."""
        self.runner, self.spec, self.label = runner, spec, label
        self.name = spec.name
        self.graph: CSRGraph | None = None
        self.sources: list[int] = []
        self.info: dict = {}
        self.inputs: dict[str, ProblemInput] = {}
        self.reorders = Reorders()
        self.uploaded: dict[int, CSRGraph] = {}  # a problem's view (with weights) is its own object
        self.ended: dict[int, set[bool]] = {}  # a variant's modes that failed or ran out of time
        self.unavailable: dict[str, str] = {}  # problem -> why a variant of it cannot run here

    def run(self) -> None:
        r = self.runner
        if not self.load():
            return
        try:
            for work in r.work(self.name, self.sources):
                self.turn(work)
            r.stage = None
        finally:
            for problem, why in self.unavailable.items():
                if problem not in self.inputs:
                    r.refs_skipped.setdefault(problem, [[], why])[0].append(self.name)
            self.release()

    def load(self) -> bool:
        """The graph, its sources and its results entry (journaled with the sources);
        False when it cannot be loaded (recorded, and the run goes on)."""
        r, cfg = self.runner, self.runner.config
        r.progress.describe(f"{self.spec.name}: loading")
        r.stage = f"loading {self.label}"
        t0 = time.perf_counter()
        try:
            graph, meta = r.load_graph(self.spec, cfg.data_dir, r.progress.enabled)
        except Exception as exc:  # unreachable URL, checksum mismatch, bad file: the run goes on
            status, reason = ("error", str(exc)) if isinstance(exc, UserError) else classify(exc)
            r.records.graph(self.spec.name, self.label, {"status": status, "reason": reason})
            r.stage = None
            return False
        self.graph, self.name, load_s = graph, graph.name or self.spec.name, time.perf_counter() - t0
        chosen = choose_sources(graph, count=cfg.sources, seed=cfg.seed, explicit=cfg.fixed_sources, meta=meta,
                                explicit_from=sources_origin(cfg), name=_sources_name(graph))
        self.sources = chosen.vertices
        if chosen.note:
            r.progress.note(f"{self.name}: {chosen.note}")
        r.progress.resize(r.steps(len(self.sources)) - r.steps(len(cfg.fixed_sources) or cfg.sources))
        before = r.doc["sources"].get(self.name)
        if r.done is not None and before is not None and list(before) != [int(s) for s in self.sources]:
            raise UserError(f"{r.resume}: {self.name}: the sources drawn now differ from the journal's "
                            "(the graph changed?); the run cannot be resumed")
        self.info = {"status": "ok", "n": graph.n, "m": graph.m, "directed": graph.directed,
                     "stats": graph.stats().to_dict(), "meta": meta, "load_s": round(load_s, 3),
                     "sources_origin": chosen.origin, "depth_avg": None, "depth_max": None, "upload_ms": None}
        old = r.doc["datasets"].get(self.name) or {}
        self.info.update({k: v for k, v in old.items() if self.info.get(k) is None and old.get("status") == "ok"})
        r.records.graph(self.name, self.label, self.info, self.sources)
        return True

    def turn(self, work: Work) -> None:
        """One variant's turn: what the journal does not hold, in the modes not ended."""
        r, cfg = self.runner, self.runner.config
        variant, cls, knobs, kd = r.variants[work.turn.variant]
        ended = self.ended.setdefault(work.turn.variant, set())
        r.progress.advance_by(work.held + sum(len(todo) * len(set(modes) & ended) for todo, modes in work.todo))
        todo = [(sources, [m for m in modes if m not in ended]) for sources, modes in work.todo]
        todo = [(sources, modes) for sources, modes in todo if modes]
        if not todo:
            return
        r.records.variant = variant.label
        with r.progress.turn(self.name, variant.label, len(work.turn.sources)) as said:
            reason = cls.unavailable_reason()
            if reason is not None:  # no reference answers needed for this one
                modes = [m for m in cfg.modes if any(m in ms for _, ms in todo)]
                r.measure.unavailable(self.name, variant.problem, cls, knobs, modes, reason, len(work.turn.sources),
                                      kd=kd)
                self.unavailable.setdefault(variant.problem, f"{cls.name}: {reason}")
                ended |= set(modes)
                r.records.flush()
                said.outcome = f"unavailable ({reason})"
                return
            self.measure_turn(work, todo, ended)

    def measure_turn(self, work: Work, todo: list, ended: set[bool]) -> None:
        """A turn's sources measured, mode list by mode list, each flushed to the journal."""
        r = self.runner
        variant, cls, knobs, kd = r.variants[work.turn.variant]
        for sources, modes in todo:
            pi = self.problem(variant.problem)
            r.stage = f"{variant.label} on {self.name}"
            reorder = None
            if variant.reorder != NO_REORDER:
                reorder = functools.partial(self.reorders.view, pi.graph, variant.reorder)
            went, stopped = r.measure.variant(self.name, pi, sources, cls, knobs, variant.label, self.info, modes,
                                              work.turn.later, kd=kd, reorder=reorder)
            if went is not None:
                self.uploaded[id(went)] = went
            ended |= stopped
            r.records.flush()

    def problem(self, key: str) -> ProblemInput:
        """A problem's view of the graph with its reference answers, made on first need."""
        if key not in self.inputs:
            r = self.runner
            r.stage = f"the reference answers of {self.name} ({key})"
            self.inputs[key] = problem_input(key, self.name, self.graph, self.sources, self.info, r.config,
                                             r.add_weights, r.progress, r.reference_budget_bytes)
        return self.inputs[key]

    def release(self) -> None:
        if self.uploaded:
            from gpubfs_cli.gpu.device_graph import DeviceGraph

            for g in self.uploaded.values():
                DeviceGraph.release(g)


def _sources_name(graph: CSRGraph) -> str:
    """The name the graph's random sources are drawn for: NAME@weights=rule is NAME's
    graph, so its rows pair with NAME's, source for source."""
    from gpubfs_cli.datasets.weights import split_option

    return split_option(graph.name)[0] if graph.name else graph.name
