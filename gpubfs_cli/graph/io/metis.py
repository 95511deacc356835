"""METIS / DIMACS 10th challenge graphs (.graph).

`%` comments; header `n m [fmt [ncon]]`; then line i (1..n) lists the neighbours of
vertex i, 1-based (an empty line is an isolated vertex). fmt: 0 plain, 1 edge weights
(`nbr w nbr w ...`), 10 `ncon` vertex weights first on each line, 11 both, and the DIMACS10
extension 100: a multigraph with self-loops, whose m counts adjacency entries instead
of edges (a self-loop is listed once, any other edge twice).

Checked: n lines, the entry count against m (2m, or m for fmt 100), ids in 1..n, and that
every edge is listed in both endpoints' lines (a hash over the pairs, then an exact
search only to name the line). gapbs's 4.graph (`14 53 100`, each arc listed once) fails
that last check, as it should: it is not a DIMACS10 file (DATASETS.md 2.2).

The EdgeList lists every adjacency entry with directed=False; the builder symmetrizes and
drops duplicates. info["both_directions_listed"] says the entries already hold both.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.io.common import (
    check_ids,
    check_vertex_count,
    check_weights,
    int_tokens,
    skip_comments,
)
from gpubfs_cli.graph.io.text import Layout, Parsed, TextReader, capacity_hint
from gpubfs_cli.graph.symmetry import pair_asymmetry

NAME = "metis"
SUFFIXES = (".graph",)
SUMMARY = "METIS / DIMACS10 .graph: 'n m [fmt [ncon]]', one adjacency line per vertex"
FMTS = (0, 1, 10, 11, 100)
ADJACENCY = Layout(0, "an adjacency line of neighbour ids", comments="%")


def _one_sided_entry(src: np.ndarray, dst: np.ndarray, n: int) -> tuple[int, int] | None:
    """An entry (u, v) listed more often than (v, u), or None (exact; error path only)."""
    forward = np.sort(src * n + dst)
    backward = np.sort(dst * n + src)
    differ = np.flatnonzero(forward != backward)
    if not len(differ):
        return None
    i = int(differ[0])
    if forward[i] < backward[i]:
        return divmod(int(forward[i]), n)
    v, u = divmod(int(backward[i]), n)
    return u, v


def _header(reader: TextReader) -> tuple[int, int, int, int, int]:
    _, text = skip_comments(reader, "%")
    line = reader.line
    tokens = (text or "").split()
    values = int_tokens(tokens)
    if values is None or not 2 <= len(values) <= 4:
        raise reader.error(f"expected the header '<n> <m> [fmt [ncon]]', got '{(text or '')[:80]}'")
    n, m = values[:2]
    fmt = values[2] if len(values) > 2 else 0
    if fmt not in FMTS:
        raise reader.error(f"fmt {tokens[2]} is not supported; expected one of {', '.join(map(str, FMTS))}")
    ncon = values[3] if len(values) > 3 else 1
    reader.next_line()
    return n, m, fmt, ncon, line


def _row_error(reader: TextReader, parsed: Parsed, bad: np.ndarray, what: str) -> None:
    if bad.any():
        row = int(bad.argmax())
        raise reader.error(f"vertex {row + 1}: {what}", parsed.locate(row))


def read(reader: TextReader, directed: bool | None = None) -> EdgeList:
    n, m, fmt, ncon, header_line = _header(reader)
    vertex_weights = ncon if fmt in (10, 11) else 0
    edge_weights = fmt in (1, 11)
    entries_expected = m if fmt == 100 else 2 * m
    parsed = reader.parse(
        ADJACENCY,
        capacity=capacity_hint(n + 1, reader),
        value_capacity=capacity_hint(entries_expected * (1 + edge_weights) + n * vertex_weights, reader),
    )
    counts = parsed.counts
    if parsed.rows > n:
        extra = counts[n:] > 0  # blank lines after the last vertex are harmless
        if extra.any():
            row = n + int(extra.argmax())
            raise reader.error(f"line {header_line} declares {n} vertices; this is line {row + 1} of adjacency data", parsed.locate(row))
        counts = counts[:n]
    if parsed.rows < n:
        raise reader.error(f"line {header_line} declares {n} vertices; the file holds {parsed.rows} adjacency lines", parsed.end_line)

    per_row = counts - vertex_weights
    if vertex_weights:
        _row_error(reader, parsed, per_row < 0, f"expected {vertex_weights} vertex weight(s) first (fmt {fmt})")
    if edge_weights:
        _row_error(reader, parsed, per_row % 2 != 0, f"expected '<neighbour> <weight>' pairs (fmt {fmt}); found an odd count")
    degrees = per_row // 2 if edge_weights else per_row
    entries = int(degrees.sum())
    if entries != entries_expected:
        unit = "entries" if fmt == 100 else f"edges, i.e. {entries_expected} adjacency entries"
        raise reader.error(f"header declares m = {m} ({unit}); the adjacency lines hold {entries} entries", header_line)
    check_vertex_count(reader, n, entries, header_line, f"line {header_line} declares")

    values = parsed.values
    weights = None
    if vertex_weights or edge_weights:
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        rel = np.arange(len(values), dtype=np.int64) - starts - vertex_weights
        del starts
        keep = rel >= 0
        if edge_weights:
            weights = values[keep & (rel % 2 == 1)]
            keep &= rel % 2 == 0
        values = values[keep]
        del rel, keep
    ends = np.cumsum(degrees)
    check_ids(reader, parsed, values, 1, n, "neighbour id", lambda j: int(np.searchsorted(ends, j, side="right")))
    check_weights(reader, parsed, weights, lambda j: int(np.searchsorted(ends, j, side="right")))
    dst = values
    dst -= 1
    src = np.repeat(np.arange(n, dtype=np.int64), degrees)
    if pair_asymmetry(src, dst, n) != 0:
        pair = _one_sided_entry(src, dst, n)
        if pair is not None:
            u, v = pair
            raise reader.error(
                f"vertex {v + 1} is in the line of vertex {u + 1} but not the other way round; "
                "a METIS/DIMACS10 file lists every edge in both endpoints' lines",
                parsed.locate(u),
            )
    info = {
        "format": NAME,
        "source": reader.name,
        "header": {"n": n, "m": m, "fmt": fmt, "ncon": ncon},
        "records": entries,
        "both_directions_listed": True,
    }
    return EdgeList(src, dst, n, False, weights=weights, info=info)
