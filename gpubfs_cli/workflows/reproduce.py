"""`gpubfs reproduce PAPER`: the plan (what to fetch, what to run, how long), resume, runs.

Which run configs make a paper's tables is data: the `configs:` list of
configs/papers/KEY.yaml names files of configs/experiments/. Every run of a paper writes
its results file into one folder (results/reproduce/KEY/); a cell (config, dataset,
problem, strategy, knobs, option) found there finished is not run again:
  finished = every source has an ok sample, or the cell ended in a failure that is a
  result (results/status.MEASURED_FAILURES); `unavailable` and `error` cells run again
  (another machine, or a transient failure). results/done.py holds the rule.
A (dataset, variant) with any unfinished option runs all of the config's options.

Quick mode (`--quick`, `Mode`) runs each config on fewer sources (the first N of the full
run's list: graph/sources.py draws a prefix) and, where a paper's CPU columns are
gpubfs's own additions, times the parallel CPU BFS instead (QUICK_CPU says which, per
paper, and why). Every answer is still checked against the problem's baseline. Each
results file records its mode (the `reproduce` key); quick runs go to their own folder
(results/reproduce-quick/KEY/) and their cells carry the mode, so resume never takes a
quick cell for a full one or the reverse.

The time estimate (workflows/estimate.py states the model, workflows/history.py where its
figures come from) is said per config and per paper before anything runs, and after each
graph with the time so far. The results folder is checked before any graph is fetched or
built.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gpubfs_cli.bench.config import DatasetSpec, RunConfig, load_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.bench.variants import Variant, make_variant, recorded_knobs
from gpubfs_cli.core.strategy import registry
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.files import NotWritable, parse_yaml, read_text_file, writable_ancestor
from gpubfs_cli.folders import results_dir, results_folder
from gpubfs_cli.results.done import Done
from gpubfs_cli.results.keys import CellKey
from gpubfs_cli.results.schema import doc_samples, load_results
from gpubfs_cli.results.status import RUN_FAILURES
from gpubfs_cli.workflows.estimate import Estimate, download_estimate, graph_estimate, human_seconds
from gpubfs_cli.workflows.graphs import GraphPlan, Here, plan_graph
from gpubfs_cli.workflows.history import Machine

QUICK_SOURCES = 5  # most paper configs run 10 sources: 5 halves them, a median still stands

# Per paper: the CPU strategies quick mode times otherwise (replacement, or None: not
# timed; its answers still serve as the reference every answer is checked against).
# merrill: Table 2 prints parallel CPU rates (cpu.parallel_do here) and speedups over the
#   sequential BFS; luo: the CPU-BFS and Sp. columns of Tables 1-3; lbbfs: Table 1's
#   sequential CPU rate and its speedup (the 39x); bfs4k: Fig. 15, speedups over the
#   sequential BFS. Those CPU columns are results: kept, on the quick sources.
# raval: the paper's figures compare its GPU strategies only; the cpu.sequential and
#   cpu.dijkstra columns and the speedup table are gpubfs's additions.
QUICK_CPU: dict[str, dict[str, str | None]] = {
    "raval": {"cpu.sequential": "cpu.parallel_do", "cpu.dijkstra": None},
}


@dataclass(frozen=True)
class Mode:
    """Full (the configs as written) or quick (at most `sources` sources a graph, and
    the paper's QUICK_CPU swaps)."""

    quick: bool = False
    sources: int = QUICK_SOURCES

    @property
    def name(self) -> str:
        return "quick" if self.quick else "full"

    def root(self, results_dir: str | Path | None) -> Path:
        """--results DIR for either mode (cells carry the mode); else the mode's own folder."""
        if results_dir:
            return Path(results_dir)
        return results_root(self.quick, checked=True)

    def swaps(self, key: str) -> dict[str, str | None]:
        return QUICK_CPU.get(key, {}) if self.quick else {}

    def apply(self, cfg: RunConfig, key: str) -> RunConfig:
        """The config as this mode runs it for paper `key`."""
        if not self.quick:
            return cfg
        swaps = self.swaps(key)
        variants: list[Variant] = []
        for v in cfg.variants:
            if v.strategy in swaps:
                if swaps[v.strategy] is None:
                    continue
                v = Variant(swaps[v.strategy], {}, v.problem)
            if v not in variants:
                variants.append(v)
        sources = cfg.sources if cfg.fixed_sources else min(cfg.sources, self.sources)
        return dataclasses.replace(cfg, sources=sources, variants=variants)

    def meta(self, key: str, cfg: RunConfig) -> dict:
        """What a results file records of the mode that made it (the `reproduce` key)."""
        if not self.quick:
            return {"paper": key, "mode": "full"}
        return {"paper": key, "mode": "quick", "sources": cfg.sources, "quick_sources": self.sources,
                "cpu": dict(self.swaps(key))}

    def describe(self, key: str) -> str:
        """One line: what quick mode changes for paper `key`."""
        return f"{key}: quick mode: at most {sources_text(self.sources)} a graph; {cpu_text(self.swaps(key))}"


def results_root(quick: bool, checked: bool = False) -> Path:
    """The results folder's reproduce/ (--quick: reproduce-quick/), the results folder
    being gpubfs_cli/folders.py's; `checked`: one UserError line when it cannot be used."""
    base = results_dir() if checked else results_folder().path
    return base / ("reproduce-quick" if quick else "reproduce")


def history_folders(keys: list[str], root: Path) -> list[Path]:
    """Where this machine's own results are (workflows/history.py): the results folder and
    each paper's folder of either mode, since a quick run's times per source hold for a
    full one."""
    roots = (root, results_root(False), results_root(True))
    folders = [results_folder().path, *(r / k for r in roots for k in keys)]
    return list(dict.fromkeys(folders))


def quick_mode(quick: bool, sources: int | None) -> Mode:
    """--quick and --quick-sources N (which implies --quick)."""
    if sources is not None and sources < 1:
        raise UserError(f"--quick-sources: expected a positive whole number of sources, got {sources}")
    if sources is None:
        return Mode(quick)
    return Mode(True, sources)


def sources_text(n: int) -> str:
    return f"{n} source" if n == 1 else f"{n} sources"


def cpu_text(swaps: dict) -> str:
    """`CPU column from cpu.parallel_do (not cpu.sequential), cpu.dijkstra not timed`."""
    if not swaps:
        return "CPU columns as in full mode"
    parts = [f"CPU column from {new} (not {old})" if new else f"{old} not timed"
             for old, new in swaps.items()]
    return ", ".join(parts) + " (every answer still checked against the baseline)"


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
def cell_key(config: str, cell: CellKey, mode: str = "full") -> tuple:
    """A cell of a paper's results folder: its config's name, the cell, the mode it ran in."""
    return (config, *cell, mode)


def file_mode(doc: dict) -> tuple[str, int | None]:
    """(mode, sources a graph of a quick run) a results file records; files without the
    key (older, or from `gpubfs run`) are full runs."""
    meta = doc.get("reproduce")
    if isinstance(meta, dict) and meta.get("mode") == "quick":
        sources = meta.get("sources")
        return "quick", sources if isinstance(sources, int) and not isinstance(sources, bool) else 0
    return "full", None


def variant_knobs(cfg: RunConfig, variant: Variant) -> dict:
    """Every knob value the variant's samples record (defaults included, and the vertex
    order of a reordered variant), as the runner makes them."""
    return recorded_knobs(variant, make_variant(cfg, variant)[1])


def finished_cells(folder: Path) -> dict[tuple, int | None]:
    """The cells of every results file in `folder` that need no further run
    (results/done.Done.finished; keys carry the file's mode), each with the sources a
    graph its quick run planned (None: full)."""
    done: dict[tuple, int | None] = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        doc = load_results(path)
        config = (doc.get("config") or {}).get("name", "")
        mode, planned = file_mode(doc)
        held = Done(doc_samples(doc))
        for cell in held.cells():
            if held.finished(cell, len(set(doc["sources"].get(cell.dataset, [])))):
                key = cell_key(config, cell, mode)
                done[key] = None if planned is None else max(planned, done.get(key) or 0)
    return done


def is_finished(done: dict[tuple, int | None], key: tuple, sources: int) -> bool:
    """A quick cell is finished only by a quick file of at least as many sources."""
    return key in done and (done[key] is None or done[key] >= sources)


# ------------------------------------------------------------------ datasets
@dataclass
class DatasetPlan:
    spec: DatasetSpec
    graph: GraphPlan  # where it comes from, its costs, why it cannot be had here
    action: str = ""  # cached | generate | fetch (from the network or the mirror)
    builds: bool = False  # this config fetches or builds it (the first of the command that needs it)

    def __post_init__(self) -> None:
        self.action = self.action or ("fetch" if self.graph.action == "mirror" else self.graph.action)

    @property
    def m(self) -> int | None:
        return self.graph.m

    @property
    def n(self) -> int | None:
        return self.graph.n


def entry_name(name: str, data_dir: str | None) -> str:
    """The catalogue name a config's dataset name (an alias, NAME@seed=S, NAME@weights=...) stands for."""
    from gpubfs_cli.datasets.prepare import resolve_name

    return resolve_name(name, data_dir).name


def paper_graphs(key: str, data_dir: str | None = None) -> list[str]:
    """The catalogue names of every graph the paper's configs run, in their order."""
    names: dict[str, None] = {}
    for path in paper_config_paths(key):
        cfg = load_config(path, {"data_dir": data_dir})
        names.update((entry_name(s.name, cfg.data_dir), None) for s in cfg.datasets)
    return list(names)


def only_graphs(keys: list[str], names: list[str], data_dir: str | None = None) -> set[str] | None:
    """--graph NAME (repeatable, aliases too) -> catalogue names, each checked to be a
    graph of one of the papers' tables; None when no --graph was given."""
    if not names:
        return None
    known = {g for key in keys for g in paper_graphs(key, data_dir)}
    out = set()
    for name in names:
        try:
            resolved = entry_name(name, data_dir)
        except UserError:
            resolved = None
        if resolved not in known:
            raise unknown_name(f"graph of {' and '.join(keys)}'s tables (--graph)", name, sorted(known))
        out.add(resolved)
    return out


# ------------------------------------------------------------------ the plan
@dataclass
class ConfigPlan:
    path: Path
    config: RunConfig
    datasets: list[DatasetPlan]
    skipped: list[str] = field(default_factory=list)  # one line each: what cannot run here
    todo: dict[str, list[Variant]] = field(default_factory=dict)  # dataset -> variants to run
    finished: int = 0  # cells already in the results folder
    estimates: dict[str, Estimate] = field(default_factory=dict)  # dataset -> its cells still to run

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def estimate(self) -> Estimate:
        return sum(self.estimates.values(), Estimate())

    def cells_to_run(self) -> int:
        return sum(len(v) for v in self.todo.values()) * len(self.config.modes)

    def runs(self) -> list[RunConfig]:
        """The subsets to run: datasets grouped by the variants they still need."""
        by_variants: dict[tuple, list[DatasetSpec]] = {}
        specs = {d.spec.name: d.spec for d in self.datasets}
        for name, variants in self.todo.items():
            by_variants.setdefault(tuple(variants), []).append(specs[name])
        return [dataclasses.replace(self.config, datasets=ds, variants=list(vs), require_gpu=False)
                for vs, ds in by_variants.items()]


def plan_config(path: Path, done: dict[tuple, int | None], machine: Machine, data_dir: str | None = None,
                building: set[tuple] | None = None, mode: Mode = Mode(), key: str = "",
                here: Here | None = None, graphs: dict[tuple, GraphPlan] | None = None,
                only: set[str] | None = None) -> ConfigPlan:
    """`building`: the graphs an earlier config of the command fetches or builds (added to);
    `mode` and the paper `key`: how the config runs (Mode.apply); `here`: this machine's
    limits; `graphs`: the graphs planned so far by the command (added to); `only`: the
    catalogue names of the graphs to run (--graph), None for all."""
    cfg = mode.apply(load_config(path, {"data_dir": data_dir}), key)
    if only is not None:
        cfg = dataclasses.replace(cfg, datasets=[s for s in cfg.datasets if entry_name(s.name, cfg.data_dir) in only])
    return plan_of(cfg, path, done, machine, building, mode, key, here, graphs)


def plan_of(cfg: RunConfig, path: Path, done: dict[tuple, int | None], machine: Machine,
            building: set[tuple] | None = None, mode: Mode = Mode(), key: str = "", here: Here | None = None,
            graphs: dict[tuple, GraphPlan] | None = None) -> ConfigPlan:
    """The plan of a run config as made (plan_config's arguments; `gpubfs run --dry-run`
    plans its config, flags applied, with nothing done and no paper `key`)."""
    from gpubfs_cli.datasets.weights import split_option

    building = set() if building is None else building
    graphs = {} if graphs is None else graphs
    here = here or Here(None, None, None, None)
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
        graph = (spec.name, spec.seed, cfg.data_dir)
        if graph not in graphs:
            graphs[graph] = plan_graph(spec.name, spec.seed, cfg.data_dir, here, mode.quick)
        dp = DatasetPlan(spec, graphs[graph])
        plan.datasets.append(dp)
        if dp.graph.blocked:
            plan.skipped.append(f"{cfg.name}: {dp.graph.missing_line(key, dp.graph.blocked)}")
            continue
        todo = []
        for v in runnable:
            knobs = variant_knobs(cfg, v)
            keys = [cell_key(cfg.name, CellKey.make(spec.name, v.problem, v.strategy, knobs, m), mode.name)
                    for m in cfg.modes]
            missing = sum(not is_finished(done, k, cfg.sources) for k in keys)
            plan.finished += len(keys) - missing
            if missing:
                todo.append(v)
        if todo:
            plan.todo[spec.name] = todo
            # the cache a name reads: an alias's entry's, NAME@weights=rule's NAME's
            seeded = split_option(spec.name)[0].partition("@seed=")[2]
            built = (dp.graph.entry.name, seeded, spec.seed, cfg.data_dir)
            dp.builds = dp.action != "cached" and built not in building
            if dp.builds:
                building.add(built)
    estimate_plan(plan, machine, here)
    return plan


def estimate_plan(plan: ConfigPlan, machine: Machine, here: Here | None = None) -> None:
    """Each graph's estimate of the cells still to run (workflows/estimate.py), its
    download counted where this config fetches it from the network."""
    cfg = plan.config
    plan.estimates = {}
    for dp in plan.datasets:
        if dp.spec.name not in plan.todo:
            continue
        est = graph_estimate(machine, cfg, dp.spec.name, not dp.builds, dp.m or 0, dp.n or 0,
                             [(v, variant_knobs(cfg, v)) for v in plan.todo[dp.spec.name]])
        if dp.builds and dp.graph.downloads:
            est = est + download_estimate(dp.graph, here)
        plan.estimates[dp.spec.name] = est


# ------------------------------------------------------------------ the results folder
def check_results_folder(root: Path, keys: list[str]) -> None:
    """Refuse, before any graph is fetched or built, results folders that are files or
    cannot take a new file. Nothing is created: a probe file comes and goes in each
    paper's folder, or in the nearest folder above it that exists."""
    for key in keys:
        try:
            writable_ancestor(root / key)
        except NotWritable as e:
            if e.reason is None:
                raise UserError(f"--results {root}: {e.folder} is not a folder") from None
            raise UserError(f"--results {root}: cannot write in {e.folder} ({e.reason})") from None


# ------------------------------------------------------------------ saying it
def plan_lines(outcome: PaperOutcome) -> list[str]:
    """The dry run of one paper: what cannot run, what must be fetched, each config's cells
    and estimate, the paper's total."""
    lines = [outcome.mode.describe(outcome.key)] if outcome.mode.quick else []
    graphs = graph_lines(outcome.plans, outcome.here)
    if graphs:
        lines.append(f"{outcome.key}: {len(graphs)} graph(s) in its tables:")
        lines += graphs
    for plan in outcome.plans:
        lines += before_lines(plan)
        quick = f" ({sources_text(plan.config.sources)} a graph)" if outcome.mode.quick else ""
        lines.append(f"{outcome.key} · {plan.name}{quick}: {plan.cells_to_run()} cell(s) to run, {plan.finished} finished, "
                     f"{plan.estimate.summary()}")
    lines.append(f"{outcome.key}: {outcome.cells_to_run()} cell(s) to run, {outcome.estimate.summary(' in all')}; "
                 f"results in {outcome.folder}")
    return lines


def graph_lines(plans: list[ConfigPlan], here: Here | None) -> list[str]:
    """Each graph of the plans once: where it comes from, its costs, whether it fits `here`."""
    graphs = list({id(dp.graph): dp.graph for plan in plans for dp in plan.datasets}.values())
    return [f"  {g.line(here)}" for g in graphs] if here is not None else []


def before_lines(plan: ConfigPlan) -> list[str]:
    """What of a config cannot run here, and the graphs it fetches or builds first."""
    return plan.skipped + [f"{plan.name}: {dp.spec.name}: {dp.action} first" for dp in plan.datasets
                           if dp.spec.name in plan.todo and dp.builds]


def run_plan_lines(plan: ConfigPlan, here: Here | None, out: str) -> list[str]:
    """`gpubfs run --dry-run`: the graphs, what cannot run here, what is fetched or built
    first, the cells and their estimate, where the results would go."""
    cfg = plan.config
    graphs = graph_lines([plan], here)
    lines = [f"{plan.name}: {len(graphs)} graph(s):", *graphs] if graphs else []
    lines += before_lines(plan)
    lines.append(f"{plan.name}: {len(cfg.datasets)} graph(s) x {len(cfg.variants)} variant(s), "
                 f"{plan.cells_to_run()} cell(s) to run, {plan.estimate.summary()}")
    lines.append(f"{plan.name}: results would go to {out}; nothing was run or written (--dry-run)")
    return lines


def dry_run_lines(cfg: RunConfig, out: str) -> list[str]:
    """`gpubfs run --dry-run`: reproduce's plan and estimate of one run config (its flags
    applied) on this machine, nothing counted as done; nothing is fetched, run or written."""
    from gpubfs_cli.bench.availability import check_gpu_requirement
    from gpubfs_cli.workflows import history
    from gpubfs_cli.workflows.graphs import this_host

    check_gpu_requirement(cfg)  # as the run would: one line
    gpu, cpu = history.device_label()
    machine = history.this_machine(gpu, cpu, history_folders([], results_root(False)))
    here = this_host(cfg.data_dir, None)
    plan = plan_of(cfg, Path(cfg.path or "command line"), {}, machine, here=here)
    return [machine.describe(), *run_plan_lines(plan, here, out)]


def total_line(outcomes: list[PaperOutcome]) -> str:
    total = sum((o.estimate for o in outcomes), Estimate())
    return (f"all {len(outcomes)} papers: {sum(o.cells_to_run() for o in outcomes)} cell(s) to run, "
            f"{total.summary(' in all')}")


@dataclass
class Clock:
    """After each graph: its time against its estimate, the time so far, and the estimate
    of what is left (every paper of the command)."""

    say: Callable[[str], None]
    left: dict[tuple[str, str, str], Estimate] = field(default_factory=dict)  # (paper, config, graph)
    start: float = field(default_factory=time.monotonic)
    last: float = field(default_factory=time.monotonic)

    @classmethod
    def of(cls, outcomes: list[PaperOutcome], say: Callable[[str], None]) -> Clock:
        clock = cls(say)
        for outcome in outcomes:
            for plan in outcome.plans:
                clock.expect(outcome.key, plan)
        return clock

    def expect(self, key: str, plan: ConfigPlan) -> None:
        for k in [k for k in self.left if k[:2] == (key, plan.name)]:
            del self.left[k]
        self.left.update({(key, plan.name, name): est for name, est in plan.estimates.items()})

    def remaining(self) -> Estimate:
        return sum(self.left.values(), Estimate())

    def left_text(self) -> str:
        rest = self.remaining()
        if not self.left:
            return "nothing left"
        if rest.unknown and not rest.seconds:
            return "time left unknown"
        return f"{rest.text()} left in all (estimate)"

    def done(self, key: str, config: str, graph: str) -> None:
        now = time.monotonic()
        pending = [k for k in self.left if k[:2] == (key, config)]
        if (key, config, graph) not in self.left and pending:
            graph = pending[0][2]  # a graph named otherwise in its results: the config's next one
        est = self.left.pop((key, config, graph), None)
        expected = f" (estimate {est.text()})" if est else ""
        self.say(f"{key} · {config}: {graph} done in {human_seconds(now - self.last)}{expected}; "
                 f"{human_seconds(now - self.start)} so far, {self.left_text()}")
        self.last = now


# ------------------------------------------------------------------ doing it
def fetch_missing(plan: ConfigPlan, say, progress: bool, fetch: Fetch | None = None, paper: str = "") -> bool:
    """Fetch or generate the graphs the plan still needs; one line and the graph's cells
    dropped for each that cannot be had here (no network, checksum, bad file), naming the
    command that fills them. True when anything was fetched or tried."""
    from gpubfs_cli.datasets.prepare import ensure_dataset
    from gpubfs_cli.gpu.backend import cupy_if_usable

    tried = False
    for dp in plan.datasets:
        if dp.action == "cached" or dp.spec.name not in plan.todo:
            continue
        tried = True
        fetch = fetch or Fetch()
        try:
            ensure_dataset(dp.spec.name, plan.config.data_dir, seed=dp.spec.seed, progress=progress,
                           gpu_xp=cupy_if_usable, mirror=fetch.mirror, accept_checksum=fetch.accept_checksum)
            dp.action = "cached"
        except Exception as exc:  # the reproduction goes on without this graph
            lines = str(exc).strip().splitlines()
            why = lines[0] if lines else type(exc).__name__
            say(f"{plan.name}: {dp.spec.name}: skipped, cannot be had here: {why}")
            if dp.graph.entry.kind == "download":
                say(f"{plan.name}: {dp.graph.missing_line(paper, 'not fetched')}")
            del plan.todo[dp.spec.name]
    return tried


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


@dataclass(frozen=True)
class Fetch:
    """How missing graphs are had: a mirror folder to read archives from first (None:
    GPUBFS_MIRROR, if set), and whether an archive whose sha256 differs from the
    catalogue's pin may be used (recorded in the cache and the results)."""

    mirror: str | None = None
    accept_checksum: bool = False


@dataclass
class PaperOutcome:
    key: str
    folder: Path
    plans: list[ConfigPlan]
    ran: int = 0  # results files written by this call
    interrupted: bool = False
    mode: Mode = field(default_factory=Mode)
    here: Here | None = None  # this machine's limits, as the plan saw them

    def missing(self) -> list[str]:
        """One line for each graph whose cells stay missing (it cannot be had here)."""
        lines: dict[str, None] = {}
        for plan in self.plans:
            for dp in plan.datasets:
                if dp.graph.blocked:
                    lines[dp.graph.missing_line(self.key, dp.graph.blocked)] = None
        return list(lines)

    @property
    def estimate(self) -> Estimate:
        return sum((p.estimate for p in self.plans), Estimate())

    def cells_to_run(self) -> int:
        return sum(p.cells_to_run() for p in self.plans)

    @property
    def report_html(self) -> Path:
        """Named by mode: a shared --results folder keeps both reports."""
        return self.folder / ("report-quick.html" if self.mode.quick else "report.html")


def plan_papers(keys: list[str], root: Path, machine: Machine, data_dir: str | None = None,
                mode: Mode = Mode(), here: Here | None = None, only: set[str] | None = None) -> list[PaperOutcome]:
    """Each paper's plan; a graph several configs need is fetched or built (and counted) once."""
    building: set[tuple] = set()
    graphs: dict[tuple, GraphPlan] = {}
    outcomes = []
    for key in keys:
        done = finished_cells(root / key)
        plans = [plan_config(p, done, machine, data_dir, building, mode, key, here, graphs, only)
                 for p in paper_config_paths(key)]
        outcomes.append(PaperOutcome(key, root / key, plans, mode=mode, here=here))
    return outcomes


class GraphRunner(Runner):
    """The runner, calling after_graph(dataset name) once each graph's results are written;
    every results file it writes records `meta` (Mode.meta) as its `reproduce` key."""

    def __init__(self, config: RunConfig, after_graph: Callable[[str], None], meta: dict | None = None, **kwargs):
        super().__init__(config, **kwargs)
        self.after_graph = after_graph
        self.meta = meta or {}
        self.told: set[str] = set()

    def write(self) -> Path:
        if self.meta:
            self.doc["reproduce"] = self.meta
        path = super().write()
        for name in [n for n in self.doc["datasets"] if n not in self.told]:
            if self.doc.get("interrupted"):
                break  # the graph in flight is not done
            self.told.add(name)
            self.after_graph(name)
        return path


def run_paper(outcome: PaperOutcome, machine: Machine, clock: Clock, make_progress,
              fetch: Fetch | None = None) -> PaperOutcome:
    """Fetch what is missing, then run every unfinished cell, config by config, saying
    before each run and after each graph how long the remaining runs should take."""
    fetched = False
    for plan in outcome.plans:
        fetched |= fetch_missing(plan, clock.say, make_progress().enabled, fetch, outcome.key)
        for dp in plan.datasets:
            dp.builds = dp.builds and dp.action != "cached"
        estimate_plan(plan, machine, outcome.here)
        clock.expect(outcome.key, plan)
    if fetched:
        clock.say(f"{outcome.key}: graphs ready after {human_seconds(time.monotonic() - clock.last)}; "
                  f"{clock.left_text()}")
        clock.last = time.monotonic()
    for plan in outcome.plans:
        runs = plan.runs()
        for cfg, path in zip(runs, out_paths(outcome.folder, plan, len(runs)), strict=True):
            this = sum((plan.estimates[d.name] for d in cfg.datasets), Estimate())
            clock.say(f"{outcome.key} · {plan.name}: {len(cfg.datasets)} graph(s) x {len(cfg.variants)} variant(s), "
                      f"{this.text()}; {clock.left_text()}")
            runner = GraphRunner(cfg, lambda name, c=plan.name: clock.done(outcome.key, c, name),
                                 outcome.mode.meta(outcome.key, cfg), progress=make_progress(), out_path=path)
            result = runner.run()
            outcome.ran += int(result.written)
            if result.interrupted:
                outcome.interrupted = True
                return outcome
    return outcome


def report_files(outcome: PaperOutcome) -> tuple[list[Path], str | None]:
    """The paper folder's results files of this mode, and a line naming how many of the
    other mode's it leaves out of the report (a shared --results folder holds both)."""
    mine, other = [], []
    for path in sorted(outcome.folder.glob("*.json")):
        (mine if file_mode(load_results(path))[0] == outcome.mode.name else other).append(path)
    if not other:
        return mine, None
    return mine, (f"{outcome.key}: {len(other)} {'full' if outcome.mode.quick else 'quick'}-mode file(s) in "
                  f"{outcome.folder} left out of this {outcome.mode.name}-mode report")


def failed_cells(files: list[Path]) -> int:
    """Cells (dataset, strategy, knobs, predecessors) of these results files with a
    wrong-answer or error sample."""
    from gpubfs_cli.report.load import load_many

    return len({CellKey.of(x) for x in load_many(files).samples if x.status in RUN_FAILURES})
