"""Matrix Market coordinate files (.mtx; SuiteSparse ships NAME/NAME.mtx in NAME.tar.gz).

`%%MatrixMarket matrix coordinate <field> <symmetry>`, `%` comments, the size line
`M N L`, then L entries `i j [value]`, 1-based. Entry (i, j) is the arc i -> j.
Fields: pattern (no weights), integer, real/double (weights from the value column);
complex and dense `array` files are refused. Symmetric, hermitian and skew-symmetric
files list one triangle; the EdgeList is then undirected (directed=False) and the CSR
builder mirrors it. Explicit zeros are entries like any other: the paper's edge counts
include them (DATASETS.md 2.4).
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

NAME = "mtx"
SUFFIXES = (".mtx",)
SUMMARY = "Matrix Market coordinate: pattern/integer/real, general or symmetric"
FIELDS = ("pattern", "integer", "real", "double")
SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")
BANNER = "'%%MatrixMarket matrix coordinate <field> <symmetry>'"


def _banner(reader: TextReader) -> tuple[str, str]:
    text = reader.peek_line() or ""
    words = text.lower().split()
    if len(words) != 5 or words[0] != "%%matrixmarket" or words[1] != "matrix":
        raise reader.error(f"expected the banner {BANNER}, got '{text[:80]}'")
    layout, field, symmetry = words[2:]
    if layout == "array":
        raise reader.error("dense 'array' Matrix Market files are not supported; expected 'coordinate'")
    if layout != "coordinate":
        raise reader.error(f"expected 'coordinate' as the format, got '{layout}'")
    if field not in FIELDS:
        raise reader.error(f"field '{field}' is not supported; expected one of {', '.join(FIELDS)}")
    if symmetry not in SYMMETRIES:
        raise reader.error(f"symmetry '{symmetry}' unknown; expected one of {', '.join(SYMMETRIES)}")
    reader.next_line()
    return field, symmetry


def read(reader: TextReader, directed: bool | None = None) -> EdgeList:
    field, symmetry = _banner(reader)
    comments, text = skip_comments(reader, "%")
    size_line = reader.line
    size = int_tokens((text or "").split())
    if size is None or len(size) != 3:
        raise reader.error(f"expected the size line '<rows> <columns> <entries>', got '{(text or '')[:80]}'")
    rows, cols, entries = size
    if rows != cols:
        raise reader.error(f"the matrix is {rows} x {cols}; a graph needs a square matrix")
    reader.next_line()
    layout = Layout(
        2 if field == "pattern" else 3,
        "'<row> <column>'" if field == "pattern" else f"'<row> <column> <{field} value>'",
        float_last=field in ("real", "double"),
        comments="%",
    )
    parsed = reader.parse(layout, capacity=capacity_hint(entries, reader))
    check_count(reader, parsed, entries, "entries", size_line)
    check_vertex_count(reader, rows, entries, size_line, f"line {size_line} declares")
    src, dst = parsed.ints[0], parsed.ints[1]
    check_ids(reader, parsed, src, 1, rows, "row index")
    check_ids(reader, parsed, dst, 1, cols, "column index")
    if symmetry != "general":
        upper = src <= dst if symmetry == "skew-symmetric" else src < dst
        if upper.any():
            bad = int(upper.argmax())
            side = "strictly below" if symmetry == "skew-symmetric" else "on or below"
            raise reader.error(
                f"a {symmetry} file lists only entries {side} the diagonal; found ({src[bad]}, {dst[bad]})",
                parsed.locate(bad),
            )
        del upper
    src -= 1
    dst -= 1
    weights = parsed.floats if layout.float_last else (parsed.ints[2] if field == "integer" else None)
    check_weights(reader, parsed, weights)
    info = {
        "format": NAME,
        "source": reader.name,
        "header": {"rows": rows, "columns": cols, "entries": entries, "field": field, "symmetry": symmetry},
        "records": parsed.rows,
        "comments": comments,
    }
    is_directed = symmetry == "general" and directed is not False
    return EdgeList(src, dst, rows, is_directed, weights=weights, info=info)
