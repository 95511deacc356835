"""DIMACS 9th challenge shortest-path graphs (.gr): `c` comments, `p sp n m`, `a u v w`.

Ids are 1-based; every arc is kept as listed (parallel arcs and self-loops too), with its
weight. The arcs are directed unless the caller says otherwise (the challenge lets a
graph be read either way). The declared n and m are checked against the content.
"""

from __future__ import annotations

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.io.common import (
    check_count,
    check_ids,
    check_vertex_count,
    check_weights,
    int_tokens,
    skip_comments,
)
from gpubfs_cli.graph.io.text import Layout, TextReader, capacity_hint

NAME = "dimacs9"
SUFFIXES = (".gr",)
SUMMARY = "DIMACS 9th challenge .gr: 'p sp n m', 'a u v w' (1-based, weighted arcs)"
ARC = Layout(3, "an arc line 'a <tail> <head> <weight>'", tag="a", comments="c")


def read(reader: TextReader, directed: bool | None = None, fmt: str = NAME) -> EdgeList:
    comments, text = skip_comments(reader, "c")
    header_line = reader.line
    tokens = (text or "").split()
    counts = int_tokens(tokens[2:]) if tokens[:2] == ["p", "sp"] else None
    if counts is None or len(counts) != 2:
        raise reader.error(f"expected the problem line 'p sp <n> <m>', got '{(text or '')[:80]}'")
    n, m = counts
    reader.next_line()
    parsed = reader.parse(ARC, capacity=capacity_hint(m, reader))
    check_count(reader, parsed, m, "arcs", header_line)
    check_vertex_count(reader, n, m, header_line, f"line {header_line} declares")
    src, dst, weights = parsed.ints
    check_ids(reader, parsed, src, 1, n, "tail")
    check_ids(reader, parsed, dst, 1, n, "head")
    check_weights(reader, parsed, weights)
    src -= 1
    dst -= 1
    info = {"format": fmt, "source": reader.name, "header": {"n": n, "m": m}, "records": parsed.rows, "comments": comments}
    return EdgeList(src, dst, n, True if directed is None else directed, weights=weights, info=info)
