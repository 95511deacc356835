"""Who owns what in mgpu.*: contiguous vertex ranges cut where the edges balance, and
each rank's rows read straight from the CSR files (a memory map: only its part).

Ranges start at multiples of 32, so a rank owns whole words of every bitmap. Rows are
the cache's own files (datasets/store.py writes row_offsets.npy and col_indices.npy);
a graph that has no files (built in memory) is written once, in that same format, to a
temporary folder the strategy removes on release.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ALIGN = 32
ROWS, COLS = "row_offsets.npy", "col_indices.npy"


def bounds(row_offsets, ranks: int) -> np.ndarray:
    """int64[ranks + 1]: rank r owns vertices [b[r], b[r+1]); cuts fall on the first
    vertex whose edges start past r/ranks of all edges, rounded down to a multiple of 32."""
    row_offsets = np.asarray(row_offsets)
    n, m = len(row_offsets) - 1, int(row_offsets[-1])
    targets = (np.arange(1, ranks, dtype=np.float64) * m / ranks).astype(np.int64)
    cuts = np.searchsorted(row_offsets, targets, side="left") // ALIGN * ALIGN
    return np.concatenate([[0], np.minimum(np.maximum.accumulate(cuts), n), [n]]).astype(np.int64)


@dataclass(frozen=True)
class GraphFiles:
    """Where a graph's CSR files are; `temporary` folders are removed by drop()."""

    folder: str
    temporary: bool = False

    def drop(self) -> None:
        if self.temporary:
            shutil.rmtree(self.folder, ignore_errors=True)


def _memmap_file(a) -> str | None:
    name = getattr(a, "filename", None)
    return str(name) if isinstance(a, np.memmap) and name else None


def graph_files(graph) -> GraphFiles:
    """The folder holding `graph`'s row_offsets.npy and col_indices.npy: the cache's when
    the graph was loaded from it (memory-mapped), else a temporary copy."""
    rows, cols = _memmap_file(graph.row_offsets), _memmap_file(graph.col_indices)
    if rows and cols and Path(rows).parent == Path(cols).parent \
            and Path(rows).name == ROWS and Path(cols).name == COLS:
        return GraphFiles(str(Path(rows).parent))
    folder = Path(tempfile.mkdtemp(prefix="gpubfs-mgpu-"))
    np.save(folder / ROWS, np.asarray(graph.row_offsets, np.int64))
    np.save(folder / COLS, np.asarray(graph.col_indices))
    return GraphFiles(str(folder), temporary=True)


def open_csr(folder: str) -> tuple[np.ndarray, np.ndarray]:
    return (np.load(Path(folder) / ROWS, mmap_mode="r"), np.load(Path(folder) / COLS, mmap_mode="r"))


def rows(folder: str, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """(offsets int64[hi-lo+1] from 0, col_indices int32) of vertices [lo, hi): two
    contiguous reads of the memory-mapped files."""
    ro, co = open_csr(folder)
    off = np.asarray(ro[lo: hi + 1], np.int64)
    cols = np.asarray(co[int(off[0]): int(off[-1])], np.int32)
    return off - off[0], cols


def in_rows(folder: str, lo: int, hi: int, chunk_edges: int = 1 << 26) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, sources) of the in-edges of vertices [lo, hi), for a directed graph:
    the whole edge list is streamed in chunks of rows and only edges into the range are
    kept, so memory is this rank's in-edges plus one chunk."""
    ro, co = open_csr(folder)
    n = len(ro) - 1
    keep_dst, keep_src = [], []
    start = 0
    while start < n:
        stop = int(np.searchsorted(ro, int(ro[start]) + chunk_edges, side="right")) - 1
        stop = min(max(stop, start + 1), n)
        a, b = int(ro[start]), int(ro[stop])
        dst = np.asarray(co[a:b], np.int64)
        src = np.repeat(np.arange(start, stop, dtype=np.int32), np.diff(np.asarray(ro[start: stop + 1])))
        mask = (dst >= lo) & (dst < hi)
        keep_dst.append((dst[mask] - lo).astype(np.int32))
        keep_src.append(src[mask])
        start = stop
    dst = np.concatenate(keep_dst) if keep_dst else np.zeros(0, np.int32)
    src = np.concatenate(keep_src) if keep_src else np.zeros(0, np.int32)
    order = np.argsort(dst, kind="stable")
    counts = np.bincount(dst, minlength=hi - lo).astype(np.int64)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64), src[order].astype(np.int32)
