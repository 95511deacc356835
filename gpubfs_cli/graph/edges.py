"""EdgeList: what every reader and generator returns, before the CSR build."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class EdgeList:
    """Edges as two parallel arrays of 0-based vertex ids.

    `src`/`dst` are integer arrays (numpy, or cupy on the GPU generator path), `n` the
    vertex count (ids are < n). `directed=False` means each listed pair stands for an
    undirected edge; the CSR builder then symmetrizes. `weights` is optional and
    parallel to `src`. `info` carries what the source said about itself (header
    counts, comments) for meta.json.
    """

    src: Any
    dst: Any
    n: int
    directed: bool
    weights: Any | None = None
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.src) != len(self.dst):
            raise ValueError("src and dst differ in length")
        if self.weights is not None and len(self.weights) != len(self.src):
            raise ValueError("weights and src differ in length")

    @property
    def num_records(self) -> int:
        return int(len(self.src))
