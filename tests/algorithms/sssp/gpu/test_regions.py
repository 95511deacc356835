"""sssp.regions on a real GPU against cpu.dijkstra: exact int64 distances and parents
checked as a shortest-path tree (sssp/validate.py), on the weighted nasty graphs of
graph/samples.py (zero-weight cycles, ties, unreachable parts; not big_int64, whose
weights are past 31 bits), an undirected graph of zero-weight cycles, a weighted R-MAT
of scale 14 and a weighted 100 x 100 lattice (test_delta.py's graphs), at delta 1, the
default rule and 2^62; regions of 32 and 64 vertices, which the lattice crosses many
times; every CTA size once. The emulated twin
(test_regions_emulated.py) runs the same checks without a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.sssp.gpu.regions import strategies as rs
from gpubfs_cli.algorithms.sssp.validate import parent_failures
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from tests.algorithms.bfs.gpu.test_strategies import batches, report, run_checks
from tests.algorithms.sssp.gpu.test_delta import GRAPHS, graph, reference, sources
from tests.algorithms.sssp.gpu.test_delta_emulated import delta_of

NAMES = [g for g in GRAPHS if g != "big_int64"]  # its weights are past 31 bits: unavailable


def _run(which: str, predecessors: bool, knobs: dict | None = None) -> None:
    cls = all_strategies("sssp")["sssp.regions"]
    failures = []
    for gname in NAMES:
        g = graph(gname)
        k = {"delta": delta_of(which, g), **(knobs or {})}

        def make(k=k):
            return cls(make_knobs(cls, k))

        def check(at, got, g=g, gname=gname):
            ref = reference(gname, at.source)
            assert got.distances.dtype == np.int64, at.label
            np.testing.assert_array_equal(got.distances, ref, err_msg=at.label)
            if predecessors:
                failures = parent_failures(g, at.source, got.distances, got.parents)
                assert failures == [], f"{at.label}: {failures}"
                assert got.counters["parent_rounds"] >= 1, at.label
            else:
                assert got.parents is None, at.label
            c = got.counters
            assert c["pushes"] == c["runs"] >= 1 and 0 <= c["copied"] <= c["runs"], (at.label, c)

        failures += run_checks(f"sssp.regions {k}", make, batches([gname], graph), sources, predecessors, check)
    report(failures)


@pytest.mark.gpu
@pytest.mark.parametrize("predecessors", [False, True])
@pytest.mark.parametrize("which", ["1", "default", "huge"])
def test_matches_dijkstra(which, predecessors):
    _run(which, predecessors)


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [{"region_size": 32}, {"region_size": 64, "flush_steps": 1},
                                   *({"cta_size": c} for c in rs.CTA_SIZES)],
                         ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items()))
def test_small_regions_and_every_cta_size(knobs):
    _run("default", True, knobs)
