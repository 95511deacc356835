"""The run's journal: written as the run goes, replayed into the results file, resumed
after a stop; partial cells, unique names, and what a run skips when nothing can run."""

from __future__ import annotations

import json
import os
import signal
from collections import Counter

import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs
from gpubfs_cli.bench import journal as journal_module
from gpubfs_cli.bench import runner as runner_module
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.journal import Journal, journal_path, read_journal
from gpubfs_cli.bench.results import load_results
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.samples import grid
from gpubfs_cli.report.build import overview, run_summary
from gpubfs_cli.report.load import load_many, results_from_doc
from tests.bench.test_runner import Base

ENV = {"git_commit": "c0ffee", "source_tree": "7ree", "command_line": "test", "cpu": {"model": "test cpu"},
       "tool_version": "0"}


class StopsAfter(Base):
    """Answers `after` traversals (warm-ups included), then stops the run: Ctrl-C, or
    the signal named in `send`; `after` None never stops."""

    name = "fake.stops"
    after: int | None = None
    send: str | None = None
    calls = 0

    def traverse(self, source, predecessors=False):
        StopsAfter.calls += 1
        if StopsAfter.after is not None and StopsAfter.calls > StopsAfter.after:
            if StopsAfter.send is None:
                raise KeyboardInterrupt
            os.kill(os.getpid(), getattr(signal, StopsAfter.send))
        return super().traverse(source, predecessors)


class NoGpu(Base):
    name = "fake.gpu"

    @classmethod
    def unavailable_reason(cls):
        return "no GPU here"


class NoGpuSssp(NoGpu):
    name = "fake.gpu_sssp"
    problem = "sssp"


REGISTRY = {"bfs": {c.name: c for c in (SequentialBfs, StopsAfter, NoGpu)},
            "sssp": {NoGpuSssp.name: NoGpuSssp}}
GRAPHS = {"g": grid(6, 6, name="g"), "h": grid(5, 5, name="h")}


@pytest.fixture(autouse=True)
def fresh():
    StopsAfter.after, StopsAfter.send, StopsAfter.calls = None, None, 0


def config(strategies=("cpu.sequential", "fake.stops"), **raw):
    raw = {"name": "t", "datasets": ["g", "h"], "strategies": list(strategies), "sources": 5, "warmup": 0,
           "seed": 3, **raw}
    return build_config(raw, dataset_check=lambda name: None, registry=REGISTRY)


def runner(cfg, out=None, loads=None, **kw):
    def load(spec, data_dir, progress):
        if loads is not None:
            loads.append(spec.name)
        return GRAPHS[spec.name], {}

    return Runner(cfg, load_graph=load, out_path=out, environment=dict(ENV), registry=REGISTRY, **kw)


def counts(doc):
    return Counter((s["dataset"], s["strategy"], s["source"]) for s in doc["samples"] if s["status"] == "ok")


def summary(doc, strategy, dataset):
    return next(s for s in doc["summaries"] if (s["strategy"], s["dataset"]) == (strategy, dataset))


def test_a_complete_run_replays_its_journal_into_the_results_file_and_removes_it(tmp_path, monkeypatch):
    out = tmp_path / "r.json"
    written = []
    real = Journal.write
    monkeypatch.setattr(Journal, "write", lambda self, record: written.append(record["kind"]) or real(self, record))
    outcome = runner(config(), out).run()
    assert outcome.doc["complete"] is True and outcome.written and outcome.journal is None
    assert not journal_path(out).exists()  # the results file holds it all
    # one header, each graph's facts, one record per turn (2 variants x 2 graphs), the end
    assert written[0] == "header" and written[-1] == "end"
    assert written.count("measured") == 4 and written.count("dataset") >= 2
    doc = load_results(out)
    assert summary(doc, "fake.stops", "g")["sources_planned"] == 5
    assert summary(doc, "fake.stops", "g")["partial"] is False


