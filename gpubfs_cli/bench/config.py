"""Run configs: a YAML file (a shipped configs/experiments/NAME.yaml by name, or any
path) or `gpubfs run` flags -> RunConfig. Each key's value is checked in
bench/config_values.py; the flags are laid on top in bench/config_cli.py.

Keys (all optional except datasets):
  name:          label of the run; the results file is results/NAME-<UTC time>.json
  datasets:      [NAME, ...] or [{name: NAME, seed: S}, ...]  (seed: generated graphs; NAME@weights=rule)
  problem:       bfs | sssp: the problem of the strategies named below (default: the
                 one their names imply, e.g. cpu.dijkstra is SSSP's alone; else bfs)
  strategies:    all | [NAME | PATTERN | {name: NAME, problem: P, knobs: {KNOB: value | [v1, v2]}}]
                 PATTERN is a shell pattern (merrill.*); a knob given a list is swept,
                 one variant per value (several lists: every combination); a mapping's
                 `problem` runs that entry for another problem (BFS and SSSP in one run)
  sources:       random sources per graph (100)
  seed:          seed of the source generator (0)
  fixed_sources: [V, ...]  run from these vertices instead of random ones
  validate:      all | certificate | none (certificate: proved by parents or distances, no baseline)
  predecessors:  false | true | both
  time_limit_s:  per traversal; a variant over it is out-of-time on that graph (60)
  warmup:        untimed runs per variant and graph before the timed ones (1)
  warmup_ms:     with warmup >= 1, untimed runs go on until this many milliseconds have
                 passed (50; 0: `warmup` runs alone). On the H100 a variant prepared
                 after CPU-only work (auto.bfs's depth probe) measured about 14 us
                 slower per traversal with one warm-up run, and alike with 50 ms
                 (docs/auto.md, "Evidence")
  rounds:        the variants take turns: round r runs every variant on every rounds-th
                 source (from the r-th), starting from the r-th variant and going round,
                 so what running first or last does to a variant falls on all of them
                 alike (1: each variant runs all its sources, then the next variant)
  networkx_max_edges: cpu.networkx's max_edges unless its knobs say otherwise
  out:           results file path
  data_dir:      dataset cache folder (else $GPUBFS_DATA_DIR, else ./datasets)
  require_gpu:   true: a machine without a usable GPU is an error
  l2:            warm | cold: cold evicts the GPU's L2 before each timed sample,
                 outside the timed region (gpu/l2.py); warm (default) does not
  prime:         true: before each timed call of a strategy that runs on a GPU, one
                 untimed call from the previous call's sources, waited for, so the timed
                 one starts as in a loop of traversals, not after the idle of the CPU's
                 check of the last answer (bench/timing.py); false (default): no such call
  energy_s:      after a GPU variant's timed sources on a graph, its traversals replayed
                 this long, its GPUs' energy read around them (bench/energy.py; 0: off, default)
  gpus:          GPUs a multi-GPU strategy (one with a `gpus` knob) spans unless its
                 knobs say otherwise (merrill.multi_gpu*; default: its knob's 1)
  reorder:       none | degree | rcm | hub, or a list of them: relabel the graph's vertices
                 in that order before each strategy prepares (graph/reorder.py; answers
                 mapped back, the order's cost recorded as prepare time); a list makes
                 each order its own variant, like a knob sweep (default none)
Every mistake is one UserError naming the file and key, with the closest valid names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpubfs_cli.bench import config_values as values
from gpubfs_cli.bench.config_values import DatasetSpec
from gpubfs_cli.bench.variants import Variant, expand_strategies, with_gpus, with_orders
from gpubfs_cli.bench.variants import config_error as _err
from gpubfs_cli.core.knobs import Range
from gpubfs_cli.core.strategy import Registry
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.files import parse_yaml, read_text_file
from gpubfs_cli.results.keys import L2_MODES, NO_REORDER

KEYS = (
    "name", "datasets", "problem", "strategies", "sources", "seed", "fixed_sources", "validate",
    "predecessors", "time_limit_s", "warmup", "warmup_ms", "rounds", "networkx_max_edges", "out", "data_dir",
    "require_gpu", "l2", "prime", "gpus", "reorder", "energy_s",
)
PREDECESSOR_MODES = ("false", "true", "both")
VALIDATE_MODES = ("all", "certificate", "none")
# Each numeric key's valid values: the one check of a number in a run config (the Range
# every numeric knob declares too, core/knobs.py).
RANGES = {
    "sources": Range(1),
    "seed": Range(0),
    "time_limit_s": Range(0, above=True, whole=False, unit="seconds"),
    "warmup": Range(0, unit="runs"),
    "warmup_ms": Range(0, whole=False, unit="milliseconds"),
    "rounds": Range(1),
    "networkx_max_edges": Range(1),
    "gpus": Range(1),
    "energy_s": Range(0, whole=False, unit="seconds", means="0: off"),
}


@dataclass
class RunConfig:
    datasets: list[DatasetSpec]
    variants: list[Variant]
    name: str = "run"
    sources: int = 100
    seed: int = 0
    fixed_sources: list[int] = field(default_factory=list)
    validate: str = "all"
    predecessors: str = "false"
    time_limit_s: float = 60.0
    warmup: int = 1
    warmup_ms: float = 50.0
    rounds: int = 1
    networkx_max_edges: int = 2_000_000
    out: str | None = None
    data_dir: str | None = None
    require_gpu: bool = False
    l2: str = "warm"
    prime: bool = False
    gpus: int | None = None
    reorder: list[str] = field(default_factory=lambda: [NO_REORDER])
    energy_s: float = 0.0
    path: str | None = None  # the YAML file, when there was one
    require_gpu_from: str | None = None  # "command line" or the YAML file that set it
    fixed_sources_from: str | None = None  # likewise, for fixed_sources (--source)

    @property
    def modes(self) -> list[bool]:
        """The predecessor settings each variant runs with."""
        return {"false": [False], "true": [True], "both": [False, True]}[self.predecessors]

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        del d["require_gpu_from"], d["fixed_sources_from"]
        for key, unset in (("reorder", [NO_REORDER]), ("prime", False), ("energy_s", 0.0)):
            if d[key] == unset:  # as files from before the key were written
                d.pop(key)
        d["variants"] = [{"problem": v.problem, "strategy": v.strategy, "knobs": dict(v.overrides)}
                         | ({"reorder": v.reorder} if v.reorder != NO_REORDER else {})
                         for v in self.variants]
        return d


DatasetCheck = Callable[[str], None]


def default_dataset_check(data_dir: str | None) -> DatasetCheck:
    """Raise the dataset layer's own error (with close names) for an unknown dataset."""

    def check(name: str) -> None:
        from gpubfs_cli.datasets.prepare import resolve_name

        resolve_name(name, data_dir)

    return check


