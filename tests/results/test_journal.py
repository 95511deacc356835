"""The run's journal: written as the run goes, replayed into the results file, resumed
after a stop; partial cells, unique names, samples of no planned variant refused, and a
run that measured nothing leaving no file."""

from __future__ import annotations

import json
import os
import signal
from collections import Counter

import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs
from gpubfs_cli.bench import graph_run as graph_run_module
from gpubfs_cli.bench import records as records_module
from gpubfs_cli.bench import runner as runner_module
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.core.strategy import StrategyUnavailable
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.samples import grid
from gpubfs_cli.report.build import overview, run_summary
from gpubfs_cli.report.load import load_many, results_from_doc
from gpubfs_cli.results import journal as journal_module
from gpubfs_cli.results.journal import Journal, journal_path
from gpubfs_cli.results.replay import BadRecord, read_journal
from gpubfs_cli.results.schema import load_results
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


def test_a_run_starting_beside_one_that_writes_its_journal_is_told_so_not_to_resume(tmp_path):
    StopsAfter.after = 2
    out = tmp_path / "r.json"
    journal = runner(config(), out).run().journal
    out.unlink(missing_ok=True)
    held = Journal.reopen(journal)  # the other run, still writing
    try:
        for replace in (False, True):
            with pytest.raises(UserError, match=r"r.journal.jsonl: another gpubfs run is writing this journal$"):
                runner(config(), out, replace=replace).run()
    finally:
        held.close()
        StopsAfter.after = None


def test_ctrl_c_during_the_reference_answers_keeps_what_was_measured(tmp_path, monkeypatch):
    real = graph_run_module.problem_input

    def problem_input(key, name, *args):
        if name == "h":
            raise KeyboardInterrupt
        return real(key, name, *args)

    monkeypatch.setattr(graph_run_module, "problem_input", problem_input)
    outcome = runner(config(), tmp_path / "r.json").run()
    assert outcome.interrupted and outcome.written
    doc = load_results(tmp_path / "r.json")
    assert doc["interrupted_during"] == "the reference answers of h (bfs)"
    assert {s["dataset"] for s in doc["samples"]} == {"g"} and len(counts(doc)) == 10


def test_nothing_runnable_loads_no_graph_and_leaves_no_file(tmp_path):
    """Nothing could be measured: no graph, no reference answer, no journal, no results
    file (one that looks like a run), and the outcome says why."""
    loads = []
    outcome = runner(config(["fake.gpu"]), tmp_path / "r.json", loads=loads).run()
    assert loads == [] and not outcome.interrupted and not outcome.written
    assert outcome.nothing == "no strategy of this run can run here (fake.gpu: no GPU here)"
    assert list(tmp_path.iterdir()) == []


class TooBig(Base):
    name = "fake.too_big"

    def prepare(self, graph):
        raise StrategyUnavailable(f"{graph.m} edges is over its limit")


def test_a_run_whose_every_cell_is_unavailable_measured_nothing(tmp_path):
    """Every variant ran into `unavailable` on every graph (not this machine, the
    graphs): nothing was measured, so no results file and no journal either."""
    reg = {"bfs": {**REGISTRY["bfs"], TooBig.name: TooBig}}
    cfg = build_config({"name": "t", "datasets": ["g", "h"], "strategies": ["fake.too_big"], "sources": 2},
                       dataset_check=lambda name: None, registry=reg)
    outcome = Runner(cfg, load_graph=lambda spec, d, p: (GRAPHS[spec.name], {}), out_path=tmp_path / "r.json",
                     environment=dict(ENV), registry=reg).run()
    assert not outcome.written and not outcome.interrupted
    assert outcome.nothing == "every cell is unavailable (fake.too_big: 120 edges is over its limit)"
    assert list(tmp_path.iterdir()) == []
    cfg = build_config({"name": "t", "datasets": ["g", "h"], "strategies": ["fake.too_big", "cpu.sequential"],
                        "sources": 2}, dataset_check=lambda name: None, registry=reg)
    outcome = Runner(cfg, load_graph=lambda spec, d, p: (GRAPHS[spec.name], {}), out_path=tmp_path / "r.json",
                     environment=dict(ENV), registry=reg).run()
    assert outcome.written and outcome.nothing is None  # one cell measured: a run, its unavailable cells kept
    assert {s["status"] for s in load_results(tmp_path / "r.json")["samples"]} == {"ok", "unavailable"}


