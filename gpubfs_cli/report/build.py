"""The two plain reports: datasets x strategies for one metric, and A-vs-B comparison."""

from __future__ import annotations

import json

from gpubfs_cli.bench.status import RUN_FAILURES
from gpubfs_cli.errors import unknown_name
from gpubfs_cli.report.aggregate import (
    COUNTER_PREFIX,
    LOW_REACH_NOTE,
    METRICS,
    Aggregate,
    Group,
    is_metric,
    metric_title,
    status_text,
)
from gpubfs_cli.report.load import Results
from gpubfs_cli.report.table import Cell, Document, Table, fmt_number, label

MIN_SAMPLES_TO_MARK = 3


def check_metric(metric: str) -> str:
    if not is_metric(metric):
        raise unknown_name("metric", metric, METRICS + (COUNTER_PREFIX + "NAME",))
    return metric


def column_title(strategy: str, predecessors: bool, option_label: str = "+pred") -> str:
    """`merrill.hybrid`, `merrill.hybrid +pred` (BFS), `cpu.dijkstra +parents` (SSSP)."""
    return f"{strategy} {option_label}" if predecessors else strategy


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
    if any(c.knob for c in cells if c.status == "ok"):
        table.footnotes.append("(W4), (gather=warp): the best value of a knob sweep, with the winning knob")
    by_reason: dict[tuple[str, str], dict[str, list[str]]] = {}
    for row in table.rows:
        for col, c in zip(table.columns[1:], row[1:], strict=True):
            if c.reason and c.status != "ok":
                by_reason.setdefault((c.status, c.reason), {}).setdefault(col, []).append(row[0].text)
    for (status, reason), cols in by_reason.items():
        whole = [col for col, rows in cols.items() if len(rows) == len(table.rows)]
        parts = ([", ".join(whole) + f" (every {table.columns[0]})"] if whole else []) + [
            f"{col} on {', '.join(rows)}" for col, rows in cols.items() if col not in whole
        ]
        table.footnotes.append(f"{status} ({reason}): {'; '.join(parts)}")


def transpose(table: Table, corner: str) -> Table:
    """Rows become columns: many strategies and few graphs read better that way."""
    rows = [[label(col)] + [row[i + 1] for row in table.rows] for i, col in enumerate(table.columns[1:])]
    return Table(id=table.id, title=table.title, columns=[corner] + [r[0].text for r in table.rows],
                 rows=rows, footnotes=table.footnotes, side_by_side=table.side_by_side)


def overview_table(results: Results, problem: str, metric: str,
                   agg: Aggregate | None = None) -> tuple[Table, Aggregate]:
    """Datasets x strategies of one problem, one metric per cell."""
    agg = agg or Aggregate(results, problem)
    cols = agg.columns()
    table = Table(
        id="overview" if problem == "bfs" else f"overview-{problem}",
        title=problem_heading(results, problem) + metric_title(metric, agg.baseline_name, problem),
        columns=["dataset"] + [column_title(s, p, agg.option_label) for s, p in cols],
    )
    for ds in agg.datasets():
        row = [label(ds)]
        for strategy, pred in cols:
            row.append(agg.cell(ds, strategy, metric, pred))
        table.rows.append(row)
    if metric == "speedup":
        table.footnotes.append(
            f"speedup = {agg.baseline_name} time / strategy time, summed over the sources both ran"
        )
    add_cell_footnotes(table)
    return table, agg


def overview(results: Results, metric: str) -> Document:
    """One table per problem in the pool (BFS first)."""
    check_metric(metric)
    tables, groups = [], []
    for problem in results.problem_keys() or ["bfs"]:
        table, agg = overview_table(results, problem, metric)
        tables.append(table)
        for g in agg.groups:
            d = g.to_dict()
            d["speedup"] = agg.speedup(g)
            groups.append(d)
    return Document(
        title="gpubfs report",
        header=results.machine_lines(),
        tables=tables,
        data={"metric": metric, "files": results.files, "l2": results.l2_modes(), "groups": groups},
    )


def run_summary(results: Results, name: str) -> Document:
    """The end-of-run table of `gpubfs run`: median time and GTEPS in each cell, built
    from the same groups and cells as `gpubfs report`."""
    doc = Document(title=f"{name}: median time per traversal and GTEPS (harmonic mean)")
    failed = []
    for problem in results.problem_keys():
        ms, agg = overview_table(results, problem, "ms")
        rates, _ = overview_table(results, problem, "gteps", agg)
        for row_ms, row_rate in zip(ms.rows, rates.rows, strict=True):
            for i, (a, b) in enumerate(zip(row_ms[1:], row_rate[1:], strict=True), start=1):
                if a.status == "ok":
                    row_ms[i] = Cell(f"{a.text} ms\n{b.text} GTEPS", value=a.value, knob=a.knob,
                                     low_reach=a.low_reach)
        ms.title = problem_heading(results, problem).rstrip(": ")
        doc.tables.append(transpose(ms, "strategy"))
        failed += [g.to_dict() for g in agg.groups if g.status in RUN_FAILURES]
    doc.data = {"failed": failed}
    return doc


