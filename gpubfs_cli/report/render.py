"""Documents -> terminal (rich), Markdown, CSV, JSON, HTML. No computation here.

CSV is tidy, one line per cell (table, row, column, text, value, low, high, status,
published, knob, low_reach, reason), so every report, whatever its number of tables, reads back with
csv.DictReader and pivots in a spreadsheet.

On a terminal, a table wider than it is shown as stacked tables that each repeat the row
labels and fit its width (`print_fitted`); off a terminal, and in every other format,
tables keep their full width.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segments
from rich.table import Table as RichTable
from rich.text import Text

from gpubfs_cli.errors import unknown_name
from gpubfs_cli.files import write_text_atomic
from gpubfs_cli.report.html import html_text
from gpubfs_cli.report.table import Cell, Document, Table

FORMATS = ("table", "md", "csv", "json", "html")
CSV_FIELDS = ("table", "row", "column", "text", "value", "low", "high", "status", "published", "knob",
              "low_reach", "reason")
_STYLE = {
    "ok": "",
    "missing": "dim",
    "n/a": "dim",
    "unavailable": "dim",
    "out-of-time": "yellow",
    "out-of-memory": "yellow",
    "wrong-answer": "bold red",
    "error": "red",
}


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise unknown_name("format", fmt, FORMATS)
    return fmt


def cell_text(cell: Cell, side_by_side: bool) -> str:
    if side_by_side:
        return f"{cell.published if cell.published is not None else '-'} | {cell.text}"
    return cell.text


# ---------------------------------------------------------------------- rich
def _rich_cell(cell: Cell, side_by_side: bool) -> Text:
    text = Text()
    if side_by_side:
        text.append(cell.published if cell.published is not None else "-", style="cyan")
        text.append(" | ", style="dim")
    text.append(cell.text, style=_STYLE.get(cell.status, ""))
    return text


def table_notes(t: Table) -> list[str]:
    return (["each cell: published | measured here"] if t.side_by_side else []) + t.footnotes


def rich_table(t: Table, cols: list[int] | None = None, annotated: bool = True,
               caps: dict[int, int] | None = None) -> RichTable:
    """`t` drawn by rich: its row labels and the data columns `cols` (indices into
    `t.columns`; default all); `annotated` puts the title and the notes on it; `caps`
    holds the widest a column may be (its title wraps within it)."""
    cols = list(range(1, len(t.columns))) if cols is None else cols
    caps = caps or {}
    rt = RichTable(title=Text(t.title, style="bold") if annotated else None, title_justify="left",
                   caption_justify="left")
    rt.add_column(Text(t.columns[0]), justify="left", overflow="fold")
    for i in cols:
        rt.add_column(Text(t.columns[i]), justify="right", overflow="fold", max_width=caps.get(i))
    for row in t.rows:
        rt.add_row(Text(row[0].text, style="bold"), *(_rich_cell(row[i], t.side_by_side) for i in cols))
    if annotated and table_notes(t):
        rt.caption = Text("\n".join(table_notes(t)), style="dim")
    return rt


def natural_width(rt: RichTable, console: Console) -> int:
    """The width at which no cell of `rt` wraps."""
    return console.measure(rt, options=console.options.update_width(1 << 16)).maximum


def data_width(t: Table, i: int) -> int:
    """The narrowest column `i` can be with no cell wrapped, its title wrapped at words."""
    lines = [line for row in t.rows for line in cell_text(row[i], t.side_by_side).split("\n")]
    return max([cell_len(s) for s in lines + t.columns[i].split()] + [1])


def column_parts(t: Table, console: Console) -> list[list[int]]:
    """The data columns of each of the stacked tables that show `t` within the console's
    width, each beside the row labels: as many columns, in order, as fit with no cell
    wrapped. A column too wide even alone gets a table of its own, drawn at the console's
    width (its cells wrap)."""
    caps = {i: data_width(t, i) for i in range(1, len(t.columns))}
    parts: list[list[int]] = []
    for i in caps:
        cols = parts[-1] + [i] if parts else []
        if cols and natural_width(rich_table(t, cols, False, caps), console) <= console.width:
            parts[-1] = cols
        else:
            parts.append([i])
    return parts or [[]]


def title_caps(t: Table, cols: list[int], console: Console) -> dict[int, int]:
    """Column widths for one stacked table: no cell wrapped, and the width left over
    shared among the columns whose titles would still wrap."""
    caps = {i: data_width(t, i) for i in cols}
    spare = console.width - natural_width(rich_table(t, cols, False, caps), console)
    while spare > 0:
        short = [i for i in cols if caps[i] < cell_len(t.columns[i])][:spare]
        if not short:
            break
        for i in short:
            caps[i] += 1
        spare -= len(short)
    return caps


def print_fitted(t: Table, console: Console) -> None:
    """A table on a terminal: its title, then stacked tables that fit the width and repeat
    the row labels, then its notes; every line within the width, no cell left out."""
    if t.title:
        console.print(Text(t.title, style="bold"))
    for cols in column_parts(t, console):
        console.print(rich_table(t, cols, False, title_caps(t, cols, console)))
    for note in table_notes(t):
        console.print(Text(note, style="dim"))


def print_natural(t: Table, console: Console) -> None:
    """A table off a terminal (a file, a pipe): at its natural width, whatever the
    console's, so no cell wraps."""
    rt = rich_table(t)
    width = natural_width(rt, console)
    if width <= console.width:
        console.print(rt, width=width)
    else:  # wider than the console: draw the lines at that width, print them as they are
        lines = console.render_lines(rt, console.options.update_width(width), pad=False, new_lines=True)
        console.print(Segments(seg for line in lines for seg in line), soft_wrap=True)


