"""One small known graph written in every format, and the compressions the opener reads."""

from __future__ import annotations

import bz2
import gzip
import io
import tarfile
from pathlib import Path

N = 6  # vertex 6 (id 5) is isolated
# directed arcs (u, v, weight), 0-based: one duplicate (0, 1) and one self-loop (4, 4)
ARCS = [(0, 1, 5), (0, 2, 3), (1, 2, 1), (2, 0, 4), (2, 3, 9), (3, 4, 2), (4, 4, 7), (0, 1, 6)]
ARCS_M = 6  # after dropping the self-loop and the duplicate
# undirected edges (u, v, weight) with u < v
EDGES = [(0, 1, 5), (0, 2, 3), (1, 2, 1), (2, 3, 9), (3, 4, 2)]
EDGES_M = 10


def snap_text() -> str:
    lines = ["# Directed graph: test.txt", f"# Nodes: 5 Edges: {len(ARCS)}", "# FromNodeId\tToNodeId"]
    return "\n".join(lines + [f"{u}\t{v}" for u, v, _ in ARCS]) + "\n"


def dimacs9_text() -> str:
    lines = ["c test graph", f"p sp {N} {len(ARCS)}", "c arcs follow"]
    return "\n".join(lines + [f"a {u + 1} {v + 1} {w}" for u, v, w in ARCS]) + "\n"


def gtgraph_text() -> str:
    head = [
        "c FILE\t\t\t: test.gr",
        f"c No. of vertices\t: {N}",
        f"c No. of directed edges\t: {len(ARCS)}",
        "c A directed arc from u to v of weight w",
        f"p sp {N} {len(ARCS)}",
    ]
    arcs = [f"a {u + 1} {v + 1} {w}" for u, v, w in ARCS]
    return "\n".join(head + arcs[:3] + ["        "] + arcs[3:]) + "\n"


def mtx_general_text(field: str = "integer") -> str:
    head = [f"%%MatrixMarket matrix coordinate {field} general", "% a comment", f"{N} {N} {len(ARCS)}"]
    value = {"pattern": lambda w: "", "integer": lambda w: f" {w}", "real": lambda w: f" {w / 4:.17e}"}[field]
    return "\n".join(head + [f"{u + 1} {v + 1}{value(w)}" for u, v, w in ARCS]) + "\n"


def mtx_symmetric_text() -> str:
    entries = [(max(u, v), min(u, v)) for u, v, _ in EDGES] + [(4, 4)]
    head = ["%%MatrixMarket matrix coordinate pattern symmetric", f"{N} {N} {len(entries)}"]
    return "\n".join(head + [f"{i + 1} {j + 1}" for i, j in entries]) + "\n"


def _adjacency(weighted: bool, multigraph: bool = False) -> list[list[tuple[int, int]]]:
    adj: list[list[tuple[int, int]]] = [[] for _ in range(N)]
    edges = EDGES + ([(0, 1, 8)] if multigraph else [])
    for u, v, w in edges:
        adj[u].append((v, w))
        adj[v].append((u, w))
    if multigraph:
        adj[4].append((4, 7))
    return adj


def metis_text(fmt: int = 0) -> str:
    """fmt 0, 1 (edge weights), 10 (vertex weights), 11 (both) or 100 (multigraph)."""
    adj = _adjacency(fmt in (1, 11), multigraph=fmt == 100)
    entries = sum(len(a) for a in adj)
    m = entries if fmt == 100 else entries // 2
    lines = ["% a METIS file", f"{N} {m}" + ("" if fmt == 0 else f" {fmt}")]
    for v, nbrs in enumerate(adj):
        words = [str(v + 10)] if fmt in (10, 11) else []
        for u, w in nbrs:
            words += [str(u + 1)] + ([str(w)] if fmt in (1, 11) else [])
        lines.append(" ".join(words))
    return "\n".join(lines) + "\n"


TEXTS = {
    "snap": (snap_text, ".txt"),
    "dimacs9": (dimacs9_text, ".gr"),
    "gtgraph": (gtgraph_text, ".gr"),
    "mtx": (mtx_general_text, ".mtx"),
    "metis": (metis_text, ".graph"),
}

COMPRESSIONS = ("plain", "gz", "bz2", "tar.gz")


def write(folder: Path, stem: str, suffix: str, text: str | bytes, compression: str = "plain") -> Path:
    """Write `text` as stem+suffix, compressed; tar.gz holds it as stem/stem+suffix."""
    data = text.encode() if isinstance(text, str) else text
    if compression == "plain":
        path = folder / f"{stem}{suffix}"
        path.write_bytes(data)
    elif compression == "gz":
        path = folder / f"{stem}{suffix}.gz"
        path.write_bytes(gzip.compress(data))
    elif compression == "bz2":
        path = folder / f"{stem}{suffix}.bz2"
        path.write_bytes(bz2.compress(data))
    else:
        path = folder / f"{stem}.tar.gz"
        with tarfile.open(path, "w:gz") as tar:
            for name, payload in ((f"{stem}/README.txt", b"not the graph\n"), (f"{stem}/{stem}{suffix}", data)):
                info = tarfile.TarInfo(name)
                info.size = len(payload)
                tar.addfile(info, io.BytesIO(payload))
    return path
