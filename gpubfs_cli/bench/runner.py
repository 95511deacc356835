"""The runner: datasets x strategy variants x sources -> one results file.

The runner knows no algorithm: each variant's strategy names its Problem (BFS, SSSP),
and the problem supplies the reference answers, the check and the measures. For each
dataset: load it (generate or fetch and cache; with weights when a problem needs
them), pick the sources, then for each variant: the problem's reference answers for
every source (once per graph and problem, outside any timing), upload() (the graph
onto the strategy's devices, timed once per graph and reported as upload_ms),
prepare() (timed apart), warm-up runs (not recorded: `warmup` of them and, if any, on
until `warmup_ms` has passed; bench/timing.warm_up_runs), then one timed traversal per
source through bench/timing.py, after which the answer is validated and measured.

Outside every timed region: with `l2: cold` the GPU's L2 is evicted before each
timed sample (gpu/l2.py; `warm`, the default, leaves it as the previous traversal
left it), and each GPU's SM and memory clocks and temperature are read before the
first and after the last timed sample of every group (gpu/clocks.py), into the
results file's `clocks`.

Failure is a table cell (DESIGN.md): a strategy that cannot run is `unavailable`, a
traversal over the time limit is `out-of-time` (the rest of that variant on that
graph is skipped), memory exhaustion is `out-of-memory`, an answer that differs from
the baseline is `wrong-answer` (its time is kept, never reported as a number), and
any other exception is `error`; the benchmark goes on. A failure that concerns a
whole variant on a graph (unavailable, prepare failed) is one sample with source -1.

Per-iteration counter series (arrays) are kept on the first source's sample of each
group only; scalar counters on every sample. Ctrl-C stops the run; the results file
keeps everything that finished (`interrupted: true`). The results path is checked
before anything runs (a regular file or a new path: files.check_output_path). A run
with no sample writes no results file (a failed run must not become the newest one); a
run stopped by an error after some samples writes them with `failed: REASON`, which a
bare `gpubfs report` skips.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

import gpubfs_cli
from gpubfs_cli.bench.config import DatasetSpec, RunConfig, Variant
from gpubfs_cli.bench.groups import summaries
from gpubfs_cli.bench.progress import NullProgress, RunProgress
from gpubfs_cli.bench.references import DEFAULT_BUDGET_BYTES, References
from gpubfs_cli.bench.results import SCHEMA_VERSION, Prepare, Sample, write_results
from gpubfs_cli.bench.sources import choose_sources
from gpubfs_cli.bench.timing import timed_call, timed_traverse, warm_up_runs
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.device import Device
from gpubfs_cli.core.problem import Problem, ReachedEdges, get_problem
from gpubfs_cli.core.strategy import (
    Registry,
    Strategy,
    StrategyUnavailable,
    knobs_dict,
    make_knobs,
)
from gpubfs_cli.core.strategy import registry as all_registered
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import check_output_path
from gpubfs_cli.gpu.clocks import ClockReader, default_reader, reading_or_reason
from gpubfs_cli.graph.csr import CSRGraph

GraphLoader = Callable[[DatasetSpec, "str | None", bool], "tuple[CSRGraph, dict]"]
L2Flush = Callable[[Sequence[Device]], None]


def default_loader(spec: DatasetSpec, data_dir: str | None, progress: bool) -> tuple[CSRGraph, dict]:
    """ensure_dataset (generate or fetch, then cache) and the cached meta.json."""
    from gpubfs_cli.datasets.prepare import ensure_dataset
    from gpubfs_cli.datasets.store import read_meta

    graph = ensure_dataset(spec.name, data_dir, seed=spec.seed, progress=progress)
    return graph, read_meta(graph.name or spec.name, data_dir)


def default_weights(graph: CSRGraph, data_dir: str | None) -> CSRGraph:
    """The graph with its edge weights (from the cache, or made by the catalogue's rule)."""
    from gpubfs_cli.datasets.weights import ensure_weights

    return ensure_weights(graph, data_dir)


def default_out_path(config: RunConfig, now: datetime | None = None) -> Path:
    now = now or datetime.now(timezone.utc)
    return Path("results") / f"{config.name}-{now.strftime('%Y%m%dT%H%M%SZ')}.json"


def classify(exc: BaseException) -> tuple[str, str]:
    """(status, one-line reason) of an exception a strategy raised."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, StrategyUnavailable):
        return "unavailable", text or type(exc).__name__
    reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if (
        isinstance(exc, MemoryError)
        or type(exc).__name__ == "OutOfMemoryError"
        or "cudaErrorMemoryAllocation" in text
    ):
        return "out-of-memory", reason[:300]
    return "error", reason[:300]


@dataclass
class _PerProblem:
    """What one problem needs on one graph: the reference answers and the measurer."""

    problem: Problem
    graph: CSRGraph
    references: object | None
    facts: ReachedEdges
    failure: str | None = None  # the graph cannot be this problem's input (why)


@dataclass
class RunOutcome:
    doc: dict
    path: Path
    interrupted: bool = False
    written: bool = True  # False: no sample, so no results file


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
    ):
        """flush_l2 (cold runs only; default gpu.l2.L2Flusher) and read_clocks (default
        gpu.clocks.default_reader()) are injectable so CPU tests can fake them."""
        self.config = config
        self.load_graph = load_graph or default_loader
        self.progress = progress or NullProgress()
        self.out_path = Path(out_path or config.out or default_out_path(config))
        self.reference_budget_bytes = reference_budget_bytes
        env = environment if environment is not None else _environment()
        self.registry = registry if registry is not None else all_registered()
        self.add_weights = add_weights or default_weights
        self.flush_l2 = (flush_l2 or _l2_flusher()) if config.l2 == "cold" else None
        self.read_clocks = read_clocks
        self.labels: dict[tuple[str, str, str], str] = {}
        self.written = False
        self.doc: dict = {
            "schema_version": SCHEMA_VERSION,
            "tool_version": gpubfs_cli.__version__,
            "git_commit": env.get("git_commit"),
            "created": _now(),
            "finished": None,
            "interrupted": False,
            "command_line": env.get("command_line"),
            "environment": env,
            "config": config.to_dict(),
            "datasets": {},
            "sources": {},
            "problems": {p: get_problem(p).describe() for p in dict.fromkeys(v.problem for v in config.variants)},
            "equivalent_teps": equivalent_teps(config.variants),
            "prepares": [],
            "samples": [],
            "summaries": [],
            "clocks": [],
        }

    # ------------------------------------------------------------------ driver
    def run(self) -> RunOutcome:
        """Run everything; the results file is written after each graph and at the end,
        also when Ctrl-C or an error stops the run (then with what finished)."""
        check_output_path(self.out_path, "results file")
        self._check_gpu_requirement()
        interrupted = False
        try:
            with self.progress:
                self.progress.start(self._estimate_steps())
                for spec in self.config.datasets:
                    self._run_dataset(spec)
                    self.write()
        except KeyboardInterrupt:
            interrupted = True
        except BaseException as exc:
            text = " ".join(str(exc).split())
            self.doc["failed"] = f"{type(exc).__name__}: {text}"[:300] if not isinstance(exc, UserError) else text
            raise
        finally:
            self.doc["interrupted"] = interrupted
            self.doc["finished"] = _now()
            path = self.write()
            getattr(self.flush_l2, "release", lambda: None)()
        return RunOutcome(self.doc, path, interrupted, self.written)

    def write(self) -> Path:
        """Write the results file (atomically); nothing while there is no sample."""
        if not self.doc["samples"]:
            return self.out_path
        self.doc["summaries"] = summaries(self.doc["samples"], self.labels)
        path = write_results(self.out_path, self.doc)
        self.written = True
        return path

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

    def _estimate_steps(self) -> int:
        per_graph = len(self.config.fixed_sources) or self.config.sources
        return len(self.config.datasets) * self._estimate_for(per_graph)

    # ------------------------------------------------------------------ one graph
    def _run_dataset(self, spec: DatasetSpec) -> None:
        cfg = self.config
        self.progress.describe(f"{spec.name}: loading")
        t0 = time.perf_counter()
        try:
            graph, meta = self.load_graph(spec, cfg.data_dir, self.progress.enabled)
        except Exception as exc:  # unreachable URL, checksum mismatch, bad file: the run goes on
            status, reason = classify(exc)
            if isinstance(exc, UserError):
                status, reason = "error", str(exc)
            self.doc["datasets"][spec.name] = {"status": status, "reason": reason}
            return
        name = graph.name or spec.name
        load_s = time.perf_counter() - t0
        chosen = choose_sources(
            graph, count=cfg.sources, seed=cfg.seed, explicit=cfg.fixed_sources, meta=meta
        )
        sources = chosen.vertices
        if chosen.note:
            self.progress.note(f"{name}: {chosen.note}")
        self.progress.resize(self._estimate_for(len(sources)) - self._estimate_for_config())
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
        self.doc["datasets"][name] = info
        self.doc["sources"][name] = sources
        per_problem: dict[str, _PerProblem] = {}
        uploaded: dict[int, CSRGraph] = {}  # a problem's view (with weights) is its own object
        # Round r runs every variant on sources r, r + R, ... (R rounds), starting from
        # variant r (mod V) and going round: every variant runs first, and at every other
        # place, as often as the others, and none runs twice in a row (V > 2). Session 10
        # measured why: on the H100 whichever variant ran first in a round was 20-95 us
        # slower per source on 0.15 ms traversals (docs/performance.md, Session 10). A
        # variant's mode that ended (error, out-of-time) sits out the rest. One round
        # (the default) is each variant's sources in turn.
        rounds = max(1, min(cfg.rounds, len(sources)))
        chunks = [list(enumerate(sources))[r::rounds] for r in range(rounds)]
        turn = list(enumerate(cfg.variants))
        ended: dict[int, set[bool]] = {}
        try:
            for r, chunk in enumerate(chunks):
                later = sum(map(len, chunks[r + 1:]))
                start = r % len(turn)
                for vi, variant in turn[start:] + turn[:start]:
                    if variant.problem not in per_problem:
                        per_problem[variant.problem] = self._for_problem(variant.problem, name, graph, sources, info)
                    pp = per_problem[variant.problem]
                    modes = [m for m in cfg.modes if m not in ended.setdefault(vi, set())]
                    self.progress.advance_by(len(chunk) * (len(cfg.modes) - len(modes)))
                    if not modes:
                        continue
                    went, stopped = self._run_variant(name, pp, chunk, variant, info, modes, later)
                    if went:
                        uploaded[id(pp.graph)] = pp.graph
                    ended[vi] |= stopped
        finally:
            if uploaded:
                from gpubfs_cli.gpu.device_graph import DeviceGraph

                for g in uploaded.values():
                    DeviceGraph.release(g)

    def _for_problem(self, key: str, name: str, graph: CSRGraph, sources: list[int], info: dict) -> _PerProblem:
        """The problem's view of the graph: its input check, its reference answers for
        every source (when validating) and its measurer."""
        problem = get_problem(key)
        try:
            if problem.needs_weights and graph.weights is None:
                graph = self.add_weights(graph, self.config.data_dir)
            problem.check_graph(graph)
        except UserError as exc:
            return _PerProblem(problem, graph, None, problem.facts(graph), failure=str(exc))
        references = None
        if self.config.validate == "all":
            baseline = f"{key} baseline ({problem.baseline}, untimed)"
            self.progress.describe(f"{name}: {baseline}")
            references = References(
                problem,
                graph,
                sources,
                budget_bytes=self.reference_budget_bytes,
                on_source=lambda i: self.progress.advance_by(1, f"{name}: {baseline} {i + 1}/{len(sources)}"),
            )
            info.update(problem.reference_stats(graph, sources, references.reaches))
            info.setdefault("frontier", problem.frontier(graph, sources[0], references.distances(0)))
        return _PerProblem(problem, graph, references, problem.facts(graph))

    def _estimate_for(self, count: int) -> int:
        problems = len({v.problem for v in self.config.variants})
        return count * (len(self.config.variants) * len(self.config.modes)
                        + problems * (self.config.validate == "all"))

    def _estimate_for_config(self) -> int:
        return self._estimate_for(len(self.config.fixed_sources) or self.config.sources)

    # ------------------------------------------------------------------ one variant
    def _make(self, variant: Variant) -> tuple[type[Strategy], object]:
        return make_variant(self.config, variant, self.registry)

    def _run_variant(self, name: str, pp: _PerProblem, indexed, variant: Variant, info: dict,
                     modes: list[bool], later: int = 0) -> tuple[bool, set[bool]]:
        """The given modes of one variant on one graph over `indexed` ((index into the
        run's sources, source) pairs; `later` more sources come in later rounds): whether
        the graph went to a GPU, and the modes that ended here (failed, out of time)."""
        graph = pp.graph
        sources = [s for _, s in indexed]
        cls, knobs = self._make(variant)
        kd = knobs_dict(knobs)
        key = variant.problem
        self.labels[(key, cls.name, _json(kd))] = variant.label
        stopped: set[bool] = set()

        def whole(status: str, reason: str, mode: bool | None = None) -> None:
            for m in modes if mode is None else [mode]:
                self._sample(Sample(name, cls.name, kd, -1, None, 0, 0, None, status, m, reason,
                                    problem=key))
                stopped.add(m)
            self.progress.advance_by(len(sources) * (len(modes) if mode is None else 1))

        def prepared(status: str, reason: str | None = None, **kw) -> None:
            self._prepare(Prepare(name, cls.name, kd, kw.pop("ms", None), status=status, reason=reason,
                                  problem=key, devices=[str(d) for d in cls.default_devices()], **kw))

        reason = pp.failure or cls.unavailable_reason()
        if reason is not None:
            status = "error" if pp.failure else "unavailable"
            prepared(status, reason)
            whole(status, reason)
            return False, stopped

        strategy = cls(knobs)
        uploaded = strategy.device.is_gpu
        self.progress.describe(f"{name} · {variant.label}: upload and prepare")
        try:
            try:
                upload_ms, _ = timed_call(lambda: strategy.upload(graph), strategy.devices)
            except Exception as exc:
                status, why = classify(exc)
                prepared(status, f"upload: {why}")
                whole(status, f"upload: {why}")
                return uploaded, stopped
            if uploaded:
                # The first upload of a graph moves it; later ones find it there.
                info["upload_ms"] = upload_ms if info.get("upload_ms") is None else info["upload_ms"]
                upload_ms = info["upload_ms"]
            else:
                upload_ms = None
            try:
                ms, _ = timed_call(lambda: strategy.prepare(graph), strategy.devices)
            except Exception as exc:
                status, why = classify(exc)
                prepared(status, why, upload_ms=upload_ms)
                whole(status, why)
                return uploaded, stopped
            prepared("ok", ms=ms, bytes=int(strategy.prepared_bytes()), upload_ms=upload_ms)
            try:  # a peer runs its whole batch here (core/strategy.py plan_sources)
                strategy.plan_sources(list(sources))
            except Exception as exc:
                whole(*classify(exc))
                return uploaded, stopped
            for mode in modes:
                label = variant.label + (f" {pp.problem.option_label}" if mode else "")
                if mode and not cls.supports_predecessors:
                    whole("unavailable", f"{cls.name} has no {pp.problem.option} output", mode)
                    continue
                failure = self._warm_up(strategy, sources[0], mode)
                if failure is not None:
                    whole(*failure, mode)
                    continue
                before = self._read_clocks(strategy.devices)
                if self._run_sources(name, pp, indexed, cls, kd, strategy, mode, label, later):
                    stopped.add(mode)
                after = self._read_clocks(strategy.devices)
                self._clocks(name, key, cls.name, kd, mode, before, after)
        finally:
            strategy.release()
        return uploaded, stopped

    def _warm_up(self, strategy: Strategy, source: int, mode: bool) -> tuple[str, str] | None:
        """Untimed runs: `warmup` of them and, if any, more until `warmup_ms` has passed;
        a failure (or one run over the time limit) ends the variant here."""
        cfg = self.config
        for _ in warm_up_runs(cfg.warmup, cfg.warmup_ms):
            t0 = time.perf_counter()
            try:
                strategy.traverse(source, mode).to_host()
            except Exception as exc:
                status, why = classify(exc)
                return status, f"warm-up: {why}"
            took = time.perf_counter() - t0
            if took > cfg.time_limit_s:
                return "out-of-time", f"warm-up took {took:.3g} s, over the limit of {cfg.time_limit_s:g} s"
        return None

    def _run_sources(self, name, pp: _PerProblem, indexed, cls, kd, strategy, mode, label, later: int = 0) -> bool:
        """Time and check one mode of a prepared variant from each (index, source) of
        `indexed`; True if it stopped early (the rest, `later` ones included, skipped)."""
        cfg = self.config
        limit_ms = cfg.time_limit_s * 1000.0
        references = pp.references
        n = len(indexed)
        for i, (at, source) in enumerate(indexed):
            self.progress.describe(f"{name} · {label} · source {i + 1}/{n}")
            stage = "L2 flush: "  # a failed flush is the sample's failure, named as such
            try:
                if self.flush_l2 is not None:
                    self.flush_l2(strategy.devices)
                stage = ""
                ms, result = timed_traverse(strategy, source, mode)
            except Exception as exc:
                status, why = classify(exc)
                why = stage + why
                if i + 1 < n + later:
                    why += f" (remaining {n - i - 1 + later} sources skipped)"
                self._sample(Sample(name, cls.name, kd, source, None, 0, 0, None, status, mode, why,
                                    problem=pp.problem.key))
                self.progress.advance_by(n - i)
                return True
            peer = result.timed_by is not None  # its own time and check (core/answer.py)
            if peer and references is not None:
                result.distances = references.distances(at)  # the measures only; no check
            reason = references.check(at, result, mode) if references is not None and not peer else None
            checked = references is not None and reason is None and not peer
            sample = self._measure(name, pp, cls.name, kd, source, ms, result, mode, at == 0, checked)
            if ms > limit_ms:
                sample.status = "out-of-time"
                sample.reason = f"{ms / 1000:.3g} s is over the limit of {cfg.time_limit_s:g} s" + (
                    f" (remaining {n - i - 1 + later} sources skipped)" if i + 1 < n + later else ""
                )
                self._sample(sample)
                self.progress.advance_by(n - i)
                return True
            if peer:
                sample.timed_by, sample.valid = result.timed_by, result.peer_valid
                if result.peer_valid is False:
                    sample.status, sample.reason = "wrong-answer", f"{result.timed_by}'s own check found errors"
            elif references is not None:
                sample.valid = checked
                if not checked:
                    sample.status, sample.reason = "wrong-answer", reason
            self._sample(sample)
            self.progress.advance_by(1)
        return False

    def _measure(self, name, pp: _PerProblem, strategy, kd, source, ms, result: Answer, mode, first,
                 checked) -> Sample:
        dist = np.asarray(result.distances)
        facts = pp.facts
        if dist.shape != (facts.graph.n,):
            m = facts.failed()
        else:
            m = facts.measure_for(int(source), dist, checked)
        counters = {
            k: v for k, v in result.counters.items() if first or not isinstance(v, (np.ndarray, list))
        }
        return Sample(
            dataset=name,
            strategy=strategy,
            knobs=kd,
            source=int(source),
            time_ms=float(ms),
            reached=m.reached,
            edges=m.edges,
            valid=None,
            status="ok",
            predecessors=bool(mode),
            low_reach=m.low_reach,
            problem=pp.problem.key,
            measures=dict(m.extra),
            counters=counters,
        )

    # ------------------------------------------------------------------ the machine
    def _read_clocks(self, devices: Sequence[Device]) -> dict[Device, tuple[dict | None, str | None]]:
        """(reading, why not) per GPU among `devices`; nothing for CPU strategies."""
        gpus = [d for d in devices if d.is_gpu]
        if not gpus:
            return {}
        if self.read_clocks is None:
            self.read_clocks = default_reader()
        return {d: reading_or_reason(self.read_clocks, d) for d in gpus}

    def _clocks(self, name, problem, strategy, kd, mode, before, after) -> None:
        for device, (first, why_first) in before.items():
            last, why_last = after[device]
            whys = [f"{when}: {why}" for when, why in (("before", why_first), ("after", why_last)) if why]
            self.doc["clocks"].append({
                "dataset": name, "problem": problem, "strategy": strategy, "knobs": kd,
                "predecessors": bool(mode), "l2": self.config.l2, "device": str(device),
                "before": first, "after": last, "reason": "; ".join(whys) or None,
            })

    # ------------------------------------------------------------------ records
    def _sample(self, sample: Sample) -> None:
        sample.l2 = self.config.l2
        self.doc["samples"].append(sample.to_dict())

    def _prepare(self, prepare: Prepare) -> None:
        self.doc["prepares"].append(prepare.to_dict())


def _json(d: dict) -> str:
    import json

    return json.dumps(d, sort_keys=True)


def make_variant(config: RunConfig, variant: Variant, registry: Registry | None = None) -> tuple[type[Strategy], object]:
    """The variant's strategy class and knobs as a run makes them (cpu.networkx takes the
    config's networkx_max_edges unless told, a multi-GPU strategy the config's gpus)."""
    cls = (registry if registry is not None else all_registered())[variant.problem][variant.strategy]
    overrides = dict(variant.overrides)
    if variant.strategy == "cpu.networkx" and "max_edges" not in overrides:
        overrides["max_edges"] = config.networkx_max_edges
    if config.gpus is not None and "gpus" in {f.name for f in dataclasses.fields(cls.Knobs)} and "gpus" not in overrides:
        overrides["gpus"] = config.gpus
    return cls, make_knobs(cls, overrides)


def equivalent_teps(variants: Sequence[Variant]) -> list[str]:
    """The strategies whose rates are equivalent GTEPS (Strategy.teps), for the report."""
    reg = all_registered()
    return sorted({v.strategy for v in variants
                   if getattr(reg.get(v.problem, {}).get(v.strategy), "teps", "traversed") == "equivalent"})


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _l2_flusher() -> L2Flush:
    from gpubfs_cli.gpu.l2 import L2Flusher

    return L2Flusher()


def _environment() -> dict:
    from gpubfs_cli.bench.environment import collect_environment

    return collect_environment()
