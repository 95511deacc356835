"""Checks and header helpers the format modules share."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpubfs_cli.graph.io.text import Parsed, TextReader

MAX_COMMENTS = 50


def skip_comments(reader: TextReader, prefixes: str) -> tuple[list[str], str | None]:
    """Consume blank lines and lines starting with one of `prefixes`.

    -> (the comments, first 50, each cut to 200 characters; the next line, not consumed,
    or None at the end of the file).
    """
    comments: list[str] = []
    while (text := reader.peek_line()) is not None:
        stripped = text.strip()
        if stripped and stripped[0] not in prefixes:
            return comments, text
        if stripped and len(comments) < MAX_COMMENTS:
            comments.append(stripped[:200])
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
