"""Failure footnotes, and the terminal's collapse of strategies unavailable for one reason.

A machine without a GPU makes dozens of columns that all read `unavailable: CuPy is not
installed`; the terminal table drops them for one line per reason, put first under the
table: `46 strategies unavailable: CuPy is not installed (classic.*, merrill.*, ...)`.
Other formats keep every cell.
"""

from __future__ import annotations

from gpubfs_cli.report.table import Table


def reason_footnotes(table: Table) -> list[str]:
    """The full text of each failure reason, one line per reason: the columns that have it
    on every row, then the others with the rows that have it."""
    by_reason: dict[tuple[str, str], dict[str, list[str]]] = {}
    for row in table.rows:
        for col, c in zip(table.columns[1:], row[1:], strict=True):
            if c.reason and c.status != "ok":
                by_reason.setdefault((c.status, c.reason), {}).setdefault(col, []).append(row[0].text)
    lines = []
    for (status, reason), cols in by_reason.items():
        whole = [col for col, rows in cols.items() if len(rows) == len(table.rows)]
        parts = ([", ".join(whole) + f" (every {table.columns[0]})"] if whole else []) + [
            f"{col} on {', '.join(rows)}" for col, rows in cols.items() if col not in whole
        ]
        lines.append(f"{status} ({reason}): {'; '.join(parts)}")
    return lines


def _name(column: str) -> str:
    """The strategy of a column title: `merrill.multi_gpu (2 GPUs) +pred` -> `merrill.multi_gpu`."""
    return column.split(" ")[0]


def _family(name: str) -> str:
    return name.split(".")[0]


def _names(table: Table, cols: list[int]) -> list[str]:
    """What a collapse line lists: a strategy by its name (by its column titles where
    some of its columns stay), `family.*` where several go and none of the family stays."""
    staying = {_name(table.columns[i]) for i in range(1, len(table.columns)) if i not in cols}
    gone = {_name(table.columns[i]) for i in cols} - staying
    out = []
    for i in cols:
        name = _name(table.columns[i])
        family = _family(name)
        if name in staying:
            out.append(table.columns[i])
        elif sum(_family(n) == family for n in gone) > 1 and family not in map(_family, staying):
            out.append(f"{family}.*")
        else:
            out.append(name)
    return list(dict.fromkeys(out))


def collapse_unavailable(table: Table) -> Table:
    """Drop the strategy columns that are `unavailable` on every row for one reason; one
    line per reason names them, first among the footnotes (in place; returns `table`)."""
    if not table.rows:
        return table
    groups: dict[str, list[int]] = {}
    for i in range(1, len(table.columns)):
        cells = [row[i] for row in table.rows]
        if all(c.status == "unavailable" for c in cells) and len({c.reason for c in cells}) == 1:
            groups.setdefault(cells[0].reason or "no reason given", []).append(i)
    if not groups:
        return table
    lines = []
    for reason, cols in groups.items():
        count = len({_name(table.columns[i]) for i in cols})
        lines.append(f"{count} {'strategy' if count == 1 else 'strategies'} unavailable: {reason} "
                     f"({', '.join(_names(table, cols))})")
    old = reason_footnotes(table)
    at = next((k for k, f in enumerate(table.footnotes) if f in old), len(table.footnotes))
    rest = [f for f in table.footnotes if f not in old]
    gone = {i for cols in groups.values() for i in cols}
    keep = [i for i in range(len(table.columns)) if i not in gone]
    table.columns = [table.columns[i] for i in keep]
    table.rows = [[row[i] for i in keep] for row in table.rows]
    table.footnotes = lines + rest[:at] + reason_footnotes(table) + rest[at:]
    return table
