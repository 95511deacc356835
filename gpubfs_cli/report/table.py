"""The table model every report renders: titled tables of cells, plus footnotes.

A cell carries what is shown (`text`), the number behind it when there is one (`value`),
its status (`ok`, `missing`, a failure status, or `n/a`) and, in paper layouts, the
published text beside it. Renderers (render.py) never compute anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Cell:
    text: str
    value: float | None = None
    status: str = "ok"  # ok | partial | missing | n/a | out-of-time | out-of-memory | unavailable | wrong-answer | error
    published: str | None = None  # paper layouts: the paper's number, as printed
    knob: str | None = None  # winning knob label of a sweep, e.g. "W4"
    low_reach: bool = False
    reason: str | None = None  # full reason behind a failure or n/a text (footnotes)
    low: float | None = None  # the spread behind `value`: a median time's, per-level cost's or
    high: float | None = None  # speedup's interquartile range, a --compare ratio's bootstrap interval
    variants: tuple[int, int] | None = None  # a partial knob sweep: (variants measured, variants planned)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "value": self.value, "status": self.status}
        if self.published is not None:
            out["published"] = self.published
        if self.knob is not None:
            out["knob"] = self.knob
        if self.low_reach:
            out["low_reach"] = True
        if self.reason:
            out["reason"] = self.reason
        if self.low is not None:
            out["low"], out["high"] = self.low, self.high
        if self.variants is not None:
            out["variants_measured"], out["variants_planned"] = self.variants
        return out


@dataclass
class Table:
    id: str
    title: str
    columns: list[str]  # the first column holds the row labels
    rows: list[list[Cell]] = field(default_factory=list)
    footnotes: list[str] = field(default_factory=list)
    side_by_side: bool = False  # cells show "published | measured"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "columns": self.columns,
            "side_by_side": self.side_by_side,
            "rows": [[c.to_dict() for c in row] for row in self.rows],
            "footnotes": self.footnotes,
        }


@dataclass
class Document:
    """What one `gpubfs report` invocation renders: a header, tables, free notes, data."""

    title: str
    header: list[str] = field(default_factory=list)  # lines: files, machines
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)  # extra machine-readable content (json)

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "header": self.header,
            "tables": [t.to_dict() for t in self.tables],
            "notes": self.notes,
            **self.data,
        }


def label(text: str) -> Cell:
    return Cell(text=text, status="n/a")


def fmt_number(v: float | None, decimals: int | None = None) -> str:
    """Readable without exponent notation for the ranges tables show."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if math.isinf(v):
        return "inf"
    if decimals is not None:
        return f"{v:,.{decimals}f}"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 10:
        return f"{v:.2f}"
    if a >= 0.01 or a == 0:
        return f"{v:.3f}"
    return f"{v:.3g}"


def fmt_published(v: Any) -> str:
    """A published number as written in the yaml (quoted there where the paper's digits
    differ from Python's, e.g. "0.50")."""
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return repr(v) if abs(v) >= 1e-4 or v == 0 else f"{v:g}"
    return str(v)
