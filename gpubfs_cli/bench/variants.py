"""Variants: a run config's `strategies` entry -> (problem, strategy, knob values), and a
variant -> its strategy class and knobs as a run makes them.

`all`, names, shell patterns (merrill.*) and knob sweeps (a knob given a list: one variant
per value, every combination of several lists) expand in order, without repeats. Every
mistake is one UserError naming the file and key, with the closest valid names.

A run's `reorder` orders multiply the variants like a knob sweep: each variant once per
order. The order is no knob of the strategy (it never sees it); the harness relabels the
graph for it, and its samples carry it in their knobs as REORDER_KNOB (absent: none), so
every grouping by knobs keeps the orders apart. A run's `gpus` is a field of each
multi-GPU variant (`Variant.gpus`) that its own knobs did not set: the strategy gets it
as its GPUS_KNOB knob (results/keys.py).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gpubfs_cli.core.problem import DEFAULT_PROBLEM
from gpubfs_cli.core.strategy import (
    GPUS_KNOB,
    Registry,
    Strategy,
    canonical_name,
    knob_problem,
    knobs_dict,
    make_knobs,
    problems_of,
)
from gpubfs_cli.core.strategy import registry as all_registered
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.results.keys import NO_REORDER, REORDER_KNOB


@dataclass(frozen=True)
class Variant:
    """One strategy of one problem with one set of knob values (the overrides of its
    defaults)."""

    strategy: str
    overrides: dict[str, Any] = field(default_factory=dict, hash=False)
    problem: str = DEFAULT_PROBLEM
    reorder: str = NO_REORDER  # the vertex order of the graph it runs on (graph/reorder.py)
    gpus: int | None = None  # a multi-GPU variant's GPU count from the run (None: its knob's own)

    @property
    def label(self) -> str:
        shown = dict(self.overrides) | ({REORDER_KNOB: self.reorder} if self.reorder != NO_REORDER else {})
        if not shown:
            return self.strategy
        return f"{self.strategy}[{','.join(f'{k}={v}' for k, v in shown.items())}]"


def with_orders(variants: list[Variant], orders: list[str]) -> list[Variant]:
    """Each variant once per vertex order, in order (orders [none]: the variants as given)."""
    return [dataclasses.replace(v, reorder=o) for v in variants for o in orders]


def with_gpus(variants: list[Variant], gpus: int | None, reg: Registry | None = None) -> list[Variant]:
    """The run's GPU count given to each multi-GPU variant whose knobs do not set it."""
    if gpus is None:
        return variants
    reg = reg if reg is not None else all_registered()
    return [dataclasses.replace(v, gpus=gpus) if reg[v.problem][v.strategy].multi_gpu and GPUS_KNOB not in v.overrides
            else v for v in variants]


def recorded_knobs(variant: Variant, knobs: Any) -> dict[str, Any]:
    """The knobs a variant's samples and prepares record: its strategy's, and its vertex
    order unless none."""
    kd = knobs_dict(knobs)
    if variant.reorder != NO_REORDER:
        kd[REORDER_KNOB] = variant.reorder
    return kd


def config_error(where: str, key: str | None, msg: str) -> UserError:
    """One line naming the file (or the command line), the key and what was expected."""
    return UserError(f"{where}: {key}: {msg}" if key else f"{where}: {msg}")


def default_problem(where: str, spec: Any, reg: Registry, problem: str | None) -> str:
    """The problem of entries that name none: `problem` when given, else the one the
    plain names imply, a mapping's name too (cpu.dijkstra is SSSP's alone, so
    `cpu.dijkstra, cpu.scipy` is an SSSP run), else bfs."""
    if problem is not None:
        if problem not in reg:
            raise config_error(where, "problem", str(unknown_name("problem", problem, reg)))
        return problem
    implied = set()
    for item in spec if isinstance(spec, list) else [spec]:
        if isinstance(item, dict) and "problem" not in item:  # {name, knobs}: its name implies as well
            item = item.get("name")
        if isinstance(item, str) and not any(c in item for c in "*?[") and item != "all":
            found = problems_of(item, reg)
            if len(found) == 1:
                implied.add(found[0])
    return implied.pop() if len(implied) == 1 else DEFAULT_PROBLEM


