"""A graph archive's header, peeked at without reading the file, and compared with the catalogue.

`peek_header(path, fmt, member)` opens the archive through the graph readers' opener
(plain, gzip, bzip2, a tar member) and reads only its first lines, at most PEEK_BYTES:

    dimacs9, gtgraph  `p sp n m` (the first line that is not a `c` comment): m arcs
    mtx               the banner, then the size line `rows cols entries`: n = rows,
                      m = entries as written; a symmetric (or skew, hermitian) file lists
                      one triangle, so its directed edges are about 2 x entries
    snap              a `# Nodes: N Edges: M` comment before the first pair, if any
    metis             `n m [fmt [ncon]]`: m undirected edges (fmt 100: adjacency entries)

`compare_header(header, entry)` says whether those counts agree with the catalogue's
`expected` n and m (directed edges after the entry's policy), within TOLERANCE, and
explains the reading in words. It is what a sha256 mismatch is judged by: an archive
whose header still matches is likely the same graph re-compressed; one whose header does
not is another graph or a damaged file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gpubfs_cli.datasets.catalogue import TOLERANCE, DatasetEntry
from gpubfs_cli.errors import InputFormatError, UserError, unknown_name
from gpubfs_cli.graph.io import dimacs9, gtgraph, metis, mtx, snap
from gpubfs_cli.graph.io.opener import _DECOMPRESS_ERRORS, open_graph_file

PEEK_BYTES = 1 << 20  # a header further in than this is not a header
_BLOCK = 1 << 16
_SUFFIXES = {module.NAME: module.SUFFIXES for module in (dimacs9, gtgraph, metis, mtx, snap)}
_SNAP_COUNTS = re.compile(r"Nodes:\s*(\d+)\s+Edges:\s*(\d+)")


@dataclass(frozen=True)
class Header:
    """The counts a graph file's header declares, as written.

    n: vertices (SNAP: its node count, which ids may exceed); m: dimacs9/gtgraph arcs,
    mtx entries, metis edges (fmt 100: adjacency entries), snap edges. Both None when
    the header gives no counts (a SNAP file without `# Nodes: N Edges: M`).
    text: the header line(s) as read, for messages."""

    n: int | None
    m: int | None
    text: str
    fmt: str = ""
    symmetric: bool = False  # mtx: the banner's symmetry is not 'general'
    metis_fmt: int = 0


@dataclass(frozen=True)
class HeaderCheck:
    """match: True (agrees), False (does not), None (nothing to compare); detail: why."""

    match: bool | None
    detail: str

    def sentence(self) -> str:
        """The clause a checksum message carries."""
        if self.match is True:
            return f"its header still matches the catalogue ({self.detail})"
        if self.match is False:
            return f"its header does not match: {self.detail}"
        return self.detail


def _lines(path: Path, member: str | None, suffixes: tuple[str, ...]):
    """The file's first lines (text, newline stripped), up to PEEK_BYTES in all. Read a
    block at a time as it decompresses, so the lines before damage further in (a
    truncated download) are still given."""
    with open_graph_file(path, member, suffixes) as opened:
        read = getattr(opened.stream, "read1", opened.stream.read)
        pending = b""
        done = 0
        while done < PEEK_BYTES:
            try:
                block = read(_BLOCK)
            except _DECOMPRESS_ERRORS as exc:
                raise InputFormatError(opened.name, None, f"truncated or corrupt {opened.compression} data ({exc})") from None
            if not block:
                break
            done += len(block)
            *whole, pending = (pending + block).split(b"\n")
            for line in whole:
                yield line.decode("utf-8", "replace").rstrip("\r")
        if pending and done < PEEK_BYTES:
            yield pending.decode("utf-8", "replace").rstrip("\r")


def _first_data_line(lines, comments: str) -> str | None:
    for text in lines:
        stripped = text.strip()
        if stripped and stripped[0] not in comments:
            return stripped
    return None


def _ints(tokens: list[str]) -> list[int] | None:
    if not tokens or not all(t.isascii() and t.isdigit() for t in tokens):
        return None
    return [int(t) for t in tokens]


def peek_header(path: str | Path, fmt: str, member: str | None = None) -> Header:
    """The header of the graph file at `path` (or `member` of the archive there) in
    format `fmt`; an InputFormatError naming the file when it has none or cannot be read."""
    if fmt not in _SUFFIXES:
        raise unknown_name("graph format", fmt, _SUFFIXES)
    path = Path(path)
    lines = _lines(path, member, _SUFFIXES[fmt])
    try:
        return _parse(lines, fmt, f"{path}[{member}]" if member else str(path))
    finally:
        lines.close()  # the file is closed as soon as the header is read


def _parse(lines, fmt: str, name: str) -> Header:
    if fmt in ("dimacs9", "gtgraph"):
        text = _first_data_line(lines, "c")
        tokens = (text or "").split()
        counts = _ints(tokens[2:]) if tokens[:2] == ["p", "sp"] else None
        if counts is None or len(counts) != 2:
            raise InputFormatError(name, None, f"expected the problem line 'p sp <n> <m>' first, got '{(text or '')[:80]}'")
        return Header(counts[0], counts[1], text or "", fmt)
    if fmt == "mtx":
        banner = next(lines, None) or ""
        words = banner.lower().split()
        if len(words) != 5 or words[0] != "%%matrixmarket":
            raise InputFormatError(name, None, f"expected the banner {mtx.BANNER}, got '{banner[:80]}'")
        text = _first_data_line(lines, "%")
        size = _ints((text or "").split())
        if size is None or len(size) != 3:
            raise InputFormatError(name, None, f"expected the size line '<rows> <columns> <entries>', got '{(text or '')[:80]}'")
        return Header(size[0], size[2], f"{banner.strip()} / {text}", fmt, symmetric=words[4] != "general")
    if fmt == "metis":
        text = _first_data_line(lines, "%")
        values = _ints((text or "").split())
        if values is None or not 2 <= len(values) <= 4:
            raise InputFormatError(name, None, f"expected the header '<n> <m> [fmt [ncon]]', got '{(text or '')[:80]}'")
        return Header(values[0], values[1], text or "", fmt, metis_fmt=values[2] if len(values) > 2 else 0)
    for text in lines:  # snap: the counts comment, before the first pair
        stripped = text.strip()
        if stripped and stripped[0] not in "#%":
            break
        if match := _SNAP_COUNTS.search(stripped):
            return Header(int(match[1]), int(match[2]), stripped, fmt)
    return Header(None, None, "", fmt)


@dataclass(frozen=True)
class _Reading:
    """Directed edges a header's count can stand for: lo..hi, and how (None: as written)."""

    lo: int
    hi: int
    how: str | None = None