def test_ctrl_c_after_three_sources_is_a_partial_cell_everywhere(tmp_path):
    StopsAfter.after = 3
    out = tmp_path / "r.json"
    outcome = runner(config(), out).run()
    assert outcome.interrupted and outcome.stopped_by == "SIGINT"
    doc = load_results(out)
    assert (doc["complete"], doc["interrupted"], doc["stopped_by"]) == (False, True, "SIGINT")
    assert doc["interrupted_during"] == "fake.stops on g"
    cell = summary(doc, "fake.stops", "g")
    assert (cell["status"], cell["sources_measured"], cell["sources_planned"], cell["partial"]) == ("ok", 3, 5, True)
    assert summary(doc, "cpu.sequential", "g")["partial"] is False
    # the journal stays for --resume, and replays into the very document written
    journal = journal_path(out)
    assert outcome.journal == journal and read_journal(journal).results() == doc
    # the run's end table and the report mark the cell, and the report says the run stopped
    table = run_summary(results_from_doc(doc, str(out)), "t").tables[0]
    row = next(r for r in table.rows if r[0].text == "fake.stops")
    assert row[1].status == "partial" and row[1].text.split("\n")[0].endswith(" ms (3/5)")
    assert "partial (3 of 5 sources measured" in " ".join(table.footnotes)
    for path in (out, journal):
        report = overview(load_many([path]), "ms")
        cell = report.tables[0].rows[0][report.tables[0].columns.index("fake.stops")]
        assert cell.status == "partial" and cell.text.endswith(" (3/5)") and cell.value is not None
        assert any("the run did not complete: interrupted by SIGINT during fake.stops on g" in line
                   for line in report.header)


