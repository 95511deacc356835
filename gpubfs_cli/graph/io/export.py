"""Write a CSR graph as Matrix Market or a plain edge list, fast enough for 100M edges.

Text is produced by a numba routine that formats blocks of (u, v) or (u, v, w) lines straight into
a byte buffer (np.savetxt formats one number at a time in Python). The file is written
to a temporary name beside PATH and published when complete (files.atomic_output); PATH
must be a regular file or a new name (files.check_output_path), and a failed write leaves
nothing behind.

Each format is written for the peer that reads it, and tests load it with that peer's
rules (tests/graph/test_export_peers.py):
- mtx (Gunrock, scipy.io.mmread): `coordinate pattern general` for a directed graph
  (every CSR entry, 1-based); `coordinate pattern symmetric` for an undirected one
  (entries with row >= column, which the reader mirrors back into both directions).
  `%` comment lines after the banner, the size line `n n entries`.
- wmtx (Gunrock's sssp): the mtx file with the edge's weight as a third column, under
  `coordinate integer general|symmetric` (the same entries; a symmetric file's weight is
  that of its row >= column entry, which both directions share in an undirected CSR).
  Weights must be whole numbers >= 0 (Gunrock's SSSP takes no negative weight).
- el (gapbs `bfs -f G.el`): nothing but `u v` lines, 0-based, one per CSR entry (both
  directions of an undirected edge, so no `-s` is needed). No comment: gapbs's reader
  stops at the first line that is not two numbers (a comment made it build a 1-vertex
  graph). gapbs sizes the graph by its largest id and drops self-loops, so when the
  last vertices have no edges a self-loop `n-1 n-1` is appended: gapbs (and gpubfs's
  SNAP reader, which drops self-loops too) then see all n vertices and the same m.
  Ids must fit gapbs's 32-bit vertex ids.
- wel (gapbs `sssp -f G.wel`): the el lines with the edge's weight, `u v w`, under the
  same rules (no comment; the tail self-loop, weight 1, which gapbs drops). Weights must
  be whole numbers in [0, 2^31 - 1]: gapbs reads them as int32.
- sg (gapbs `bfs -f G.sg`): gapbs's serialized graph, the CSR as it is (what gapbs's
  `converter -b` writes, which takes minutes on an edge list of 10^8 edges): a byte
  `directed`, int64 m, int64 n, int64 offsets[n+1], int32 neighbours[m], and for a
  directed graph the in-edges the same way. gapbs loads it in a fraction of a second.
Only wel and wmtx write weights.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from numba import njit

from gpubfs_cli.errors import UserError
from gpubfs_cli.files import atomic_output, check_output_path
from gpubfs_cli.graph.build import reverse_csr
from gpubfs_cli.graph.csr import CSRGraph

EXPORT_FORMATS = ("mtx", "el", "sg", "wel", "wmtx")
BLOCK_EDGES = 1 << 22  # pairs formatted per block: about 90 MB of text
GAPBS_MAX_ID = 2**31 - 1  # gapbs reads ids (and sssp its weights) as int32
# The weighted formats: the largest whole-number weight each takes, that range, and why.
WEIGHT_LIMITS = {
    "wel": (GAPBS_MAX_ID, "[0, 2^31 - 1]", "gapbs reads int32"),
    "wmtx": (2**63 - 1, "[0, 2^63 - 1]", "Matrix Market's integer field; shortest paths take no negative weight"),
}


@njit(cache=True, nogil=True)
def _format_pairs(src, dst, w, base, out):
    """Write 'src+base dst+base\\n' for each pair into `out`, or 'src+base dst+base w\\n'
    when `w` (non-negative) is as long as `src`; returns the bytes used."""
    pos = 0
    digits = np.empty(20, dtype=np.uint8)
    fields = 3 if w.shape[0] == src.shape[0] and src.shape[0] > 0 else 2
    for i in range(src.shape[0]):
        for which in range(fields):
            if which == 0:
                x = src[i] + base
            elif which == 1:
                x = dst[i] + base
            else:
                x = w[i]
            k = 0
            while True:
                digits[k] = 48 + x % 10
                x //= 10
                k += 1
                if x == 0:
                    break
            while k > 0:
                k -= 1
                out[pos] = digits[k]
                pos += 1
            out[pos] = 10 if which == fields - 1 else 32
            pos += 1
    return pos


def _row_blocks(row_offsets: np.ndarray, block: int):
    """Row ranges [a, b) holding about `block` edges each (a row is never split)."""
    m = int(row_offsets[-1])
    n = len(row_offsets) - 1
    cuts = np.searchsorted(row_offsets, np.arange(block, m, block, dtype=np.int64), side="right") - 1
    bounds = np.unique(np.concatenate([[0], cuts, [n]]))
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        if a < b:
            yield int(a), int(b)


def _pairs(graph: CSRGraph, a: int, b: int, lower_only: bool, weights: np.ndarray | None = None):
    """(src, dst, w) of rows [a, b); w is the entries' weights (empty without `weights`)."""
    ro = np.asarray(graph.row_offsets[a : b + 1])
    dst = np.asarray(graph.col_indices[ro[0] : ro[-1]]).astype(np.int64)
    src = np.repeat(np.arange(a, b, dtype=np.int64), np.diff(ro))
    w = np.empty(0, dtype=np.int64) if weights is None else weights[int(ro[0]) : int(ro[-1])]
    if lower_only:
        keep = src >= dst
        src, dst = src[keep], dst[keep]
        w = w if weights is None else w[keep]
    return src, dst, w


