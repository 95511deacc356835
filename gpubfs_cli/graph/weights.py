"""The weight rule: an edge's weight as a pure function of its two endpoints and a seed,

  w(u, v) = lo + h(seed, min(u, v), max(u, v)) mod (hi - lo + 1)

with h two rounds of splitmix64 (graph/generators/rng.py). It needs the graph alone (no
file, no cache), so it sits with the graph: the catalogue's weights (datasets/weights.py)
and the sample graphs of the checks both use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gpubfs_cli.core.checks import edge_ranges
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.generators.rng import GAMMA, mix, stream_key

HASH = "splitmix64-pair-v1"  # names the formula above; a new formula gets a new name
_STREAM = 0x57454947  # "WEIG": the weight stream, apart from every generator's streams
_G = np.uint64(GAMMA)


@dataclass(frozen=True)
class WeightRule:
    lo: int
    hi: int
    seed: int

    def to_dict(self) -> dict:
        return {"rule": "hash", "hash": HASH, "range": [self.lo, self.hi], "seed": self.seed}

    def matches(self, record: dict) -> bool:
        return all(record.get(k) == v for k, v in self.to_dict().items())


def pair_weights(u, v, lo: int, hi: int, seed: int) -> np.ndarray:
    """The rule's weights of edges u[i] -> v[i] (int64 arrays of vertex ids)."""
    a = np.minimum(u, v).astype(np.uint64)
    b = np.maximum(u, v).astype(np.uint64)
    a *= _G
    a += np.uint64(stream_key(seed, _STREAM))
    mix(a)
    b += np.uint64(1)
    b *= _G
    a += b
    mix(a)
    a %= np.uint64(hi - lo + 1)
    return a.astype(np.int64) + np.int64(lo)


def rule_weights(graph: CSRGraph, rule: WeightRule, block: int = 1 << 24) -> np.ndarray:
    """Weights of every CSR entry by `rule`, in blocks of about `block` edges."""
    out = np.empty(graph.m, dtype=np.int32 if rule.hi < 2**31 else np.int64)
    for rows, a, b in edge_ranges(graph, block):
        cols = np.asarray(graph.col_indices[a:b]).astype(np.int64)
        out[a:b] = pair_weights(rows, cols, rule.lo, rule.hi, rule.seed)
    return out
