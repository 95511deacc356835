"""The two plain reports: datasets x strategies for one metric, and A-vs-B comparison."""

from __future__ import annotations

import json

from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.report.aggregate import (
    COUNTER_PREFIX,
    EQUIVALENT,
    EQUIVALENT_NOTE,
    EQUIVALENT_PER_WATT_NOTE,
    LOW_REACH_NOTE,
    METRICS,
    RATE_OF_MEDIAN,
    TEPS,
    TEPS_TITLE,
    Aggregate,
    ColumnKey,
    column_name,
    is_metric,
    metric_title,
    short_reason,
    split_mark,
    with_gpus,
    with_order,
)
from gpubfs_cli.report.collapse import collapse_unavailable, reason_footnotes
from gpubfs_cli.report.compare import MIN_CHANGE, VERDICTS, compare_cell, compare_note
from gpubfs_cli.report.load import Results
from gpubfs_cli.report.table import Cell, Document, Table, label
from gpubfs_cli.results.keys import GPUS_KNOB
from gpubfs_cli.results.status import PARTIAL, RUN_FAILURES


def check_metric(metric: str) -> str:
    if not is_metric(metric):
        raise unknown_name("metric", metric, METRICS + (COUNTER_PREFIX + "NAME",))
    return metric


def check_counter(metric: str, results: Results) -> None:
    """A counter metric names a counter some sample of the pool carries (else every cell
    would read n/a)."""
    if not metric.startswith(COUNTER_PREFIX):
        return
    have = sorted({name for s in results.samples for name in s.counters})
    name = metric[len(COUNTER_PREFIX):]
    if name not in have:
        listed = ", ".join(COUNTER_PREFIX + n for n in have) if have else "none: no sample carries counters"
        raise UserError(f"--metric {metric}: no sample of these files carries that counter (they carry: {listed})")


def check_teps(teps: str) -> str:
    if teps not in TEPS:
        raise unknown_name("--teps convention", teps, TEPS)
    return teps


def teps_header(teps: str) -> str:
    """The document header line naming the TEPS convention of every rate shown."""
    other = "--teps graph500: Graph500's undirected count" if teps == "edges" else "--teps edges: directed"
    return f"{TEPS_TITLE[teps]} ({other})"


def shorten_reasons_table(table: Table) -> Table:
    """Terminal tables: a failure's reason cut at a word boundary (the whole reason is
    in the footnotes); every other format keeps the cell text whole."""
    for row in table.rows:
        for c in row[1:]:
            if c.reason and c.status != "ok" and c.text.endswith(c.reason):
                c.text = c.text[: len(c.text) - len(c.reason)] + short_reason(c.reason)
    return table


def shorten_reasons(doc: Document) -> Document:
    for table in doc.tables:
        shorten_reasons_table(table)
    return doc


def column_title(col: ColumnKey, option_label: str = "+pred") -> str:
    """`merrill.hybrid`, `merrill.hybrid +pred` (BFS), `cpu.dijkstra +parents` (SSSP),
    `merrill.multi_gpu (2 GPUs)`, `merrill.multi_gpu (2 GPUs) +pred`, `cpu.scipy (rcm order)`."""
    name = column_name(col)
    return f"{name} {option_label}" if col.predecessors else name


def problem_heading(results: Results, problem: str) -> str:
    """The prefix of a table's title when a pool holds more than one problem."""
    if len(results.problem_keys()) <= 1:
        return ""
    return f"{problem.upper()}: "


def add_cell_footnotes(table: Table) -> None:
    """Low-reach marker, knob labels, and the full text of shortened failure reasons,
    one line per reason (a column alone: every row of it has that failure)."""
    cells = [c for row in table.rows for c in row[1:]]
    if any(c.low_reach for c in cells):
        table.footnotes.append(LOW_REACH_NOTE)
    if any(c.knob for c in cells if c.status in ("ok", PARTIAL)):
        table.footnotes.append("(W4), (gather=warp): the best value of a knob sweep, with the winning knob")
    table.footnotes += reason_footnotes(table)


def transpose(table: Table, corner: str) -> Table:
    """Rows become columns: many strategies and few graphs read better that way."""
    rows = [[label(col)] + [row[i + 1] for row in table.rows] for i, col in enumerate(table.columns[1:])]
    return Table(id=table.id, title=table.title, columns=[corner] + [r[0].text for r in table.rows],
                 rows=rows, footnotes=table.footnotes, side_by_side=table.side_by_side)


RATES = ("gteps", "gteps_per_watt")  # edges over something: equivalent GTEPS say so
BATCH_NOTE = ("batch strategies answer several sources in one timed call: a source's time is the call's time "
              "over the batch's size, so these rows stand apart from one-source strategies")


