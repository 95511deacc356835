"""Groups -> cells: one problem's groups of a pool of results, as table cells.

Grouping and statuses are results/groups.py and results/status.py, shared with the runner.
An Aggregate holds the groups of one problem (BFS, SSSP); its speedup baseline is that
problem's (BFS: cpu.sequential, SSSP: cpu.dijkstra), read from the results files.

Speedup = baseline time / strategy time on the same graph, paired by source: the median
over the sources both ran of baseline time[s] / strategy time[s], with the interquartile
range of those per-source ratios as its spread. Where the baseline ran a knob sweep
(peer.gapbs's delta), every strategy is divided into the baseline's best
variant, the one its median-time cell shows: a benchmark compares against a peer's best
setting, never an arbitrary one (the sweep's first) nor one whose knob merely shares a
name (sssp.delta's delta). The baseline's own row is then 1.000 with that knob. A median
of paired ratios, so one slow source (an outlier) cannot flip the verdict of the others,
and it reads on the same footing as the median time column.

Columns (rows, transposed) are ColumnKeys: a strategy, its option and, for a multi-GPU
strategy (one whose variants carry the knob `gpus`), its GPU count. The best knob of a
cell is picked among the variants of one GPU count only, so `merrill.multi_gpu (1 GPU)`
and `merrill.multi_gpu (2 GPUs)` are two columns, never one folded cell. A variant run on
a relabelled graph (knob `reorder`) is kept apart the same way: `cpu.scipy` and
`cpu.scipy (rcm order)` are two columns; a lookup that does not name an order (a paper
table's column) keeps the graph's own numbering only. Where the baseline ran the same
order, a reordered column's speedup divides into it; likewise a GPU count and a thread count.

GTEPS follow one TEPS convention per report (`teps`): `edges`, the out-degrees of the
reached vertices (directed edges, the samples' `edges`), or `graph500`, the undirected
input edges in the reached component (the samples' `edges_graph500`). A table that shows a
median time beside a rate (`gpubfs run`'s end-of-run table) shows that median's rate
(RATE_OF_MEDIAN: the median edge count over the median time), never the harmonic mean,
which one slow source can drag far below the median's. GTEPS per watt and watts come
from the energy records a run with `energy_s` writes, not from the samples' times
(report/energy.py).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any, NamedTuple

import numpy as np

from gpubfs_cli.core.problem import DEFAULT_PROBLEM
from gpubfs_cli.report.copies import copies, copy_reason
from gpubfs_cli.report.energy import ENERGY_METRICS, energy_index, energy_key, energy_value
from gpubfs_cli.report.load import Results
from gpubfs_cli.report.plans import variant_counts
from gpubfs_cli.report.table import Cell, fmt_number
from gpubfs_cli.results.groups import Group, group_samples, status_of
from gpubfs_cli.results.keys import GPUS_KNOB, REORDER_KNOB
from gpubfs_cli.results.statistics import ALL_LOW_REACH, median_iqr, paired_ratios, summarize
from gpubfs_cli.results.status import FAILURES, PARTIAL, partial_mark, partial_reason, severity

METRICS = ("ms", "gteps", "speedup", "us_level", "us_iteration", *ENERGY_METRICS)
# The rate of the median time: the median edges over the median time of the sources
# that count in rates; what a cell beside its median time shows. Not a --metric.
RATE_OF_MEDIAN = "gteps_of_median"
HIGHER_BETTER = ("gteps", RATE_OF_MEDIAN, "speedup", "gteps_per_watt")
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
REASON_WIDTH = 20  # terminal tables only: CSV, JSON, md and html keep the whole reason
TEPS = ("edges", "graph500")
TEPS_TITLE = {"edges": "TEPS: directed edges of the reached vertices",
              "graph500": "TEPS: Graph500, undirected input edges of the reached component"}
EQUIVALENT = "equivalent GTEPS"
EQUIVALENT_NOTE = (f"{EQUIVALENT}: the edge count of the top-down strategies over this strategy's time; "
                   "it examines fewer edges (direction-optimizing: bottom-up levels stop at the first parent)")
EQUIVALENT_PER_WATT_NOTE = EQUIVALENT_NOTE.replace("this strategy's time", "this strategy's energy")
NO_GRAPH500_COUNT = "these samples carry no Graph500 edge count"

__all__ = ["ALL_LOW_REACH", "FAILURES", "Aggregate", "ColumnKey", "Group", "METRICS", "metric_title",
           "with_gpus", "with_order"]


def gpus_label(gpus: Any) -> str:
    """`1 GPU`, `2 GPUs`: how every table names a multi-GPU variant's GPU count."""
    return f"{gpus} GPU" if gpus == 1 else f"{gpus} GPUs"


