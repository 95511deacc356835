"""`gpubfs run --resume`: what a resume measures (exactly what the journal lacks, with
vertex 0, repeated sources and several rounds), and the journals it refuses (another
config, CPU, GPU model or source tree)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from gpubfs_cli.bench.measure import Measure
from gpubfs_cli.bench.records import RunRecords
from gpubfs_cli.errors import UserError
from gpubfs_cli.report.build import overview, run_summary
from gpubfs_cli.report.load import load_many, results_from_doc
from gpubfs_cli.results.journal import journal_path
from gpubfs_cli.results.schema import load_results
from tests.results.test_journal import ENV, StopsAfter, config, runner


@pytest.fixture(autouse=True)
def fresh():
    StopsAfter.after, StopsAfter.send, StopsAfter.calls = None, None, 0


@pytest.fixture
def measured(monkeypatch):
    """Every ok sample the runner records, as (dataset, variant, source, round, mode):
    the round from the run's index of the source (the schedule deals index i to round
    i mod R), so a sample that lands in the wrong round, twice or never shows."""
    seen: Counter = Counter()
    now = {}
    real_variant, real_sample = Measure.variant, RunRecords.sample

    def variant(self, name, pi, indexed, *args, **kw):
        rounds = max(1, min(self.config.rounds, len(self.records.doc["sources"][name])))
        now["round"] = {at % rounds for at, _ in indexed}
        assert len(now["round"]) == 1  # a turn is one round's
        return real_variant(self, name, pi, indexed, *args, **kw)

    def sample(self, s):
        if s.status == "ok":
            seen[(s.dataset, self.variant, s.source, next(iter(now["round"])), s.predecessors)] += 1
        return real_sample(self, s)

    monkeypatch.setattr(Measure, "variant", variant)
    monkeypatch.setattr(RunRecords, "sample", sample)
    return seen


def _samples(doc):
    return Counter((s["dataset"], s["strategy"], s["source"], s["predecessors"]) for s in doc["samples"]
                   if s["status"] == "ok")


CASES = {
    "vertex 0": {"fixed_sources": [0, 7, 13]},
    "a repeat": {"fixed_sources": [4, 9, 4, 2]},
    "two rounds": {"sources": 5, "rounds": 2},
    "all at once": {"fixed_sources": [0, 2, 4, 0, 6], "rounds": 3, "predecessors": "both"},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_resume_measures_exactly_what_is_missing(tmp_path, measured, case):
    """Stopped after every possible count of traversals and resumed: the two attempts
    together measure each (dataset, variant, source, round, mode) as often as an
    uninterrupted run, and the resumed file holds the same samples."""
    keys = CASES[case]
    full = runner(config(**keys), tmp_path / "full.json").run().doc
    want = Counter(measured)
    total = sum(n for k, n in want.items() if k[1] == "fake.stops")
    assert total >= 6 and all(s["partial"] is False for s in full["summaries"])
    if "fixed_sources" in keys:
        assert full["sources"]["g"] == keys["fixed_sources"]
    for after in range(1, total):
        measured.clear()
        StopsAfter.after, StopsAfter.calls = after, 0
        out = tmp_path / f"r{after}.json"
        stopped = runner(config(**keys), out).run()
        assert stopped.interrupted
        StopsAfter.after = None
        done = runner(config(**keys), resume=stopped.journal).run().doc
        assert Counter(measured) == want, after
        assert _samples(done) == _samples(full), after
        assert done["complete"] is True and all(s["partial"] is False for s in done["summaries"])
        assert not journal_path(out).exists()


def test_a_complete_run_that_repeats_a_source_is_not_partial(tmp_path):
    out = tmp_path / "r.json"
    runner(config(fixed_sources=[3, 8, 3]), out).run()
    doc = load_results(out)
    for s in doc["summaries"]:
        assert (s["sources_planned"], s["sources_measured"], s["partial"]) == (2, 2, False), s
    for report in (overview(load_many([out]), "ms"), run_summary(results_from_doc(doc, str(out)), "t")):
        cells = [c for t in report.tables for row in t.rows for c in row[1:]]
        assert cells and all(c.status == "ok" and "/" not in c.text for c in cells), [c.text for c in cells]


def _journal_with_env(tmp_path, **environment):
    """A stopped run's journal whose header says it began on a machine with `environment`."""
    StopsAfter.after = 3
    journal = runner(config(), tmp_path / "r.json").run().journal
    StopsAfter.after, StopsAfter.calls = None, 0
    lines = journal.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["environment"].update(environment)
    lines[0] = json.dumps(header) + "\n"
    journal.write_text("".join(lines))
    return journal


H100 = {"available": True, "name": "NVIDIA H100 80GB HBM3", "index": 0}
H200 = {"available": True, "name": "NVIDIA H200", "index": 0}


@pytest.mark.parametrize(("there", "here", "said"), [
    ({"gpu": H100, "gpus": [H100]}, {"gpu": H200, "gpus": [H200]}, "NVIDIA H100 80GB HBM3 there, NVIDIA H200 here"),
    ({"gpu": H100, "gpus": [H100]}, {}, "NVIDIA H100 80GB HBM3 there, none here"),
    ({"gpu": H100}, {"gpu": {"available": False, "reason": "no CUDA"}, "gpus": []},
     "NVIDIA H100 80GB HBM3 there, none here"),
    ({"gpus": [H100, H100]}, {"gpus": [H100]}, "NVIDIA H100 80GB HBM3, NVIDIA H100 80GB HBM3 there, "
                                               "NVIDIA H100 80GB HBM3 here"),
    ({"gpus": [H100]}, {"gpus": [{"available": True, "index": 0}]}, "NVIDIA H100 80GB HBM3 there, none here"),
])
def test_resume_refuses_a_journal_from_another_gpu_model(tmp_path, there, here, said):
    """As firmly as another CPU: one line, nothing appended, the journal left to resume
    where it began."""
    journal = _journal_with_env(tmp_path, **there)
    before = journal.read_bytes()
    other = runner(config(), resume=journal)
    other.environment = dict(ENV, **here)
    with pytest.raises(UserError) as info:
        other.run()
    assert str(info.value) == (f"{journal}: begun on another machine or version (GPUs: {said}); its samples "
                               "would not compare: resume it where it began")
    assert journal.read_bytes() == before
    same = runner(config(), resume=journal)
    same.environment = dict(ENV, **there)
    assert same.run().doc["complete"] is True


@pytest.mark.parametrize(("keys", "said"), [
    ({"strategies": ["cpu.sequential"]}, "variants: cpu.sequential here, cpu.sequential, fake.stops in the journal"),
    ({"datasets": ["g", {"name": "h", "seed": 4}]}, "datasets: g, h@seed=4 here, g, h in the journal"),
])
def test_resume_names_what_differs_as_the_config_gives_it(tmp_path, keys, said):
    StopsAfter.after = 3
    journal = runner(config(), tmp_path / "r.json").run().journal
    with pytest.raises(UserError) as info:
        runner(config(**keys), resume=journal).run()
    assert str(info.value).startswith(f"{journal}: the run config differs from the journal's ({said}); ")
