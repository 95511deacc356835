"""sssp.regions on a real GPU against cpu.dijkstra: exact int64 distances and parents
checked as a shortest-path tree (sssp/validate.py), on the weighted nasty graphs of
graph/samples.py (zero-weight cycles, ties, unreachable parts; not big_int64, whose
weights are past 31 bits), an undirected graph of zero-weight cycles, a weighted R-MAT
of scale 14 and a weighted 100 x 100 lattice (test_delta.py's graphs), at delta 1, the
default rule and 2^62; regions of 32 and 64 vertices, which the lattice crosses many
times, with and without absorbing; every CTA size once. The emulated twin
(test_regions_emulated.py) runs the same checks without a GPU.
"""

from __future__ import annotations

import pytest

from gpubfs_cli.algorithms.sssp.gpu.regions import strategies as rs
from tests.algorithms.sssp.gpu.test_delta import GRAPHS, run_sssp

NAMES = [g for g in GRAPHS if g != "big_int64"]  # its weights are past 31 bits: unavailable


def _run(which: str, predecessors: bool, knobs: dict | None = None) -> None:
    def counters(g, k, ref, got, label):
        c = got.counters
        assert not predecessors or c["parent_rounds"] >= 1, label
        assert c["pushes"] == c["runs"] >= 1 and 0 <= c["copied"] <= c["runs"], (label, c)
        assert k.get("absorb") or c["absorbed"] == 0, (label, c)

    run_sssp("sssp.regions", which, predecessors, knobs, NAMES, counters)


@pytest.mark.gpu
@pytest.mark.parametrize("predecessors", [False, True])
@pytest.mark.parametrize("which", ["1", "default", "huge"])
def test_matches_dijkstra(which, predecessors):
    _run(which, predecessors)


@pytest.mark.gpu
@pytest.mark.parametrize("knobs", [{"region_size": 32}, {"region_size": 64, "flush_steps": 1},
                                   *({"cta_size": c} for c in rs.CTA_SIZES), {"region_size": 32, "absorb": 1},
                                   {"region_size": 64, "flush_steps": 1, "absorb": 1}],
                         ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items()))
def test_small_regions_and_every_cta_size(knobs):
    _run("default", True, knobs)