def test_a_problem_whose_strategies_cannot_run_skips_its_references_in_one_line(tmp_path, monkeypatch):
    asked = []
    real = graph_run_module.problem_input
    monkeypatch.setattr(graph_run_module, "problem_input", lambda key, *a: asked.append(key) or real(key, *a))
    strategies = ["cpu.sequential", "fake.gpu", {"name": "fake.gpu_sssp", "problem": "sssp"}]
    outcome = runner(config(strategies), tmp_path / "r.json").run()
    assert asked == ["bfs", "bfs"]  # one per graph, never SSSP's
    assert outcome.notes == ["sssp reference answers skipped on 2 graph(s): no sssp strategy of this run can "
                             "run here (fake.gpu_sssp: no GPU here)"]
    statuses = {(s["strategy"], s["status"]) for s in outcome.doc["samples"]}
    assert statuses == {("cpu.sequential", "ok"), ("fake.gpu", "unavailable"), ("fake.gpu_sssp", "unavailable")}


def test_a_long_turn_goes_to_the_journal_in_parts(tmp_path, monkeypatch):
    monkeypatch.setattr(records_module, "FLUSH_EVERY_S", -1.0)  # every sample is a part
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


# ---- damage, hand edits and an empty journal -------------------------------------


def _stopped_journal(tmp_path, after=3):
    StopsAfter.after = after
    journal = runner(config(), tmp_path / "r.json").run().journal
    StopsAfter.after, StopsAfter.calls = None, 0
    return journal


def _lines(journal):
    return journal.read_bytes().split(b"\n")[:-1]


def _write_lines(journal, lines):
    journal.write_bytes(b"".join(line + b"\n" for line in lines))


def _first_line(lines, marker: bytes) -> int:
    """The number (from 1) of the first line holding `marker`."""
    return next(i for i, line in enumerate(lines, start=1) if marker in line)


def _edit_record(journal, marker: bytes, edit) -> tuple[int, dict]:
    """The first record holding `marker` rewritten by edit(record): its line number and it."""
    lines = _lines(journal)
    number = _first_line(lines, marker)
    record = json.loads(lines[number - 1])
    edit(record)
    lines[number - 1] = json.dumps(record).encode()
    _write_lines(journal, lines)
    return number, record


def _readers(journal, *, report: bool = True) -> list:
    """Everything that reads a journal: the replay, a resume and (a results file's stand-in) report."""
    return [lambda: read_journal(journal), lambda: runner(config(), resume=journal).run(),
            *([lambda: load_many([journal])] if report else [])]


@pytest.mark.parametrize("damage", [b'{"kind":"measured","variant":"fake.st', b"\x00" * 40, b"\xff\xfe garbage"])
def test_a_damaged_line_in_the_middle_is_an_error_naming_it(tmp_path, damage):
    """Only the last line may be cut by a crash; a bad line before others was changed
    since it was written, and passing it over would drop what it held in silence."""
    journal = _stopped_journal(tmp_path)
    lines = _lines(journal)
    number = _first_line(lines, b'"kind":"measured"')
    assert number < len(lines)
    lines[number - 1] = damage
    _write_lines(journal, lines)
    for read in _readers(journal):
        with pytest.raises(UserError) as info:
            read()
        msg = str(info.value)
        assert msg.startswith(f"{journal}:{number}: not a journal record") and "\n" not in msg, msg
    assert _lines(journal)[number - 1] == damage  # the refused resume cut nothing off


def test_a_last_line_of_any_bytes_is_what_a_crash_left(tmp_path):
    journal = _stopped_journal(tmp_path)
    whole = read_journal(journal).results()
    with open(journal, "ab") as f:
        f.write(b'{"kind":"measured","variant":"fake.stops","samples":[{"\xe2\x82')  # cut in a character
    assert read_journal(journal).results() == whole
    assert load_many([journal]).samples  # the report reads it too
    assert runner(config(), resume=journal).run().doc["complete"] is True