def print_rich(doc: Document, console: Console) -> None:
    """Every table through one rule: fitted to a terminal's width, natural elsewhere."""
    wrap = console.is_terminal  # off a terminal, a line is never wrapped at 80 columns
    console.print(Text(doc.title, style="bold"), soft_wrap=not wrap)
    for line in doc.header:
        console.print(Text(line, style="dim"), soft_wrap=not wrap)
    for t in doc.tables:
        (print_fitted if wrap else print_natural)(t, console)
    for note in doc.notes:
        console.print(Text(note), soft_wrap=not wrap)


def rich_text(doc: Document, width: int = 200) -> str:
    buf = io.StringIO()
    print_rich(doc, Console(file=buf, width=width, color_system=None, highlight=False))
    return buf.getvalue()


# ---------------------------------------------------------------------- markdown
def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def markdown(doc: Document) -> str:
    lines = [f"# {doc.title}", ""]
    lines += [f"- {_md_escape(h)}" for h in doc.header]
    for t in doc.tables:
        lines += ["", f"## {t.title}", ""]
        if t.side_by_side:
            lines += ["Each cell: published \\| measured here.", ""]
        lines.append("| " + " | ".join(_md_escape(c) for c in t.columns) + " |")
        lines.append("|" + "|".join(["---"] + ["---:"] * (len(t.columns) - 1)) + "|")
        for row in t.rows:
            cells = [row[0].text] + [cell_text(c, t.side_by_side) for c in row[1:]]
            lines.append("| " + " | ".join(_md_escape(c) for c in cells) + " |")
        if t.footnotes:
            lines.append("")
            lines += [f"- {_md_escape(n)}" for n in t.footnotes]
    if doc.notes:
        lines.append("")
        lines += [f"- {_md_escape(n)}" for n in doc.notes]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- csv
def csv_text(doc: Document) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    w.writeheader()
    for t in doc.tables:
        for row in t.rows:
            for col, cell in zip(t.columns[1:], row[1:], strict=True):
                w.writerow({
                    "table": t.id, "row": row[0].text, "column": col, "text": cell.text,
                    "value": _number(cell.value), "low": _number(cell.low), "high": _number(cell.high),
                    "status": cell.status, "published": cell.published or "",
                    "knob": cell.knob or "", "low_reach": int(cell.low_reach), "reason": cell.reason or "",
                })
    return buf.getvalue()


def _number(v: float | None) -> str:
    return "" if v is None else repr(float(v))


# ---------------------------------------------------------------------- dispatch
def render(doc: Document, fmt: str) -> str:
    check_format(fmt)
    if fmt == "table":
        return rich_text(doc)
    if fmt == "md":
        return markdown(doc)
    if fmt == "csv":
        return csv_text(doc)
    if fmt == "json":
        return json.dumps(doc.to_dict(), indent=1, default=str) + "\n"
    return html_text(doc)


def write_output(path: str | Path, text: str, *, force: bool = True) -> Path:
    """Write atomically: a partial report never sits under the final name; without
    `force` an existing file is refused, one another command wrote meanwhile too."""
    return write_text_atomic(path, text, "report", force=force)
