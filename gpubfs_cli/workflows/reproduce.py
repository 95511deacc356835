"""`gpubfs reproduce PAPER`: the plan (what to fetch, what to run, how long), resume, runs.

Which run configs make a paper's tables is data: the `configs:` list of
configs/papers/KEY.yaml names files of configs/experiments/. Every run of a paper writes
its results file into one folder (results/reproduce/KEY/); a cell (config, dataset,
problem, strategy, knobs, option) found there finished is not run again:
  finished = every source has an ok sample, or the cell ended in a measured failure
  (out-of-time, out-of-memory, wrong-answer). `unavailable` and `error` cells run again
  (another machine, or a transient failure).
A (dataset, variant) with any unfinished option runs all of the config's options.

Time estimate (a stated model, not a promise): a traversal takes m / rate, where m is the
graph's directed edge count (the cached graph's, else the catalogue's expected m) and
rate is the median edges-per-ms of that strategy's ok samples in earlier results files
of this same GPU (GPU strategies) or CPU model (CPU ones) under results/, else 1 GTEPS
for a GPU strategy and 0.05 GTEPS for a CPU one. A cell costs (sources + warm-up) such
traversals; validation adds one baseline traversal per source and graph; building a
graph that is not cached costs m / 20 M edges per second (downloads: plus the network).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from gpubfs_cli.bench.config import DatasetSpec, RunConfig, load_config
from gpubfs_cli.bench.groups import group_samples
from gpubfs_cli.bench.results import Sample, load_results
from gpubfs_cli.bench.variants import Variant, make_variant
from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.core.strategy import knobs_dict, registry
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.files import parse_yaml, read_text_file

RESULTS_ROOT = Path("results") / "reproduce"
DEFAULT_RATE = {"gpu": 1e6, "cpu": 5e4}  # edges per ms without history: 1 and 0.05 GTEPS
BUILD_RATE = 2e4  # edges per ms to build (generate or parse) a graph that is not cached
MEASURED = ("out-of-time", "out-of-memory", "wrong-answer")  # failures that are results


def paper_keys_for(arg: str) -> list[str]:
    """`all` -> every paper with a layout; else the one key (checked)."""
    from gpubfs_cli.report.papers import paper_keys

    keys = paper_keys()
    if arg == "all":
        return keys
    if arg not in keys:
        raise unknown_name("paper", arg, [*keys, "all"])
    return [arg]


def paper_config_paths(key: str) -> list[Path]:
    """The run configs of configs/papers/KEY.yaml's `configs:` list (names of
    configs/experiments/NAME.yaml, beside the papers folder)."""
    from gpubfs_cli.report.papers import papers_dir

    folder = papers_dir()
    path = folder / f"{key}.yaml"
    doc = parse_yaml(read_text_file(path, "paper layout"), str(path)) or {}
    names = doc.get("configs") if isinstance(doc, dict) else None
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise UserError(f"{path}: configs: expected a list of run config names (configs/experiments/NAME.yaml)")
    out = []
    for i, name in enumerate(names):
        cfg = folder.parent / "experiments" / f"{name}.yaml"
        if not cfg.is_file():
            raise UserError(f"{path}: configs[{i}]: no run config {cfg}")
        out.append(cfg)
    return out


# ------------------------------------------------------------------ cells
def cell_key(config: str, dataset: str, problem: str, strategy: str, knobs: dict, predecessors: bool) -> tuple:
    return (config, dataset, problem, strategy, knobs_key(knobs), bool(predecessors))


def variant_knobs(cfg: RunConfig, variant: Variant) -> dict:
    """Every knob value the variant's samples record (defaults included), as the runner makes them."""
    return knobs_dict(make_variant(cfg, variant)[1])


def finished_cells(folder: Path) -> set[tuple]:
    """The cells of every results file in `folder` that need no further run."""
    done: set[tuple] = set()
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        doc = load_results(path)
        config = (doc.get("config") or {}).get("name", "")
        for g in group_samples([Sample.from_dict(s) for s in doc["samples"]]):
            sources = len(doc["sources"].get(g.dataset, []))
            ok = {s.source for s in g.ok_samples()}
            if g.status in MEASURED or (g.status == "ok" and sources and len(ok) >= sources):
                done.add(cell_key(config, g.dataset, g.problem, g.strategy, g.knobs, g.predecessors))
    return done


# ------------------------------------------------------------------ datasets
@dataclass
class DatasetPlan:
    spec: DatasetSpec
    action: str  # cached | generate | fetch
    m: int | None  # directed edges (cached graph's, else the catalogue's expected)