@pytest.mark.parametrize("how", ["SIGTERM", "failed"])
def test_a_resumed_run_that_completes_reads_complete_everywhere(tmp_path, monkeypatch, how):
    """The first attempt's stop or failure is gone from the results file, and the report
    neither says the run did not complete nor marks a cell (k/n)."""
    from typer.testing import CliRunner

    from gpubfs_cli.cli import app

    out = tmp_path / "r.json"
    if how == "failed":
        real = graph_run_module.problem_input

        def problem_input(key, name, *args):
            if name == "h":
                raise RuntimeError("disk on fire")
            return real(key, name, *args)

        monkeypatch.setattr(graph_run_module, "problem_input", problem_input)
        with pytest.raises(RuntimeError):
            runner(config(), out).run()
        monkeypatch.setattr(graph_run_module, "problem_input", real)
        assert load_results(out)["failed"] == "RuntimeError: disk on fire"
    else:
        StopsAfter.after, StopsAfter.send = 3, "SIGTERM"
        runner(config(), out).run()
        StopsAfter.after, StopsAfter.send, StopsAfter.calls = None, None, 0
        assert load_results(out)["stopped_by"] == "SIGTERM"
    stopped = overview(load_many([out]), "ms")
    assert any("the run did not complete" in line for line in stopped.header)  # the test can see it
    runner(config(), resume=journal_path(out)).run()
    doc = load_results(out)
    assert (doc["complete"], doc["interrupted"]) == (True, False)
    assert not {"stopped_by", "interrupted_during", "failed"} & set(doc), doc.keys()
    assert all(s["partial"] is False for s in doc["summaries"])
    report = overview(load_many([out]), "ms")
    assert not any("did not complete" in line for line in report.header)
    cells = [c for t in report.tables for row in t.rows for c in row[1:]]
    assert cells and all(c.status == "ok" and not c.text.endswith(")") for c in cells)
    r = CliRunner().invoke(app, ["report", str(out), "--format", "md"])
    assert r.exit_code == 0, r.output
    assert "did not complete" not in r.stdout and "/5)" not in r.stdout


def test_a_time_below_zero_is_refused_naming_its_line(tmp_path):
    journal = _stopped_journal(tmp_path)
    number, record = _edit_record(journal, b'"kind":"measured"',
                                  lambda r: r["samples"][1].update(time_ms=-0.25))
    source = record["samples"][1]["source"]
    for read in _readers(journal, report=False):
        with pytest.raises(UserError) as info:
            read()
        assert str(info.value) == (f"{journal}:{number}: a sample of {record['samples'][1]['strategy']} on g, "
                                   f"source {source}: time_ms: expected a time >= 0 (ms), found -0.25")


def test_a_prepare_time_below_zero_is_refused_naming_its_line(tmp_path):
    journal = _stopped_journal(tmp_path)
    number, _ = _edit_record(journal, b'"prepares":[{', lambda r: r["prepares"][0].update(upload_ms=-3))
    with pytest.raises(UserError, match=rf"^{journal}:{number}: a prepare of .* on g: upload_ms: expected a "
                                        r"time >= 0 \(ms\), found -3$"):
        read_journal(journal)


def test_a_prepare_setup_time_below_zero_is_refused_naming_its_line(tmp_path):
    journal = _stopped_journal(tmp_path)
    number, _ = _edit_record(journal, b'"prepares":[{',
                             lambda r: r["prepares"][0].update(setup={"nccl_form_ms": 3.5, "nccl_first_call_ms": -1}))
    with pytest.raises(UserError, match=rf"^{journal}:{number}: a prepare of .* on g: setup.nccl_first_call_ms: "
                                        r"expected a time >= 0 \(ms\), found -1$"):
        read_journal(journal)


def test_a_sample_recorded_twice_is_refused_naming_its_line(tmp_path):
    journal = _stopped_journal(tmp_path, after=7)  # g whole, h part-way
    lines = _lines(journal)
    number = _first_line(lines, b'"kind":"measured"')
    lines.insert(number, lines[number - 1])  # the turn's record copied below itself
    _write_lines(journal, lines)
    record = json.loads(lines[number])
    first = record["samples"][0]
    for read in _readers(journal):
        with pytest.raises(UserError) as info:
            read()
        assert str(info.value) == (f"{journal}:{number + 1}: a sample of {first['strategy']} on g, source "
                                   f"{first['source']}: recorded 2 times, but g's sources list it 1 time "
                                   "(a sample recorded twice?)")
    lines[number] = lines[number].replace(f'"source":{first["source"]},'.encode(), b'"source":35,', 1)
    _write_lines(journal, lines)  # a source the run never drew
    with pytest.raises(UserError, match=rf"^{journal}:{number + 1}: .* source 35: recorded 1 times, but g's "
                                        r"sources do not list it"):
        read_journal(journal)


