"""What the fixed-cost checks share: a census of the device arrays
a traverse() creates under the CPU emulator (tests/gpu/emulated_cupy.py), on the graph
whose traversals cost nothing but the fixed part (samples.grid_and_pair: a grid plus one
lone edge; from PAIR_SOURCE one vertex is reached in one level).

census: every DeviceArray created while a call runs whose memory is not inside memory
the strategy already held (its buffers, views, argument templates, device graph): an
allocation a real GPU would make (views of prepared buffers are not), and every read
back into pageable memory (get() without a pinned out=).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.graph.samples import PAIR_SOURCE, grid_and_pair
from tests.gpu import emulated_cupy as ec


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _span(a: np.ndarray) -> tuple[int, int]:
    start = a.__array_interface__["data"][0]
    return start, start + max(int(a.nbytes), 1)


def held_spans(strategy) -> list[tuple[int, int]]:
    """The memory of every array the strategy reaches: its attributes, their lists,
    tuples and dicts, argument templates, the device graph and sparse matrices."""
    spans, seen, stack = [], set(), [strategy]
    while stack:
        x = stack.pop()
        if id(x) in seen or x is None:
            continue
        seen.add(id(x))
        if isinstance(x, np.ndarray):
            spans.append(_span(_root(x)))
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif hasattr(x, "_args") and hasattr(x, "_slots"):  # an ArgTemplate
            stack.extend(x._args)
        elif type(x).__module__.startswith(("gpubfs_cli", "scipy")) and hasattr(x, "__dict__"):
            stack.extend(vars(x).values())
    return spans


@dataclass
class Census:
    allocations: list = field(default_factory=list)  # roots of device arrays allocated
    pageable_reads: int = 0  # get() calls into a fresh (pageable) host array


@contextlib.contextmanager
def census(strategy):
    """Yields a Census that, when the block ends, holds the device arrays created inside
    it outside the memory the strategy held at its start, and the reads not made into
    a pinned array (get() without out=)."""
    held = held_spans(strategy)
    created: list[np.ndarray] = []
    result = Census()
    cls = ec.DeviceArray
    get = cls.get

    def finalize(self, obj):
        created.append(_root(self))

    def counted_get(self, *args, **kwargs):
        if kwargs.get("out") is None:
            result.pageable_reads += 1
        return get(self, *args, **kwargs)

    cls.__array_finalize__ = finalize
    cls.get = counted_get
    try:
        yield result
    finally:
        del cls.__array_finalize__
        cls.get = get
    for r in created:
        lo, hi = _span(r)
        if not any(a <= lo and hi <= b for a, b in held) and not any(r is f for f in result.allocations):
            result.allocations.append(r)


def traverse_census(strategy, source: int) -> list[str]:
    """What a warm traverse() from `source` allocates on the device or reads into
    pageable memory, with and without predecessors where the strategy has them (the
    answer's to_host() runs after the census, as the runner's does after its timer)."""
    modes = (False, True) if getattr(strategy, "supports_predecessors", True) else (False,)
    out = []
    for pred in modes:
        strategy.traverse(source, pred).to_host()  # warm: lazily built state exists now
        with census(strategy) as found:
            answer = strategy.traverse(source, pred)
        answer.to_host()
        out += [f"from {source}, predecessors={pred}: allocates {r.dtype}{list(r.shape)}"
                for r in found.allocations]
        if found.pageable_reads:
            out.append(f"from {source}, predecessors={pred}: {found.pageable_reads} pageable reads")
    return out


def check_fixed_cost(monkeypatch, emulation, problem: str, name: str, knobs: dict, **emulated) -> None:
    """A strategy on grid_and_pair, from the pair and from vertex 0 (the grid: many levels,
    every layer or round kind): no device allocation, no pageable read in traverse()."""
    cls = all_strategies(problem)[name]
    with ec.emulated(monkeypatch, emulation, **emulated):
        g = grid_and_pair(weighted=problem == "sssp")
        strategy = cls(make_knobs(cls, knobs))
        strategy.prepare(g)
        problems = traverse_census(strategy, PAIR_SOURCE) + traverse_census(strategy, 0)
        strategy.release()
    assert not problems, f"{name} {knobs}: " + "; ".join(problems)
