"""The reference answers of one problem for one graph's sources, kept for validation.

With `certify` (validate: certificate) nothing is solved ahead: an answer with a parent
tree is checked by the problem's certificate (core/problem.py certify); one without, by
the certificate of its distances alone where the problem can prove them on this graph
(certify_distances: BFS always, SSSP where every weight is positive), else by its
source's baseline, solved then; `reaches` is None.

Distances for every source are computed once per graph with the problem's sequential
baseline (BFS: cpu.sequential; SSSP: cpu.dijkstra), outside any timed region. They are kept as arrays while they fit in `budget_bytes`; beyond
that (100 sources of a 25M-vertex grid would take 10 GB) only a 128-bit digest of
each array is kept, an answer whose digest matches is equal, and a mismatch
recomputes that source's baseline to say where the answers differ.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

import numpy as np

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.problem import Problem
from gpubfs_cli.core.solve import solve_each
from gpubfs_cli.graph.csr import CSRGraph


def _default_budget() -> int:
    """A quarter of physical memory, at least 2 GiB: comparing arrays is ~5x faster
    than hashing them, which matters on the 25M-vertex lattices."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 0
    return max(2 << 30, total // 4)


DEFAULT_BUDGET_BYTES = _default_budget()


def digest(distances: np.ndarray) -> bytes:
    a = np.ascontiguousarray(distances)
    return hashlib.blake2b(memoryview(a).cast("B"), digest_size=16).digest()


class References:
    def __init__(
        self,
        problem: Problem,
        graph: CSRGraph,
        sources: list[int],
        *,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
        on_source: Callable[[int], None] | None = None,
        certify: bool = False,
    ):
        self.problem = problem
        self.graph = graph
        self.sources = list(sources)
        self.certify = certify
        # answers without parents proved by their distances (no baseline solved)
        self.certify_distances = certify and problem.certifies_distances(graph)
        itemsize = np.dtype(problem.distance_dtype).itemsize
        self.keep_arrays = not certify and len(sources) * graph.n * itemsize <= budget_bytes
        self._arrays: list[np.ndarray] = []
        self._digests: list[bytes] = []
        # the largest distance of each source's answer (None: certify solves nothing ahead)
        self.reaches: list[int] | None = None if certify else []
        for i, dist in enumerate(() if certify else solve_each(problem, graph, self.sources)):
            self.reaches.append(int(dist.max()))
            if self.keep_arrays:
                self._arrays.append(dist)
            else:
                self._digests.append(digest(dist))
            if on_source is not None:
                on_source(i)

    def _solve(self, source: int) -> np.ndarray:
        return np.asarray(self.problem.reference(self.graph, source).distances)

    def distances(self, i: int) -> np.ndarray:
        if self.keep_arrays:
            return self._arrays[i]
        return self._solve(self.sources[i])

    def check(self, i: int, result: Answer, predecessors: bool) -> str | None:
        """None when `result` (host arrays) answers source i correctly, else why not."""
        source = self.sources[i]
        if self.certify and predecessors and result.parents is not None:
            return self.problem.certify(self.graph, source, result)
        if self.certify_distances and not predecessors:
            return self.problem.certify_distances(self.graph, source, result)
        if self.keep_arrays:
            reference = self._arrays[i]
        elif self.certify:
            reference = self.distances(i)
        else:
            got = np.asarray(result.distances)
            same = (got.shape == (self.graph.n,) and got.dtype == self.problem.distance_dtype
                    and digest(got) == self._digests[i])
            reference = got if same else self.distances(i)
        return self.problem.check(self.graph, source, result, reference, predecessors)
