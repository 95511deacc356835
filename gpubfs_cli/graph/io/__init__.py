"""Graph file readers: one module per format, one opener, one parser core (text.py).

    read_graph(path, fmt, member=None, directed=None, compact_ids=False, progress=None)

returns an EdgeList with 0-based ids. Files may be plain, gzip or bzip2 (recognised
from their first bytes) or a member of a tar archive (`member`, or the archive's
NAME/NAME.<ext> when None). Every violation of the format raises InputFormatError naming
the file and, where it has one, the line; so do a file with no edge records, a count a
header declares that the records do not match (DIMACS `p`, METIS and MTX headers, SNAP's
`# Nodes: N Edges: M`: a truncated file fails there), and a vertex count far beyond the
records or the memory available (common.check_vertex_count; compact_ids lifts it).

`directed`: None keeps the format's own reading (dimacs9, gtgraph, snap: directed arcs;
mtx: directed unless the file is symmetric; metis: undirected). False reads every record
as an undirected edge. True cannot make a symmetric file directed: its edges are listed
in both directions after the CSR build anyway.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial

from gpubfs_cli.errors import InputFormatError, unknown_name
from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.io import dimacs9, gtgraph, metis, mtx, snap
from gpubfs_cli.graph.io.compact import compact_ids as _compact
from gpubfs_cli.graph.io.opener import open_graph_file
from gpubfs_cli.graph.io.text import TextReader

_READERS = {module.NAME: module for module in (dimacs9, metis, snap, mtx, gtgraph)}
FORMATS: dict[str, str] = {name: module.SUMMARY for name, module in _READERS.items()}

__all__ = ["FORMATS", "read_graph"]


def read_graph(
    path: str | os.PathLike,
    fmt: str,
    *,
    member: str | None = None,
    directed: bool | None = None,
    compact_ids: bool = False,
    progress: Callable[[int, int], None] | None = None,
    nonnegative_weights: bool = False,
) -> EdgeList:
    """Read the graph file at `path` in format `fmt` (a FORMATS name).

    compact_ids renumbers the ids that occur to 0..k-1 in increasing order (SNAP files
    have sparse ids). progress(bytes_done, bytes_total) is called after each block read,
    in bytes of the file on disk. nonnegative_weights: a negative edge weight is an
    InputFormatError at its line (weights kept for shortest paths).
    """
    module = _READERS.get(fmt)
    if module is None:
        raise unknown_name("graph format", fmt, FORMATS)
    reopen = partial(open_graph_file, path, member, module.SUFFIXES)
    with reopen() as opened:
        reader = TextReader(opened, progress=progress, reopen=reopen, bound_vertices=not compact_ids,
                            nonnegative_weights=nonnegative_weights)
        edges = module.read(reader, directed)
        if edges.num_records == 0:
            raise InputFormatError(opened.name, None, "holds no edges: a graph needs at least one")
    return _compact(edges) if compact_ids else edges