def test_a_second_header_is_refused_naming_its_line(tmp_path):
    journal = _stopped_journal(tmp_path, after=7)
    lines = _lines(journal)
    _write_lines(journal, lines + [lines[0]])  # another run's journal appended to this one
    for read in _readers(journal):
        with pytest.raises(UserError) as info:
            read()
        assert str(info.value) == f"{journal}:{len(lines) + 1}: a second header (a journal of another run appended?)"


@pytest.mark.parametrize("edit, said", [
    (lambda s: s.update(strategy="fake.gpu"),
     "fake.gpu (bfs) is no variant of the run's config (it plans cpu.sequential, fake.stops)"),
    (lambda s: s.update(problem="sssp"), "(sssp) is no variant of the run's config (it plans no sssp strategy)"),
    (lambda s: s.update(knobs={"alpha": 3}),
     "with alpha=3 is no variant of the run's config (it plans cpu.sequential with no alpha)"),
])
def test_a_sample_of_a_variant_the_run_does_not_plan_is_refused_naming_its_line(tmp_path, edit, said):
    """A hand-edited line, or one of another run's journal: resume, replay and report
    all refuse it in one line, never merging it into the results."""
    journal = _stopped_journal(tmp_path, after=7)
    number, record = _edit_record(journal, b'"variant":"cpu.sequential"', lambda r: edit(r["samples"][0]))
    first = record["samples"][0]
    for read in _readers(journal):
        with pytest.raises(UserError) as info:
            read()
        msg = str(info.value)
        assert msg.startswith(f"{journal}:{number}: a sample of {first['strategy']} on g, source "
                              f"{first['source']}: ") and said in msg and "\n" not in msg, msg
        assert msg.endswith("(a sample of another run?)")


def test_a_journal_without_a_plan_is_held_to_its_config(tmp_path):
    """A journal written before the header held the plan: a sample of a strategy its
    config does not list is still refused."""
    journal = _stopped_journal(tmp_path, after=7)
    lines = _lines(journal)
    header = json.loads(lines[0])
    del header["plan"]
    lines[0] = json.dumps(header).encode()
    _write_lines(journal, lines)
    assert read_journal(journal).results()["samples"]
    number, _ = _edit_record(journal, b'"variant":"fake.stops"',
                             lambda r: r["samples"][0].update(strategy="fake.gpu"))
    with pytest.raises(UserError, match=rf"^{journal}:{number}: a sample of fake.gpu on g, .*fake.gpu \(bfs\) is no "
                                        r"variant of the run's config \(it plans cpu.sequential, fake.stops\)"):
        read_journal(journal)


def test_one_source_twice_in_a_record_is_refused(tmp_path):
    journal = _stopped_journal(tmp_path)
    number, _ = _edit_record(journal, b'"kind":"measured"',
                             lambda r: r["samples"].append(dict(r["samples"][0])))
    with pytest.raises(UserError, match=rf"^{journal}:{number}: .*recorded 2 times, but g's sources list it 1 "):
        read_journal(journal)


def test_a_full_disk_at_the_very_start_leaves_nothing_to_trip_on(tmp_path, monkeypatch):
    """The header cannot be written: no journal is left, the message does not send the
    user to --resume, and the same command runs once there is room."""
    real = os.write

    def full(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal_module.os, "write", full)
    out = tmp_path / "results" / "r.json"
    with pytest.raises(UserError) as info:
        runner(config(), out, replace=False).run()
    assert str(info.value) == (f"{journal_path(out)}: cannot write the journal (No space left on device); nothing "
                               "was measured: run the same command again once there is room")
    assert not journal_path(out).exists() and not out.parent.exists()
    monkeypatch.setattr(journal_module.os, "write", real)
    assert runner(config(), out, replace=False).run().doc["complete"] is True


def _cli_run(tmp_path, *args):
    from typer.testing import CliRunner

    from gpubfs_cli.cli import app

    return CliRunner().invoke(app, ["run", *map(str, args)])


@pytest.fixture
def cli_graphs(monkeypatch):
    monkeypatch.setattr(runner_module, "default_loader", lambda spec, d, p: (grid(4, 4, name=spec.name), {}))


