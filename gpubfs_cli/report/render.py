"""Documents -> terminal (rich), Markdown, CSV, JSON, HTML. No computation here.

CSV is tidy, one line per cell (table, row, column, text, value, low, high, status,
published, knob, low_reach, reason), so every report, whatever its number of tables, reads back with
csv.DictReader and pivots in a spreadsheet.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from rich.console import Console
from rich.segment import Segments
from rich.table import Table as RichTable
from rich.text import Text

from gpubfs_cli.errors import unknown_name
from gpubfs_cli.files import write_text_atomic
from gpubfs_cli.report.html import html_text
from gpubfs_cli.report.table import Cell, Document

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


def rich_tables(doc: Document) -> list:
    out: list = []
    for t in doc.tables:
        rt = RichTable(title=Text(t.title, style="bold"), title_justify="left", caption_justify="left")
        for i, col in enumerate(t.columns):
            rt.add_column(Text(col), justify="left" if i == 0 else "right", overflow="fold")
        for row in t.rows:
            rt.add_row(Text(row[0].text, style="bold"), *(_rich_cell(c, t.side_by_side) for c in row[1:]))
        notes = (["each cell: published | measured here"] if t.side_by_side else []) + t.footnotes
        if notes:
            rt.caption = Text("\n".join(notes), style="dim")
        out.append(rt)
    return out


def table_width(rt: RichTable, console: Console) -> int:
    """The width `rt` is drawn at: its natural width off a terminal (a file or a pipe has
    no width to fit), else the terminal's, but never below the width at which no word or
    number of a cell has to break (the terminal then folds whole lines instead)."""
    measure = console.measure(rt, options=console.options.update_width(1 << 16))
    if not console.is_terminal:
        return measure.maximum
    # Past the terminal's width, the natural width: rich's minimum for a wide table with
    # many columns still folded bracketed spreads ("[158.6-183." / "1]") in Merrill's Table 2.
    return console.width if measure.minimum <= console.width else measure.maximum


def print_rich(doc: Document, console: Console) -> None:
    wrap = console.is_terminal  # off a terminal, a line is never wrapped at 80 columns
    console.print(Text(doc.title, style="bold"), soft_wrap=not wrap)
    for line in doc.header:
        console.print(Text(line, style="dim"), soft_wrap=not wrap)
    for rt in rich_tables(doc):
        width = table_width(rt, console)
        if width <= console.width:
            console.print(rt, width=width)
        else:  # wider than the console: draw the lines at that width, print them as they are
            lines = console.render_lines(rt, console.options.update_width(width), pad=False, new_lines=True)
            console.print(Segments(seg for line in lines for seg in line), soft_wrap=True)
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


def write_output(path: str | Path, text: str) -> Path:
    """Write atomically: a partial report never sits under the final name."""
    return write_text_atomic(path, text)
