"""Checks and header helpers the format modules share."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpubfs_cli.graph.io.text import Parsed, TextReader
from gpubfs_cli.graph.memory import available_memory

MAX_COMMENTS = 50

# The vertex count a file may ask for (check_vertex_count). The CSR build keys an edge as
# u * n + v in int64, so n <= isqrt(2**63 - 1); n costs some BUILD_BYTES_PER_VERTEX of
# memory whatever the edges (offsets, degree counts, stats); and n far beyond the edge
# records means sparse ids, not a graph of isolated vertices.
MAX_VERTICES = 3_037_000_499
VERTICES_PER_RECORD = 16
FREE_VERTICES = 1 << 22
BUILD_BYTES_PER_VERTEX = 40
COMPACT_HINT = "renumber the ids that occur with compact ids (fetch-dataset --compact-ids; catalogue: compact_ids: true)"


def skip_comments(
    reader: TextReader, prefixes: str, line_numbers: list[int] | None = None
) -> tuple[list[str], str | None]:
    """Consume blank lines and lines starting with one of `prefixes`.

    -> (the comments, first 50, each cut to 200 characters; the next line, not consumed,
    or None at the end of the file). `line_numbers`, when given, receives the line of
    each comment returned.
    """
    comments: list[str] = []
    while (text := reader.peek_line()) is not None:
        stripped = text.strip()
        if stripped and stripped[0] not in prefixes:
            return comments, text
        if stripped and len(comments) < MAX_COMMENTS:
            comments.append(stripped[:200])
            if line_numbers is not None:
                line_numbers.append(reader.line)
        reader.next_line()
    return comments, None


def int_tokens(tokens: list[str]) -> list[int] | None:
    """The tokens as integers, or None when one is not a (non-negative) integer."""
    if not all(t.isascii() and t.isdigit() for t in tokens):
        return None
    return [int(t) for t in tokens]


def check_ids(
    reader: TextReader,
    parsed: Parsed,
    ids: np.ndarray,
    lo: int,
    hi: int,
    what: str,
    row_of: Callable[[int], int] | None = None,
) -> None:
    """Every id in lo..hi, or an error at the line of the first one outside.

    row_of maps an index into `ids` to the data row holding it (default: the same).
    """
    if not len(ids):
        return
    if int(ids.min()) >= lo and int(ids.max()) <= hi:
        return
    bad = int(np.flatnonzero((ids < lo) | (ids > hi))[0])
    row = bad if row_of is None else row_of(bad)
    raise reader.error(f"{what} {int(ids[bad])} out of range {lo}..{hi}", parsed.locate(row))


def check_weights(
    reader: TextReader,
    parsed: Parsed,
    weights: np.ndarray | None,
    row_of: Callable[[int], int] | None = None,
) -> None:
    """When the reader keeps weights for shortest paths (reader.nonnegative_weights),
    none is negative, else an error at the line of the first. row_of as in check_ids."""
    if not reader.nonnegative_weights or weights is None or not len(weights):
        return
    negative = weights < 0
    if not negative.any():
        return
    bad = int(negative.argmax())
    row = bad if row_of is None else row_of(bad)
    raise reader.error(f"edge weight {weights[bad].item()!r} is negative; the graph's weights are kept for "
                       "shortest paths, which need weights >= 0", parsed.locate(row))


def check_vertex_count(reader: TextReader, n: int, records: int, line: int | None, origin: str) -> None:
    """n vertices are plausible for `records` edge records and fit in memory, or an error.

    origin says where n comes from ('line 2 declares', 'the largest id, + 1, gives').
    Skipped when the ids are compacted (reader.bound_vertices is False): n is then the
    number of distinct ids.
    """
    if not reader.bound_vertices:
        return
    unit = "record" if records == 1 else "records"
    if n > MAX_VERTICES:
        raise reader.error(
            f"{origin} {n:,} vertices, over the {MAX_VERTICES:,} a graph can have here; {COMPACT_HINT}", line
        )
    if n > max(FREE_VERTICES, VERTICES_PER_RECORD * records):
        raise reader.error(
            f"{origin} {n:,} vertices for {records:,} edge {unit}: almost all would be isolated "
            f"(ids are sparse?); {COMPACT_HINT}", line
        )
    need = BUILD_BYTES_PER_VERTEX * n
    free = available_memory()
    if free is not None and need > free:
        raise reader.error(
            f"{origin} {n:,} vertices: building the graph needs about {need / 2**30:.1f} GiB, "
            f"{free / 2**30:.1f} GiB of memory is available; {COMPACT_HINT}", line
        )


def check_count(
    reader: TextReader, parsed: Parsed, declared: int, what: str, header_line: int
) -> None:
    """The number of data rows equals what the header declared."""
    if parsed.rows == declared:
        return
    if parsed.rows > declared:
        raise reader.error(
            f"more {what} than the {declared} declared on line {header_line}",
            parsed.locate(declared),
        )
    raise reader.error(
        f"line {header_line} declares {declared} {what}; the file holds {parsed.rows}",
        parsed.end_line,
    )