def dataset_plan(spec: DatasetSpec, data_dir: str | None) -> DatasetPlan:
    from gpubfs_cli.datasets import store
    from gpubfs_cli.datasets.prepare import resolve_entry

    entry = resolve_entry(spec.name.split("@seed=")[0], data_dir)
    key = entry.name
    if entry.kind == "generated":
        key = store.cache_key(entry.name, spec.seed, entry.seed if entry.seed is not None else 0)
    if store.is_cached(key, data_dir):
        return DatasetPlan(spec, "cached", store.read_meta(key, data_dir).get("m"))
    return DatasetPlan(spec, "generate" if entry.kind == "generated" else "fetch", entry.expected.m)


# ------------------------------------------------------------------ the plan
@dataclass
class ConfigPlan:
    path: Path
    config: RunConfig
    datasets: list[DatasetPlan]
    skipped: list[str] = field(default_factory=list)  # one line each: what cannot run here
    todo: dict[str, list[Variant]] = field(default_factory=dict)  # dataset -> variants to run
    finished: int = 0  # cells already in the results folder
    estimate_s: float = 0.0

    @property
    def name(self) -> str:
        return self.config.name

    def cells_to_run(self) -> int:
        return sum(len(v) for v in self.todo.values()) * len(self.config.modes)

    def runs(self) -> list[RunConfig]:
        """The subsets to run: datasets grouped by the variants they still need."""
        by_variants: dict[tuple, list[DatasetSpec]] = defaultdict(list)
        specs = {d.spec.name: d.spec for d in self.datasets}
        for name, variants in self.todo.items():
            by_variants[tuple(variants)].append(specs[name])
        return [dataclasses.replace(self.config, datasets=ds, variants=list(vs), require_gpu=False)
                for vs, ds in by_variants.items()]


def plan_config(path: Path, done: set[tuple], rates: dict[tuple[str, str], float],
                data_dir: str | None = None) -> ConfigPlan:
    cfg = load_config(path, {"data_dir": data_dir})
    reg = registry()
    plan = ConfigPlan(path, cfg, [])
    runnable = []
    for v in cfg.variants:
        reason = reg[v.problem][v.strategy].unavailable_reason()
        if reason is None:
            runnable.append(v)
        else:
            plan.skipped.append(f"{cfg.name}: {v.problem} {v.label}: not run here: {reason}")
    for spec in cfg.datasets:
        dp = dataset_plan(spec, cfg.data_dir)
        plan.datasets.append(dp)
        todo = []
        for v in runnable:
            knobs = variant_knobs(cfg, v)
            keys = [cell_key(cfg.name, spec.name, v.problem, v.strategy, knobs, m) for m in cfg.modes]
            missing = sum(k not in done for k in keys)
            plan.finished += len(keys) - missing
            if missing:
                todo.append(v)
        if todo:
            plan.todo[spec.name] = todo
    plan.estimate_s = estimate_seconds(plan, rates)
    return plan


# ------------------------------------------------------------------ the estimate
def device_label() -> tuple[str | None, str]:
    """(this GPU's name or None, this CPU's model): what earlier results must match."""
    from gpubfs_cli.bench.environment import cpu_model
    from gpubfs_cli.gpu import backend

    gpu = None if backend.unavailable_reason() is not None else backend.device_properties().get("name")
    return gpu, cpu_model()


def measured_rates(folders: list[Path], gpu: str | None, cpu: str) -> dict[tuple[str, str], float]:
    """(problem, strategy) -> median edges per ms of ok samples in results files made on
    this GPU (GPU strategies) or this CPU (CPU strategies). Unreadable files are passed."""
    reg = registry()
    rates: dict[tuple[str, str], list[float]] = defaultdict(list)
    for path in sorted({p for f in folders if f.is_dir() for p in f.glob("*.json")}):
        try:
            doc = load_results(path)
        except UserError:
            continue
        env = doc.get("environment") or {}
        doc_gpu = (env.get("gpu") or {}).get("name")
        for raw in doc["samples"]:
            s = Sample.from_dict(raw)
            cls = reg.get(s.problem, {}).get(s.strategy)
            if cls is None or s.status != "ok" or not s.time_ms or not s.edges:
                continue
            same = (gpu is not None and doc_gpu == gpu) if cls.device_kind == "gpu" else (env.get("cpu") or {}).get("model") == cpu
            if same:
                rates[(s.problem, s.strategy)].append(s.edges / s.time_ms)
    return {k: statistics.median(v) for k, v in rates.items()}


