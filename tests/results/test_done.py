"""What is already measured (results/done.py): the one model `run --resume` and
`reproduce` ask, each by its rule, with a planted fault named in each test."""

from __future__ import annotations

from gpubfs_cli.bench.schedule import remaining
from gpubfs_cli.results.done import Done
from gpubfs_cli.results.keys import CellKey
from gpubfs_cli.results.schema import Sample


def sample(source, status="ok", strategy="s.a", knobs=None, pred=False, valid=True, time_ms=1.0, dataset="g"):
    return {"dataset": dataset, "problem": "bfs", "strategy": strategy, "knobs": knobs or {}, "source": source,
            "status": status, "predecessors": pred, "valid": valid, "time_ms": time_ms}


KEY = CellKey.make("g", "bfs", "s.a", {}, False)


def test_a_cell_key_is_the_same_from_a_sample_and_from_its_dict():
    s = sample(3, knobs={"b": 1, "a": True})
    as_sample = Sample.from_dict(s)
    assert CellKey.of(s) == CellKey.of(as_sample) == CellKey.make("g", "bfs", "s.a", {"a": True, "b": 1}, False)
    assert CellKey.of(s) != CellKey.of(sample(3, knobs={"a": 1, "b": 1}))  # True and 1 are two knob values


def test_left_uses_each_sample_once_and_a_repeated_source_needs_two():
    done = Done([sample(4), sample(9)])
    assert done.left(KEY, [(0, 4), (1, 9), (2, 4), (3, 2)]) == [(2, 4), (3, 2)]
    assert done.left(KEY, [(2, 4)]) == [(2, 4)]  # the one sample of 4 was used by the turn before


def test_a_copy_counts_the_samples_afresh():
    done = Done([sample(4)])
    first, second = done.copy(), done.copy()
    assert first.left(KEY, [(0, 4)]) == []
    assert second.left(KEY, [(0, 4)]) == []  # a copy shared with the first would have said [(0, 4)]


def held_whole(done: Done, sources: list[int]) -> bool:
    """Whether a resumed run has nothing left of these sources (the runner's question,
    through the one resume filter)."""
    return not any(w.todo for w in remaining(sources, 1, 1, [False], done, lambda v, m: KEY))


def test_held_whole_and_ended_follow_the_rulebook():
    assert held_whole(Done([sample(1), sample(1)]), [1, 1])
    assert not held_whole(Done([sample(1)]), [1, 1])
    for status in ("error", "out-of-time", "out-of-memory", "unavailable"):
        done = Done([sample(-1, status, time_ms=None)])
        assert done.ended(KEY) and held_whole(done, [1, 2]), status
    wrong = Done([sample(1, "wrong-answer")])
    assert not wrong.ended(KEY) and not held_whole(wrong, [1, 2])  # checked source by source: ends nothing


def test_finished_is_a_failure_that_is_a_result_or_every_planned_source_ok():
    assert Done([sample(0), sample(1)]).finished(KEY, 2)
    assert not Done([sample(0)]).finished(KEY, 2)
    assert not Done([sample(0), sample(0)]).finished(KEY, 2)  # one source twice is not two sources
    assert not Done([sample(0)]).finished(KEY, 0)  # nothing planned: never finished
    for status in ("out-of-time", "out-of-memory", "wrong-answer"):
        assert Done([sample(0), sample(1, status)]).finished(KEY, 5), status
    # run again: a transient failure, another machine (unavailable yields to ok samples)
    assert not Done([sample(0), sample(1, "error")]).finished(KEY, 1)
    assert not Done([sample(-1, "unavailable", time_ms=None)]).finished(KEY, 1)
    assert Done([sample(0, valid=False)]).finished(KEY, 9)  # an ok sample that failed its check: a wrong answer


def test_other_cells_are_apart():
    done = Done([sample(0, pred=True), sample(0, strategy="s.b"), sample(0, knobs={"w": 2}), sample(0, dataset="h")])
    assert done.left(KEY, [(0, 0)]) == [(0, 0)]
    assert len(done.cells()) == 4