def load_config(
    path: str | Path,
    overrides: dict[str, Any] | None = None,
    *,
    dataset_check: DatasetCheck | None = None,
    registry: Registry | None = None,
) -> RunConfig:
    """Read a YAML run config; `overrides` (from flags, None values ignored) win."""
    path = Path(path)
    text = read_text_file(path, "run config")
    raw = parse_yaml(text, str(path))
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise UserError(f"{path}: expected a mapping of keys (name, datasets, strategies, ...)")
    raw.setdefault("name", path.stem)
    return build_config(raw, overrides, where=str(path), dataset_check=dataset_check, registry=registry)


def build_config(
    raw: dict[str, Any],
    overrides: dict[str, Any] | None = None,
    *,
    where: str = "command line",
    dataset_check: DatasetCheck | None = None,
    registry: Registry | None = None,
) -> RunConfig:
    """A RunConfig from a mapping (a parsed file, or the flags alone).

    `registry` (problem -> name -> Strategy class) defaults to every registered strategy.
    """
    for key in raw:
        if key not in KEYS:
            raise _err(where, None, str(unknown_name("key", str(key), KEYS)))
    merged = dict(raw)
    from_flags: set[str] = set()
    for key, value in (overrides or {}).items():
        if key not in KEYS:
            raise ValueError(f"internal: override {key!r} is not a config key")
        if value is not None and value != []:
            merged[key] = value
            from_flags.add(key)

    def at(key: str) -> str:
        return "command line" if key in from_flags else where

    def number(key: str, default: Any) -> Any:
        return values.number(at(key), key, get(key, default), RANGES[key])

    if "datasets" not in merged or merged["datasets"] in (None, []):
        raise _err(where, "datasets", "no datasets given (a list of names, or --dataset NAME)")
    get = merged.get
    cfg = RunConfig(
        datasets=values.datasets(at("datasets"), merged["datasets"]),
        variants=[],
        name=values.run_name(at("name"), get("name", "run")),
        sources=number("sources", 100),
        seed=number("seed", 0),
        fixed_sources=values.int_list(at("fixed_sources"), "fixed_sources", get("fixed_sources") or []),
        validate=values.choice(at("validate"), "validate", get("validate", "all"), VALIDATE_MODES),
        predecessors=values.choice(
            at("predecessors"), "predecessors", values.mode_text(get("predecessors", False)), PREDECESSOR_MODES
        ),
        time_limit_s=number("time_limit_s", 60.0),
        warmup=number("warmup", 1),
        warmup_ms=number("warmup_ms", 50.0),
        rounds=number("rounds", 1),
        networkx_max_edges=number("networkx_max_edges", 2_000_000),
        out=values.optional_path(at("out"), "out", get("out")),
        data_dir=values.optional_path(at("data_dir"), "data_dir", get("data_dir")),
        require_gpu=values.typed(at("require_gpu"), "require_gpu", get("require_gpu", False), bool),
        l2=values.choice(at("l2"), "l2", get("l2", "warm"), L2_MODES),
        prime=values.typed(at("prime"), "prime", get("prime", False), bool),
        gpus=None if get("gpus") is None else number("gpus", None),
        reorder=values.orders(at("reorder"), get("reorder", NO_REORDER)),
        energy_s=number("energy_s", 0.0),
        path=None if where == "command line" else where,
    )
    cfg.require_gpu_from = at("require_gpu") if cfg.require_gpu else None
    cfg.fixed_sources_from = at("fixed_sources") if cfg.fixed_sources else None
    problem = values.optional_str(at("problem"), "problem", get("problem"))
    cfg.variants = expand_strategies(at("strategies"), get("strategies", "all"), registry, problem)
    cfg.variants = with_gpus(with_orders(cfg.variants, cfg.reorder), cfg.gpus, registry)
    check = dataset_check if dataset_check is not None else default_dataset_check(cfg.data_dir)
    first: dict[tuple, int] = {}
    for i, spec in enumerate(cfg.datasets):
        try:
            check(spec.name)
        except UserError as exc:
            raise _err(at("datasets"), f"datasets[{i}]", str(exc)) from None
        j = first.setdefault(values.graph_key(spec, cfg.data_dir), i)
        if j != i:  # its samples would be recorded twice under one name
            raise _err(at("datasets"), f"datasets[{i}]", f"{spec.name!r} is the graph of datasets[{j}] "
                                                         "again; name each graph once")
    return cfg


def sources_origin(cfg: RunConfig) -> str:
    """What an error in the run's fixed sources names: the flag, or the file and key."""
    where = cfg.fixed_sources_from
    return "--source" if where in (None, "command line") else f"{where}: fixed_sources"

