"""The one resume filter (bench/schedule.remaining), the GPU count as a variant's own
field (bench/variants.with_gpus), and `gpubfs run`'s exit status (bench/stop.run_exit)."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from gpubfs_cli.bench.schedule import remaining, turns
from gpubfs_cli.bench.stop import run_exit
from gpubfs_cli.bench.variants import Variant, make_variant, with_gpus
from gpubfs_cli.core.strategy import GPUS_KNOB, Strategy, register
from gpubfs_cli.results.done import Done
from gpubfs_cli.results.keys import CellKey


def _key(v, m):
    return CellKey.make("g", "bfs", f"s.{v}", {}, m)


def _sample(v, source, status="ok", pred=False):
    return {"dataset": "g", "strategy": f"s.{v}", "source": source, "status": status, "predecessors": pred,
            "valid": True, "time_ms": 1.0}


def test_without_a_journal_every_turn_runs_whole():
    work = remaining([5, 6, 7], 2, 2, [False, True])
    assert [w.turn for w in work] == list(turns([5, 6, 7], 2, 2))
    assert all(w.held == 0 and w.todo == [(w.turn.sources, [False, True])] for w in work)


def test_a_journal_takes_out_what_it_holds_and_counts_it_as_held():
    done = Done([_sample(0, 5), _sample(0, 6, pred=True), _sample(1, -1, "out-of-time")])
    work = remaining([5, 6], 2, 1, [False, True], done, _key)
    by_variant = {w.turn.variant: w for w in work}
    # variant 0: source 5 held without predecessors, 6 with: each mode runs what it lacks
    assert sorted(by_variant[0].todo) == sorted([([(1, 6)], [False]), ([(0, 5)], [True])])
    assert by_variant[0].held == 2
    # variant 1 ended without predecessors: its turn runs the other mode only, the ended one held
    assert by_variant[1].todo == [([(0, 5), (1, 6)], [True])] and by_variant[1].held == 2


def test_asked_twice_it_gives_the_same_answer():
    done = Done([_sample(0, 5)])
    once = remaining([5, 6], 1, 1, [False], done, _key)
    assert remaining([5, 6], 1, 1, [False], done, _key) == once  # the samples are not used up between calls
    assert once[0].todo == [([(1, 6)], [False])]


def test_a_source_listed_twice_needs_two_samples_across_rounds():
    done = Done([_sample(0, 4)])
    work = remaining([4, 4], 1, 2, [False], done, _key)
    assert [w.todo for w in work] == [[], [([(1, 4)], [False])]]


class _TwoGpus(Strategy):
    name = "test.multi"
    paper = "cpu"
    section = "test"
    multi_gpu = True

    @dataclass(frozen=True)
    class Knobs:
        gpus: int = 1


class _OneDevice(Strategy):
    name = "test.single"
    paper = "cpu"
    section = "test"

    @dataclass(frozen=True)
    class Knobs:
        gpus: int = 1  # a knob of that name on a single-device strategy is just a knob


REG = {"bfs": {"test.multi": _TwoGpus, "test.single": _OneDevice}}


def test_the_run_gpu_count_is_a_field_of_each_multi_gpu_variant_only():
    variants = [Variant("test.multi"), Variant("test.single"), Variant("test.multi", {GPUS_KNOB: 4})]
    got = with_gpus(variants, 2, REG)
    assert [v.gpus for v in got] == [2, None, None]  # the strategy's own knob wins over the run's count
    config = SimpleNamespace(networkx_max_edges=1)
    assert [make_variant(config, v, REG)[1].gpus for v in got] == [2, 1, 4]
    assert with_gpus(variants, None, REG) == variants


def test_a_multi_gpu_strategy_without_a_gpus_knob_is_refused():
    class NoCount(Strategy):
        name = "test.nocount"
        paper = "cpu"
        section = "test"
        multi_gpu = True

    with pytest.raises(RuntimeError, match="takes its GPU count by a 'gpus' knob"):
        register(NoCount)


@pytest.mark.parametrize(("outcome", "failed", "not_run", "code"), [
    (dict(interrupted=False, stopped_by=None, written=True), 0, 0, 0),
    (dict(interrupted=False, stopped_by=None, written=True), 1, 0, 1),
    (dict(interrupted=False, stopped_by=None, written=True), 0, 1, 1),
    (dict(interrupted=False, stopped_by=None, written=False), 0, 0, 1),  # nothing ran: no results file
    (dict(interrupted=True, stopped_by="SIGINT", written=True), 3, 1, 130),  # the signal says it first
    (dict(interrupted=True, stopped_by="SIGTERM", written=False), 0, 0, 143),
    (dict(interrupted=True, stopped_by="SIGHUP", written=True), 0, 0, 129),
])
def test_the_run_exit_status(outcome, failed, not_run, code):
    assert run_exit(SimpleNamespace(**outcome), failed, not_run) == code
