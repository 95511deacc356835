"""The check of SSSP answers against cpu.dijkstra. The weighted graphs that break SSSP
implementations are gpubfs_cli/graph/samples.py's NASTY_SSSP (scripts/sanitize.py runs
on them too)."""

from __future__ import annotations

import numpy as np

from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.algorithms.sssp.validate import parent_failures
from gpubfs_cli.graph.csr import CSRGraph


def check_sssp(g: CSRGraph, source: int, answer, predecessors: bool, label: str = "") -> None:
    """Exact distances (int64) against cpu.dijkstra; with predecessors, the shortest-path
    tree checks of sssp/validate.py (root, reach, tree-edge, tight, cycle)."""
    ref = dijkstra(g, source)
    got = np.asarray(answer.distances)
    assert got.dtype == np.int64, label
    np.testing.assert_array_equal(got, ref.distances, err_msg=f"{label} source {source}")
    if predecessors:
        failures = parent_failures(g, source, got, np.asarray(answer.parents))
        assert failures == [], f"{label} source {source}: {failures}"
    else:
        assert answer.parents is None
