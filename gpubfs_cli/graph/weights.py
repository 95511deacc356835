"""The weight rule: an edge's weight as a pure function of its two endpoints and a seed,

  w(u, v) = lo + h(seed, min(u, v), max(u, v)) mod (hi - lo + 1)

with h two rounds of splitmix64 (graph/generators/rng.py). It needs the graph alone (no
file, no cache), so it sits with the graph: the catalogue's weights (datasets/weights.py)
and the sample graphs of the checks both use it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.generators.rng import GAMMA, mix_nb, stream_key

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


@njit(inline="always")
def _weight(u, v, lo, span, key):
    """The rule's weight of edge u -> v (int64 ids; span = hi - lo + 1 and key as uint64)."""
    a = np.uint64(min(u, v))
    b = np.uint64(max(u, v))
    x = mix_nb(a * _G + key)
    x = mix_nb(x + (b + np.uint64(1)) * _G)
    return np.int64(x % span) + lo


@njit(cache=True, parallel=True)
def _pair_weights(u, v, lo, span, key, out):
    for i in prange(len(u)):
        out[i] = _weight(np.int64(u[i]), np.int64(v[i]), lo, span, key)


@njit(cache=True, parallel=True)
def _csr_weights(row_offsets, col_indices, lo, span, key, out):
    for r in prange(len(row_offsets) - 1):
        for j in range(row_offsets[r], row_offsets[r + 1]):
            out[j] = _weight(np.int64(r), np.int64(col_indices[j]), lo, span, key)


def _args(lo: int, hi: int, seed: int) -> tuple:
    return np.int64(lo), np.uint64(hi - lo + 1), np.uint64(stream_key(seed, _STREAM))


def pair_weights(u, v, lo: int, hi: int, seed: int) -> np.ndarray:
    """The rule's weights of edges u[i] -> v[i] (integer arrays of vertex ids), int64."""
    u, v = np.asarray(u, dtype=np.int64), np.asarray(v, dtype=np.int64)
    out = np.empty(len(u), dtype=np.int64)
    _pair_weights(u, v, *_args(lo, hi, seed), out)
    return out


def rule_weights(graph: CSRGraph, rule: WeightRule) -> np.ndarray:
    """Weights of every CSR entry by `rule`: one parallel pass over the rows, with no
    temporary arrays (a Graph 500 graph of scale 26 has 2.1 billion entries)."""
    out = np.empty(graph.m, dtype=np.int32 if rule.hi < 2**31 else np.int64)
    _csr_weights(np.asarray(graph.row_offsets), np.asarray(graph.col_indices), *_args(rule.lo, rule.hi, rule.seed),
                 out)
    return out