def estimate_seconds(plan: ConfigPlan, rates: dict[tuple[str, str], float]) -> float:
    """The module docstring's model, for the cells still to run."""
    cfg = plan.config
    reg = registry()
    per_graph = len(cfg.fixed_sources) or cfg.sources
    ms = 0.0
    for dp in plan.datasets:
        m = dp.m or 0
        variants = plan.todo.get(dp.spec.name, [])
        if not variants:
            continue
        if dp.action != "cached":
            ms += m / BUILD_RATE
        if cfg.validate == "all":
            for problem in {v.problem for v in variants}:
                base = get_problem(problem).baseline
                ms += per_graph * m / rates.get((problem, base), DEFAULT_RATE["cpu"])
        for v in variants:
            kind = reg[v.problem][v.strategy].device_kind
            rate = rates.get((v.problem, v.strategy), DEFAULT_RATE[kind])
            ms += (per_graph + cfg.warmup) * len(cfg.modes) * m / rate
    return ms / 1000.0


def human_seconds(s: float) -> str:
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


# ------------------------------------------------------------------ doing it
def fetch_missing(plan: ConfigPlan, say, progress: bool) -> None:
    """Fetch or generate the graphs the plan still needs; one line and the graph's cells
    dropped for each that cannot be had here (no network, checksum, bad file)."""
    from gpubfs_cli.datasets.prepare import ensure_dataset
    from gpubfs_cli.gpu.backend import cupy_if_usable

    for dp in plan.datasets:
        if dp.action == "cached" or dp.spec.name not in plan.todo:
            continue
        try:
            ensure_dataset(dp.spec.name, plan.config.data_dir, seed=dp.spec.seed, progress=progress,
                           gpu_xp=cupy_if_usable)
            dp.action = "cached"
        except Exception as exc:  # the reproduction goes on without this graph
            lines = str(exc).strip().splitlines()
            why = lines[0] if lines else type(exc).__name__
            say(f"{plan.name}: {dp.spec.name}: skipped, cannot be had here: {why}")
            del plan.todo[dp.spec.name]


def out_paths(folder: Path, plan: ConfigPlan, count: int) -> list[Path]:
    """New results file names in the paper's folder, one per subset run."""
    from gpubfs_cli.bench.runner import default_out_path

    stem = default_out_path(plan.config).stem
    out: list[Path] = []
    i = 0
    while len(out) < count:  # never overwrite an earlier file (two runs in one second)
        i += 1
        path = folder / (f"{stem}.json" if i == 1 else f"{stem}-{i}.json")
        if not path.exists():
            out.append(path)
    return out


@dataclass
class PaperOutcome:
    key: str
    folder: Path
    plans: list[ConfigPlan]
    ran: int = 0  # results files written by this call
    interrupted: bool = False


def plan_paper(key: str, root: Path, rates: dict[tuple[str, str], float], data_dir: str | None = None) -> PaperOutcome:
    folder = root / key
    done = finished_cells(folder)
    return PaperOutcome(key, folder, [plan_config(p, done, rates, data_dir) for p in paper_config_paths(key)])


def run_paper(outcome: PaperOutcome, rates, say, make_progress) -> PaperOutcome:
    """Fetch what is missing, then run every unfinished cell, config by config, saying
    before each run how long the paper's remaining runs should take."""
    from gpubfs_cli.bench.runner import Runner

    for plan in outcome.plans:
        fetch_missing(plan, say, make_progress().enabled)
        plan.estimate_s = estimate_seconds(plan, rates)
    remaining = sum(p.estimate_s for p in outcome.plans)
    for plan in outcome.plans:
        runs = plan.runs()
        for cfg, path in zip(runs, out_paths(outcome.folder, plan, len(runs)), strict=True):
            say(f"{outcome.key} · {plan.name}: {len(cfg.datasets)} graph(s) x {len(cfg.variants)} variant(s); "
                f"about {human_seconds(remaining)} left for this paper (estimate)")
            result = Runner(cfg, progress=make_progress(), out_path=path).run()
            outcome.ran += int(result.written)
            if result.interrupted:
                outcome.interrupted = True
                return outcome
        remaining = max(remaining - plan.estimate_s, 0.0)
    return outcome


def failed_cells(files: list[Path]) -> int:
    """Cells (dataset, strategy, knobs, predecessors) of these results files with a
    wrong-answer or error sample."""
    from gpubfs_cli.report.load import load_many

    return len({(x.dataset, x.strategy, knobs_key(x.knobs), x.predecessors)
                for x in load_many(files).samples if x.status in ("wrong-answer", "error")})
