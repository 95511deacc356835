"""What a graph costs before it is fetched: the download, the cache, the conversion's
host memory and the GPU memory a traversal needs, from the catalogue's counts alone.

The download size is the archive's own where one is at hand (a cached graph's recorded
archive, a file in the mirror), else what its source publishes (`published_size` in the
catalogue), else an estimate from the record count at the bytes per record of a known
archive of the same format, and each figure says which it is. The other figures follow
the converter's own arithmetic (graph/build.py's per-entry and per-record constants, the
parser's int64 columns), so a graph that cannot be converted or run here is said to be so
before a byte is downloaded. Measured against stand-ins of the real sizes converted on a
24 GB host (scripts/convert_scale.py), the plan is at or above the peak it predicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpubfs_cli.datasets.catalogue import DatasetEntry, parse_size
from gpubfs_cli.graph import build

# Compressed archive bytes per directed edge (the catalogue's m), from the two archives
# whose size is known: the DIMACS9 New York graph (3,667,907 bytes for 733,846 arcs,
# gzip) and SuiteSparse's kron_g500-logn20 (164 MB published for m = 100.7 M, a tar.gz of
# a symmetric matrix that lists each edge once). Text edge lists take the former.
BYTES_PER_EDGE = {"dimacs9": 5.0, "gtgraph": 5.0, "snap": 5.0, "mtx": 1.6, "metis": 1.6}
# int64 columns the text parser fills per record (ids, and a weight or value column).
PARSE_COLUMNS = {"dimacs9": 3, "gtgraph": 3, "mtx": 3, "snap": 2, "metis": 2}
# Formats whose undirected files list each edge once (a symmetric Matrix Market file, a
# METIS adjacency counted by its header's undirected edges); the others are taken at one
# record per directed edge, an upper bound (road files list both arcs).
SYMMETRIC_FORMATS = ("mtx", "metis")
# Per-vertex device arrays a traversal keeps besides the CSR (distances, parents,
# frontier queues and bitmaps): 4-byte words.
GPU_VERTEX_WORDS = 8

@dataclass(frozen=True)
class Download:
    """An archive's size and where the figure comes from: measured (a cached graph's
    archive or a mirror file), published, or estimated; bytes None: not a download."""

    bytes: int | None
    basis: str  # measured | mirror | published | estimated | none

    def size(self) -> str:
        """'3.7 MB', or 'about 400 MB' for an estimate."""
        return "" if self.bytes is None else ("about " if self.basis == "estimated" else "") + human(self.bytes)

    def text(self) -> str:
        if self.bytes is None:
            return "nothing to download"
        size = human(self.bytes)
        return {"measured": f"{size} (measured)", "mirror": f"{size} (in the mirror)",
                "published": f"{size} (as published)", "estimated": f"about {size} (estimated)"}[self.basis]


@dataclass(frozen=True)
class Footprint:
    """One graph's costs: its download, the cache's files, the conversion's peak host
    memory, and the GPU memory a BFS on it needs (CSR, in-edges where directed, and the
    per-vertex arrays)."""

    download: Download
    disk_bytes: int
    host_bytes: int
    gpu_bytes: int


def human(nbytes: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if nbytes >= size:
            return f"{nbytes / size:.1f} {unit}" if nbytes < 10 * size else f"{nbytes / size:.0f} {unit}"
    return f"{int(nbytes)} B"


def download_of(entry: DatasetEntry, m: int | None, *, measured: int | None = None,
                mirror_file: Path | None = None) -> Download:
    """The archive's size: `measured` (a recorded archive), the mirror's file, the
    published figure, or the estimate from `m` records."""
    if entry.kind != "download" and entry.file is None:
        return Download(None, "none")
    if measured:
        return Download(int(measured), "measured")
    if mirror_file is not None:
        try:
            return Download(mirror_file.stat().st_size, "mirror")
        except OSError:
            pass
    if entry.published_size:
        return Download(parse_size(entry.published_size, f"{entry.name}: published_size"), "published")
    edges = m or entry.expected.m or 0
    return Download(int(edges * BYTES_PER_EDGE.get(entry.format or "", 5.0)), "estimated")


def planned_counts(entry: DatasetEntry) -> tuple[int | None, int | None]:
    """The catalogue's n and m; for a generated graph that gives none, its generator's
    vertices and, as m, an upper bound: every record, both ways when symmetrized, before
    self-loops and duplicates are dropped (None where the family cannot say)."""
    n, m = entry.expected.n, entry.expected.m
    if entry.kind != "generated" or (n is not None and m is not None):
        return n, m
    from gpubfs_cli.graph import generators

    try:
        vertices, records = generators.records_bound(entry.generator, entry.params)
    except Exception:  # a family that cannot size itself without generating
        return n, m
    return (vertices if n is None else n), (records * (1 if entry.directed else 2) if m is None else m)


def footprint(entry: DatasetEntry, n: int, m: int, download: Download) -> Footprint:
    """The costs of a graph of n vertices and m directed edges, built as `entry` says."""
    n, m = max(int(n), 0), max(int(m), 0)
    col = 4 if n < 2**31 else 8
    weight = 4 if entry.weights else 0
    csr = 8 * (n + 1) + (col + weight) * m
    records = m // 2 if entry.format in SYMMETRIC_FORMATS and not entry.directed else m
    parse = 8 * PARSE_COLUMNS.get(entry.format or "", 2) * records  # generated: src and dst
    part = min(build.HOST_PART_MIN, max(m, 1))
    work = (build.RECORD_BYTES * min(build.CHUNK_RECORDS, max(records, 1)) + build.VERTEX_BYTES * n
            + build.entry_bytes(weight) * part)
    in_edges = 8 * (n + 1) + col * m if entry.directed else 0
    gpu = 8 * (n + 1) + col * m + in_edges + 4 * GPU_VERTEX_WORDS * n
    return Footprint(download, csr, parse + work + csr, gpu)
