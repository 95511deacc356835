"""Samples -> groups, with the status rulebook applied: the one aggregation behind the
runner's summaries, its end-of-run table and exit code, and every report.

A group is every sample of one cell (results/keys.CellKey) in one L2 mode and prime
policy: warm and cold samples of pooled files are never averaged together. A multi-GPU
variant's GPU count (`Group.gpus`) and a reordered variant's vertex order
(`Group.reorder`) are part of its knobs, so reports keep each count and order apart.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.results.keys import CellKey, gpus_of, reorder_of
from gpubfs_cli.results.schema import Sample
from gpubfs_cli.results.statistics import summarize
from gpubfs_cli.results.status import group_status, is_partial, sample_status


@dataclass
class Group:
    dataset: str
    strategy: str
    knobs: dict[str, Any]
    predecessors: bool
    problem: str = "bfs"
    l2: str = "warm"
    prime: bool = False
    samples: list[Sample] = field(default_factory=list)
    status: str = "ok"
    reason: str | None = None
    statuses: dict[str, int] = field(default_factory=dict)
    times: dict[int, float] = field(default_factory=dict)  # source -> mean ms of ok samples
    summary: dict[str, Any] = field(default_factory=dict)
    q25_ms: float | None = None
    q75_ms: float | None = None
    low_reach: int = 0
    planned: int | None = None  # sources its run(s) planned on the dataset (None: not known)

    @property
    def variant(self) -> str:
        return knobs_key(self.knobs)

    @property
    def gpus(self) -> Any:
        """The GPU count of a multi-GPU strategy's variant (None: no `gpus` knob)."""
        return gpus_of(self.knobs)

    @property
    def reorder(self) -> Any:
        """The vertex order its graph was relabelled in (None: the graph's own)."""
        return reorder_of(self.knobs)

    @property
    def batched(self) -> bool:
        """A batch strategy's group: several sources per timed call."""
        return any(s.batch is not None for s in self.samples)

    @property
    def batch(self) -> int:
        """The largest batch its sources were answered in (1: one source per call)."""
        return max((s.batch or 1 for s in self.samples), default=1)

    def ok_samples(self) -> list[Sample]:
        return [s for s in self.samples if status_of(s) == "ok"]

    @property
    def measured(self) -> int:
        """Distinct sources with an ok sample."""
        return len({s.source for s in self.ok_samples() if s.source >= 0})

    @property
    def partial(self) -> bool:
        return is_partial(self.status, self.measured, self.planned)

    def call_times(self) -> list[float]:
        """One time per timed call of the ok samples: each sample's, except that a batch's
        samples (recorded one after another, sharing the call's time) count once, since
        statistics that need independent measurements must not count one call 64 times."""
        ok = self.ok_samples()
        if not self.batched:
            return [float(s.time_ms) for s in ok]
        out, i = [], 0
        while i < len(ok):
            out.append(float(ok[i].time_ms))
            i += max(1, ok[i].batch or 1)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "problem": self.problem,
            "strategy": self.strategy,
            "knobs": self.knobs,
            "predecessors": self.predecessors,
            "l2": self.l2,
            **({"prime": True} if self.prime else {}),
            "status": self.status,
            "reason": self.reason,
            "statuses": dict(self.statuses),
            "samples": len(self.samples),
            "low_reach": self.low_reach,
            "q25_ms": self.q25_ms,
            "q75_ms": self.q75_ms,
            **self.summary,
        } | ({"batch": self.batch} if self.batched else {}) | (
            {} if self.planned is None else
            {"sources_planned": self.planned, "sources_measured": self.measured, "partial": self.partial})


def status_of(s: Sample) -> str:
    return sample_status(s.status, s.valid, s.time_ms)


def group_key(s: Sample) -> tuple:
    return (*CellKey.of(s), s.l2, bool(s.prime))


def finish(group: Group) -> Group:
    """Apply the rulebook, then summarize the ok samples (times, rates, quartiles)."""
    statuses = [status_of(s) for s in group.samples]
    counts: dict[str, int] = defaultdict(int)
    for st in statuses:
        counts[st] += 1
    group.statuses = dict(counts)
    group.status = group_status(statuses)
    if group.status != "ok":
        group.reason = next((s.reason for s, st in zip(group.samples, statuses, strict=True)
                             if st == group.status and s.reason), None)
        return group
    ok = [s for s, st in zip(group.samples, statuses, strict=True) if st == "ok"]
    per_source: dict[int, list[float]] = defaultdict(list)
    for s in ok:
        per_source[s.source].append(float(s.time_ms))
    # one sample a source is the common case: its time as it is (numpy for the rest)
    group.times = {src: v[0] if len(v) == 1 else float(np.mean(v)) for src, v in per_source.items()}
    times = [float(s.time_ms) for s in ok]
    group.summary = summarize(times, [s.edges for s in ok], [s.low_reach for s in ok])
    group.q25_ms, group.q75_ms = (float(q) for q in np.percentile(times, [25, 75]))
    group.low_reach = sum(1 for s in ok if s.low_reach)
    return group


def group_samples(samples: list[Sample]) -> list[Group]:
    """Groups in the order their first sample appears, each finished."""
    groups: dict[tuple, Group] = {}
    for s in samples:
        key = group_key(s)
        if key not in groups:
            groups[key] = Group(s.dataset, s.strategy, dict(s.knobs), bool(s.predecessors), s.problem, s.l2,
                                bool(s.prime))
        groups[key].samples.append(s)
    return [finish(g) for g in groups.values()]


def label_key(problem: str, strategy: str, knobs: dict) -> tuple[str, str, str]:
    """What summaries() looks a variant's config name up by."""
    return (problem, strategy, knobs_key(knobs))


def summaries(samples: list[dict], labels: dict[tuple, str] | None = None,
              sources: dict[str, list[int]] | None = None) -> list[dict]:
    """The results file's `summaries`: one entry per group. `labels` maps (problem,
    strategy, knobs JSON) to the variant's name in the run config; `sources` (dataset ->
    the run's sources) gives each group its planned sources."""
    labels = labels or {}
    out = []
    for g in group_samples([Sample.from_dict(s) for s in samples]):
        if sources is not None and g.dataset in sources:
            g.planned = len(set(sources[g.dataset]))
        entry = g.to_dict()
        entry["variant"] = labels.get(label_key(g.problem, g.strategy, g.knobs), g.strategy)
        out.append(entry)
    return out