def overview_table(results: Results, problem: str, metric: str,
                   agg: Aggregate | None = None, teps: str = "edges", table_id: str | None = None,
                   by: str | None = None) -> tuple[Table, Aggregate]:
    """Datasets x strategies of one problem, one metric per cell (the batch strategies'
    own table when `agg` holds them); each cell's variant is the best by `by` (default:
    `metric`), among the variants of its column's GPU count."""
    agg = agg or Aggregate(results, problem, teps)
    cols = agg.columns()
    title = metric_title(metric, agg.baseline_name, problem, agg.teps)
    if agg.batched:
        title = "batch strategies: " + title.replace(f"per {problem.upper()}", "per source")
    table = Table(
        id=(table_id or ("overview" if problem == "bfs" else f"overview-{problem}")) + ("-batch" if agg.batched else ""),
        title=problem_heading(results, problem) + title,
        columns=["dataset"] + [column_title(c, agg.option_label) + batch_label(agg, c)
                               + (f" ({EQUIVALENT})" if metric in RATES and c.strategy in results.equivalent_teps
                                  else "")
                               for c in cols],
    )
    if agg.batched:
        table.footnotes.append(BATCH_NOTE)
    if metric in RATES and any(c.strategy in results.equivalent_teps for c in cols):
        table.footnotes.append(EQUIVALENT_NOTE if metric == "gteps" else EQUIVALENT_PER_WATT_NOTE)
    for ds in agg.datasets():
        row = [label(ds)]
        for c in cols:
            row.append(agg.cell(ds, c.strategy, metric, c.predecessors, c.knobs, by))
        table.rows.append(row)
    if metric == "speedup":
        table.footnotes.append(
            f"speedup: the median over the sources both ran of {agg.baseline_name}'s time / the "
            "strategy's time on that source; [q25-q75]: the interquartile range of those ratios"
        )
    for peer in agg.peers():
        if agg.peer_checked(peer):
            table.footnotes.append(f"{peer}: timed by the peer itself (its own timer); it returns no "
                                   "distances: its level and reached counts are checked against the baseline's")
        else:
            table.footnotes.append(f"{peer}: timed by the peer itself (its own timer) and checked only as far "
                                   "as the peer checks itself; not validated by gpubfs")
    add_cell_footnotes(table)
    return table, agg


def batch_label(agg: Aggregate, col: ColumnKey) -> str:
    """` (batches of 64)` after a batch strategy's column title; nothing otherwise."""
    if not agg.batched:
        return ""
    size = max((g.batch for g in agg.groups if ColumnKey.of(g) == col), default=1)
    return f" (batches of {size})"


def _batch_sizes(col: ColumnKey, agg_a: Aggregate, agg_b: Aggregate) -> str:
    """` (batches of 64)`, or ` (batches of 32 | 64)` where A's and B's largest differ."""
    sizes = [max((g.batch for g in agg.groups if ColumnKey.of(g) == col), default=None) for agg in (agg_a, agg_b)]
    shown = list(dict.fromkeys(str(n) for n in sizes if n is not None))
    return f" (batches of {' | '.join(shown)})" if shown else ""


def batch_aggregate(results: Results, problem: str, teps: str = "edges") -> Aggregate | None:
    """The problem's batch strategies, or None where the pool has none (the usual case,
    found without grouping the pool a second time)."""
    if not any(s.batch is not None for s in results.samples if s.problem == problem):
        return None
    agg = Aggregate(results, problem, teps, batched=True)
    return agg if agg.groups else None


def overview(results: Results, metric: str, teps: str = "edges") -> Document:
    """One table per problem in the pool (BFS first), and one for its batch strategies."""
    check_metric(metric)
    check_teps(teps)
    tables, groups = [], []
    for problem in results.problem_keys() or ["bfs"]:
        table, agg = overview_table(results, problem, metric, teps=teps)
        tables.append(table)
        batched = batch_aggregate(results, problem, teps)
        if batched is not None:
            tables.append(overview_table(results, problem, metric, batched, teps)[0])
        for peer in agg.peers():  # where a peer ran: every strategy's speedup over it
            vs, _ = overview_table(results, problem, "speedup", Aggregate(results, problem, teps, baseline=peer),
                                   teps, table_id=f"{table.id}-vs-{peer}")
            tables.append(vs)
        for g, of in [(g, agg) for g in agg.groups] + [(g, batched) for g in (batched.groups if batched else [])]:
            d = g.to_dict()
            stats = of.speedup_stats(g)
            d["speedup"], d["speedup_q25"], d["speedup_q75"], d["speedup_sources"] = (
                stats if stats is not None else (None, None, None, 0))
            d["speedup_partial"] = g.partial or of.speedup_partial(g) is not None
            if (copied := of.copy_of(g)) is not None:
                d["suspect"] = copied
            if teps != "edges":
                d["gteps_hmean_" + teps] = of.rates(g).get("gteps_hmean")
            groups.append(d)
    return Document(
        title="gpubfs report",
        header=results.machine_lines() + results.mode_lines() + results.archive_lines() + [teps_header(teps)],
        tables=tables,
        data={"metric": metric, "files": results.files, "l2": results.l2_modes(), "groups": groups},
    )


