"""The runner: datasets x strategy variants x sources -> one results file.

The runner runs and writes; the rooms beside it do the rest. For each dataset it loads
the graph (generate or fetch and cache; with weights when a problem needs them), picks
the sources (graph/sources.py), computes each problem's reference answers for every
source (once per graph and problem, outside any timing), then lets every variant take its
turns (bench/schedule.py: rounds, turns) and measures each turn (bench/measure.py:
upload, prepare, warm-up, the timed calls, checks). Variants come from the config
(bench/variants.py).

The runner knows no algorithm: each variant's strategy names its Problem (BFS, SSSP),
and the problem supplies the reference answers, the check and the measures.

The results file is written after each graph and at the end. Ctrl-C stops the run; the
file keeps everything that finished (`interrupted: true`). The results path is checked
before anything runs (a regular file or a new path: files.check_output_path). A run with
no sample writes no results file (a failed run must not become the newest one); a run
stopped by an error after some samples writes them with `failed: REASON`, which a bare
`gpubfs report` skips. A dataset that cannot be loaded is recorded as such and the run
goes on.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gpubfs_cli.bench.config import DatasetSpec, RunConfig
from gpubfs_cli.bench.groups import label_key, summaries
from gpubfs_cli.bench.inputs import ProblemInput, default_loader, default_weights, problem_input
from gpubfs_cli.bench.measure import L2Flush, Measure
from gpubfs_cli.bench.progress import NullProgress, RunProgress
from gpubfs_cli.bench.references import DEFAULT_BUDGET_BYTES
from gpubfs_cli.bench.results import Prepare, Sample, new_results, write_results
from gpubfs_cli.bench.schedule import steps, turns
from gpubfs_cli.bench.status import classify
from gpubfs_cli.bench.variants import equivalent_teps, make_variant
from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.core.strategy import Registry, knobs_dict
from gpubfs_cli.core.strategy import registry as all_registered
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import check_output_path
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
        flush = (flush_l2 or _l2_flusher()) if config.l2 == "cold" else None
        self.flush_l2 = flush
        self.measure = Measure(config, self.progress, self, flush, read_clocks)
        self.labels: dict[tuple[str, str, str], str] = {}
        self.written = False
        problems = {p: get_problem(p).describe() for p in dict.fromkeys(v.problem for v in config.variants)}
        self.doc = new_results(env, config.to_dict(), problems, equivalent_teps(config.variants), _now())

    # ------------------------------------------------------------------ driver
    def run(self) -> RunOutcome:
        """Run everything; the results file is written after each graph and at the end,
        also when Ctrl-C or an error stops the run (then with what finished)."""
        check_output_path(self.out_path, "results file")
        self._check_gpu_requirement()
        interrupted = False
        try:
            with self.progress:
                self.progress.start(self._steps())
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

    def _steps(self, sources: int | None = None) -> int:
        """Progress steps of one graph (of every graph when `sources` is None)."""
        cfg = self.config
        per_graph = len(cfg.fixed_sources) or cfg.sources
        one = steps(per_graph if sources is None else sources, len(cfg.variants), len(cfg.modes),
                    len({v.problem for v in cfg.variants}), cfg.validate == "all")
        return one * (len(cfg.datasets) if sources is None else 1)

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
        self.progress.resize(self._steps(len(sources)) - self._steps(len(cfg.fixed_sources) or cfg.sources))
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
        inputs: dict[str, ProblemInput] = {}
        uploaded: dict[int, CSRGraph] = {}  # a problem's view (with weights) is its own object
        ended: dict[int, set[bool]] = {}  # a variant's modes that failed or ran out of time
        try:
            for turn in turns(sources, len(cfg.variants), cfg.rounds):
                variant = cfg.variants[turn.variant]
                if variant.problem not in inputs:
                    inputs[variant.problem] = problem_input(variant.problem, name, graph, sources, info, cfg,
                                                            self.add_weights, self.progress,
                                                            self.reference_budget_bytes)
                pi = inputs[variant.problem]
                modes = [m for m in cfg.modes if m not in ended.setdefault(turn.variant, set())]
                self.progress.advance_by(len(turn.sources) * (len(cfg.modes) - len(modes)))
                if not modes:
                    continue
                cls, knobs = make_variant(cfg, variant, self.registry)
                self.labels[label_key(variant.problem, cls.name, knobs_dict(knobs))] = variant.label
                went, stopped = self.measure.variant(name, pi, turn.sources, cls, knobs, variant.label, info,
                                                     modes, turn.later)
                if went:
                    uploaded[id(pi.graph)] = pi.graph
                ended[turn.variant] |= stopped
        finally:
            if uploaded:
                from gpubfs_cli.gpu.device_graph import DeviceGraph

                for g in uploaded.values():
                    DeviceGraph.release(g)

    # ------------------------------------------------------------------ records
    def sample(self, sample: Sample) -> None:
        sample.l2 = self.config.l2
        self.doc["samples"].append(sample.to_dict())

    def prepare(self, prepare: Prepare) -> None:
        self.doc["prepares"].append(prepare.to_dict())

    def clocks(self, entry: dict) -> None:
        self.doc["clocks"].append(entry)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _l2_flusher() -> L2Flush:
    from gpubfs_cli.gpu.l2 import L2Flusher

    return L2Flusher()


def _environment() -> dict:
    from gpubfs_cli.bench.environment import collect_environment

    return collect_environment()
