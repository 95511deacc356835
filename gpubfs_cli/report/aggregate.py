"""Samples -> groups -> cells.

A group is every sample of one (dataset, strategy, knobs variant, predecessors). Its status
is `ok` only when no sample failed: a wrong answer, an error, out-of-memory or out-of-time
anywhere makes the whole cell that status, never a number. `unavailable` samples yield to
`ok` ones of the same group, so a CPU machine's "no GPU here" does not hide the GPU
machine's numbers when both files are reported together.

Speedup = baseline time / strategy time with cpu.sequential on the same graph, paired by
source: the sum of the baseline's per-source times over the sources both ran, divided by
the strategy's sum over the same sources (the ratio of average rates, as Merrill's Table 2
uses, when every source traverses as many edges).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpubfs_cli.bench.results import Sample
from gpubfs_cli.bench.statistics import summarize
from gpubfs_cli.report.load import Results
from gpubfs_cli.report.table import Cell, fmt_number

BASELINE = "cpu.sequential"
METRICS = ("ms", "gteps", "speedup")
METRIC_TITLES = {
    "ms": "median time per BFS (ms)",
    "gteps": "GTEPS (harmonic mean over sources)",
    "speedup": f"speedup over {BASELINE} (paired by source)",
}
# A failure anywhere in a group decides its status, most serious first.
FAILURES = ("wrong-answer", "error", "out-of-memory", "out-of-time")
LOW_REACH_NOTE = (
    "! reached < 1% of the vertices from some sources: those sources are left out of "
    "GTEPS (their rates are not meaningful); times keep them"
)
REASON_WIDTH = 20


@dataclass
class Group:
    dataset: str
    strategy: str
    knobs: dict[str, Any]
    predecessors: bool
    samples: list[Sample] = field(default_factory=list)
    status: str = "ok"
    reason: str | None = None
    times: dict[int, float] = field(default_factory=dict)  # source -> mean ms of ok samples
    summary: dict[str, Any] = field(default_factory=dict)
    q25_ms: float | None = None
    q75_ms: float | None = None
    low_reach: int = 0

    @property
    def variant(self) -> str:
        return json.dumps(self.knobs, sort_keys=True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "strategy": self.strategy,
            "knobs": self.knobs,
            "predecessors": self.predecessors,
            "status": self.status,
            "reason": self.reason,
            "samples": len(self.samples),
            "low_reach_samples": self.low_reach,
            "q25_ms": self.q25_ms,
            "q75_ms": self.q75_ms,
            **self.summary,
        }


def _sample_status(s: Sample) -> str:
    if s.status == "ok" and (s.valid is False or s.time_ms is None):
        return "wrong-answer" if s.valid is False else "error"
    return s.status


def _finish(group: Group) -> None:
    statuses = [_sample_status(s) for s in group.samples]
    ok = [s for s, st in zip(group.samples, statuses, strict=True) if st == "ok"]
    failed = next((f for f in FAILURES if f in statuses), None)
    if failed is None and not ok:
        failed = next((st for st in statuses if st != "ok"), "missing")
    if failed is not None:
        group.status = failed
        group.reason = next(
            (s.reason for s, st in zip(group.samples, statuses, strict=True) if st == failed and s.reason),
            None,
        )
        return
    per_source: dict[int, list[float]] = defaultdict(list)
    for s in ok:
        per_source[s.source].append(float(s.time_ms))
    group.times = {src: float(np.mean(v)) for src, v in per_source.items()}
    times = [float(s.time_ms) for s in ok]
    group.summary = summarize(times, [s.edges for s in ok], [s.low_reach for s in ok])
    group.q25_ms, group.q75_ms = (float(q) for q in np.percentile(times, [25, 75]))
    group.low_reach = sum(1 for s in ok if s.low_reach)


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


class Aggregate:
    """Groups of one pool of results, and the cells built from them."""

    def __init__(self, results: Results):
        self.results = results
        groups: dict[tuple, Group] = {}
        for s in results.samples:
            key = (s.dataset, s.strategy, json.dumps(s.knobs, sort_keys=True), bool(s.predecessors))
            if key not in groups:
                groups[key] = Group(s.dataset, s.strategy, dict(s.knobs), bool(s.predecessors))
            groups[key].samples.append(s)
        for g in groups.values():
            _finish(g)
        self.groups = list(groups.values())
        self._by_cell: dict[tuple, list[Group]] = defaultdict(list)
        for g in self.groups:
            self._by_cell[(g.dataset, g.strategy, g.predecessors)].append(g)

    # ------------------------------------------------------------------ lookups
    def datasets(self) -> list[str]:
        """Datasets in the order they first appear in the samples, then any others."""
        seen = dict.fromkeys(s.dataset for s in self.results.samples)
        for name in self.results.datasets:
            seen.setdefault(name, None)
        return list(seen)

    def columns(self) -> list[tuple[str, bool]]:
        """(strategy, predecessors) pairs present: the baseline first, then by name."""
        cols = sorted({(g.strategy, g.predecessors) for g in self.groups})
        return sorted(cols, key=lambda c: (c[0] != BASELINE, c[0], c[1]))

    def variants(self, dataset: str, strategy: str, predecessors: bool = False) -> list[Group]:
        return self._by_cell.get((dataset, strategy, predecessors), [])

    def has(self, dataset: str, strategy: str | None = None) -> bool:
        if strategy is None:
            return dataset in self.results.datasets or any(g.dataset == dataset for g in self.groups)
        return bool(self.variants(dataset, strategy, False) or self.variants(dataset, strategy, True))

    def baseline(self, dataset: str, predecessors: bool) -> Group | None:
        for pred in (predecessors, False):
            for g in self.variants(dataset, BASELINE, pred):
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
        raise ValueError(metric)

    def best(self, dataset: str, strategy: str, metric: str, predecessors: bool = False):
        """(group, knob label or None) of the best variant; a failed group when none is ok."""
        groups = self.variants(dataset, strategy, predecessors)
        if not groups:
            return None, None
        label, varying = None, []
        if len(groups) > 1:
            keys = sorted({k for g in groups for k in g.knobs})
            varying = [k for k in keys if len({json.dumps(g.knobs.get(k)) for g in groups}) > 1]
        scored = [(self.value(g, metric), g) for g in groups]
        scored_ok = [(v, g) for v, g in scored if v is not None]
        if scored_ok:
            lower_better = metric == "ms"
            v, g = (min if lower_better else max)(scored_ok, key=lambda vg: vg[0])
        else:
            order = {s: i for i, s in enumerate((*FAILURES, "unavailable", "ok"))}
            g = min(groups, key=lambda x: order.get(x.status, len(order)))
        if varying:
            label = knob_label(g.knobs, varying)
        return g, label

    def cell(self, dataset: str, strategy: str, metric: str, predecessors: bool = False) -> Cell:
        """The cell a table shows: best knob variant, failure status, `!` for low reach."""
        group, label = self.best(dataset, strategy, metric, predecessors)
        if group is None:
            return self.dataset_cell(dataset) or Cell("missing", status="missing")
        if group.status != "ok":
            return Cell(status_text(group.status, group.reason), status=group.status,
                        knob=label, reason=group.reason)
        v = self.value(group, metric)
        if v is None:
            return Cell("no baseline", status="n/a", knob=label)
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
        for strategies in ((BASELINE,), None):
            depths = [
                s.depth for g in self.groups if g.dataset == dataset and g.status == "ok"
                and (strategies is None or g.strategy in strategies)
                for s in g.samples if _sample_status(s) == "ok"
            ]
            if depths:
                return float(np.mean(depths)) if name == "avg_depth" else float(max(depths))
        return None
