"""CSRGraph as DESIGN.md defines it, and its degree statistics."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


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
