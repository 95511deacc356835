"""Documents -> terminal (rich), Markdown, CSV, JSON, HTML. No computation here.

CSV is tidy, one line per cell (table, row, column, text, value, status, published, knob,
low_reach), so every report, whatever its number of tables, reads back with
csv.DictReader and pivots in a spreadsheet.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from gpubfs_cli.errors import unknown_name
from gpubfs_cli.files import write_text_atomic
from gpubfs_cli.report.html import html_text
from gpubfs_cli.report.table import Cell, Document

FORMATS = ("table", "md", "csv", "json", "html")
CSV_FIELDS = ("table", "row", "column", "text", "value", "status", "published", "knob", "low_reach")
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


def print_rich(doc: Document, console: Console) -> None:
    console.print(Text(doc.title, style="bold"))
    for line in doc.header:
        console.print(Text(line, style="dim"))
    for rt in rich_tables(doc):
        console.print(rt)
    for note in doc.notes:
        console.print(Text(note))


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
                    "value": "" if cell.value is None else repr(float(cell.value)),
                    "status": cell.status, "published": cell.published or "",
                    "knob": cell.knob or "", "low_reach": int(cell.low_reach),
                })
    return buf.getvalue()


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
