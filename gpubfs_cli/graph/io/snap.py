"""SNAP edge lists (.txt, .txt.gz): `#` comment lines, then one `<from> <to>` pair a line.

Ids are 0-based and often sparse; n = largest id + 1 (read_graph's compact_ids=True
renumbers them); an n far beyond the records read, or beyond memory, is refused with
that hint (common.check_vertex_count). Pairs are split on any whitespace; `%` comments
are skipped too. A third column, when the first data line has one, is kept as weights
(real numbers if it has a point or an exponent). Direction is the caller's call: the
header's wording is not a reliable guide (DATASETS.md 2.3). A `# Nodes: N Edges: M`
header is recorded in info, and its M must be the number of pairs (a truncated file
fails there).
"""

from __future__ import annotations

import re

import numpy as np

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.io.common import (
    check_count,
    check_ids,
    check_vertex_count,
    check_weights,
    skip_comments,
)
from gpubfs_cli.graph.io.text import Layout, TextReader, capacity_hint

NAME = "snap"
SUFFIXES = (".txt", ".el", ".wel", ".edges", ".tsv")
SUMMARY = "SNAP edge list: '# comments', '<from> <to>' pairs (0-based, ids may be sparse)"
_COUNTS = re.compile(r"Nodes:\s*(\d+)\s+Edges:\s*(\d+)")


def read(reader: TextReader, directed: bool | None = None) -> EdgeList:
    numbers: list[int] = []
    comments, first = skip_comments(reader, "#%", numbers)
    header: dict[str, int] = {}
    header_line = None
    for line, number in zip(comments, numbers, strict=True):
        if match := _COUNTS.search(line):
            header = {"nodes": int(match[1]), "edges": int(match[2])}
            header_line = number
            break
    tokens = (first or "").split()
    if first is not None and len(tokens) not in (2, 3):
        raise reader.error(f"expected '<from> <to>' (or '<from> <to> <weight>'); found {len(tokens)} values: '{first[:80]}'")
    weighted = len(tokens) == 3
    real = weighted and any(ch in tokens[2] for ch in ".eE")
    layout = Layout(
        3 if weighted else 2,
        "'<from> <to> <weight>'" if weighted else "'<from> <to>'",
        float_last=real,
        comments="#%",
    )
    parsed = reader.parse(layout, capacity=capacity_hint(header.get("edges", 0), reader))
    if header_line is not None:
        check_count(reader, parsed, header["edges"], "edges", header_line)
    src, dst = parsed.ints[0], parsed.ints[1]
    limit = 2**63 - 2
    check_ids(reader, parsed, src, 0, limit, "node id")
    check_ids(reader, parsed, dst, 0, limit, "node id")
    n = 0
    if parsed.rows:
        top = max(int(src.max()), int(dst.max()))
        n = top + 1
        if reader.bound_vertices:
            row = int(np.flatnonzero((src == top) | (dst == top))[0])
            check_vertex_count(reader, n, parsed.rows, parsed.locate(row),
                               f"node id {top:,} (n = largest id + 1) gives")
    weights = parsed.floats if real else (parsed.ints[2] if weighted else None)
    check_weights(reader, parsed, weights)
    info = {"format": NAME, "source": reader.name, "header": header, "records": parsed.rows, "comments": comments}
    return EdgeList(src, dst, n, True if directed is None else directed, weights=weights, info=info)
