"""The runner: datasets x strategy variants x sources -> one results file.

The runner runs; the rooms beside it do the rest: bench/graph_run.py one graph's turns,
bench/measure.py one variant's measurement, bench/records.py the journal the records go
to, results/ the file they make. It knows no algorithm: each variant's strategy names
its Problem, which supplies the reference answers, the check and the measures.

Nothing measured is lost: the results file is what the journal replays into, written
after each graph and at the end, also when Ctrl-C, SIGTERM or SIGHUP (bench/stop.py) or
an error stops the run (`interrupted`, `stopped_by`, `interrupted_during`; `failed:
REASON`, which a bare `gpubfs report` skips); `gpubfs run --resume JOURNAL` goes on from
there (bench/resume.py). A complete run's journal is removed once its file is written; a
run that measured nothing (no sample, or every cell unavailable: results/status.py)
writes no results file and keeps no journal (a failed run must not become the newest one).
Results names are never shared (results/journal.claim); a named results file (`--out`,
`out:`) that exists is refused unless `replace`.

Availability comes first: a variant that cannot run here (no GPU) is an `unavailable`
cell without its graph's reference answers, and when no variant of the run can run at
all, nothing starts: no journal, no graph, and the outcome says why (`nothing`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gpubfs_cli.bench.availability import check_gpu_requirement, why_none_runs
from gpubfs_cli.bench.config import DatasetSpec, RunConfig
from gpubfs_cli.bench.graph_run import GraphRun
from gpubfs_cli.bench.inputs import default_loader, default_weights
from gpubfs_cli.bench.measure import L2Flush, Measure
from gpubfs_cli.bench.progress import NullProgress, RunProgress
from gpubfs_cli.bench.records import RunRecords
from gpubfs_cli.bench.references import DEFAULT_BUDGET_BYTES
from gpubfs_cli.bench.schedule import Work, remaining, steps
from gpubfs_cli.bench.stop import Stop
from gpubfs_cli.bench.variants import Variant, made_variants
from gpubfs_cli.core.strategy import Registry
from gpubfs_cli.core.strategy import registry as all_registered
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import check_output_path
from gpubfs_cli.folders import results_folder
from gpubfs_cli.gpu.clocks import ClockReader
from gpubfs_cli.gpu.energy import EnergyReader
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.results.done import Done
from gpubfs_cli.results.journal import Journal, results_path, spec_label
from gpubfs_cli.results.keys import CellKey
from gpubfs_cli.results.status import nothing_measured, why_nothing

GraphLoader = Callable[[DatasetSpec, "str | None", bool], "tuple[CSRGraph, dict]"]


def default_out_path(config: RunConfig, now: datetime | None = None) -> Path:
    now = now or datetime.now(timezone.utc)
    return results_folder().path / f"{config.name}-{now.strftime('%Y%m%dT%H%M%SZ')}.json"


@dataclass
class RunOutcome:
    doc: dict
    path: Path
    interrupted: bool = False
    written: bool = True  # False: no sample, so no results file
    journal: Path | None = None  # kept when the run did not complete: resume it
    stopped_by: str | None = None  # SIGINT, SIGTERM or SIGHUP
    notes: list[str] | None = None  # one line each: what was skipped and why
    nothing: str | None = None  # a run that measured nothing (not stopped, no error): why


class Runner:
    def __init__(
        self,
        config: RunConfig,
        *,
        load_graph: GraphLoader | None = None,
        progress: RunProgress | NullProgress | None = None,
        environment: dict | None = None,
        out_path: str | Path | None = None,
        reference_budget_bytes: int = DEFAULT_BUDGET_BYTES,
        registry: Registry | None = None,
        add_weights: Callable[[CSRGraph, str | None], CSRGraph] | None = None,
        flush_l2: L2Flush | None = None,
        read_clocks: ClockReader | None = None,
        read_energy: EnergyReader | None = None,
        resume: str | Path | None = None,
        replace: bool = True,
    ):
        """flush_l2 (cold runs only; default gpu.l2.L2Flusher), read_clocks and read_energy
        (default: gpu/clocks' and gpu/energy's readers) are injectable so CPU tests can fake
        them. `resume`: a journal to go on with (its results file is the one beside it);
        `replace`: a named results file (out_path, config.out) may replace an existing one."""
        self.config = config
        self.load_graph = load_graph or default_loader
        self.progress = progress or NullProgress()
        self.resume = Path(resume) if resume is not None else None
        named = out_path or config.out
        self.named = bool(named)
        self.replace = replace
        self.out_path = results_path(self.resume) if self.resume else Path(named or default_out_path(config))
        self.reference_budget_bytes = reference_budget_bytes
        self.environment = environment if environment is not None else _environment()
        self.registry = registry if registry is not None else all_registered()
        self.add_weights = add_weights or default_weights
        self.flush_l2 = (flush_l2 or _l2_flusher()) if config.l2 == "cold" else None
        self.stop = Stop()
        self.records: RunRecords | None = None
        self.measure = Measure(config, self.progress, None, self.flush_l2, read_clocks, read_energy)
        self.written = False
        self.done: Done | None = None  # what the resumed journal holds
        self.stage: str | None = None  # what runs now, for a stopped run's record
        self.notes: list[str] = []
        self.refs_skipped: dict[str, list] = {}  # problem -> [graphs, why]

    @property
    def journal(self) -> Journal:
        return self.records.journal

    @property
    def doc(self) -> dict:
        return self.records.doc

    @functools.cached_property
    def variants(self) -> list[tuple[Variant, type, object, dict]]:
        return made_variants(self.config, self.registry)

    # ------------------------------------------------------------------ driver
    def run(self) -> RunOutcome:
        """Run everything; the results file is written after each graph and at the end,
        also when Ctrl-C, a signal or an error stops the run (then with what finished)."""
        check_output_path(self.out_path, "results file")
        check_gpu_requirement(self.config)
        why = why_none_runs(self.variants)
        if why is not None:
            getattr(self.flush_l2, "release", lambda: None)()
            return RunOutcome({}, self.out_path, written=False,
                              nothing=f"no strategy of this run can run here ({why})")
        interrupted, error = False, None
        with self.stop:
            try:
                self._open_journal()
            except BaseException:
                getattr(self.flush_l2, "release", lambda: None)()
                raise
            try:
                with self.progress:
                    self.progress.start(self.steps())
                    for spec in self.config.datasets:
                        self._run_dataset(spec)
                        self.records.flush()
                        self.write()
            except KeyboardInterrupt:
                interrupted = True
            except BaseException as exc:
                error = exc
            self.stop.stopping()
            try:
                path = self._finish(interrupted, error)
            except UserError:
                if error is None:
                    raise
            finally:
                getattr(self.flush_l2, "release", lambda: None)()
        if error is not None:
            raise error
        kept = self.journal.path if self.journal.path.exists() else None
        return RunOutcome(self.doc, path, interrupted, self.written, kept,
                          (self.stop.signal or "SIGINT") if interrupted else None, self.notes,
                          None if interrupted or self.written else why_nothing(self.doc["samples"]))

    def _finish(self, interrupted: bool, error: BaseException | None) -> Path:
        """The group in flight and the end record to the journal; the results file; the
        journal removed when the run is complete (or measured nothing)."""
        self._say_skipped()
        try:
            with self.stop.held():
                self.records.flush()
                self.records.end(interrupted=interrupted, stopped_by=(self.stop.signal or "SIGINT") if interrupted
                                 else None, during=self.stage if interrupted else None, error=error,
                                 variants=self.variants, read_clocks=self.measure.read_clocks)
            path = self.write()
            if self.doc.get("complete") or nothing_measured(self.doc["samples"]):
                self.journal.remove()
        finally:
            self.journal.close()
        return path

    def write(self) -> Path:
        """The results file from the journal's replay (nothing while nothing was measured)."""
        self.written |= self.records.write_results(self.out_path)
        return self.out_path

    def _open_journal(self) -> None:
        if self.resume is not None:
            self.records = RunRecords.resume(self.resume, self.config, self.environment, self.stop)
            self.done = Done(self.doc["samples"])
        else:
            self.records = RunRecords.new(self.out_path, self.named, self.config, self.environment, self.stop,
                                          self.replace, self.variants)
            self.out_path = Path(self.journal.replay.header["results"])
        self.measure.records = self.records

    def steps(self, sources: int | None = None) -> int:
        """Progress steps of one graph (of every graph when `sources` is None)."""
        return steps(self.config, sources)

    # ------------------------------------------------------------------ availability
    def _say_skipped(self) -> None:
        for problem, (graphs, why) in self.refs_skipped.items():
            self._note(f"{problem} reference answers skipped on {len(graphs)} graph(s): no {problem} strategy of "
                       f"this run can run here ({why})")
        self.refs_skipped = {}

    def _note(self, line: str) -> None:
        self.notes.append(line)
        self.progress.note(line)

    # ------------------------------------------------------------------ one graph
    def work(self, name: str, sources: list[int]) -> list[Work]:
        """The graph's turns minus what the resumed journal holds (bench/schedule.remaining)."""
        cfg = self.config
        return remaining(sources, len(cfg.variants), cfg.rounds, cfg.modes, self.done,
                         lambda i, m: CellKey.make(name, self.variants[i][0].problem, self.variants[i][1].name,
                                                   self.variants[i][3], m))

    def _run_dataset(self, spec: DatasetSpec) -> None:
        label = spec_label(spec.name, spec.seed)
        held = self.journal.replay.names.get(label) if self.done is not None else None
        if held in self.doc["sources"] and not any(w.todo for w in self.work(held, self.doc["sources"][held])):
            self.progress.advance_by(self.steps(len(self.doc["sources"][held])))  # held whole: not even loaded
            return
        GraphRun(self, spec, label).run()


def _l2_flusher() -> L2Flush:
    from gpubfs_cli.gpu.l2 import L2Flusher  # CuPy only when a cold run needs it

    return L2Flusher()


def _environment() -> dict:
    # the GPU probe: only when not given
    from gpubfs_cli.bench.environment import collect_environment

    return collect_environment()