def run_summary(results: Results, name: str) -> Document:
    """The end-of-run table of `gpubfs run`: median time and GTEPS in each cell, built
    from the same groups and cells as `gpubfs report`. Both lines of a cell come from one
    variant: the fastest (median time) of its column, whose median's rate (the median edge
    count over the median time, not the harmonic mean one slow source drags down) the
    second line shows."""
    doc = Document(title=f"{name}: median time per traversal and its GTEPS (median edges / median time; "
                         f"{TEPS_TITLE['edges']})")
    failed = []
    for problem, batched in [(p, b) for p in results.problem_keys() for b in (False, True)]:
        agg = batch_aggregate(results, problem) if batched else Aggregate(results, problem)
        if agg is None:
            continue
        ms, _ = overview_table(results, problem, "ms", agg)
        rates, _ = overview_table(results, problem, RATE_OF_MEDIAN, agg, by="ms")
        no_rate: dict[str, list[str]] = {}
        cols = agg.columns()
        for row_ms, row_rate in zip(ms.rows, rates.rows, strict=True):
            for i, (a, b) in enumerate(zip(row_ms[1:], row_rate[1:], strict=True), start=1):
                if a.status not in ("ok", PARTIAL):
                    continue
                time_text, mark = split_mark(a)  # a partial cell: `282.9 ms (3/50)`
                rate = f"{split_mark(b)[0]} {EQUIVALENT if cols[i - 1].strategy in results.equivalent_teps else 'GTEPS'}"
                if b.status not in ("ok", PARTIAL):  # no rate: say so here, and why under the table
                    rate = "n/a GTEPS"
                    no_rate.setdefault(b.reason or "no rate", []).append(f"{ms.columns[i]} on {row_ms[0].text}")
                row_ms[i] = Cell(f"{time_text} ms{mark}\n{rate}", value=a.value, status=a.status, knob=a.knob,
                                 low_reach=a.low_reach, reason=a.reason)
        ms.footnotes += [f"n/a GTEPS ({why}): {', '.join(where)}" for why, where in no_rate.items()]
        if any(c.strategy in results.equivalent_teps for c in cols):
            ms.footnotes.append(EQUIVALENT_NOTE)
        heading = problem_heading(results, problem).rstrip(": ")
        ms.title = ": ".join(x for x in (heading, "batch strategies, time per source" if batched else "") if x)
        doc.tables.append(transpose(collapse_unavailable(shorten_reasons_table(ms)), "strategy"))
        failed += [g.to_dict() for g in agg.groups if g.status in RUN_FAILURES]
    doc.data = {"failed": failed}
    return doc


# ---------------------------------------------------------------------- compare
def _pick(agg_a: Aggregate, agg_b: Aggregate, ds: str, col: ColumnKey):
    """The variant of the column's GPU count both ran; with several, the one fastest in A."""
    va = {g.variant: g for g in agg_a.variants(ds, col.strategy, col.predecessors, col.knobs)}
    vb = {g.variant: g for g in agg_b.variants(ds, col.strategy, col.predecessors, col.knobs)}
    common = [k for k in va if k in vb]
    if not common:
        return None, None, None
    key = min(common, key=lambda k: va[k].summary.get("median_ms", float("inf")))
    knob = None
    if len(common) > 1:
        knob = ",".join(f"{k}={v}" for k, v in json.loads(key).items() if k != GPUS_KNOB) or None
    return va[key], vb[key], knob


