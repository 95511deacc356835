"""A problem's baseline answers from many sources at once.

Here, below bench and algorithms, so that the runner's references and auto.bfs's depth
probe share one parallel solve without either importing the other's layer.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from gpubfs_cli.core.problem import Problem


def solve_each(problem: Problem, graph, sources: list[int]) -> Iterator[np.ndarray]:
    """The problem's baseline distances from each source, in order. The numba baselines
    release the GIL: sources run on every core at once (the answers are the same; only
    the wall time shrinks)."""
    workers = max(1, min(len(sources), os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(lambda s: np.asarray(problem.reference(graph, s).distances), sources)
