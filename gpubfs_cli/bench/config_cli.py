"""`gpubfs run [CONFIG] [flags]` -> RunConfig: the flags on top of a run config file, of
a resumed journal's config, or alone (bench/config.py reads and checks the result)."""

from __future__ import annotations

from typing import Any

from gpubfs_cli.bench.config import DatasetCheck, RunConfig, build_config, load_config
from gpubfs_cli.configs import run_config_path
from gpubfs_cli.core.strategy import Registry
from gpubfs_cli.errors import UserError


def split_names(values: list[str] | None) -> list[str]:
    """Repeatable flags that may also hold comma-separated names."""
    return [part.strip() for v in values or [] for part in v.split(",") if part.strip()]


def config_from_cli(
    path: str | None,
    *,
    datasets: list[str] | None = None,
    strategies: list[str] | None = None,
    sources: int | None = None,
    seed: int | None = None,
    fixed_sources: list[int] | None = None,
    out: str | None = None,
    data_dir: str | None = None,
    warmup: int | None = None,
    warmup_ms: float | None = None,
    rounds: int | None = None,
    time_limit_s: float | None = None,
    predecessors: str | None = None,
    validate: str | None = None,
    require_gpu: bool | None = None,
    problem: str | None = None,
    l2: str | None = None,
    prime: bool | None = None,
    gpus: int | None = None,
    reorder: list[str] | None = None,
    dataset_check: DatasetCheck | None = None,
    registry: Registry | None = None,
    base: dict[str, Any] | None = None,
    base_where: str = "command line",
) -> RunConfig:
    """`gpubfs run [CONFIG] [flags]`: the file's config with the flags on top, or the flags
    alone; without a file, `base` (a resumed journal's config, read from `base_where`)
    is what the flags go on top of."""
    # An empty flag value would silently mean the default (`-s ''`: every strategy).
    for option, value in (("--out", out), ("--dir", data_dir)):
        if value == "":
            raise UserError(f"{option}: an empty value; expected a path")
    for option, values, what in (("--dataset/-d", datasets, "a dataset name"),
                                 ("--strategy/-s", strategies, "a strategy name or pattern, or all"),
                                 ("--reorder", reorder, "none, degree, rcm or hub")):
        if any(not split_names([v]) for v in values or []):
            raise UserError(f"{option}: an empty value; expected {what}")
    overrides = {
        "datasets": split_names(datasets),
        "strategies": split_names(strategies),
        "sources": sources,
        "seed": seed,
        "fixed_sources": list(fixed_sources or []),
        "out": out,
        "data_dir": data_dir,
        "warmup": warmup,
        "warmup_ms": warmup_ms,
        "rounds": rounds,
        "time_limit_s": time_limit_s,
        "predecessors": predecessors,
        "validate": validate,
        "require_gpu": require_gpu,  # None: the file decides; False: --no-require-gpu
        "problem": problem,
        "l2": l2,
        "prime": prime,
        "gpus": gpus,
        "reorder": split_names(reorder),
    }
    if path is not None:
        return load_config(run_config_path(path), overrides, dataset_check=dataset_check, registry=registry)
    if base is not None:
        return build_config(base, overrides, where=base_where, dataset_check=dataset_check, registry=registry)
    if not overrides["datasets"]:
        raise UserError("give a run config (a shipped name such as default, or a YAML file) or --dataset NAME")
    return build_config({}, overrides, dataset_check=dataset_check, registry=registry)
