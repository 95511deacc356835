"""`gpubfs run [CONFIG] [flags]` -> RunConfig: the flags on top of a run config file, of
a resumed journal's config, or alone (bench/config.py reads and checks the result).

`--strategy/-s` takes names and patterns, and knob values in the spelling a variant's
label has (bench/variants.Variant.label, the runs' and reports' name of a variant):
`NAME[KNOB=VALUE,...]`, each VALUE read as a YAML scalar as a config file's are
(`0.5`, `true`, `warp`; and as a label prints them: `None`, `1e-05`, and `off` for a
knob that is text) and checked by the same rules (a knob's kind and Range). The
label of a reordered variant holds its vertex order (`reorder=rcm`): an order is the
run's (--reorder), so every -s entry must then name the same one.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from typing import Any

from gpubfs_cli.bench.config import DatasetCheck, RunConfig, build_config, load_config
from gpubfs_cli.configs import run_config_path
from gpubfs_cli.core.strategy import Registry, canonical_name
from gpubfs_cli.core.strategy import registry as all_registered
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import parse_yaml
from gpubfs_cli.results.keys import NO_REORDER, REORDER_KNOB

STDOUT = "-"
SPELLING = "expected NAME, a pattern, or NAME[KNOB=VALUE,...]"


def split_names(values: list[str] | None) -> list[str]:
    """Repeatable flags that may also hold comma-separated names."""
    return [part.strip() for v in values or [] for part in v.split(",") if part.strip()]


def split_strategies(values: list[str] | None) -> list[str]:
    """-s values, each comma-separated outside brackets (a knob list's commas, and a
    pattern's [...], stay with their entry)."""
    out = []
    for value in values or []:
        depth, part = 0, []
        for c in value:
            depth += (c == "[") - (c == "]")
            if c == "," and depth <= 0:
                out.append("".join(part).strip())
                part = []
            else:
                part.append(c)
        out.append("".join(part).strip())
    return [p for p in out if p]


def strategy_entry(text: str, reg: Registry | None = None) -> str | dict[str, Any]:
    """One -s entry -> a config `strategies` entry: the text itself, or for
    `NAME[KNOB=VALUE,...]` a mapping {name, knobs} (the order under REORDER_KNOB)."""
    if "=" not in text:
        return text  # a name or a pattern (merrill.*, merrill.[ct]*)
    cut = text.rfind("[")
    inner = text[cut + 1:-1] if cut > 0 and text.endswith("]") else None
    if inner is None or "[" in inner or "]" in inner or "=" in text[:cut] or not text[:cut].strip():
        raise UserError(f"--strategy/-s '{text}': {SPELLING}")
    knobs: dict[str, Any] = {}
    for part in inner.split(","):
        key, eq, value = (x.strip() for x in part.partition("="))
        if not eq or not key or not key.replace("_", "").isalnum():
            raise UserError(f"--strategy/-s '{text}': '{part.strip()}': {SPELLING}")
        if key in knobs:
            raise UserError(f"--strategy/-s '{text}': knob '{key}' given twice; keep one")
        knobs[key] = value
    name = text[:cut].strip()
    words = text_knobs(name, reg if reg is not None else all_registered())
    return {"name": name, "knobs": {k: v if k in words else knob_value(text, k, v) for k, v in knobs.items()}}


def text_knobs(name: str, reg: Registry) -> set[str]:
    """The knobs that are text in every strategy `name` (or pattern) stands for: a label
    prints `dedup=off`, which YAML would read as false."""
    classes = [cls for names in reg.values() for n, cls in names.items()
               if n == canonical_name(name) or fnmatch.fnmatchcase(n, name)]
    kinds: dict[str, set[bool]] = {}
    for cls in classes:
        for f in dataclasses.fields(cls.Knobs):
            kinds.setdefault(f.name, set()).add(isinstance(f.default, str))
    return {k for k, textual in kinds.items() if textual == {True}}


def knob_value(text: str, key: str, value: str) -> Any:
    """A knob's VALUE as a config file's YAML reads it, and as a label prints it: Python's
    None is null, and 1e-05 or inf a float (YAML 1.1 reads them as strings)."""
    if value in ("", "None"):
        return None
    try:
        parsed = parse_yaml(value, key)
    except UserError:
        raise UserError(f"--strategy/-s '{text}': {key}: '{value}' is not a YAML value") from None
    if isinstance(parsed, (dict, list)) or parsed is None and value not in ("null", "~", "Null", "NULL"):
        raise UserError(f"--strategy/-s '{text}': {key}: expected one value, got '{value}'")
    if isinstance(parsed, str):
        try:
            return float(parsed)
        except ValueError:
            return parsed
    return parsed


def strategies_of(values: list[str] | None, reorder: list[str], reg: Registry | None = None) -> tuple[list, list[str]]:
    """-s values -> config `strategies` entries, and the run's vertex orders (--reorder's,
    or the one every entry's label names)."""
    entries = [strategy_entry(text, reg) for text in split_strategies(values)]
    orders = {str(e["knobs"].pop(REORDER_KNOB)) if isinstance(e, dict) and REORDER_KNOB in e["knobs"] else NO_REORDER
              for e in entries}
    if orders <= {NO_REORDER}:
        return entries, reorder
    if len(orders) > 1:
        raise UserError(f"--strategy/-s: {REORDER_KNOB}= names a vertex order, which is the whole run's: give "
                        f"every entry the same one, or use --reorder (orders named: {', '.join(sorted(orders))})")
    (order,) = orders
    if reorder and reorder != [order]:
        raise UserError(f"--strategy/-s: {REORDER_KNOB}={order} contradicts --reorder {','.join(reorder)}; give one")
    return entries, [order]


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
    if out == STDOUT:
        raise stdout_refused("--out -")
    entries, orders = strategies_of(strategies, split_names(reorder), registry)
    overrides = {
        "datasets": split_names(datasets),
        "strategies": entries,
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
        "reorder": orders,
    }
    if path is not None:
        cfg = load_config(run_config_path(path), overrides, dataset_check=dataset_check, registry=registry)
    elif base is not None:
        cfg = build_config(base, overrides, where=base_where, dataset_check=dataset_check, registry=registry)
    elif not overrides["datasets"]:
        raise UserError("give a run config (a shipped name such as default, or a YAML file) or --dataset NAME")
    else:
        cfg = build_config({}, overrides, dataset_check=dataset_check, registry=registry)
    if cfg.out == STDOUT:
        raise stdout_refused(f"{cfg.path}: out: -")
    return cfg


def stdout_refused(what: str) -> UserError:
    """A run's results cannot go to stdout: the file is rewritten after each graph and its
    journal, beside it, is what --resume goes on from."""
    return UserError(f"{what}: a run's results need a file: it is rewritten after each graph, and the "
                     "journal beside it is what --resume goes on from; name a file (and cat it afterwards)")