def compare(a: Results, b: Results, fail_pct: float | None = None, min_change: float = MIN_CHANGE) -> Document:
    """B vs A per cell (compare.py has the statistics); `fail_pct` marks the cells where
    B is slower than A by more than that many percent beyond the noise; `min_change`
    (a fraction) is the smallest change a verdict names."""
    problems = sorted(set(a.problem_keys()) | set(b.problem_keys()), key=lambda p: (p != "bfs", p))
    tables, cells_data = [], []
    for problem in problems or ["bfs"]:
        tables.append(_compare_table(a, b, problem, len(problems) > 1, cells_data, fail_pct, min_change))
        if _has_batches(a, problem) or _has_batches(b, problem):  # their own table, as in overview
            tables.append(_compare_table(a, b, problem, len(problems) > 1, cells_data, fail_pct, min_change,
                                         batched=True))
    if not any(c["ratio"] is not None for c in cells_data):
        raise UserError(f"{a.files[0]} and {b.files[0]}: no (dataset, strategy) measured in both, "
                        "nothing to compare")
    counts = {v: sum(1 for c in cells_data if c["verdict"] == v) for v in VERDICTS}
    regressions = [c for c in cells_data if c["regression"]]
    notes = [", ".join(f"{v}: {n}" for v, n in counts.items())
             + f"; too few samples: {sum(1 for c in cells_data if c['ratio'] is not None and c['verdict'] is None)}"
             + f"; not compared (missing or failed on a side): {sum(1 for c in cells_data if c['ratio'] is None)}"]
    if fail_pct is not None:
        notes.append(f"regressions (B slower than A by more than {fail_pct:g}% beyond the noise): "
                     + (", ".join(regression_label(c) for c in regressions) or "none"))
    return Document(
        title="gpubfs report --compare",
        header=[f"A = {line}" for line in a.machine_lines()] + [f"B = {line}" for line in b.machine_lines()],
        tables=tables,
        notes=notes,
        data={"files": {"A": a.files, "B": b.files}, "cells": cells_data, "verdicts": counts,
              "fail_on_regression": fail_pct, "regressions": regressions},
    )


def regression_label(c: dict) -> str:
    return (f"{with_order(with_gpus(c['strategy'], c.get('gpus')), c.get('reorder'))}"
            f"{' +option' if c['predecessors'] else ''} "
            f"on {c['dataset']} ({c['text']})")


def _copied(agg_a: Aggregate, ga, agg_b: Aggregate, gb) -> str | None:
    """`A: why` / `B: why` where a side's group copies another variant's samples."""
    found = [f"{side}: {why}" for side, agg, g in (("A", agg_a, ga), ("B", agg_b, gb))
             if g is not None and (why := agg.copy_of(g)) is not None]
    return "; ".join(found) or None


def _has_batches(results: Results, problem: str) -> bool:
    return any(s.batch is not None for s in results.samples if s.problem == problem)


def _compare_table(a: Results, b: Results, problem: str, several: bool, cells_data: list,
                   fail_pct: float | None, min_change: float, batched: bool = False) -> Table:
    """B vs A per cell of one problem: its one-source strategies, or (`batched`) its batch
    strategies, each cell the time per source of one side's calls against the other's."""
    agg_a, agg_b = Aggregate(a, problem, batched=batched), Aggregate(b, problem, batched=batched)
    cols = sorted(set(agg_a.columns()) | set(agg_b.columns()),
                  key=lambda c: c.sort_key(agg_a.baseline_name))
    datasets = list(dict.fromkeys(agg_a.datasets() + agg_b.datasets()))
    table = Table(
        id=("compare" if problem == "bfs" else f"compare-{problem}") + ("-batch" if batched else ""),
        title=(f"{problem.upper()}: " if several else "") + ("batch strategies, time per source: " if batched else "")
        + "B vs A: time of A / time of B (> 1: B is faster) [95% bootstrap interval]",
        columns=["dataset"] + [column_title(c, agg_a.option_label)
                               + (_batch_sizes(c, agg_a, agg_b) if batched else "") for c in cols],
    )
    if batched:
        table.footnotes.append(BATCH_NOTE + "; a ratio's samples are whole calls, unpaired")
    for ds in datasets:
        row = [label(ds)]
        for col in cols:
            ga, gb, knob = _pick(agg_a, agg_b, ds, col)
            if ga is None:
                ga = next(iter(agg_a.variants(ds, col.strategy, col.predecessors, col.knobs)), None)
                gb = next(iter(agg_b.variants(ds, col.strategy, col.predecessors, col.knobs)), None)
            cell, data = compare_cell(ga, gb, knob, fail_pct, min_change, _copied(agg_a, ga, agg_b, gb))
            row.append(cell)
            cells_data.append({"dataset": ds, "problem": problem, "strategy": col.strategy,
                               "predecessors": col.predecessors, **({"batch": True} if batched else {}),
                               **({"gpus": col.gpus} if col.gpus is not None else {}),
                               **({"reorder": col.reorder} if col.reorder is not None else {}), **data})
        table.rows.append(row)
    table.footnotes.append(compare_note(min_change))
    add_cell_footnotes(table)
    return table