@pytest.mark.parametrize(("name", "code"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_sigterm_and_sighup_stop_the_run_as_ctrl_c_does(tmp_path, name, code):
    from gpubfs_cli.bench.stop import exit_code

    StopsAfter.after, StopsAfter.send = 2, name
    previous = signal.getsignal(getattr(signal, name))
    outcome = runner(config(), tmp_path / "r.json").run()
    assert outcome.interrupted and outcome.stopped_by == name and exit_code(name) == code
    doc = load_results(tmp_path / "r.json")
    assert doc["stopped_by"] == name and summary(doc, "fake.stops", "g")["sources_measured"] == 2
    assert signal.getsignal(getattr(signal, name)) == previous  # handlers as they were


def test_resume_finishes_the_run_with_the_same_answers(tmp_path):
    full = runner(config(), tmp_path / "full.json").run().doc
    StopsAfter.after, StopsAfter.calls = 3, 0
    out = tmp_path / "r.json"
    stopped = runner(config(), out).run()
    assert stopped.interrupted and sum(counts(stopped.doc).values()) < sum(counts(full).values())
    StopsAfter.after = None
    done = runner(config(), resume=stopped.journal).run()
    assert done.path == out and done.doc["complete"] is True and not done.interrupted
    assert counts(done.doc) == counts(full)  # every source once, none twice
    assert done.doc["sources"] == full["sources"]
    assert done.doc["resumed"] == [{"at": done.doc["resumed"][0]["at"], "command_line": "test",
                                    "git_commit": "c0ffee", "source_tree": "7ree"}]
    assert all(not s["partial"] for s in done.doc["summaries"])
    assert not stopped.journal.exists()


def test_resume_skips_whole_graphs_and_modes_that_ended(tmp_path):
    strategies = ["cpu.sequential", "fake.stops", "fake.gpu"]
    StopsAfter.after = 10  # g's 5 sources in both modes, then h's first
    stopped = runner(config(strategies, predecessors="both"), tmp_path / "r.json").run()
    assert stopped.interrupted
    loads = []
    StopsAfter.after, StopsAfter.calls = None, 0
    done = runner(config(strategies, predecessors="both"), loads=loads, resume=stopped.journal).run()
    assert loads == ["h"]  # g was whole in the journal
    assert StopsAfter.calls == 2 * 5  # h's sources, both modes
    unavailable = Counter(s["dataset"] for s in done.doc["samples"] if s["strategy"] == "fake.gpu")
    assert unavailable == {"g": 2, "h": 2}  # an ended mode is not recorded again
    full = runner(config(strategies, predecessors="both"), tmp_path / "f.json").run().doc
    assert counts(done.doc) == counts(full)


def test_resume_refuses_another_config_or_machine_in_one_line(tmp_path):
    StopsAfter.after = 3
    journal = runner(config(), tmp_path / "r.json").run().journal
    with pytest.raises(UserError, match=r"the run config differs from the journal's \(sources: 6 here, 5 in the "
                                        r"journal\); resume with its own config"):
        runner(config(sources=6), resume=journal).run()
    other = runner(config(), resume=journal)
    other.environment = dict(ENV, cpu={"model": "another cpu"})
    with pytest.raises(UserError, match="begun on another machine or version .CPU: test cpu there, another cpu here"):
        other.run()
    changed = runner(config(), resume=journal)
    changed.environment = dict(ENV, source_tree="0ther")  # a default knob or kernel changed since
    with pytest.raises(UserError, match=r"begun with other code \(gpubfs source tree 7ree there, 0ther here\); its "
                                        r"samples would not compare: resume it with the code it began with \(c0ffee\)"):
        changed.run()
    StopsAfter.after = None
    assert runner(config(), resume=journal).run().doc["complete"] is True  # the refusals left it resumable
    with pytest.raises(UserError, match="not a journal"):
        runner(config(), resume=tmp_path / "r.json").run()


def test_a_cut_last_line_is_passed_over_and_cut_off_on_resume(tmp_path):
    StopsAfter.after = 3
    journal = runner(config(), tmp_path / "r.json").run().journal
    whole = read_journal(journal).results()
    with open(journal, "ab") as f:
        f.write(b'{"kind":"measured","variant":"x","samp')  # the machine died mid-write
    assert read_journal(journal).results() == whole
    StopsAfter.after = None
    assert runner(config(), resume=journal).run().doc["complete"] is True


def test_a_full_disk_loses_at_most_the_group_in_flight(tmp_path, monkeypatch):
    real = os.write
    state = {"writes": 0}

    def write(fd, data):
        state["writes"] += 1
        if state["writes"] == 6:  # header, g's facts, a turn, ... then the disk is full
            real(fd, bytes(data)[:10])
            raise OSError(28, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(journal_module.os, "write", write)
    out = tmp_path / "r.json"
    with pytest.raises(UserError, match=r"cannot write the journal \(No space left on device\); it keeps "
                                        r"everything written before: gpubfs run --resume"):
        runner(config(), out).run()
    monkeypatch.setattr(journal_module.os, "write", real)
    kept = read_journal(journal_path(out)).results()  # no cut line left behind
    assert counts(kept) and kept["complete"] is False
    assert runner(config(), resume=journal_path(out)).run().doc["complete"] is True


def test_two_runs_in_one_second_get_two_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner_module, "default_out_path", lambda cfg, now=None: tmp_path / "results" / "t.json")
    busy = Journal.create(tmp_path / "results" / "t.journal.jsonl", {"created": "", "environment": {},
                                                                      "config": {}, "problems": {},
                                                                      "equivalent_teps": []}, exclusive=True)
    first = runner(config()).run()  # another run holds t (its journal): this one is t-2
    busy.remove()
    second = runner(config()).run()  # t is free again
    third = runner(config()).run()  # t and t-2 are finished results files
    assert [o.path.name for o in (first, second, third)] == ["t-2.json", "t.json", "t-3.json"]
    assert all(load_results(o.path)["complete"] for o in (first, second, third))


def test_a_named_results_file_is_never_replaced_unless_asked(tmp_path):
    out = tmp_path / "r.json"
    runner(config(), out).run()
    with pytest.raises(UserError, match=r"r.json: already exists; give --force to replace it, or another --out"):
        runner(config(), out, replace=False).run()
    StopsAfter.after = 2
    out2 = tmp_path / "s.json"
    journal = runner(config(), out2).run().journal
    out2.unlink()
    with pytest.raises(UserError, match=r"s.journal.jsonl: the journal of an unfinished run is there: resume it"):
        runner(config(), out2, replace=False).run()
    StopsAfter.after = None
    assert runner(config(), out2, replace=True).run().doc["complete"] and not journal.exists()


def test_a_journal_being_written_cannot_be_resumed_twice(tmp_path):
    StopsAfter.after = 2
    journal = runner(config(), tmp_path / "r.json").run().journal
    held = Journal.reopen(journal)
    try:
        with pytest.raises(UserError, match="another gpubfs run is writing this journal"):
            runner(config(), resume=journal).run()
    finally:
        held.close()


def test_ctrl_c_during_the_reference_answers_keeps_what_was_measured(tmp_path, monkeypatch):
    real = runner_module.problem_input

    def problem_input(key, name, *args):
        if name == "h":
            raise KeyboardInterrupt
        return real(key, name, *args)

    monkeypatch.setattr(runner_module, "problem_input", problem_input)
    outcome = runner(config(), tmp_path / "r.json").run()
    assert outcome.interrupted and outcome.written
    doc = load_results(tmp_path / "r.json")
    assert doc["interrupted_during"] == "the reference answers of h (bfs)"
    assert {s["dataset"] for s in doc["samples"]} == {"g"} and len(counts(doc)) == 10


def test_nothing_runnable_loads_no_graph_and_computes_no_reference(tmp_path):
    loads = []
    outcome = runner(config(["fake.gpu"]), tmp_path / "r.json", loads=loads).run()
    assert loads == [] and not outcome.interrupted
    assert outcome.notes == ["no strategy of this run can run here (fake.gpu: no GPU here): no graph loaded, "
                             "no reference answer computed; every cell is unavailable"]
    doc = load_results(tmp_path / "r.json")
    assert {(s["dataset"], s["status"], s["reason"]) for s in doc["samples"]} == {
        ("g", "unavailable", "no GPU here"), ("h", "unavailable", "no GPU here")}
    assert doc["datasets"]["g"]["status"] == "skipped"


def test_a_problem_whose_strategies_cannot_run_skips_its_references_in_one_line(tmp_path, monkeypatch):
    asked = []
    real = runner_module.problem_input
    monkeypatch.setattr(runner_module, "problem_input", lambda key, *a: asked.append(key) or real(key, *a))
    strategies = ["cpu.sequential", "fake.gpu", {"name": "fake.gpu_sssp", "problem": "sssp"}]
    outcome = runner(config(strategies), tmp_path / "r.json").run()
    assert asked == ["bfs", "bfs"]  # one per graph, never SSSP's
    assert outcome.notes == ["sssp reference answers skipped on 2 graph(s): no sssp strategy of this run can "
                             "run here (fake.gpu_sssp: no GPU here)"]
    statuses = {(s["strategy"], s["status"]) for s in outcome.doc["samples"]}
    assert statuses == {("cpu.sequential", "ok"), ("fake.gpu", "unavailable"), ("fake.gpu_sssp", "unavailable")}


def test_a_long_turn_goes_to_the_journal_in_parts(tmp_path, monkeypatch):
    monkeypatch.setattr(runner_module, "FLUSH_EVERY_S", -1.0)  # every sample is a part
    StopsAfter.after = 3
    journal = runner(config(["fake.stops"]), tmp_path / "r.json").run().journal
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    parts = [len(r["samples"]) for r in records if r["kind"] == "measured"]
    assert parts == [1, 1, 1]


def test_a_signal_ignored_before_the_run_stays_ignored(tmp_path):
    """`nohup gpubfs run ...`: the lost terminal's SIGHUP must not stop the run."""
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        StopsAfter.after, StopsAfter.send = 2, "SIGHUP"
        outcome = runner(config(), tmp_path / "r.json").run()
        assert not outcome.interrupted and outcome.doc["complete"] is True
    finally:
        signal.signal(signal.SIGHUP, previous)
