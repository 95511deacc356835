"""CSRGraph (int64 row offsets, sorted int32 column indices, m counting directed edges)
and its degree statistics."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


def narrow_ints(a: np.ndarray) -> np.ndarray:
    """Integer values as int32 when every one fits, else int64 (half the memory of
    weights on every graph here); non-integer arrays unchanged."""
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        return a
    if len(a) == 0 or (int(a.min()) >= -(2**31) and int(a.max()) < 2**31):
        return a.astype(np.int32, copy=False)
    return a.astype(np.int64, copy=False)


def unsigned_views(graph) -> tuple[np.ndarray, np.ndarray]:
    """(row_offsets, col_indices) as unsigned views of the same memory, so numba loops
    carry no negative-index wraparound test (ids and offsets are never negative)."""
    cols = np.asarray(graph.col_indices)
    ucols = cols.view(np.uint32 if cols.dtype.itemsize == 4 else np.uint64)
    offsets = np.asarray(graph.row_offsets, dtype=np.int64).view(np.uint64)
    return offsets, ucols


def scipy_matrix(graph, data: np.ndarray):
    """The graph as a scipy CSR array over `data` (one value per edge), with the int32
    indices csgraph works on, built once from the CSR arrays (no COO round trip, so
    explicit zeros and parallel edges stay stored entries). ValueError past 2^31."""
    import scipy.sparse

    if graph.n >= 2**31 or graph.m >= 2**31:
        raise ValueError("scipy's csgraph takes 32-bit indices only")
    return scipy.sparse.csr_array(
        (data, np.asarray(graph.col_indices).astype(np.int32, copy=False),
         np.asarray(graph.row_offsets).astype(np.int32)),
        shape=(graph.n, graph.n), copy=False,
    )


@dataclass(frozen=True)
class GraphStats:
    """The columns of BFS-4K's Table 1 (out-degree statistics)."""

    n: int
    m: int
    avg_degree: float
    std_degree: float
    max_degree: int
    mode_degree: int
    isolated: int

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(eq=False)
class CSRGraph:
    """Compressed sparse rows: row_offsets int64[n+1], col_indices int32[m].

    `m` counts directed edges: an undirected input edge is stored twice. Adjacency
    lists are sorted. col_indices is int64 only when n >= 2**31.
    """

    row_offsets: np.ndarray
    col_indices: np.ndarray
    directed: bool
    weights: np.ndarray | None = None
    name: str = ""

    @property
    def n(self) -> int:
        return int(len(self.row_offsets) - 1)

    @property
    def m(self) -> int:
        return int(len(self.col_indices))

    def out_degrees(self) -> np.ndarray:
        return np.diff(self.row_offsets)

    def neighbors(self, v: int) -> np.ndarray:
        return self.col_indices[self.row_offsets[v] : self.row_offsets[v + 1]]

    def stats(self) -> GraphStats:
        deg = self.out_degrees()
        n = self.n
        if n == 0:
            return GraphStats(0, 0, 0.0, 0.0, 0, 0, 0)
        return GraphStats(
            n=n,
            m=self.m,
            avg_degree=float(self.m / n),
            std_degree=float(deg.std()),
            max_degree=int(deg.max()),
            mode_degree=int(np.bincount(deg).argmax()),
            isolated=int(np.count_nonzero(deg == 0)),
        )

    def nbytes(self) -> int:
        extra = 0 if self.weights is None else self.weights.nbytes
        return int(self.row_offsets.nbytes + self.col_indices.nbytes + extra)
