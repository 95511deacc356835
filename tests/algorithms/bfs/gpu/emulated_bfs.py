"""The checks for BFS strategies run end to end under the CUDA emulator
(tests/gpu/emulated_cupy.py) on the small nasty graphs of graph/samples.py (NASTY_BFS):
exact distances against cpu.sequential, a BFS tree for parents, the strategy's level
count. Shared by the classic, luo, do and multi-GPU tests."""

from __future__ import annotations

import functools

import numpy as np

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.graph import samples
from tests.algorithms.bfs.gpu import test_strategies as ts
from tests.gpu import emulated_cupy as ec

GRAPHS = dict(samples.NASTY_BFS)  # a copy: a test may add a graph of its own
# The graphs with the most concurrent discoveries of one vertex and the odd CSRs.
HARD = ["star300", "loops_dups", "directed", "rmat", "single"]


@functools.cache
def graph(name: str):
    return GRAPHS[name]()


def sources(g) -> list[int]:
    return samples.pick_sources(g, k=1)[:3]


def host(a: Answer) -> Answer:
    """A copy: the returned arrays are the strategy's buffers, reused by the next run."""
    return Answer(np.array(a.distances), None if a.parents is None else np.array(a.parents),
                  dict(a.counters))


def run(monkeypatch, emulation, name: str, knobs: dict, graph_names, *, seed: int = 1,
        patches: dict | None = None, sms: int = 1, resident: int = 2, check=None) -> list[Answer]:
    """Every source of every graph, without parents from the first source and with them
    from every source (where the strategy has them); distances, parents and the level
    count checked; the answers."""
    cls = all_strategies("bfs")[name]
    preds_ok = getattr(cls, "supports_predecessors", True)
    answers = []
    with ec.emulated(monkeypatch, emulation, seed=seed, patches=patches, sms=sms, resident=resident):
        for gname in graph_names:
            g = graph(gname)
            strategy = cls(make_knobs(cls, knobs))
            strategy.prepare(g)
            for i, s in enumerate(sources(g)):
                for pred in ((False, True) if i == 0 else (True,)) if preds_ok else (False,):
                    got = host(strategy.traverse(s, pred))
                    label = f"{name} {knobs} on {gname} from {s}"
                    ref = sequential_bfs(g, s)
                    np.testing.assert_array_equal(got.distances, ref.distances, err_msg=label)
                    assert got.counters["levels"] == ref.counters["levels"], (label, got.counters)
                    if pred:
                        ts.check_parents(g, s, got.distances, got.parents)
                    else:
                        assert got.parents is None, label
                    if check is not None:
                        check(strategy, g, s, got)
                    answers.append(got)
            strategy.release()
    return answers
