"""The runner: datasets x strategy variants x sources -> one results file.

The runner runs and writes; the rooms beside it do the rest. For each dataset it loads
the graph (generate or fetch and cache; with weights when a problem needs them), picks
the sources (graph/sources.py), computes each problem's reference answers for every
source (once per graph and problem, outside any timing), then lets every variant take its
turns (bench/schedule.py: rounds, turns) and measures each turn (bench/measure.py:
upload, prepare, warm-up, the timed calls, checks). Variants come from the config
(bench/variants.py); a variant with a vertex order runs on the graph relabelled in that
order, built once per graph and order (bench/inputs.Reorders).

The runner knows no algorithm: each variant's strategy names its Problem (BFS, SSSP),
and the problem supplies the reference answers, the check and the measures.

Nothing measured is lost: each turn's records go to the run's journal (bench/journal.py)
as soon as the turn ends, flushed to disk, and the results file is what the journal
replays into, written after each graph and at the end. Ctrl-C, SIGTERM and SIGHUP stop
the run alike (bench/stop.py): the turn in flight is journaled, the results file keeps
everything measured (`interrupted`, `stopped_by`, `interrupted_during`), and `gpubfs run
--resume JOURNAL` goes on from there (bench/resume.py). A complete run's journal is
removed once its results file is written. A run with no sample writes no results file (a
failed run must not become the newest one); a run stopped by an error after some samples
writes them with `failed: REASON`, which a bare `gpubfs report` skips. A dataset that
cannot be loaded is recorded as such and the run goes on.

Results names are never shared: the default results/NAME-<UTC second>.json takes a
`-2`, `-3`... when another run of that second has the name (its journal is created with
O_EXCL, which claims it); a named results file (`--out`, `out:`) that exists is refused
unless `replace`.

Availability comes first: a variant that cannot run here (no GPU) is an `unavailable`
cell without its graph's reference answers, and when no variant of the run can run at
all, no graph is loaded.
"""

from __future__ import annotations

import functools
import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gpubfs_cli.bench.config import DatasetSpec, RunConfig, sources_origin
from gpubfs_cli.bench.environment import apply_end, run_end
from gpubfs_cli.bench.inputs import (
    ProblemInput,
    Reorders,
    default_loader,
    default_weights,
    problem_input,
)
from gpubfs_cli.bench.journal import (
    FLUSH_EVERY_S,
    Journal,
    is_empty,
    journal_path,
    refuse_in_use,
    results_path,
    spec_label,
)
from gpubfs_cli.bench.measure import L2Flush, Measure
from gpubfs_cli.bench.progress import NullProgress, RunProgress
from gpubfs_cli.bench.references import DEFAULT_BUDGET_BYTES
from gpubfs_cli.bench.results import Prepare, Sample, write_results
from gpubfs_cli.bench.resume import Done, check_same_run
from gpubfs_cli.bench.schedule import steps, turns
from gpubfs_cli.bench.status import classify
from gpubfs_cli.bench.stop import Stop
from gpubfs_cli.bench.variants import NO_REORDER, equivalent_teps, make_variant, recorded_knobs
from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.core.strategy import Registry
from gpubfs_cli.core.strategy import registry as all_registered
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import check_output_path, plain_json, refuse_existing
from gpubfs_cli.gpu.clocks import ClockReader
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.sources import choose_sources

GraphLoader = Callable[[DatasetSpec, "str | None", bool], "tuple[CSRGraph, dict]"]


def default_out_path(config: RunConfig, now: datetime | None = None) -> Path:
    now = now or datetime.now(timezone.utc)
    return Path("results") / f"{config.name}-{now.strftime('%Y%m%dT%H%M%SZ')}.json"


