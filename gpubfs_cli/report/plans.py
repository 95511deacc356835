"""What a results file's run planned: the variants of its config (the runner's expansion of
names, patterns and knob sweeps, bench/variants.py, which it writes as `config.variants`),
and how many of them a cell holds samples of.

A cell shows the best variant of a knob sweep (peer.gapbs over delta). A run stopped
after the sweep's first value on a graph holds one variant there, and the best of one is
not the best of the sweep: such a cell is partial, `502.8 (1/7 variants)`, as a cell with
fewer sources than planned is. Only the plans of the cell's own files count, and only
when one of them did not complete: a complete run's cells are as it left them.
"""

from __future__ import annotations

from typing import Any

from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.core.problem import DEFAULT_PROBLEM
from gpubfs_cli.core.strategy import canonical_name
from gpubfs_cli.results.groups import Group
from gpubfs_cli.results.keys import GPUS_KNOB, NO_REORDER, REORDER_KNOB

_UNKNOWN = object()  # a knob the plan leaves at its strategy's default, which it does not say


def planned(config: Any) -> list[dict]:
    """The config's variants that are well formed (a strategy, its knobs); none for a
    file without a config (`gpubfs report --check` names a broken one)."""
    variants = config.get("variants") if isinstance(config, dict) else None
    return [v for v in variants if isinstance(v, dict) and isinstance(v.get("strategy"), str)
            and isinstance(v.get("knobs", {}), dict)] if isinstance(variants, list) else []


def matches(variant: dict, config: dict, problem: str, strategy: str, knobs: dict) -> bool:
    """Whether samples of (problem, strategy, knobs) are of a config variant: its problem
    and strategy, every knob it sets, its vertex order, and the config's GPU count where
    it sets none."""
    if variant.get("problem", DEFAULT_PROBLEM) != problem:
        return False
    if canonical_name(str(variant.get("strategy"))) != strategy:
        return False
    overrides = variant.get("knobs") or {}
    if any(k not in knobs or knobs[k] != v for k, v in overrides.items()):
        return False
    if variant.get("reorder", NO_REORDER) != knobs.get(REORDER_KNOB, NO_REORDER):
        return False
    gpus = config.get("gpus")
    return gpus is None or GPUS_KNOB in overrides or GPUS_KNOB not in knobs or knobs[GPUS_KNOB] == gpus


def _pinned(variant: dict, config: dict, key: str, want: Any) -> Any:
    """The value of `key` the plan gives a variant, or _UNKNOWN."""
    if key == REORDER_KNOB:
        order = variant.get("reorder", NO_REORDER)
        return None if order == NO_REORDER else order
    if key in (variant.get("knobs") or {}):
        return variant["knobs"][key]
    if key == GPUS_KNOB and want is None:  # a strategy without the knob
        return None
    if key == GPUS_KNOB and config.get("gpus") is not None:  # the run's count, given to multi-GPU variants
        return config["gpus"]
    return _UNKNOWN


def variant_counts(groups: list[Group], files: set[int], configs: list[dict], states: list[str | None],
                   knobs: dict[str, Any]) -> tuple[int, int] | None:
    """(variants measured, variants planned) of a cell, its `groups` (those of its column's
    `knobs`) from `files`, when one of those files' runs did not complete and their plans
    hold variants of the cell that no group is of; else None. A planned variant whose
    column the plan does not say (a knob left at its default) counts only where measured."""
    if not groups or not any(states[f] for f in files):
        return None
    problem, strategy = groups[0].problem, groups[0].strategy
    want = {REORDER_KNOB: None, **knobs}
    plan, measured = set(), set()
    for f in files:
        for v in planned(configs[f]):
            key = (knobs_key(v.get("knobs") or {}), v.get("reorder", NO_REORDER))
            if any(matches(v, configs[f], problem, strategy, g.knobs) for g in groups):
                measured.add(key)
                plan.add(key)
            elif (v.get("problem", DEFAULT_PROBLEM) == problem and canonical_name(v["strategy"]) == strategy
                  and all(_pinned(v, configs[f], k, w) == w for k, w in want.items())):
                plan.add(key)
    return (len(measured), len(plan)) if len(measured) < len(plan) else None
