"""The depth probe: one definition of a graph's "depth" for auto.bfs (measured live in
prepare) and for the results file (`datasets.NAME.depth_probe`, which the auto table's
builder reads), so that a catalogue graph finds its own rule.

The probe is the mean, over the first PROBE_SOURCES random sources a run picks
(graph/sources.py, seed PROBE_SEED), of the levels below each: the sequential
baseline's BFS (cpu.sequential, numba) from each, in parallel threads
(core/solve.solve_each). Its sources do not depend on the run's: a lattice that
runs from its fixed centre (as Luo and Merrill did) records the centre's depth as
depth_avg, about two thirds of the random mean, and the probe's beside it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping

import numpy as np

PROBE_SOURCES = 10  # as many as the catalogue's sources (configs/experiments/catalogue-gpu.yaml)
PROBE_SEED = 0


def probe_sources(graph) -> list[int]:
    from gpubfs_cli.graph.sources import random_sources

    return random_sources(graph, PROBE_SOURCES, seed=PROBE_SEED)


# Depths from each source, per graph object, for as long as the graph lives: a run
# prepares a variant once a round, and every sssp.* prepare and auto.bfs prepare probes.
_DEPTHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def probe_depth(graph, known: Mapping[int, int] | None = None) -> float:
    """The probe's mean depth on `graph`; `known` maps sources to depths already measured
    (a run's references), which are not measured again, nor are those an earlier probe of
    the same graph object measured or was given."""
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.core.solve import solve_each

    sources = probe_sources(graph)
    with _LOCK:
        seen = _DEPTHS.setdefault(graph, {})
        seen.update(known or {})
        todo = [s for s in sources if s not in seen]
    depths = [int(d.max()) for d in solve_each(get_problem("bfs"), graph, todo)]  # to the end: every worker done
    with _LOCK:
        seen.update(zip(todo, depths, strict=True))
        return float(np.mean([seen[s] for s in sources]))
