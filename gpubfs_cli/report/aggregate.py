"""Groups -> cells: one problem's groups of a pool of results, as table cells.

Grouping and statuses are bench/groups.py and bench/status.py, shared with the runner.
An Aggregate holds the groups of one problem (BFS, SSSP); its speedup baseline is that
problem's (BFS: cpu.sequential, SSSP: cpu.dijkstra), read from the results files.

Speedup = baseline time / strategy time on the same graph, paired by source: the sum
of the baseline's per-source times over the sources both ran, divided by the
strategy's sum over the same sources (the ratio of average rates, as Merrill's Table 2
uses, when every source traverses as many edges).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import numpy as np

from gpubfs_cli.bench.groups import Group, group_samples, status_of
from gpubfs_cli.bench.status import FAILURES, severity
from gpubfs_cli.core.problem import DEFAULT_PROBLEM
from gpubfs_cli.report.load import Results
from gpubfs_cli.report.table import Cell, fmt_number

METRICS = ("ms", "gteps", "speedup", "us_level", "us_iteration")
# `counter.NAME`: the median over sources of a scalar counter the samples carry (e.g. the
# kernel/overhead split of raval's phase_timing variants, lbbfs's per-phase profile);
# variants without that counter have no value. Lower is better, as for times.
COUNTER_PREFIX = "counter."


def is_metric(metric: str) -> bool:
    return metric in METRICS or (metric.startswith(COUNTER_PREFIX) and len(metric) > len(COUNTER_PREFIX))
LOW_REACH_NOTE = (
    "! reached < 1% of the vertices from some sources: those sources are left out of "
    "GTEPS (their rates are not meaningful); times keep them"
)
REASON_WIDTH = 20

__all__ = ["FAILURES", "Aggregate", "Group", "METRICS", "metric_title"]


def metric_title(metric: str, baseline: str, problem: str = "bfs") -> str:
    if metric.startswith(COUNTER_PREFIX):
        return f"median of the {metric[len(COUNTER_PREFIX):]} counter over sources"
    return {
        "ms": f"median time per {problem.upper()} (ms)",
        "gteps": "GTEPS (harmonic mean over sources)",
        "speedup": f"speedup over {baseline} (paired by source)",
        "us_level": "median microseconds per BFS level (time / (depth + 1))",
        "us_iteration": "median microseconds per iteration (time / the strategy's iterations counter)",
    }[metric]


def status_text(status: str, reason: str | None) -> str:
    """How a failed cell reads: `out-of-time`, `wrong answer`, `unavailable: no CuPy`."""
    if status == "wrong-answer":
        return "wrong answer"
    if status in ("unavailable", "error") and reason:
        short = reason if len(reason) <= REASON_WIDTH else reason[: REASON_WIDTH - 1].rstrip() + "…"
        return f"{status}: {short}"
    return status


def knob_label(knobs: dict[str, Any], keys: list[str]) -> str:
    """`W4` for a one-letter knob (BFS-4K's Table 2 style), else `gather=warp`."""
    parts = []
    for k in keys:
        v = knobs.get(k)
        parts.append(f"{k}{v}" if len(k) == 1 else f"{k}={v}")
    return ",".join(parts)


def _lookup(entry: dict, names: tuple[str, ...], nested: tuple[str, ...], inner: tuple[str, ...]):
    for n in names:
        if isinstance(entry.get(n), (int, float)):
            return float(entry[n])
    for n in nested:
        sub = entry.get(n)
        if isinstance(sub, dict):
            for k in inner:
                if isinstance(sub.get(k), (int, float)):
                    return float(sub[k])
    return None


def per_level_us(group: Group) -> float | None:
    """Median over sources of time / levels, the per-level cost that bounds
    high-diameter graphs (None where the samples record no BFS depth)."""
    costs = [1000.0 * float(s.time_ms) / (s.depth + 1) for s in group.ok_samples()
             if s.depth is not None and s.depth >= 0]
    return float(np.median(costs)) if costs else None


def per_iteration_us(group: Group) -> float | None:
    """Median over sources of time / the strategy's `iterations` counter (worklist
    rounds of a data-driven strategy: SSSP has no levels)."""
    costs = [1000.0 * float(s.time_ms) / s.counters["iterations"] for s in group.ok_samples()
             if isinstance(s.counters.get("iterations"), (int, float)) and s.counters["iterations"] > 0]
    return float(np.median(costs)) if costs else None


def counter_median(group: Group, name: str) -> float | None:
    values = [float(s.counters[name]) for s in group.ok_samples()
              if isinstance(s.counters.get(name), (int, float))]
    return float(np.median(values)) if values else None


class Aggregate:
    """The groups of one problem in a pool of results, and the cells built from them."""

    def __init__(self, results: Results, problem: str = DEFAULT_PROBLEM):
        self.results = results
        self.problem = problem
        info = results.problem_info(problem)
        self.baseline_name = info["baseline"]
        self.option_label = info["option_label"]
        self.groups = group_samples([s for s in results.samples if s.problem == problem])
        self._by_cell: dict[tuple, list[Group]] = defaultdict(list)
        for g in self.groups:
            self._by_cell[(g.dataset, g.strategy, g.predecessors)].append(g)

    # ------------------------------------------------------------------ lookups
    def datasets(self) -> list[str]:
        """Datasets in the order they first appear in the samples, then any others."""
        seen = dict.fromkeys(s.dataset for s in self.results.samples if s.problem == self.problem)
        for name in self.results.datasets:
            seen.setdefault(name, None)
        return list(seen)

    def columns(self) -> list[tuple[str, bool]]:
        """(strategy, predecessors) pairs present: the baseline first, then by name."""
        cols = sorted({(g.strategy, g.predecessors) for g in self.groups})
        return sorted(cols, key=lambda c: (c[0] != self.baseline_name, c[0], c[1]))

    def variants(self, dataset: str, strategy: str, predecessors: bool = False,
                 knobs: dict[str, Any] | None = None) -> list[Group]:
        """The groups of one cell; `knobs` keeps those whose knobs include these values."""
        groups = self._by_cell.get((dataset, strategy, predecessors), [])
        if knobs:
            groups = [g for g in groups if all(g.knobs.get(k) == v for k, v in knobs.items())]
        return groups

    def has(self, dataset: str, strategy: str | None = None) -> bool:
        if strategy is None:
            return dataset in self.results.datasets or any(g.dataset == dataset for g in self.groups)
        return bool(self.variants(dataset, strategy, False) or self.variants(dataset, strategy, True))

    def baseline(self, dataset: str, predecessors: bool) -> Group | None:
        for pred in (predecessors, False):
            for g in self.variants(dataset, self.baseline_name, pred):
                if g.status == "ok":
                    return g
        return None

    # ------------------------------------------------------------------ values
    def speedup(self, group: Group) -> float | None:
        base = self.baseline(group.dataset, group.predecessors)
        if base is None or group.status != "ok":
            return None
        common = sorted(set(base.times) & set(group.times))
        if not common:
            return None
        strat = sum(group.times[s] for s in common)
        if strat <= 0:
            return None
        return sum(base.times[s] for s in common) / strat

    def value(self, group: Group, metric: str) -> float | None:
        if group.status != "ok":
            return None
        if metric == "ms":
            return group.summary.get("median_ms")
        if metric == "gteps":
            return group.summary.get("gteps_hmean")
        if metric == "speedup":
            return self.speedup(group)
        if metric == "us_level":
            return per_level_us(group)
        if metric == "us_iteration":
            return per_iteration_us(group)
        if metric.startswith(COUNTER_PREFIX):
            return counter_median(group, metric[len(COUNTER_PREFIX):])
        raise ValueError(metric)

    def best(self, dataset: str, strategy: str, metric: str, predecessors: bool = False,
             knobs: dict[str, Any] | None = None):
        """(group, knob label or None) of the best variant; a failed group when none is ok."""
        groups = self.variants(dataset, strategy, predecessors, knobs)
        if not groups:
            return None, None
        label, varying = None, []
        if len(groups) > 1:
            keys = sorted({k for g in groups for k in g.knobs})
            varying = [k for k in keys if len({json.dumps(g.knobs.get(k)) for g in groups}) > 1]
        scored = [(self.value(g, metric), g) for g in groups]
        scored_ok = [(v, g) for v, g in scored if v is not None]
        if scored_ok:
            lower_better = metric != "gteps" and metric != "speedup"
            v, g = (min if lower_better else max)(scored_ok, key=lambda vg: vg[0])
        else:
            g = min(groups, key=lambda x: severity(x.status))
        if varying:
            label = knob_label(g.knobs, varying)
        return g, label

    def cell(self, dataset: str, strategy: str, metric: str, predecessors: bool = False,
             knobs: dict[str, Any] | None = None) -> Cell:
        """The cell a table shows: best knob variant, failure status, `!` for low reach."""
        group, label = self.best(dataset, strategy, metric, predecessors, knobs)
        if group is None:
            return self.dataset_cell(dataset) or Cell("missing", status="missing")
        if group.status != "ok":
            return Cell(status_text(group.status, group.reason), status=group.status,
                        knob=label, reason=group.reason)
        v = self.value(group, metric)
        if v is None:  # no baseline to divide by, or no counter/depth to read
            return Cell("no baseline" if metric == "speedup" else "n/a", status="n/a", knob=label)
        text = fmt_number(v) + (f" ({label})" if label else "") + ("!" if group.low_reach else "")
        return Cell(text, value=v, knob=label, low_reach=bool(group.low_reach))

    def dataset_cell(self, dataset: str) -> Cell | None:
        """The cell for a graph the run could not load (download, parse, memory)."""
        entry = self.results.datasets.get(dataset) or {}
        status = entry.get("status", "ok")
        if status == "ok":
            return None
        reason = entry.get("reason")
        return Cell(status_text(status, reason), status=status, reason=reason)

    # ------------------------------------------------------------------ graph facts
    def stat(self, dataset: str, name: str) -> float | None:
        """n, m, avg_degree, std_degree, max_degree, mode_degree, avg_depth, max_depth."""
        entry = self.results.datasets.get(dataset) or {}
        if name in ("n", "m"):
            v = entry.get(name)
            if v is None:
                v = (entry.get("stats") or {}).get(name)
            return float(v) if isinstance(v, (int, float)) else None
        if name in ("avg_depth", "max_depth"):
            return self._depth(dataset, entry, name)
        stats = entry.get("stats") or {}
        v = stats.get(name)
        return float(v) if isinstance(v, (int, float)) else None

    def _depth(self, dataset: str, entry: dict, name: str) -> float | None:
        if name == "avg_depth":
            v = _lookup(entry, ("depth_avg", "avg_depth", "average_depth", "avg_search_depth"),
                        ("depth", "depths", "search_depth"), ("average", "avg", "mean"))
        else:
            v = _lookup(entry, ("depth_max", "max_depth", "largest_depth", "max_search_depth"),
                        ("depth", "depths", "search_depth"), ("largest", "max"))
        if v is not None:
            return v
        # Not recorded: the depths the baseline (else any valid strategy) reached.
        for strategies in ((self.baseline_name,), None):
            depths = [
                s.depth for g in self.groups if g.dataset == dataset and g.status == "ok"
                and (strategies is None or g.strategy in strategies)
                for s in g.samples if status_of(s) == "ok" and s.depth is not None
            ]
            if depths:
                return float(np.mean(depths)) if name == "avg_depth" else float(max(depths))
        return None
