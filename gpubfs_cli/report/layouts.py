"""`gpubfs report --paper KEY`: a paper's tables in its own shape, published | measured.

Rows and columns come from configs/papers/KEY.yaml; measured cells from the results:
graph facts (n, m, degrees, depths) from the results' datasets section, times and rates
from the samples (best knob per graph, failures as their status, "missing" where a
strategy has no samples). Tables whose numbers exist only as a figure show measured only.
A column of a multi-GPU strategy (variants with a `gpus` knob) whose knobs leave `gpus`
open is split into one column per GPU count measured, `HEADER (2 GPUs)`, as the plain
report splits them: a cell never folds two GPU counts.
"""

from __future__ import annotations

from dataclasses import replace

from gpubfs_cli.report.aggregate import TEPS_TITLE, Aggregate, split_mark, with_gpus
from gpubfs_cli.report.build import add_cell_footnotes, teps_header
from gpubfs_cli.report.load import Results
from gpubfs_cli.report.papers import Column, Paper, PaperTable, Row
from gpubfs_cli.report.table import Cell, Document, Table, fmt_number, label
from gpubfs_cli.results.keys import GPUS_KNOB

NOT_REPRODUCED = "-"


def pick_dataset(agg: Aggregate, candidates: list[str], strategy: str | None = None) -> str:
    """The first catalogue name with results (for this strategy when given), else the first."""
    for name in candidates:
        if agg.has(name, strategy):
            return name
    if strategy:
        return pick_dataset(agg, candidates)
    return candidates[0]


def split_by_gpus(paper: Paper, pt: PaperTable, aggs: dict[str, Aggregate]) -> tuple[list[Column], list[str]]:
    """The table's columns, each strategy column whose knobs leave `gpus` open and whose
    variants on the table's graphs carry that knob split into one column per GPU count
    (`HEADER (2 GPUs)`, the knob pinned); and the headers that were split. Columns of
    strategies without the knob, and those that pin it, stay as they are."""
    out, split = [], []
    for col in pt.columns:
        counts: list = []
        if col.strategy is not None and GPUS_KNOB not in col.knobs:
            agg = aggs[col.problem]
            datasets = list(dict.fromkeys(pick_dataset(agg, paper.datasets[row.graph], col.strategy)
                                          for row in pt.rows))
            counts = agg.gpu_counts(col.strategy, col.predecessors, col.knobs, datasets)
        if all(n is None for n in counts):
            out.append(col)
            continue
        split.append(col.header)
        out += [replace(col, header=with_gpus(col.header, n), knobs={**col.knobs, GPUS_KNOB: n}) for n in counts]
    return out, split


def rendered_columns(pt: PaperTable, table: Table) -> list[Column]:
    """The paper column behind each measured column of a rendered paper table (a column
    split by GPU count: the paper's column under the split header), for its plot."""
    exact = {c.header: c for c in pt.columns}
    out = []
    for header in table.columns[1:]:
        col = exact.get(header) or next(
            c for c in pt.columns if header.startswith(c.header + " (") and header.endswith((" GPU)", " GPUs)")))
        suffix = header[len(col.header):]  # ` (2 GPUs)` of a split column: its stack is its own too
        out.append(col if not suffix else replace(col, header=header, stack=col.stack and col.stack + suffix))
    return out


def published_cell_text(table: PaperTable, col: Column, row: Row) -> str | None:
    pub = row.published.get(col.key)
    if pub is not None:
        return pub.text
    if col.published_from:
        a, b = (row.published.get(k) for k in col.published_from)
        if a is not None and b is not None and a.value is not None and b.value:
            return "~" + fmt_number(a.value / b.value)
    return None


def measured_cell(agg: Aggregate, col: Column, dataset: str) -> Cell:
    if col.stat is not None:
        v = agg.stat(dataset, col.stat)
        if v is None:
            return agg.dataset_cell(dataset) or Cell("missing", status="missing")
        v = v / col.scale
        return Cell(fmt_number(v, col.decimals), value=v)
    if col.strategy is None:
        return Cell(NOT_REPRODUCED, status="n/a")
    metric = "ms" if col.metric == "rank" else col.metric
    return agg.cell(dataset, col.strategy, metric, col.predecessors, col.knobs)