# ---------------------------------------------------------------------- compare
def significant(a: Group, b: Group) -> bool:
    """A difference counts only when the interquartile ranges of the two do not overlap
    (and each side has enough samples to have a spread at all)."""
    if len(a.samples) < MIN_SAMPLES_TO_MARK or len(b.samples) < MIN_SAMPLES_TO_MARK:
        return False
    if None in (a.q25_ms, a.q75_ms, b.q25_ms, b.q75_ms):
        return False
    return a.q75_ms < b.q25_ms or b.q75_ms < a.q25_ms


def _pick(agg_a: Aggregate, agg_b: Aggregate, ds: str, strategy: str, pred: bool):
    """The variant both ran; with several, the one fastest in A."""
    va = {g.variant: g for g in agg_a.variants(ds, strategy, pred)}
    vb = {g.variant: g for g in agg_b.variants(ds, strategy, pred)}
    common = [k for k in va if k in vb]
    if not common:
        return None, None, None
    key = min(common, key=lambda k: va[k].summary.get("median_ms", float("inf")))
    knob = None
    if len(common) > 1:
        knob = ",".join(f"{k}={v}" for k, v in json.loads(key).items())
    return va[key], vb[key], knob


def compare_cell(a: Group | None, b: Group | None, knob: str | None) -> tuple[Cell, bool]:
    """The ratio cell and whether its difference is beyond the spread."""
    if a is None or b is None:
        return Cell("missing", status="missing"), False
    for side, g in (("A", a), ("B", b)):
        if g.status != "ok":
            text = f"{side}: {status_text(g.status, g.reason)}"
            return Cell(text, status=g.status, reason=g.reason), False
    ma, mb = a.summary["median_ms"], b.summary["median_ms"]
    if mb <= 0:
        return Cell("n/a", status="n/a"), False
    ratio = ma / mb
    suffix = f" ({knob})" if knob else ""
    if significant(a, b):
        word = "faster" if ratio > 1 else "slower"
        return Cell(f"{fmt_number(ratio)}x {word}{suffix}", value=ratio, knob=knob), True
    return Cell(f"{fmt_number(ratio)}x ~{suffix}", value=ratio, knob=knob), False


def compare(a: Results, b: Results) -> Document:
    problems = sorted(set(a.problem_keys()) | set(b.problem_keys()), key=lambda p: (p != "bfs", p))
    tables, cells_data = [], []
    for problem in problems or ["bfs"]:
        tables.append(_compare_table(a, b, problem, len(problems) > 1, cells_data))
    return Document(
        title="gpubfs report --compare",
        header=[f"A = {line}" for line in a.machine_lines()] + [f"B = {line}" for line in b.machine_lines()],
        tables=tables,
        data={"files": {"A": a.files, "B": b.files}, "cells": cells_data},
    )


def _compare_table(a: Results, b: Results, problem: str, several: bool, cells_data: list) -> Table:
    agg_a, agg_b = Aggregate(a, problem), Aggregate(b, problem)
    cols = sorted(set(agg_a.columns()) | set(agg_b.columns()),
                  key=lambda c: (c[0] != agg_a.baseline_name, c[0], c[1]))
    datasets = list(dict.fromkeys(agg_a.datasets() + agg_b.datasets()))
    table = Table(
        id="compare" if problem == "bfs" else f"compare-{problem}",
        title=(f"{problem.upper()}: " if several else "")
        + "B vs A: median time of A / median time of B (> 1: B is faster)",
        columns=["dataset"] + [column_title(s, p, agg_a.option_label) for s, p in cols],
    )
    for ds in datasets:
        row = [label(ds)]
        for strategy, pred in cols:
            ga, gb, knob = _pick(agg_a, agg_b, ds, strategy, pred)
            if ga is None:
                ga = next(iter(agg_a.variants(ds, strategy, pred)), None)
                gb = next(iter(agg_b.variants(ds, strategy, pred)), None)
            cell, marked = compare_cell(ga, gb, knob)
            row.append(cell)
            cells_data.append({
                "dataset": ds, "problem": problem, "strategy": strategy, "predecessors": pred,
                "ratio": cell.value, "significant": marked, "text": cell.text,
            })
        table.rows.append(row)
    table.footnotes.append(
        "faster / slower: the interquartile ranges of A's and B's times do not overlap "
        f"(at least {MIN_SAMPLES_TO_MARK} samples each); ~: within the run-to-run spread"
    )
    add_cell_footnotes(table)
    return table