def expand_strategies(
    where: str, spec: Any, reg: Registry | None = None, problem: str | None = None
) -> list[Variant]:
    """`all`, names, patterns and knob sweeps -> the list of variants, in order, no repeats."""
    reg = reg if reg is not None else all_registered()
    items = spec if isinstance(spec, list) else [spec]
    if not items:
        raise config_error(where, "strategies", "empty list (give names, patterns, or all)")
    default = default_problem(where, spec, reg, problem)
    variants: list[Variant] = []
    for i, item in enumerate(items):
        key = f"strategies[{i}]" if isinstance(spec, list) else "strategies"
        knobs: dict[str, Any] = {}
        entry_problem = default
        if isinstance(item, dict):
            for k in item:
                if k not in ("name", "problem", "knobs"):
                    raise config_error(where, key, str(unknown_name("key", str(k), ("name", "problem", "knobs"))))
            if "name" not in item:
                raise config_error(where, key, "a mapping needs 'name' (and optionally 'problem', 'knobs')")
            knobs = item.get("knobs") or {}
            if not isinstance(knobs, dict):
                raise config_error(where, f"{key}.knobs", "expected a mapping KNOB: value")
            entry_problem = item.get("problem", default)
            if entry_problem not in reg:
                raise config_error(where, f"{key}.problem", str(unknown_name("problem", str(entry_problem), reg)))
            item = item["name"]
        if not isinstance(item, str):
            raise config_error(where, key, f"expected a strategy name, got {item!r}")
        names = reg.get(entry_problem, {})
        for name in _match(where, key, item, names, entry_problem):
            for variant in _sweep(where, key, names[name], knobs, entry_problem):
                if all((v.label, v.problem) != (variant.label, variant.problem) for v in variants):
                    variants.append(variant)
    return variants


def _sweep(where: str, key: str, cls: type[Strategy], knobs: dict[str, Any], problem: str) -> list[Variant]:
    """One variant per combination of the knobs' listed values, each checked."""
    defaults = {f.name: f.default for f in dataclasses.fields(cls.Knobs)}
    for k in knobs:
        if k not in defaults:
            raise config_error(where, f"{key}.knobs", str(unknown_name(f"knob of {cls.name}", str(k), defaults)))
    swept = {k: (v if isinstance(v, list) else [v]) for k, v in knobs.items()}
    for k, values in swept.items():
        if not values:  # would sweep over nothing: the strategy would silently vanish from the run
            raise config_error(where, f"{key}.knobs.{k}", f"{cls.name}: an empty list; give a value, "
                                                           "or a list of values to sweep")
    out = []
    for combo in itertools.product(*swept.values()):
        overrides = dict(zip(swept, combo, strict=True))
        for k, v in overrides.items():
            wrong = knob_problem(cls, k, v)
            if wrong is not None:
                raise config_error(where, f"{key}.knobs.{k}", f"{cls.name}: {wrong}")
        try:
            make_knobs(cls, overrides)
        except UserError as exc:
            raise config_error(where, f"{key}.knobs", str(exc)) from None
        out.append(Variant(cls.name, overrides, problem))
    return out


def _match(where: str, key: str, pattern: str, names: dict, problem: str) -> list[str]:
    if pattern == "all":
        return list(names)
    if any(c in pattern for c in "*?["):
        found = [n for n in names if fnmatch.fnmatchcase(n, pattern)]
        if not found:
            raise config_error(where, key, f"pattern '{pattern}' matches no {problem} strategy "
                                           "(see: gpubfs list strategies)")
        return found
    pattern = canonical_name(pattern)
    if pattern not in names:
        raise config_error(where, key, str(unknown_name(f"{problem} strategy", pattern, names)))
    return [pattern]


def make_variant(config, variant: Variant, registry: Registry | None = None) -> tuple[type[Strategy], object]:
    """The variant's strategy class and knobs as a run makes them (cpu.networkx takes the
    config's networkx_max_edges unless told, a multi-GPU variant its GPU count)."""
    cls = (registry if registry is not None else all_registered())[variant.problem][variant.strategy]
    overrides = dict(variant.overrides)
    if variant.strategy == "cpu.networkx" and "max_edges" not in overrides:
        overrides["max_edges"] = config.networkx_max_edges
    if variant.gpus is not None:
        overrides[GPUS_KNOB] = variant.gpus
    return cls, make_knobs(cls, overrides)


def made_variants(config, registry: Registry | None = None) -> list[tuple[Variant, type[Strategy], object, dict]]:
    """Each variant of a run with its strategy class, knobs and recorded knobs."""
    out = []
    for v in config.variants:
        cls, knobs = make_variant(config, v, registry)
        out.append((v, cls, knobs, recorded_knobs(v, knobs)))
    return out


def equivalent_teps(variants: Sequence[Variant]) -> list[str]:
    """The strategies whose rates are equivalent GTEPS (Strategy.teps), for the report."""
    reg = all_registered()
    return sorted({v.strategy for v in variants
                   if getattr(reg.get(v.problem, {}).get(v.strategy), "teps", "traversed") == "equivalent"})
