"""The graph features auto.bfs decides by, from a graph (prepare) or from what a results
file recorded about one (the table builder), with one definition of each.

  n, m, directed       the CSR's
  mean_degree          m / n
  max_degree           the largest out-degree
  degree_skew          max_degree / mean_degree (0 for an edgeless graph)
  top1_share           share of the edges held by the 1% of vertices (at least one) of
                       highest out-degree; a results file does not record it (None)
  depth                levels below the source, averaged over sources: the probe
                       (algorithms/bfs/probe.py: the sequential baseline's BFS from the
                       first PROBE_SOURCES random sources a run picks, seed 0); from a
                       results file, depth_probe, which the runner records from the same
                       function (files without depth_probe: depth_avg, the mean over
                       the run's own sources, which is the probe's only where those were
                       random; the lattices run from their centre). The probe does not
                       start at the vertex of highest out-degree: on a lattice that is a
                       corner, twice the mean depth.
  csr_bytes            row offsets (int64, n + 1) and column indices (int32; int64 from
                       2^31 vertices), as CSRGraph stores them
  l2_ratio             csr_bytes / the GPU's L2 size

The table compares graphs in `DISTANCE_FEATURES`, each as log2(1 + value) (directed as
0 or 1): a distance of 1 is one feature twice as large (or small).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from gpubfs_cli.algorithms.bfs.probe import probe_depth

DISTANCE_FEATURES = ("mean_degree", "degree_skew", "depth", "l2_ratio", "directed")


@dataclass(frozen=True)
class Features:
    n: int
    m: int
    directed: bool
    mean_degree: float
    max_degree: int
    degree_skew: float
    depth: float
    csr_bytes: int
    l2_ratio: float
    top1_share: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def vector(self) -> np.ndarray:
        """The point of this graph in the table's distance space."""
        return vector_of(self.to_dict())


def vector_of(features: dict) -> np.ndarray:
    """The distance-space point of a features mapping (a Features' or a table rule's)."""
    return np.array([_coordinate(name, features[name]) for name in DISTANCE_FEATURES])


def _coordinate(name: str, value) -> float:
    if name == "directed":
        return 1.0 if value else 0.0
    return math.log2(1.0 + float(value))


def csr_bytes(n: int, m: int) -> int:
    return 8 * (n + 1) + (4 if n < 2**31 else 8) * m


def make_features(n: int, m: int, directed: bool, max_degree: int, depth: float, l2_bytes: int,
                  top1_share: float | None = None) -> Features:
    mean = m / n if n else 0.0
    size = csr_bytes(n, m)
    return Features(
        n=int(n), m=int(m), directed=bool(directed), mean_degree=float(mean), max_degree=int(max_degree),
        degree_skew=float(max_degree / mean) if mean else 0.0, depth=float(depth), csr_bytes=size,
        l2_ratio=float(size / l2_bytes) if l2_bytes > 0 else 0.0, top1_share=top1_share,
    )


def top_share(degrees: np.ndarray, fraction: float = 0.01) -> float:
    """Share of the edges held by the `fraction` of vertices (at least one) of highest degree."""
    total = int(degrees.sum())
    if total == 0:
        return 0.0
    k = max(1, math.ceil(fraction * len(degrees)))
    top = np.partition(degrees, len(degrees) - k)[len(degrees) - k:]
    return float(int(top.sum()) / total)


def graph_features(graph, l2_bytes: int) -> tuple[Features, float]:
    """(features, probe milliseconds) of a CSRGraph: degrees from its offsets, depth the
    probe's (see `depth` above)."""
    degrees = graph.out_degrees()
    if graph.n == 0:
        return make_features(0, 0, graph.directed, 0, 0, l2_bytes, 0.0), 0.0
    t0 = time.perf_counter()
    depth = probe_depth(graph)
    probe_ms = (time.perf_counter() - t0) * 1000.0
    return make_features(graph.n, graph.m, graph.directed, int(degrees.max()), depth, l2_bytes,
                         top_share(degrees)), probe_ms


def recorded_features(info: dict, l2_bytes: int) -> Features | None:
    """Features of a results file's dataset entry, None when it lacks what they need
    (a dataset that failed to load, a run that did not validate: no depths)."""
    stats = info.get("stats") or {}
    depth = info.get("depth_probe")
    if depth is None:
        depth = info.get("depth_avg")  # a file written before the runner recorded the probe
    needed = (info.get("n"), info.get("m"), info.get("directed"), stats.get("max_degree"), depth)
    if info.get("status") != "ok" or any(v is None for v in needed):
        return None
    n, m, directed, max_degree, depth = needed
    return make_features(n, m, directed, max_degree, depth, l2_bytes)