@dataclass
class RunOutcome:
    doc: dict
    path: Path
    interrupted: bool = False
    written: bool = True  # False: no sample, so no results file
    journal: Path | None = None  # kept when the run did not complete: resume it
    stopped_by: str | None = None  # SIGINT, SIGTERM or SIGHUP
    notes: list[str] | None = None  # one line each: what was skipped and why


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
        resume: str | Path | None = None,
        replace: bool = True,
    ):
        """flush_l2 (cold runs only; default gpu.l2.L2Flusher) and read_clocks (default
        gpu.clocks.default_reader()) are injectable so CPU tests can fake them. `resume`:
        a journal to go on with (its results file is the one beside it); `replace`: a
        named results file (out_path, config.out) may replace an existing one."""
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
        flush = (flush_l2 or _l2_flusher()) if config.l2 == "cold" else None
        self.flush_l2 = flush
        self.measure = Measure(config, self.progress, self, flush, read_clocks)
        self.written = False
        self.stop = Stop()
        self.journal: Journal | None = None
        self.done: Done | None = None  # what the resumed journal holds
        self.stage: str | None = None  # what runs now, for a stopped run's record
        self.notes: list[str] = []
        self._pending: dict[str, list] = {"samples": [], "prepares": [], "clocks": []}
        self._variant = ""  # the label of the variant whose records are pending
        self._flushed = time.monotonic()
        self._dataset: tuple[str, str, dict] | None = None  # (name, spec label, info) of the graph in hand
        self._journaled: dict[str, str] = {}  # dataset name -> its info as last journaled
        self._refs_skipped: dict[str, list] = {}  # problem -> [graphs, why]

    @property
    def doc(self) -> dict:
        return self.journal.replay.doc

    # ------------------------------------------------------------------ driver
    def run(self) -> RunOutcome:
        """Run everything; the results file is written after each graph and at the end,
        also when Ctrl-C, a signal or an error stops the run (then with what finished)."""
        check_output_path(self.out_path, "results file")
        self._check_gpu_requirement()
        interrupted, error = False, None
        with self.stop:
            try:
                self._open_journal()
            except BaseException:
                getattr(self.flush_l2, "release", lambda: None)()
                raise
            try:
                with self.progress:
                    self.progress.start(self._steps())
                    runnable = self._runnable()
                    for spec in self.config.datasets:
                        if runnable:
                            self._run_dataset(spec)
                        else:
                            self._skip_dataset(spec)
                        self.flush()
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
                          (self.stop.signal or "SIGINT") if interrupted else None, self.notes)

    def _finish(self, interrupted: bool, error: BaseException | None) -> Path:
        """The group in flight and the end record to the journal; the results file; the
        journal removed when the run is complete (or measured nothing)."""
        failed = None
        if error is not None:
            text = " ".join(str(error).split())
            failed = text if isinstance(error, UserError) else f"{type(error).__name__}: {text}"[:300]
        self._say_skipped()
        try:
            with self.stop.held():
                self.flush()
                end = self._environment_end()  # read now: the GPUs as the run leaves them
                self.journal.write({
                    "kind": "end", "finished": _now(), "complete": not interrupted and error is None,
                    "interrupted": interrupted, "stopped_by": (self.stop.signal or "SIGINT") if interrupted else None,
                    "interrupted_during": self.stage if interrupted else None, "failed": failed,
                    "environment_end": end,
                })
                apply_end(self.doc["environment"], end)  # the journal's replay leaves it to the runner
            path = self.write()
            if self.doc.get("complete") or not self.doc["samples"]:
                self.journal.remove()
        finally:
            self.journal.close()
        return path

    def _environment_end(self) -> dict:
        """The machine's end-of-run record (bench/environment.run_end): the GPUs' clocks and
        state, NCCL's version where a multi-GPU strategy ran, the peer binaries prepared.
        Never fails the run: what goes wrong is its `reason`."""
        try:
            prepared = [p for p in self.doc["prepares"] if p.get("status") == "ok"]
            ran = {(p.get("problem", "bfs"), p.get("strategy"), knobs_key(p.get("knobs") or {})) for p in prepared}
            peers = []
            for variant in self.config.variants:
                cls, knobs = make_variant(self.config, variant, self.registry)
                binaries = getattr(cls, "peer_binaries", None)
                if callable(binaries) and (variant.problem, cls.name,
                                           knobs_key(recorded_knobs(variant, knobs))) in ran:
                    peers.append((cls.name, variant.problem, list(binaries(knobs))))
            return run_end(self.doc["environment"], read_clocks=self.measure.read_clocks, peers=peers,
                           multi_gpu=any(len(p.get("devices") or []) > 1 for p in prepared))
        except Exception as exc:
            return {"reason": f"{type(exc).__name__}: {exc}"[:300]}

    def write(self) -> Path:
        """Write the results file (atomically) from the journal's replay; nothing while
        there is no sample."""
        doc = self.journal.replay.results()
        if not doc["samples"]:
            return self.out_path
        try:
            path = write_results(self.out_path, doc)
        except UserError as exc:  # a full disk, a folder gone: what was measured is in the journal
            raise UserError(f"{exc}; the journal keeps every sample measured: once the file can be written, "
                            f"gpubfs run --resume {self.journal.path}") from None
        self.written = True
        return path

    def _open_journal(self) -> None:
        cfg = self.config
        if self.resume is not None:
            self.journal = Journal.reopen(self.resume)
            try:
                check_same_run(self.resume, self.journal.replay.header, cfg.to_dict(), self.environment)
                env = self.environment
                self.journal.write({"kind": "resume", "at": _now(), "command_line": env.get("command_line"),
                                    "git_commit": env.get("git_commit"), "source_tree": env.get("source_tree")})
            except BaseException:
                self.journal.close()
                raise
            self.done = Done(self.doc["samples"])
            self._journaled = {k: _key(v) for k, v in self.doc["datasets"].items()}
            return
        header = {
            "results": str(self.out_path), "created": _now(), "environment": self.environment,
            "config": cfg.to_dict(),
            "problems": {p: get_problem(p).describe() for p in dict.fromkeys(v.problem for v in cfg.variants)},
            "equivalent_teps": equivalent_teps(cfg.variants),
        }
        if self.named:
            self.journal = self._create_named(header)
            return
        stem, folder = self.out_path.stem, self.out_path.parent
        for i in itertools.count(1):  # the first name of this second that no other run holds
            path = folder / (f"{stem}.json" if i == 1 else f"{stem}-{i}.json")
            try:
                journal = Journal.create(journal_path(path), dict(header, results=str(path)), exclusive=True)
            except FileExistsError:
                continue
            except OSError as exc:
                raise UserError(f"{journal_path(path)}: cannot write the journal ({exc.strerror or exc})") from None
            if path.exists() or path.is_symlink():  # a finished run's file: its journal is gone
                journal.remove()
                continue
            self.out_path, self.journal = path, journal
            return

    def _create_named(self, header: dict) -> Journal:
        path, jpath = self.out_path, journal_path(self.out_path)
        empty = jpath.exists() and is_empty(jpath)  # a run that wrote nothing: replaced as if absent
        refuse_in_use(jpath)  # a run starting at the same moment: never "resume it" while it writes
        if not self.replace:
            refuse_existing(path, "--out")
            if jpath.exists() and not empty:
                raise UserError(f"{jpath}: the journal of an unfinished run is there: resume it (gpubfs run "
                                f"--resume {jpath}) or give --force to start over")
        try:
            return Journal.create(jpath, header, exclusive=not (self.replace or empty))
        except FileExistsError:
            raise UserError(f"{jpath}: another run has just begun writing it") from None
        except OSError as exc:
            raise UserError(f"{jpath}: cannot write the journal ({exc.strerror or exc})") from None

    def _check_gpu_requirement(self) -> None:
        if not self.config.require_gpu:
            return
        from gpubfs_cli.gpu.backend import unavailable_reason

        reason = unavailable_reason()
        if reason is not None:
            where = self.config.require_gpu_from
            if where in (None, "command line"):
                raise UserError(f"--require-gpu: no usable GPU here ({reason})")
            raise UserError(f"{where}: require_gpu: true, and no GPU is usable here ({reason}); "
                            "add --no-require-gpu to run its CPU rows anyway")

    def _steps(self, sources: int | None = None) -> int:
        """Progress steps of one graph (of every graph when `sources` is None)."""
        cfg = self.config
        per_graph = len(cfg.fixed_sources) or cfg.sources
        one = steps(per_graph if sources is None else sources, len(cfg.variants), len(cfg.modes),
                    len({v.problem for v in cfg.variants}), cfg.validate == "all")
        return one * (len(cfg.datasets) if sources is None else 1)

    # ------------------------------------------------------------------ availability
    def _runnable(self) -> bool:
        """Whether any variant of the run can run here; if none can, says so once."""
        why = None
        for variant in self.config.variants:
            cls, _ = make_variant(self.config, variant, self.registry)
            reason = cls.unavailable_reason()
            if reason is None:
                return True
            why = why or f"{cls.name}: {reason}"
        self.notes.append(f"no strategy of this run can run here ({why}): no graph loaded, no reference "
                          "answer computed; every cell is unavailable")
        self.progress.note(self.notes[-1])
        return False

    def _skip_dataset(self, spec: DatasetSpec) -> None:
        """A graph of a run where nothing can run: its unavailable cells, not the graph."""
        name = spec_label(spec.name, spec.seed)
        self._dataset = (name, name, {"status": "skipped", "reason": "no strategy of this run can run here"})
        for variant in self.config.variants:
            cls, knobs = make_variant(self.config, variant, self.registry)
            self._variant = variant.label
            self.measure.unavailable(name, variant.problem, cls, knobs, self.config.modes,
                                     cls.unavailable_reason() or "unavailable",
                                     len(self.config.fixed_sources) or self.config.sources,
                                     kd=recorded_knobs(variant, knobs))
            self.flush()

    def _say_skipped(self) -> None:
        for problem, (graphs, why) in self._refs_skipped.items():
            self.notes.append(f"{problem} reference answers skipped on {len(graphs)} graph(s): no {problem} "
                              f"strategy of this run can run here ({why})")
            self.progress.note(self.notes[-1])
        self._refs_skipped = {}

    # ------------------------------------------------------------------ one graph
    def _run_dataset(self, spec: DatasetSpec) -> None:
        cfg = self.config
        label = spec_label(spec.name, spec.seed)
        if self._held_whole(label):
            self.progress.advance_by(self._steps(len(self.doc["sources"][self.journal.replay.names[label]])))
            return
        self.progress.describe(f"{spec.name}: loading")
        self.stage = f"loading {label}"
        t0 = time.perf_counter()
        try:
            graph, meta = self.load_graph(spec, cfg.data_dir, self.progress.enabled)
        except Exception as exc:  # unreachable URL, checksum mismatch, bad file: the run goes on
            status, reason = classify(exc)
            if isinstance(exc, UserError):
                status, reason = "error", str(exc)
            self._dataset = (spec.name, label, {"status": status, "reason": reason})
            self.stage = None
            return
        name = graph.name or spec.name
        load_s = time.perf_counter() - t0
        chosen = choose_sources(
            graph, count=cfg.sources, seed=cfg.seed, explicit=cfg.fixed_sources, meta=meta,
            explicit_from=sources_origin(cfg),
        )
        sources = chosen.vertices
        if chosen.note:
            self.progress.note(f"{name}: {chosen.note}")
        self.progress.resize(self._steps(len(sources)) - self._steps(len(cfg.fixed_sources) or cfg.sources))
        before = self.doc["sources"].get(name)
        if self.done is not None and before is not None and list(before) != [int(s) for s in sources]:
            raise UserError(f"{self.resume}: {name}: the sources drawn now differ from the journal's "
                            "(the graph changed?); the run cannot be resumed")
        info: dict = {
            "status": "ok",
            "n": graph.n,
            "m": graph.m,
            "directed": graph.directed,
            "stats": graph.stats().to_dict(),
            "meta": meta,
            "load_s": round(load_s, 3),
            "sources_origin": chosen.origin,
            "depth_avg": None,
            "depth_max": None,
            "upload_ms": None,
        }
        old = self.doc["datasets"].get(name) or {}
        info.update({k: v for k, v in old.items() if info.get(k) is None and old.get("status") == "ok"})
        self._dataset = (name, label, info)
        self._journal_dataset(sources)
        inputs: dict[str, ProblemInput] = {}
        uploaded: dict[int, CSRGraph] = {}  # a problem's view (with weights) is its own object
        reorders = Reorders()  # relabelled graphs, kept for this graph's variants
        ended: dict[int, set[bool]] = {}  # a variant's modes that failed or ran out of time
        unavailable: dict[str, str] = {}  # problem -> why a variant of it cannot run here
        try:
            for turn in turns(sources, len(cfg.variants), cfg.rounds):
                variant = cfg.variants[turn.variant]
                cls, knobs = make_variant(cfg, variant, self.registry)
                kd = recorded_knobs(variant, knobs)
                key = (name, variant.problem, cls.name, kd)
                modes = [m for m in cfg.modes if m not in ended.setdefault(turn.variant, set())
                         and not (self.done and self.done.ended(*key, m))]
                self.progress.advance_by(len(turn.sources) * (len(cfg.modes) - len(modes)))
                if not modes:
                    continue
                self._variant = variant.label
                reason = cls.unavailable_reason()
                if reason is not None:  # no reference answers needed for this one
                    self.measure.unavailable(name, variant.problem, cls, knobs, modes, reason, len(turn.sources),
                                             kd=kd)
                    unavailable.setdefault(variant.problem, f"{cls.name}: {reason}")
                    ended[turn.variant] |= set(modes)
                    self.flush()
                    continue
                left: dict[tuple, tuple[list, list[bool]]] = {}  # modes by the sources they still need
                for m in modes:
                    todo = self.done.left(*key, m, turn.sources) if self.done else list(turn.sources)
                    left.setdefault(tuple(todo), (todo, []))[1].append(m)
                for todo, todo_modes in left.values():
                    self.progress.advance_by((len(turn.sources) - len(todo)) * len(todo_modes))
                    if not todo:
                        continue
                    if variant.problem not in inputs:
                        self.stage = f"the reference answers of {name} ({variant.problem})"
                        inputs[variant.problem] = problem_input(variant.problem, name, graph, sources, info, cfg,
                                                                self.add_weights, self.progress,
                                                                self.reference_budget_bytes)
                    pi = inputs[variant.problem]
                    self.stage = f"{variant.label} on {name}"
                    reorder = None
                    if variant.reorder != NO_REORDER:
                        reorder = functools.partial(reorders.view, pi.graph, variant.reorder)
                    went, stopped = self.measure.variant(name, pi, todo, cls, knobs, variant.label, info,
                                                         todo_modes, turn.later, kd=kd, reorder=reorder)
                    if went is not None:
                        uploaded[id(went)] = went
                    ended[turn.variant] |= stopped
                    self.flush()
            self.stage = None
        finally:
            for problem, why in unavailable.items():
                if problem not in inputs:
                    self._refs_skipped.setdefault(problem, [[], why])[0].append(name)
            if uploaded:
                from gpubfs_cli.gpu.device_graph import DeviceGraph

                for g in uploaded.values():
                    DeviceGraph.release(g)

    def _held_whole(self, label: str) -> bool:
        """Whether the resumed journal holds every variant's every mode on this graph."""
        if self.done is None or label not in self.journal.replay.names:
            return False
        name = self.journal.replay.names[label]
        sources = self.doc["sources"].get(name)
        if sources is None:
            return False
        for variant in self.config.variants:
            cls, knobs = make_variant(self.config, variant, self.registry)
            for m in self.config.modes:
                if not self.done.complete(name, variant.problem, cls.name, recorded_knobs(variant, knobs), m, sources):
                    return False
        return True

    # ------------------------------------------------------------------ records
    def sample(self, sample: Sample) -> None:
        sample.l2 = self.config.l2
        sample.prime = self.config.prime
        self._pending["samples"].append(sample.to_dict())
        if time.monotonic() - self._flushed > FLUSH_EVERY_S:  # a long turn goes to disk in parts
            self.flush()

    def prepare(self, prepare: Prepare) -> None:
        self._pending["prepares"].append(prepare.to_dict())

    def clocks(self, entry: dict) -> None:
        self._pending["clocks"].append(entry)

    def flush(self) -> None:
        """The graph's facts (when they changed) and the pending records to the journal."""
        with self.stop.held():
            self._journal_dataset()
            if any(self._pending.values()):
                self.journal.write({"kind": "measured", "variant": self._variant, **self._pending})
                self._pending = {"samples": [], "prepares": [], "clocks": []}
            self._flushed = time.monotonic()

    def _journal_dataset(self, sources: list[int] | None = None) -> None:
        if self._dataset is None:
            return
        name, label, info = self._dataset
        text = _key(info)
        if sources is None and self._journaled.get(name) == text:
            return
        record = {"kind": "dataset", "name": name, "spec": label, "info": info}
        if sources is not None:
            record["sources"] = [int(s) for s in sources]
        with self.stop.held():
            self.journal.write(record)
        self._journaled[name] = text


def _key(info: dict) -> str:
    return json.dumps(plain_json(info), sort_keys=True)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _l2_flusher() -> L2Flush:
    from gpubfs_cli.gpu.l2 import L2Flusher

    return L2Flusher()


def _environment() -> dict:
    from gpubfs_cli.bench.environment import collect_environment

    return collect_environment()
