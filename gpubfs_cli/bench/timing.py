"""The one timing path (DESIGN.md, Timing).

GPU strategies: CUDA events around the whole traverse() call (every launch and any
host round trip it makes); the copy-back of the result happens after the stop event.
CPU strategies: time.perf_counter_ns around traverse().
"""

from __future__ import annotations

import time

from gpubfs_cli.traversal.result import BfsResult
from gpubfs_cli.traversal.strategy import Strategy


def timed_traverse(strategy: Strategy, source: int, predecessors: bool = False) -> tuple[float, BfsResult]:
    """(milliseconds, host result) for one traversal."""
    if strategy.device == "gpu":
        import cupy as cp

        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        result = strategy.traverse(source, predecessors)
        stop.record()
        stop.synchronize()
        ms = float(cp.cuda.get_elapsed_time(start, stop))
    else:
        t0 = time.perf_counter_ns()
        result = strategy.traverse(source, predecessors)
        ms = (time.perf_counter_ns() - t0) / 1e6
    return ms, result.to_host()


def timed_call(fn, device: str = "cpu") -> tuple[float, object]:
    """(milliseconds, value) of fn(): used for prepare(), reported apart from traversals."""
    if device == "gpu":
        import cupy as cp

        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        value = fn()
        stop.record()
        stop.synchronize()
        return float(cp.cuda.get_elapsed_time(start, stop)), value
    t0 = time.perf_counter_ns()
    value = fn()
    return (time.perf_counter_ns() - t0) / 1e6, value
