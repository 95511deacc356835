"""The one timing path (DESIGN.md, Timing).

GPU strategies: CUDA events around the whole traverse() call (every launch and any
host round trip it makes) on every device the strategy runs on; the figure is the
slowest device's. The copy-back of the answer happens after the stop events.
CPU strategies: time.perf_counter_ns around traverse().
What the runner does between samples (the cold-L2 flush, reading the clocks) happens
before the start events are recorded or after the stop events are synchronized: never
inside a timed region.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.device import Device
from gpubfs_cli.core.strategy import Strategy


def timed_call(fn: Callable[[], Any], devices: Sequence[Device] = ()) -> tuple[float, Any]:
    """(milliseconds, value) of fn(): events on each GPU in `devices` (the slowest
    counts), else the host clock."""
    gpus = [d for d in devices if d.is_gpu]
    if not gpus:
        t0 = time.perf_counter_ns()
        value = fn()
        return (time.perf_counter_ns() - t0) / 1e6, value
    import cupy as cp

    events = []
    for d in gpus:
        with cp.cuda.Device(d.index):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            events.append((d, start, stop))
    value = fn()
    for d, _, stop in events:
        with cp.cuda.Device(d.index):
            stop.record()
    ms = 0.0
    for d, start, stop in events:
        with cp.cuda.Device(d.index):
            stop.synchronize()
            ms = max(ms, float(cp.cuda.get_elapsed_time(start, stop)))
    return ms, value


def timed_traverse(strategy: Strategy, source: int, predecessors: bool = False) -> tuple[float, Answer]:
    """(milliseconds, host answer) for one traversal; the strategy's own time where it
    timed itself (a peer; a multi-GPU strategy whose slowest rank's events count)."""
    ms, answer = timed_call(lambda: strategy.traverse(source, predecessors), strategy.devices)
    return (answer.time_ms if answer.time_ms is not None else ms), answer.to_host()


def timed_traverse_split(strategy: Strategy, source: int, predecessors: bool = False) -> tuple[float, float, Answer]:
    """(milliseconds, the host's share of them, the answer still on the device): the
    same events as timed_traverse, and the host clock from just after the start events
    to traverse() returning (the launch path), for the scripts that split the two."""
    host: list[float] = []

    def launch() -> Answer:
        t0 = time.perf_counter_ns()
        answer = strategy.traverse(source, predecessors)
        host.append((time.perf_counter_ns() - t0) / 1e6)
        return answer

    ms, answer = timed_call(launch, strategy.devices)
    return ms, host[0], answer


def warm_up_runs(runs: int, ms: float) -> Iterator[int]:
    """The untimed runs before a group's timed ones: `runs` of them and, if any, on until
    `ms` milliseconds have passed since the first began (nvbench's minimum warm-up time).
    Yields the run's index; the caller does the run."""
    start = time.perf_counter()
    i = 0
    while i < runs or (i and (time.perf_counter() - start) * 1000.0 < ms):
        yield i
        i += 1