@pytest.mark.parametrize("left", [b"", b'{"kind":"header","journal":1,"results":"r.js'])
def test_an_empty_journal_is_replaced_by_the_same_command_not_resumed(tmp_path, cli_graphs, left):
    """A journal without a whole line (the disk was full, or the run killed, at its first
    write) holds nothing: --resume says to run the command again, and that command
    replaces it without --force, so the advice never loops."""
    out = tmp_path / "r.json"
    journal_path(out).write_bytes(left)
    resumed = _cli_run(tmp_path, "--resume", journal_path(out))
    assert resumed.exit_code == 2
    assert resumed.stderr.strip().splitlines() == [
        f"error: {journal_path(out)}: an empty journal (the run stopped before it wrote its first line, so there "
        "is nothing to resume): run the same command again without --resume; it replaces this journal"]
    again = _cli_run(tmp_path, "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "3", "--warmup", "0",
                     "--out", out)
    assert again.exit_code == 0, again.output
    assert load_results(out)["complete"] is True and not journal_path(out).exists()


def test_a_journal_with_a_header_still_needs_resume_or_force(tmp_path, cli_graphs):
    out = tmp_path / "r.json"
    header = Journal.create(journal_path(out), {"created": "", "environment": {}, "config": {}, "problems": {},
                                                "equivalent_teps": []}, exclusive=True)
    header.close()
    again = _cli_run(tmp_path, "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "3", "--out", out)
    assert again.exit_code == 2 and "the journal of an unfinished run is there: resume it" in again.stderr


def test_a_record_the_reader_would_refuse_never_reaches_the_file(tmp_path):
    journal = _stopped_journal(tmp_path)
    held = Journal.reopen(journal)
    before = journal.read_bytes()
    sample = dict(held.replay.doc["samples"][0], time_ms=-1.0)
    try:
        with pytest.raises(BadRecord, match="time_ms: expected a time >= 0"):
            held.write({"kind": "measured", "variant": "x", "samples": [sample], "prepares": [], "clocks": []})
    finally:
        held.close()
    assert journal.read_bytes() == before
    assert runner(config(), resume=journal).run().doc["complete"] is True


def test_a_journal_of_another_version_is_refused(tmp_path):
    path = tmp_path / "r.journal.jsonl"
    header = {"kind": "header", "journal": 1, "results": "r.json", "created": "", "environment": {}, "config": {},
              "problems": {}, "equivalent_teps": []}
    path.write_text(json.dumps(header) + "\n")
    assert read_journal(path).results()["samples"] == []
    path.write_text(json.dumps(dict(header, journal=2)) + "\n")
    with pytest.raises(UserError, match=r"not a gpubfs journal \(no header line of version 1\)"):
        read_journal(path)


def test_a_copied_sample_of_vertex_0_is_refused_too(tmp_path):
    StopsAfter.after = 3
    journal = runner(config(fixed_sources=[0, 5, 9]), tmp_path / "r.json").run().journal
    lines = _lines(journal)
    number = next(i for i, line in enumerate(lines, start=1) if b'"source":0,' in line and b'"measured"' in line)
    lines.insert(number, lines[number - 1])
    _write_lines(journal, lines)
    with pytest.raises(UserError, match=rf"^{journal}:{number + 1}: a sample of .* on g, source 0: recorded 2 "
                                        "times, but g's sources list it 1 time"):
        read_journal(journal)


def test_a_resumed_run_stopped_again_resumes_again(tmp_path):
    """Each resume appends after the whole lines it found: the second resume reads the
    first one's records as the first read the run's."""
    full = runner(config(), tmp_path / "full.json").run().doc
    journal = _stopped_journal(tmp_path, after=2)
    with open(journal, "ab") as f:
        f.write(b'{"kind":"meas')  # and a crash left a cut line
    StopsAfter.after = 3
    again = runner(config(), resume=journal).run()
    assert again.interrupted and again.journal == journal
    StopsAfter.after, StopsAfter.calls = None, 0
    done = runner(config(), resume=journal).run().doc
    assert counts(done) == counts(full) and done["complete"] is True
    assert [r["command_line"] for r in done["resumed"]] == ["test", "test"]


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_the_journal_gets_the_mode_a_results_file_gets(tmp_path, mask):
    """A stopped run's journal is a file like its results file: 0666 less the umask,
    never executable."""
    old = os.umask(mask)
    try:
        journal = _stopped_journal(tmp_path)
    finally:
        os.umask(old)
    assert os.stat(journal).st_mode & 0o777 == 0o666 & ~mask
