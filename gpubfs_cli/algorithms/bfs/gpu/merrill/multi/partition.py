"""Who owns which vertex: 1-D partitions of V across ranks (Merrill et al., section 6.1).

`stripe` is the paper's: vertex v belongs to rank v mod p (local id v div p), which
spreads adjacency-list sizes evenly in small systems. `degree` is degree-aware: vertices
sorted by out-degree are dealt to the ranks in snake order (0..p-1, p-1..0, ...), so
every rank gets nearly the same number of vertices and of edges even when a few hubs
hold most of them. Each rank stores its owned rows (local row ids, global column ids).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.exchange import exclusive_sum
from gpubfs_cli.graph.build import reverse_csr

KINDS = ("stripe", "degree")


@dataclass(frozen=True, eq=False)
class Partition:
    kind: str
    ranks: int
    owner: np.ndarray  # int32[n]: the rank owning each vertex
    local: np.ndarray  # int32[n]: the vertex's id at its owner
    owned: tuple  # per rank: int64 global ids, ascending; local id = position

    @property
    def n(self) -> int:
        return int(len(self.owner))

    @property
    def stride(self) -> int:
        """Bits per rank in a frontier bitmap: the largest owned count, rounded up to 32
        so that every rank's segment is whole words (NCCL all-gather takes equal parts)."""
        most = max((len(o) for o in self.owned), default=0)
        return max(32, (most + 31) // 32 * 32)

    def rows(self, row_offsets: np.ndarray, col_indices: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray]:
        """(row_offsets int64[k+1], col_indices[m_r]) of the rows `rank` owns, in local
        order, with global column ids."""
        ids = self.owned[rank]
        if len(ids) == self.n:  # one rank: the whole CSR
            return np.asarray(row_offsets, np.int64), col_indices
        starts = row_offsets[ids].astype(np.int64)
        lens = row_offsets[ids + 1].astype(np.int64) - starts
        offsets = exclusive_sum(np, lens)
        where = np.repeat(starts - offsets[:-1], lens) + np.arange(offsets[-1], dtype=np.int64)
        return offsets, col_indices[where]


def _from_owner(kind: str, owner: np.ndarray, ranks: int) -> Partition:
    owned = tuple(np.flatnonzero(owner == r).astype(np.int64) for r in range(ranks))
    local = np.empty(len(owner), np.int32)
    for ids in owned:
        local[ids] = np.arange(len(ids), dtype=np.int32)
    return Partition(kind, ranks, owner.astype(np.int32), local, owned)


def stripe(n: int, ranks: int) -> Partition:
    v = np.arange(n, dtype=np.int64)
    owned = tuple(np.arange(r, n, ranks, dtype=np.int64) for r in range(ranks))
    return Partition("stripe", ranks, (v % ranks).astype(np.int32), (v // ranks).astype(np.int32), owned)


def degree_aware(degrees: np.ndarray, ranks: int) -> Partition:
    order = np.argsort(-np.asarray(degrees, np.int64), kind="stable")
    i = np.arange(len(order), dtype=np.int64)
    lap, pos = i // ranks, i % ranks
    owner = np.empty(len(order), np.int64)
    owner[order] = np.where(lap % 2 == 0, pos, ranks - 1 - pos)
    return _from_owner("degree", owner, ranks)


def make_partition(kind: str, graph, ranks: int) -> Partition:
    if ranks < 1:
        raise ValueError(f"ranks: expected 1 or more, got {ranks}")
    if kind == "stripe":
        return stripe(graph.n, ranks)
    if kind == "degree":
        return degree_aware(np.diff(graph.row_offsets), ranks)
    raise ValueError(f"partition: expected one of {', '.join(KINDS)}, got {kind!r}")


def in_edges(graph) -> tuple[np.ndarray, np.ndarray]:
    """(in_offsets, in_indices): the transpose, for bottom-up levels; the CSR itself
    for undirected graphs (every edge is stored both ways)."""
    t = reverse_csr(graph)
    return np.asarray(t.row_offsets, np.int64), t.col_indices


def rank_arrays(part: Partition, graph, rank: int, bottom_up: bool) -> dict:
    """The host arrays one rank uploads (RankView's fields besides xp)."""
    rows, cols = part.rows(graph.row_offsets, graph.col_indices, rank)
    out = {"rank": rank, "size": part.ranks, "n": part.n, "stride": part.stride, "owner": part.owner,
           "local": part.local, "owned": part.owned[rank], "row_offsets": rows, "col_indices": cols}
    if bottom_up:
        out["in_offsets"], out["in_indices"] = part.rows(*in_edges(graph), rank)
    return out


def gather(part: Partition, pieces: list, fill: int = -1) -> np.ndarray:
    """One global int32 array from every rank's local piece."""
    out = np.full(part.n, fill, np.int32)
    for ids, piece in zip(part.owned, pieces, strict=True):
        out[ids] = piece
    return out