def with_gpus(title: str, gpus: Any) -> str:
    """`merrill.multi_gpu (2 GPUs)`: a column title with its variants' GPU count; the
    title unchanged for a strategy without a `gpus` knob (gpus None)."""
    return title if gpus is None else f"{title} ({gpus_label(gpus)})"


def with_order(title: str, reorder: Any) -> str:
    """`cpu.scipy (rcm order)`: a column title with its variants' vertex order; the title
    unchanged for the graph's own numbering (reorder None)."""
    return title if reorder is None else f"{title} ({reorder} order)"


def column_name(col: ColumnKey) -> str:
    """A column's strategy with its GPU count and vertex order, as tables title it."""
    return with_order(with_gpus(col.strategy, col.gpus), col.reorder)


def gpus_order(gpus: Any) -> tuple:
    """Sort key of GPU counts: no knob first, then counts in numeric order."""
    if gpus is None:
        return (0, 0.0, "")
    if isinstance(gpus, (int, float)) and not isinstance(gpus, bool):
        return (1, float(gpus), "")
    return (2, 0.0, str(gpus))


class ColumnKey(NamedTuple):
    """One strategy column of a table (a row, transposed): the strategy, its option
    (predecessors / parents), its GPU count (None: a strategy without a `gpus` knob) and
    its vertex order (None: the graph's own numbering). Variants of different GPU counts
    or orders are different columns."""

    strategy: str
    predecessors: bool = False
    gpus: Any = None
    reorder: Any = None

    @classmethod
    def of(cls, group: Group) -> ColumnKey:
        return cls(group.strategy, group.predecessors, group.gpus, group.reorder)

    @property
    def knobs(self) -> dict[str, Any]:
        """The knob filter that keeps this column's variants: those of its GPU count and
        order (a strategy without the knob has None there, so the filter keeps all its
        variants)."""
        return {GPUS_KNOB: self.gpus, REORDER_KNOB: self.reorder}

    def sort_key(self, baseline: str) -> tuple:
        return (self.strategy != baseline, self.strategy, self.predecessors, gpus_order(self.gpus),
                "" if self.reorder is None else str(self.reorder))


def plan(groups: list[Group], results: Results) -> list[Group]:
    """The planned sources of each group that holds samples of a run that did not
    complete: the union of the sources its samples' files drew on its dataset (pooled
    files of one config draw the same; others add theirs). A complete run's groups hold
    what it planned (a failure is the cell), so they are not counted."""
    file_of = {id(s): f for s, f in zip(results.samples, results.sample_file, strict=False)}
    for g in groups:
        files = {f for f in (file_of.get(id(s)) for s in g.samples)
                 if f is not None and f < min(len(results.file_sources), len(results.states))}
        if not any(results.states[f] for f in files):
            continue
        planned = set().union(*(results.file_sources[f].get(g.dataset, ()) for f in files))
        g.planned = len(planned) if planned else None
    return groups


_MARK = re.compile(r"( \(\d+/\d+(?: variants)?\))+$")
VARIANTS = "variants"  # a partial knob sweep's mark: `(1/7 variants)`


def split_mark(cell: Cell) -> tuple[str, str]:
    """A partial cell's text and its ` (3/50)`, ` (1/7 variants)` apart (the mark '' for
    any other cell)."""
    found = _MARK.search(cell.text) if cell.status == PARTIAL else None
    return (cell.text, "") if found is None else (cell.text[: found.start()], found.group())


def metric_title(metric: str, baseline: str, problem: str = "bfs", teps: str = "edges") -> str:
    if metric.startswith(COUNTER_PREFIX):
        return f"median of the {metric[len(COUNTER_PREFIX):]} counter over sources"
    return {
        "ms": f"median time per {problem.upper()} (ms)",
        "gteps": f"GTEPS (harmonic mean over sources; {TEPS_TITLE[teps]})",
        RATE_OF_MEDIAN: f"GTEPS of the median time (median edges / median time; {TEPS_TITLE[teps]})",
        "speedup": f"speedup over {baseline}: median of per-source ratios [interquartile range]",
        "us_level": "median microseconds per BFS level (time / (depth + 1))",
        "us_iteration": "median microseconds per iteration (time / the strategy's iterations counter)",
        "gteps_per_watt": f"GTEPS per watt (edges of the replayed traversals / their GPUs' energy; {TEPS_TITLE[teps]})",
        "watts": "mean power of the GPUs over the replayed traversals (W)",
    }[metric]