def rank_cells(cells: list[Cell]) -> None:
    """Replace median-time cells by their rank among the row's measured ones (1 =
    fastest); failed cells keep their status, ties share a rank."""
    times = sorted({c.value for c in cells if c.value is not None})
    for c in cells:
        if c.value is not None:
            mark = split_mark(c)[1]  # a partial cell stays marked
            c.value = float(times.index(c.value) + 1)
            c.low = c.high = None  # the time's spread means nothing for a rank
            c.text = f"{c.value:.0f}" + (f" ({c.knob})" if c.knob else "") + mark


def paper_table(paper: Paper, pt: PaperTable, aggs: dict[str, Aggregate]) -> Table:
    title = pt.title + (" (published: figure only)" if pt.figure_only else "")
    columns, split = split_by_gpus(paper, pt, aggs)
    rated = [aggs[c.problem].teps for c in columns if c.metric == "gteps"]
    if rated:  # the measured rates' average and convention (the paper's own is in its notes)
        title += f" [measured GTEPS: harmonic mean over sources; {TEPS_TITLE[rated[0]]}]"
    table = Table(id=f"{paper.key}.{pt.id}", title=title,
                  columns=["Graph"] + [c.header for c in columns],
                  side_by_side=not pt.figure_only)
    substitutes: dict[str, str] = {}
    for row in pt.rows:
        cells = [label(row.label)]
        for col in columns:
            agg = aggs[col.problem]
            ds = pick_dataset(agg, paper.datasets[row.graph], col.strategy)
            if ds != paper.datasets[row.graph][0] and agg.has(ds):
                substitutes[row.graph] = ds
            cell = measured_cell(agg, col, ds)
            if not pt.figure_only:
                cell.published = published_cell_text(pt, col, row)
            cells.append(cell)
        rank_cells([cell for cell, col in zip(cells[1:], columns, strict=True) if col.metric == "rank"])
        table.rows.append(cells)
    for graph, ds in substitutes.items():
        table.footnotes.append(f"{graph}: measured on {ds}")
    if any(c.published and c.published.startswith("~") for r in table.rows for c in r[1:]):
        table.footnotes.append("~: derived from the paper's numbers, not printed by it")
    if any(c.status == "n/a" and c.text == NOT_REPRODUCED for r in table.rows for c in r[1:]):
        table.footnotes.append(f"{NOT_REPRODUCED}: no strategy here reproduces this column")
    if split:
        table.footnotes.append(f"{'; '.join(split)}: one column per GPU count measured (a cell never "
                               "mixes GPU counts), the published number beside each")
    absent = [c.strategy for c in columns
              if c.strategy and not any(aggs[c.problem].has(ds, c.strategy) for ds in aggs[c.problem].datasets())]
    if any(cell.status == "missing" for r in table.rows for cell in r[1:]):
        who = f" (none at all for {', '.join(dict.fromkeys(absent))})" if absent else ""
        table.footnotes.append(f"missing: no samples in these results{who}")
        unmeasured = [paper.datasets[row.graph][0] for row, cells in zip(pt.rows, table.rows, strict=True)
                      if all(c.status == "missing" for c in cells[1:])]
        if unmeasured:
            table.footnotes.append(
                f"not measured in these results: {', '.join(unmeasured)}; `gpubfs reproduce {paper.key} "
                "--graph NAME` fetches a graph (a download for the real ones) and fills its row")
    add_cell_footnotes(table)
    if pt.notes:
        table.footnotes.append(pt.notes)
    return table


def paper_document(paper: Paper, results: Results, teps: str = "edges") -> Document:
    aggs = {p: Aggregate(results, p, teps) for p in {c.problem for t in paper.tables for c in t.columns}}
    hw = paper.hardware
    header = [
        f"paper: {paper.title} ({paper.venue}); {paper.authors}".rstrip("; "),
        f"published on: GPU {hw['gpu']}; CPU {hw['cpu']}",
    ]
    if "other" in hw:
        header.append(hw["other"])
    header += [f"measured: {line}" for line in results.machine_lines()] + results.mode_lines() + results.archive_lines() + [teps_header(teps)]
    doc = Document(title=f"gpubfs report --paper {paper.key}", header=header,
                   data={"paper": paper.key, "files": results.files})
    doc.tables = [paper_table(paper, pt, aggs) for pt in paper.tables]
    for t in paper.text_numbers:
        unit = f" {t['unit']}" if t.get("unit") else ""
        where = f" ({t['where']})" if t.get("where") else ""
        doc.notes.append(f"stated in the text: {t['what']}: {t['value']}{unit}{where}")
    return doc