def _m_readings(h: Header, entry: DatasetEntry) -> list[_Reading] | None:
    """The readings of the header's m as the catalogue counts m (directed edges after the
    entry's policy); None when the header's m cannot give it."""
    m, n = h.m or 0, h.n or 0
    undirected = entry.directed is False
    if h.fmt == "mtx":
        if entry.multiplicity:
            return None  # the values multiply the entries: the count is in the data
        diagonal = min(n, m)
        drop = entry.self_loops == "drop"
        if h.symmetric:
            lo = 2 * m - (2 * diagonal if drop else diagonal)
            return [_Reading(lo, 2 * m, f"2 x entries less any diagonal, {lo:,} to {2 * m:,} directed "
                                        "edges, as a symmetric file lists each edge once")]
        lo = m - diagonal if drop else m
        hi = 2 * m if undirected else m
        if lo == hi:
            return [_Reading(m, m)]
        return [_Reading(m, m), _Reading(lo, hi, f"{lo:,} to {hi:,} directed edges, "
                                                 f"{'symmetrized, ' if undirected else ''}less any diagonal")]
    if h.fmt == "metis":
        if h.metis_fmt == 100:
            return [_Reading(m, m, "adjacency entries, as fmt 100 counts them")]
        return [_Reading(2 * m, 2 * m, f"2 x {m:,} directed edges, as METIS counts each undirected edge once")]
    readings = [_Reading(m, m)]
    if undirected:
        readings.append(_Reading(m, 2 * m, f"up to 2 x {m:,}, as an undirected entry adds each reverse"))
    return readings


def _within(lo: int, hi: int, want: int) -> bool:
    slack = TOLERANCE * want
    return lo - slack <= want <= hi + slack


def compare_header(header: Header, entry: DatasetEntry) -> HeaderCheck:
    """Whether the header's counts agree with entry.expected (n, and m read as directed
    edges the way the catalogue counts them), within TOLERANCE."""
    if header.n is None and header.m is None:
        return HeaderCheck(None, "the header gives no counts")
    exp = entry.expected
    if exp.n is None and exp.m is None:
        return HeaderCheck(None, f"the catalogue lists no n or m to compare its header with ({header.text})")
    good: list[str] = []
    bad: list[str] = []
    if exp.n is not None and header.n is not None:
        n = header.n
        if header.fmt == "snap" and not entry.compact_ids:
            # n is the largest id + 1 there: sparse ids make it larger than the node count
            if n <= exp.n + TOLERANCE * exp.n:
                good.append("n as expected" if _within(n, n, exp.n) else
                            f"n possible ({n:,} nodes, ids up to {exp.n:,} expected)")
            else:
                bad.append(f"n {n:,} nodes, more than the {exp.n:,} expected")
        elif _within(n, n, exp.n):
            good.append("n as expected")
        else:
            bad.append(f"n {n:,} against {exp.n:,} expected")
    if exp.m is not None and header.m is not None:
        readings = _m_readings(header, entry)
        if readings is None:
            good.append("m not compared (the values are edge multiplicities)")
        else:
            hit = next((r for r in readings if _within(r.lo, r.hi, exp.m)), None)
            if hit is None:
                how = readings[-1].how
                bad.append(f"m {header.m:,}" + (f" read as {how}," if how else "") + f" against {exp.m:,} expected")
            else:
                good.append("m as expected" + (f", read as {hit.how}" if hit.how else ""))
    if bad:
        return HeaderCheck(False, "; ".join(bad) + f" ({header.text})")
    if good == ["n as expected", "m as expected"]:
        good = ["n and m as expected"]
    return HeaderCheck(True, f"{header.text}: {'; '.join(good)}")


def check_header(path: str | Path, entry: DatasetEntry) -> HeaderCheck:
    """peek_header then compare_header; a header that cannot be read says why."""
    try:
        header = peek_header(path, entry.format or "", entry.member)
    except UserError as exc:
        return HeaderCheck(None, f"its header cannot be read ({exc})")
    return compare_header(header, entry)