def status_text(status: str, reason: str | None) -> str:
    """How a failed cell reads: `out-of-time`, `wrong answer`, `unavailable: no CuPy`
    (the whole reason: terminal tables shorten it, see short_reason)."""
    if status == "wrong-answer":
        return "wrong answer"
    if status in ("unavailable", "error", "n/a") and reason:
        return f"{status}: {reason}"
    return status


def short_reason(reason: str, width: int = REASON_WIDTH) -> str:
    """`reason` cut at a word boundary to about `width` characters, with `…` when cut;
    a first word longer than that stays whole (never cut mid-word)."""
    if len(reason) <= width:
        return reason
    words = reason.split()
    kept = words[0]
    for w in words[1:]:
        if len(kept) + 1 + len(w) > width - 1:
            break
        kept += " " + w
    return kept.rstrip(",;:") + "…"


def fmt_spread(low: float | None, high: float | None) -> str:
    """` [low-high]`, the compact spread a cell shows after its value (nothing when
    there is no spread: every ratio the same)."""
    if low is None or high is None or fmt_number(low) == fmt_number(high):
        return ""
    return f" [{fmt_number(low)}-{fmt_number(high)}]"


def knob_label(knobs: dict[str, Any], keys: list[str]) -> str:
    """`W4` for a one-letter knob (BFS-4K's Table 2 style), else `gather=warp`; `no in_order`
    for a knob the variant does not have (samples of code from before the knob, pooled
    with later ones)."""
    parts = []
    for k in keys:
        if k not in knobs:
            parts.append(f"no {k}")
        else:
            parts.append(f"{k}{knobs[k]}" if len(k) == 1 else f"{k}={knobs[k]}")
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


def per_level_costs(group: Group) -> list[float]:
    """Each ok sample's time / levels (us), where it records its BFS depth."""
    return [1000.0 * float(s.time_ms) / (s.depth + 1) for s in group.ok_samples()
            if s.depth is not None and s.depth >= 0]


