"""The schedule of a run on one graph: rounds, turns and warm-ups; no timing, no checks.

Rounds and turns: round r runs every variant on sources r, r + R, ... (R rounds),
starting from variant r (mod V) and going round, so every variant runs first, and at
every other place, as often as the others, and none runs twice in a row (V > 2). On the
H100, whichever variant ran first in a round measured 20-95 us slower per source on
0.15 ms traversals (docs/performance.md): turns spread that over every variant alike. A
variant's mode that ended (error, out-of-time) sits out the rest. One round (the
default) is each variant's sources in turn.

Resume: `remaining` is the schedule minus what a stopped run's journal already holds
(results/done.py), the one filter a resumed run applies: a mode that ended sits its turns
out, and a turn runs only the sources without a sample.

Warm-ups: `warmup` untimed runs and, if any, more until `warmup_ms` has passed since
the first began (nvbench's minimum warm-up time).

Batches: a strategy answering several sources per call gets its round's sources in
consecutive batches of at most its batch size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
Indexed = list[tuple[int, int]]  # (index into the run's sources, source)


@dataclass(frozen=True)
class Turn:
    """One variant's share of one round: its sources, and how many come in later rounds."""

    variant: int  # index into the run's variants
    sources: Indexed
    later: int


def rounds_of(sources: Sequence[int], rounds: int) -> list[Indexed]:
    """The run's sources dealt into min(rounds, len(sources)) rounds (at least one)."""
    count = max(1, min(rounds, len(sources)))
    return [list(enumerate(sources))[r::count] for r in range(count)]


def turns(sources: Sequence[int], variants: int, rounds: int) -> Iterator[Turn]:
    """Every variant's turn in every round, in the order they run."""
    chunks = rounds_of(sources, rounds)
    for r, chunk in enumerate(chunks):
        later = sum(map(len, chunks[r + 1:]))
        start = r % variants if variants else 0
        for v in [*range(start, variants), *range(start)]:
            yield Turn(v, chunk, later)


@dataclass(frozen=True)
class Work:
    """A turn's part still to measure: its sources without a sample, each list with the
    modes that need it, and the progress steps the journal already holds."""

    turn: Turn
    todo: list[tuple[Indexed, list[bool]]]
    held: int


def remaining(sources: Sequence[int], variants: int, rounds: int, modes: list[bool], done: Any = None,
              key: Callable[[int, bool], Any] | None = None) -> list[Work]:
    """Every turn (in order) minus what `done` (results/done.Done; None: nothing) holds,
    a variant's mode looked up by key(variant, mode); a turn with nothing left keeps only
    its held steps. Each call counts the journal's samples afresh, so it may be asked twice."""
    have = done.copy() if done is not None else None
    out = []
    for turn in turns(sources, variants, rounds):
        alive = [m for m in modes if have is None or not have.ended(key(turn.variant, m))]
        held = len(turn.sources) * (len(modes) - len(alive))
        by_todo: dict[tuple, tuple[Indexed, list[bool]]] = {}
        for m in alive:
            todo = have.left(key(turn.variant, m), turn.sources) if have is not None else list(turn.sources)
            held += len(turn.sources) - len(todo)
            if todo:
                by_todo.setdefault(tuple(todo), (todo, []))[1].append(m)
        out.append(Work(turn, list(by_todo.values()), held))
    return out


def batches(items: Sequence[T], size: int) -> list[list[T]]:
    """`items` in consecutive batches of at most `size` (size 1: one item each)."""
    size = max(1, int(size))
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def warm_up_runs(runs: int, ms: float) -> Iterator[int]:
    """The untimed runs before a group's timed ones: `runs` of them and, if any, on until
    `ms` milliseconds have passed since the first began. Yields the run's index; the
    caller does the run."""
    start = time.perf_counter()
    i = 0
    while i < runs or (i and (time.perf_counter() - start) * 1000.0 < ms):
        yield i
        i += 1


def steps(config, sources: int | None = None) -> int:
    """Progress steps of a graph of `sources` (of every graph when None): every variant's
    samples, and the untimed baseline of each problem when every answer is checked."""
    per_graph = (len(config.fixed_sources) or config.sources) if sources is None else sources
    problems = len({v.problem for v in config.variants})
    one = per_graph * (len(config.variants) * len(config.modes) + problems * (config.validate == "all"))
    return one * (len(config.datasets) if sources is None else 1)