def text_weights(graph: CSRGraph, fmt: str) -> np.ndarray:
    """The weights as int64 for a wel or wmtx file; UserError unless whole numbers in the
    format's range (WEIGHT_LIMITS): a float weight with a fraction would be cut silently
    by gapbs's int32 reader, and a negative one breaks both peers' shortest paths."""
    name = graph.name or "the graph"
    if graph.weights is None:
        raise UserError(f"{name}: {fmt} needs edge weights and the graph has none")
    high, span, why = WEIGHT_LIMITS[fmt]
    w = np.asarray(graph.weights)
    if w.dtype.kind == "f" and not (np.isfinite(w).all() and (np.floor(w) == w).all()):
        raise UserError(f"{name}: {fmt} takes whole-number weights ({why})")
    if len(w) and (int(w.min()) < 0 or int(w.max()) > high):  # whole numbers by now: int() is exact
        raise UserError(f"{name}: {fmt} weights must lie in {span} ({why}); these span [{w.min()}, {w.max()}]")
    return w.astype(np.int64, copy=False)


def needs_tail_loop(graph: CSRGraph) -> bool:
    """True when vertex n-1 is in no edge: an edge list would then lose the last vertices."""
    n = graph.n
    if n == 0:
        return False
    ro = np.asarray(graph.row_offsets)
    if ro[n] > ro[n - 1]:  # n-1 has out-edges
        return False
    cols = np.asarray(graph.col_indices)
    return not (len(cols) and int(cols.max()) == n - 1)


def _write_text(graph: CSRGraph, f, fmt: str, comment: str) -> int:
    """mtx, wmtx, el or wel lines (see the module docstring); returns the lines of edges written."""
    mtx = fmt in ("mtx", "wmtx")
    symmetric = mtx and not graph.directed
    weights = text_weights(graph, fmt) if fmt in WEIGHT_LIMITS else None
    blocks = list(_row_blocks(np.asarray(graph.row_offsets), BLOCK_EDGES))
    if symmetric:
        count = sum(len(_pairs(graph, a, b, True)[0]) for a, b in blocks)
    else:
        count = graph.m
    tail_loop = fmt in ("el", "wel") and needs_tail_loop(graph)
    per_pair = 2 * len(str(graph.n + 1)) + 2  # widest line: two ids, a space, a newline
    if weights is not None:
        per_pair += len(str(int(weights.max()) if len(weights) else 0)) + 1
    buf = np.empty(BLOCK_EDGES * per_pair, dtype=np.uint8)
    if mtx:
        field = "pattern" if weights is None else "integer"
        f.write(f"%%MatrixMarket matrix coordinate {field} {'symmetric' if symmetric else 'general'}\n".encode())
        for line in comment.splitlines():
            # mmio reads lines of up to 1024 bytes: a longer comment would spill
            f.write(f"% {' '.join(line.split())[:1000]}\n".encode())
        f.write(f"{graph.n} {graph.n} {count}\n".encode())
    base = 1 if mtx else 0
    for a, b in blocks:
        src, dst, w = _pairs(graph, a, b, symmetric, weights)
        need = len(src) * per_pair
        if need > len(buf):
            buf = np.empty(need, dtype=np.uint8)
        used = _format_pairs(src, dst, w, base, buf)
        f.write(memoryview(buf[:used]))
    if tail_loop:
        f.write(f"{graph.n - 1} {graph.n - 1}{' 1' if weights is not None else ''}\n".encode())
    return count + int(tail_loop)


def _write_sg(graph: CSRGraph, f) -> None:
    """gapbs's serialized graph (its builder's layout; see the module docstring)."""
    f.write(np.array([graph.directed], dtype=np.uint8).tobytes())
    f.write(np.array([graph.m, graph.n], dtype=np.int64).tobytes())
    for csr in (graph, reverse_csr(graph)) if graph.directed else (graph,):
        f.write(memoryview(np.ascontiguousarray(csr.row_offsets, dtype=np.int64)))
        f.write(memoryview(np.ascontiguousarray(csr.col_indices, dtype=np.int32)))


def export_graph(graph: CSRGraph, path: str | Path, fmt: str = "mtx", *, comment: str = "",
                 force: bool = True) -> int:
    """Write `graph` to `path` in `fmt` (mtx | el | sg | wel | wmtx); returns the number of
    edges written (lines for mtx, wmtx, el and wel: for el and wel the appended self-loop
    of the last vertex included, when there is one; m for sg).

    `comment` goes into a Matrix Market file (mtx, wmtx) as `%` lines; el, sg and wel have none.
    Without `force` an existing PATH is refused, one written meanwhile too."""
    if fmt not in EXPORT_FORMATS:
        from gpubfs_cli.errors import unknown_name

        raise unknown_name("export format", fmt, EXPORT_FORMATS)
    if fmt in ("el", "sg", "wel") and graph.n - 1 > GAPBS_MAX_ID:
        raise UserError(f"{path}: {graph.n:,} vertices: gapbs holds ids below 2^31; use --format mtx")
    if str(path) == "-":  # standard output
        return _write(graph, sys.stdout.buffer, fmt, comment)
    path = Path(path)
    if not path.parent.is_dir():
        raise UserError(f"{path.parent}: no such folder")
    check_output_path(path, "export")
    with atomic_output(path, "export", force=force, option="PATH", binary=True) as f:
        return _write(graph, f, fmt, comment)


def _write(graph: CSRGraph, f, fmt: str, comment: str) -> int:
    """The graph in `fmt` to the binary file `f`; the count export_graph returns."""
    if fmt == "sg":
        _write_sg(graph, f)
        return int(graph.m)
    return int(_write_text(graph, f, fmt, comment))