def per_level_us(group: Group) -> float | None:
    """Median over sources of time / levels, the per-level cost that bounds
    high-diameter graphs (None where the samples record no BFS depth)."""
    costs = per_level_costs(group)
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

    def __init__(self, results: Results, problem: str = DEFAULT_PROBLEM, teps: str = "edges",
                 baseline: str | None = None, batched: bool = False):
        self.results = results
        self.problem = problem
        self.teps = teps
        info = results.problem_info(problem)
        # `baseline` overrides the problem's speedup baseline (e.g. a peer: speedup vs Gunrock).
        self.baseline_name = baseline or info["baseline"]
        self.option_label = info["option_label"]
        # Batch strategies (several sources per timed call) have tables of their own
        # (`batched`): their time per source never shares a table with one-source rows.
        # The speedup baseline is looked up among every group.
        every = results.grouped(problem, lambda: plan(group_samples(
            [s for s in results.samples if s.problem == problem]), results))
        self.batched = batched
        self.groups = [g for g in every if g.batched == batched]
        self._by_cell: dict[tuple, list[Group]] = defaultdict(list)
        for g in self.groups:
            self._by_cell[(g.dataset, g.strategy, g.predecessors)].append(g)
        # variants whose samples copy another's (report/copies.py): shown as n/a, never as numbers
        self._copies = copies(every)
        self._energy = energy_index(results.energy)  # report/energy.py
        self._file_of: dict[int, int] | None = None  # id(sample) -> its file, made when first asked
        self._baselines: dict[tuple, list[Group]] = defaultdict(list)
        for g in every:
            if g.strategy == self.baseline_name and id(g) not in self._copies:
                self._baselines[(g.dataset, g.predecessors)].append(g)

    # ------------------------------------------------------------------ lookups
    def datasets(self) -> list[str]:
        """Datasets in the order they first appear in the samples, then any others."""
        seen = dict.fromkeys(s.dataset for s in self.results.samples if s.problem == self.problem)
        for name in self.results.datasets:
            seen.setdefault(name, None)
        return list(seen)

    def peers(self) -> list[str]:
        """Strategies whose samples another project's binary timed (core/answer.py timed_by)."""
        return sorted({g.strategy for g in self.groups if any(s.timed_by for s in g.samples)})

    def peer_checked(self, peer: str) -> bool:
        """Whether every answered sample of `peer` was checked by the harness (a peer that
        reports its level and reached counts, core/answer.py peer_counts), rather than
        only where the peer checks itself."""
        answered = [s for g in self.groups if g.strategy == peer for s in g.samples
                    if s.status in ("ok", "wrong-answer")]
        return bool(answered) and all(s.valid is not None for s in answered)

    def columns(self) -> list[ColumnKey]:
        """The (strategy, predecessors, GPU count) columns present: the baseline first,
        then by name, option and GPU count."""
        cols = {ColumnKey.of(g) for g in self.groups}
        return sorted(cols, key=lambda c: c.sort_key(self.baseline_name))

    def gpu_counts(self, strategy: str, predecessors: bool = False, knobs: dict[str, Any] | None = None,
                   datasets: list[str] | None = None) -> list[Any]:
        """The GPU counts of a strategy's variants (those whose knobs include `knobs`, on
        `datasets` when given), in order; [None] for a strategy without a `gpus` knob."""
        found = {g.gpus for ds in (datasets if datasets is not None else self.datasets())
                 for g in self.variants(ds, strategy, predecessors, knobs)}
        return sorted(found, key=gpus_order)

    def variants(self, dataset: str, strategy: str, predecessors: bool = False,
                 knobs: dict[str, Any] | None = None) -> list[Group]:
        """The groups of one cell; `knobs` keeps those whose knobs include these values.
        `knobs` that name no vertex order keep the graph's own numbering only, so no cell
        folds a reordered variant in as if it were a knob value."""
        groups = self._by_cell.get((dataset, strategy, predecessors), [])
        knobs = {REORDER_KNOB: None, **(knobs or {})}
        return [g for g in groups if all(g.knobs.get(k) == v for k, v in knobs.items())]

    def has(self, dataset: str, strategy: str | None = None) -> bool:
        if strategy is None:
            return dataset in self.results.datasets or any(g.dataset == dataset for g in self.groups)
        return bool(self.variants(dataset, strategy, False) or self.variants(dataset, strategy, True))

    def baseline(self, dataset: str, predecessors: bool, like: Group | None = None) -> Group | None:
        """The baseline group to divide `like` into: among the ok variants of the same
        predecessor option (else the distance runs), vertex order (else the graph's own
        numbering), GPU count and thread count (else any), the best by median time, as its
        ms cell picks it; no other knob is matched (a sweep's first value is its slowest)."""
        for pred in (predecessors, False):
            ok = [g for g in self._baselines.get((dataset, pred), []) if g.status == "ok"]
            if not ok:
                continue
            # the baseline in `like`'s vertex order, else in the graph's own numbering
            want = like.reorder if like is not None else None
            ok = [g for g in ok if g.reorder == want] or [g for g in ok if g.reorder is None] or ok
            if like is not None:  # resources, not tuning: the same GPU count and thread count
                ok = [g for g in ok if g.gpus == like.gpus] or ok
                if "threads" in like.knobs:
                    ok = [g for g in ok if g.knobs.get("threads") == like.knobs["threads"]] or ok
            return self.top(ok, "ms")
        return None

    def copy_of(self, group: Group) -> str | None:
        """Why `group` holds no measurement (its samples copy another variant's), else None."""
        twin = self._copies.get(id(group))
        return None if twin is None else copy_reason(group, twin, self.option_label)

    # ------------------------------------------------------------------ values
    def speedup_stats(self, group: Group) -> tuple[float, float, float, int] | None:
        """(median, q25, q75, sources) of baseline time / strategy time over the sources
        both ran; None without an ok baseline or a common source."""
        base = self.baseline(group.dataset, group.predecessors, like=group)
        if base is None or group.status != "ok":
            return None
        ratios = paired_ratios(base.times, group.times)
        if len(ratios) == 0:
            return None
        return (*median_iqr(ratios), len(ratios))

    def speedup_partial(self, group: Group) -> tuple[str, str] | None:
        """(mark, why) when the baseline that `group` divides by is partial: its speedup
        pairs fewer sources than the run planned, or divides into the best of fewer
        variants of the baseline's sweep than planned."""
        base = self.baseline(group.dataset, group.predecessors, like=group)
        stats = self.speedup_stats(group)
        if base is None or stats is None:
            return None
        if base.partial:
            paired = stats[3]
            return partial_mark(paired, base.planned), (f"speedup over {paired} of {base.planned} sources: the run "
                                                        f"stopped before its baseline, {base.strategy}, measured the rest")
        sweep = None if base is group else self.sweep_counts(base.dataset, base.strategy, base.predecessors,
                                                             ColumnKey.of(base).knobs)
        if sweep is None:  # the baseline's own cell carries its sweep's mark
            return None
        return partial_mark(*sweep, VARIANTS), (f"speedup over the best of {sweep[0]} of {sweep[1]} variants of its "
                                                f"baseline, {base.strategy}: the run stopped before the rest")

    def sweep_counts(self, dataset: str, strategy: str, predecessors: bool = False,
                     knobs: dict[str, Any] | None = None) -> tuple[int, int] | None:
        """(variants measured, variants planned) of a cell that holds fewer variants of its
        sweep than its files' runs planned, runs that did not complete (report/plans.py)."""
        if not any(self.results.states):
            return None
        if self._file_of is None:
            self._file_of = dict(zip(map(id, self.results.samples), self.results.sample_file, strict=False))
        groups = self.variants(dataset, strategy, predecessors, knobs)
        known = min(len(self.results.configs), len(self.results.states))
        files = {f for g in groups for s in g.samples if (f := self._file_of.get(id(s), known)) < known}
        return variant_counts(groups, files, self.results.configs, self.results.states, knobs or {})

    def speedup(self, group: Group) -> float | None:
        stats = self.speedup_stats(group)
        return None if stats is None else stats[0]

    def rates(self, group: Group) -> dict:
        """summarize()'s rates under this report's TEPS convention."""
        if self.teps == "edges":
            return group.summary
        ok = group.ok_samples()
        edges = [s.measures.get("edges_graph500") for s in ok]
        if not ok or any(not isinstance(e, (int, float)) for e in edges):
            return {"gteps_hmean": None, "rates_note": NO_GRAPH500_COUNT}
        return summarize([s.time_ms for s in ok], edges, [s.low_reach for s in ok])

    def rate_of_median(self, group: Group) -> tuple[float | None, str | None]:
        """(GTEPS, None) of the median time: the median edge count (this report's TEPS
        convention) over the median time of the sources that count in rates (low-reach
        ones left out, as in every rate); (None, why) without one."""
        rated = [s for s in group.ok_samples() if not s.low_reach]
        if not rated:
            return None, ALL_LOW_REACH
        edges = [s.edges if self.teps == "edges" else s.measures.get("edges_graph500") for s in rated]
        if any(not isinstance(e, (int, float)) for e in edges):
            return None, NO_GRAPH500_COUNT
        median_ms = float(np.median([float(s.time_ms) for s in rated]))
        if median_ms <= 0:
            return None, "a median time of 0 ms has no rate"
        return float(np.median(edges)) / median_ms / 1e6, None

    def spread(self, group: Group, metric: str) -> tuple[float, float] | None:
        """(q25, q75) behind a cell's median: the interquartile range of the sources' times
        (ms) or per-level costs (us_level), of the paired ratios (speedup); None for other
        metrics and for a single source (no spread to show)."""
        if metric == "ms" and group.summary.get("count", 0) > 1 and group.q25_ms is not None:
            return group.q25_ms, group.q75_ms
        if metric == "us_level":
            costs = per_level_costs(group)
            return tuple(float(q) for q in np.percentile(costs, [25, 75])) if len(costs) > 1 else None
        if metric == "speedup":
            stats = self.speedup_stats(group)
            return (stats[1], stats[2]) if stats is not None and stats[3] > 1 else None
        return None

    def value(self, group: Group, metric: str) -> float | None:
        return self.value_and_reason(group, metric)[0]

    def value_and_reason(self, group: Group, metric: str) -> tuple[float | None, str | None]:
        """The cell's number, or None and why (no baseline, no rate, no counter, a copy)."""
        if group.status != "ok":
            return None, None
        copied = self.copy_of(group)
        if copied is not None:
            return None, copied
        if metric == "ms":
            return group.summary.get("median_ms"), None
        if metric == "gteps":
            rates = self.rates(group)
            return rates.get("gteps_hmean"), rates.get("rates_note")
        if metric == RATE_OF_MEDIAN:
            return self.rate_of_median(group)
        if metric == "speedup":
            v = self.speedup(group)
            return v, None if v is not None else f"no {self.baseline_name} samples on the same sources"
        if metric == "us_level":
            return per_level_us(group), None
        if metric == "us_iteration":
            return per_iteration_us(group), None
        if metric.startswith(COUNTER_PREFIX):
            return counter_median(group, metric[len(COUNTER_PREFIX):]), None
        if metric in ENERGY_METRICS:
            return energy_value(self.energy_records(group), metric, self.teps)
        raise ValueError(metric)

    def energy_records(self, group: Group) -> list[dict]:
        """The energy records of `group`'s variant, graph, mode, L2 mode and prime policy."""
        return self._energy.get(energy_key(group.dataset, group.problem, group.strategy, group.knobs,
                                           group.predecessors, group.l2, group.prime), [])

    def best(self, dataset: str, strategy: str, metric: str, predecessors: bool = False,
             knobs: dict[str, Any] | None = None, by: str | None = None):
        """(group, knob label or None) of the best variant by `by` (default: `metric`); a
        failed group when none is ok. The variants must share one GPU count (`knobs`
        pins it: a ColumnKey's knobs do): a cell never folds two GPU counts."""
        groups = self.variants(dataset, strategy, predecessors, knobs)
        if not groups:
            return None, None
        counts = {json.dumps(g.gpus) for g in groups}
        if len(counts) > 1:
            raise ValueError(f"{strategy} on {dataset}: variants of {len(counts)} GPU counts "
                             f"({', '.join(sorted(counts))}) for one cell; pin the `{GPUS_KNOB}` knob")
        if by is None and metric == "speedup" and strategy == self.baseline_name:
            by = "ms"  # the baseline's row: the variant the others divide into, 1.000 by construction
        label, varying = None, []
        if len(groups) > 1:
            keys = sorted({k for g in groups for k in g.knobs})
            varying = [k for k in keys if len({json.dumps(g.knobs.get(k)) for g in groups}) > 1]
        g = self.top(groups, by or metric)
        if varying:
            label = knob_label(g.knobs, varying)
        return g, label

    def top(self, groups: list[Group], metric: str) -> Group:
        """The best of `groups` by `metric` (lowest, or highest for a rate or a speedup);
        the least severe failure when none has a value."""
        scored = [(v, g) for g in groups if (v := self.value(g, metric)) is not None]
        if not scored:
            return min(groups, key=lambda x: severity(x.status))
        return (max if metric in HIGHER_BETTER else min)(scored, key=lambda vg: vg[0])[1]

    def cell(self, dataset: str, strategy: str, metric: str, predecessors: bool = False,
             knobs: dict[str, Any] | None = None, by: str | None = None) -> Cell:
        """The cell a table shows: best knob variant (by `by`, default `metric`: two cells
        of one variant, e.g. its time and its rate, pass the same `by`), failure status,
        `!` for low reach."""
        group, label = self.best(dataset, strategy, metric, predecessors, knobs, by)
        if group is None:
            return self.dataset_cell(dataset) or Cell("missing", status="missing")
        if group.status != "ok":
            return Cell(status_text(group.status, group.reason), status=group.status,
                        knob=label, reason=group.reason)
        v, why = self.value_and_reason(group, metric)
        if v is None:  # no baseline to divide by, no rate, or no counter/depth to read
            if metric == "speedup" and self.copy_of(group) is None:
                return Cell("no baseline", status="n/a", knob=label, reason=why)
            return Cell(status_text("n/a", why), status="n/a", knob=label, reason=why)
        # the spread behind a median (figures draw it as error bars); only a speedup's
        # is printed in the cell
        low, high = self.spread(group, metric) or (None, None)
        shown = fmt_spread(low, high) if metric == "speedup" else ""
        text = (fmt_number(v) + shown + (f" ({label})" if label else "")
                + ("!" if group.low_reach else ""))
        marks = []  # (mark, why): never shown as if complete
        if group.partial:  # fewer sources than planned
            marks.append((partial_mark(group.measured, group.planned), partial_reason(group.measured, group.planned)))
        elif metric == "speedup" and (short := self.speedup_partial(group)) is not None:
            marks.append(short)  # a whole strategy over a stopped baseline
        sweep = self.sweep_counts(dataset, strategy, predecessors, knobs)
        if sweep is not None:  # the best of fewer variants than its sweep planned
            marks.append((partial_mark(*sweep, VARIANTS), partial_reason(*sweep, f"{VARIANTS} of its knob sweep")))
        if marks:
            return Cell(f"{text} {' '.join(m for m, _ in marks)}", value=v, status=PARTIAL, knob=label,
                        low_reach=bool(group.low_reach), low=low, high=high,
                        reason="; ".join(why for _, why in marks), variants=sweep)
        return Cell(text, value=v, knob=label, low_reach=bool(group.low_reach), low=low, high=high)

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
