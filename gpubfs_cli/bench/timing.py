"""The one timing path: one timer per timing kind a strategy declares (core/strategy.py).

- `events`: CUDA events around the whole call (every launch and any host round trip it
  makes) on every GPU the strategy runs on; the figure is the slowest device's.
- `host`: time.perf_counter_ns around the call.
- `self`: the strategy's own figure, Answer.time_ms (a peer's timer; a multi-GPU
  strategy's slowest rank), the sum over the answers of a batch.
The copy-back of the answer happens after the stop events or clock. What the harness
does between samples (the prime call, the cold-L2 flush, reading the clocks) happens
before a timer starts or after it stops: never inside a timed region.

`prime` (a run's policy, bench/config.py): before each timed call of a strategy that runs
on a GPU, one untimed call of the same kind, waited for. Without it a timed call starts
after the harness's host work since the previous one (the answer's copy home; at times
the checks of the calls before, bench/unchecked.py), and the host's launch path is slower
after that (measured in docs/performance.md, "Primed runs"); a loop of traversals, as the
peers' own timers measure, never pauses so.

`warm_up`: the untimed runs before a variant's first timed call.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.device import Device
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.results.status import classify


def time_host(fn: Callable[[], Any], devices: Sequence[Device] = ()) -> tuple[float, Any]:
    """(milliseconds, value) of fn() by the host clock."""
    t0 = time.perf_counter_ns()
    value = fn()
    return (time.perf_counter_ns() - t0) / 1e6, value


def time_events(fn: Callable[[], Any], devices: Sequence[Device] = ()) -> tuple[float, Any]:
    """(milliseconds, value) of fn(): events on each GPU in `devices`, the slowest counts."""
    gpus = [d for d in devices if d.is_gpu]
    if not gpus:
        raise RuntimeError("events timing needs a GPU among the strategy's devices")
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


def time_self(fn: Callable[[], Any], devices: Sequence[Device] = ()) -> tuple[float, Any]:
    """(milliseconds, value) of fn(), an Answer or a list of them, by their own time_ms."""
    value = fn()
    answers = value if isinstance(value, list) else [value]
    missing = [a for a in answers if a.time_ms is None]
    if missing:
        raise RuntimeError("a strategy timed by itself returned an answer without its time_ms")
    return float(sum(a.time_ms for a in answers)), value


TIMERS = {"events": time_events, "host": time_host, "self": time_self}


def timed_call(fn: Callable[[], Any], devices: Sequence[Device] = ()) -> tuple[float, Any]:
    """(milliseconds, value) of work that is not a traversal (upload, prepare): events
    where `devices` hold a GPU, else the host clock."""
    timer = time_events if any(d.is_gpu for d in devices) else time_host
    return timer(fn, devices)


def timed_traverse(strategy: Strategy, source: int, predecessors: bool = False) -> tuple[float, Answer]:
    """(milliseconds, host answer) of one traversal, timed as the strategy declares."""
    ms, answer = TIMERS[strategy.timing](lambda: strategy.traverse(source, predecessors), strategy.devices)
    return ms, answer.to_host()


def timed_batch(strategy: Strategy, sources: list[int], predecessors: bool = False) -> tuple[float, list[Answer]]:
    """(milliseconds of the whole call, one host answer per source) of one batch."""
    ms, answers = TIMERS[strategy.timing](lambda: strategy.traverse_batch(list(sources), predecessors),
                                          strategy.devices)
    if len(answers) != len(sources):
        raise RuntimeError(f"{strategy.name} answered {len(answers)} of a batch of {len(sources)} sources")
    return ms, [a.to_host() for a in answers]


def primes(strategy: Strategy) -> bool:
    """Whether the prime policy calls `strategy` before its timed calls: it runs on a GPU
    (a peer's binary, timed by itself on the host's side, and CPU strategies do not)."""
    return any(d.is_gpu for d in strategy.devices)


def prime(strategy: Strategy, sources: list[int], predecessors: bool = False) -> None:
    """The untimed call before a timed one: a traversal from sources[0], or a batch of
    `sources` for a batch strategy, waited for on the strategy's GPUs; its answers stay
    on the device (a copy back would be host work of its own before the timer)."""
    if strategy.batch_size() > 1:
        strategy.traverse_batch(list(sources), predecessors)
    else:
        strategy.traverse(sources[0], predecessors)
    from gpubfs_cli.gpu import backend

    backend.synchronize(strategy.devices)


def timed_traverse_split(strategy: Strategy, source: int, predecessors: bool = False) -> tuple[float, float, Answer]:
    """(milliseconds, the host's share of them, the answer still on the device): the
    timer of timed_traverse, and the host clock from just after the start events to
    traverse() returning (the launch path), for the scripts that split the two."""
    host: list[float] = []

    def launch() -> Answer:
        t0 = time.perf_counter_ns()
        answer = strategy.traverse(source, predecessors)
        host.append((time.perf_counter_ns() - t0) / 1e6)
        return answer

    ms, answer = TIMERS[strategy.timing](launch, strategy.devices)
    return ms, host[0], answer


def warm_up(strategy: Strategy, source: int, mode: bool, runs, limit_s: float) -> tuple[str, str] | None:
    """The untimed runs `runs` yields (bench/schedule.warm_up_runs): None, or the (status,
    reason) of a failure or of one run over the time limit, which ends the variant. A
    batch strategy warms up on one source."""
    batched = strategy.batch_size() > 1
    for _ in runs:
        t0 = time.perf_counter()
        try:
            if batched:
                [a.to_host() for a in strategy.traverse_batch([source], mode)]
            else:
                strategy.traverse(source, mode).to_host()
        except Exception as exc:
            status, why = classify(exc)
            return status, f"warm-up: {why}"
        took = time.perf_counter() - t0
        if took > limit_s:
            return "out-of-time", f"warm-up took {took:.3g} s, over the limit of {limit_s:g} s"
    return None
