"""`gpubfs report --check`: every shipped results file passes, and a fault planted in a
fresh one (a sample removed or doubled, a status misspelled, a source not in the list,
a summary that disagrees, a dataset without its sources, a group of no variant) is
named on a line of its own, with exit status 1."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.algorithms.bfs.cpu.scipy_ref import ScipyBfs
from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.cli import app
from gpubfs_cli.graph.samples import grid
from gpubfs_cli.report.check import check_file, check_lines
from gpubfs_cli.results.groups import summaries
from gpubfs_cli.results.schema import load_results

RESULTS = Path(__file__).parents[2] / "docs" / "results"
REGISTRY = {"bfs": {c.name: c for c in (SequentialBfs, ScipyBfs)}}


# Written before peer.gapbs's predecessor row became `unavailable`: that row holds the
# distance row's samples (docs/peers.md), which --check names and the report shows as n/a.
GAPBS_COPIES = {"h100-2026-11-23/cpu-parallel.json.gz": [
    f"g500-s20-ef16: peer.gapbs[binary=, threads={t}, trials=2] (bfs, predecessors): suspect: the same times as "
    "peer.gapbs without +pred, source for source (10 samples): a copy of its samples, not a measurement"
    for t in (1, 0)]}


def test_every_shipped_results_file_passes_but_the_old_gapbs_copies():
    files = sorted(RESULTS.glob("*/*.json.gz"))
    assert len(files) >= 50  # every shipped set (docs/results/claims.yaml indexes them)
    r = CliRunner().invoke(app, ["report", "--check", *map(str, files)])
    assert r.exit_code == 1, r.stdout
    expected = [line for f in files
                for line in ([f"{f}: {p}" for p in GAPBS_COPIES[f"{f.parent.name}/{f.name}"]]
                             if f"{f.parent.name}/{f.name}" in GAPBS_COPIES else [f"{f}: OK"])]
    assert r.stdout.splitlines() == expected


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> dict:
    """A complete run's document: two graphs, two strategies, both modes, three sources."""
    tmp = tmp_path_factory.mktemp("check")
    graphs = {g.name: g for g in (grid(4, 4, name="g4"), grid(5, 5, name="g5"))}
    cfg = build_config({"name": "t", "datasets": list(graphs), "strategies": ["cpu.sequential", "cpu.scipy"],
                        "sources": 3, "predecessors": "both", "warmup": 0},
                       dataset_check=lambda name: None, registry=REGISTRY)
    outcome = Runner(cfg, load_graph=lambda spec, d, p: (graphs[spec.name], {}), out_path=tmp / "out.json",
                     environment={}, registry=REGISTRY).run()
    return load_results(outcome.path)


def write(tmp_path, doc, name="r.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def problems(tmp_path, doc) -> list[str]:
    return check_file(write(tmp_path, doc))


def index(doc, strategy="cpu.scipy", dataset="g5", predecessors=False, source=None) -> int:
    return next(i for i, s in enumerate(doc["samples"]) if s["strategy"] == strategy and s["dataset"] == dataset
                and s["predecessors"] == predecessors and (source is None or s["source"] == source))


def resummarize(doc) -> dict:
    doc["summaries"] = summaries(doc["samples"], None, doc["sources"])
    return doc


def test_a_fresh_run_passes(tmp_path, fresh):
    assert len(fresh["samples"]) == 2 * 2 * 2 * 3
    assert problems(tmp_path, fresh) == []


def test_a_sample_removed(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    gone = doc["samples"].pop(index(doc))
    found = problems(tmp_path, doc)
    assert f"g5: cpu.scipy: 2 of 3 planned samples (missing: source {gone['source']}), in a complete run with " \
           "no failure" in found
    # its summary still says three: that disagreement is named too
    assert any(p.endswith("(g5: cpu.scipy): samples 3, its samples make it 2") for p in found)
    assert problems(tmp_path, resummarize(doc)) == [
        f"g5: cpu.scipy: 2 of 3 planned samples (missing: source {gone['source']}), in a complete run with no failure"]


def test_a_whole_group_removed(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    doc["samples"] = [s for s in doc["samples"] if not (s["dataset"] == "g4" and s["predecessors"])]
    assert "g4: no sample of cpu.sequential with predecessors" in problems(tmp_path, resummarize(doc))


def test_fewer_samples_pass_where_the_run_stopped_or_the_group_failed(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    doc["samples"].pop(index(doc))
    doc.update(complete=False, interrupted=True, stopped_by="SIGINT")
    assert problems(tmp_path, resummarize(doc)) == []
    doc = copy.deepcopy(fresh)
    first = index(doc)
    doc["samples"][first].update(status="out-of-time", reason="over the limit (remaining 2 sources skipped)")
    doc["samples"] = [s for i, s in enumerate(doc["samples"])
                      if i == first or not (s["strategy"] == "cpu.scipy" and s["dataset"] == "g5"
                                            and not s["predecessors"])]
    assert problems(tmp_path, resummarize(doc)) == []


def test_a_sample_doubled(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    twice = doc["samples"][index(doc)]
    doc["samples"].append(dict(twice))
    found = problems(tmp_path, resummarize(doc))
    assert found == [f"g5: cpu.scipy: more samples than its dataset lists sources (extra: source {twice['source']})"]
    other = next(v for v in doc["sources"]["g5"] if v != twice["source"])
    doc["samples"] += [dict(twice), dict(doc["samples"][index(doc, source=other)])]
    a, b = sorted((twice["source"], other))
    shown = f"{a} x2, {b}" if a == twice["source"] else f"{a}, {b} x2"
    assert problems(tmp_path, resummarize(doc)) == [
        f"g5: cpu.scipy: more samples than its dataset lists sources (extra: sources {shown})"]


def test_a_status_misspelled(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    i = index(doc)
    doc["samples"][i]["status"] = "okay"
    found = problems(tmp_path, doc)
    assert found[0] == (f"samples[{i}].status: expected one of ok, out-of-time, out-of-memory, unavailable, "
                        "wrong-answer, error, got 'okay'")
    doc = copy.deepcopy(fresh)
    doc["prepares"][0]["status"] = "fine"
    assert problems(tmp_path, doc) == ["prepares[0].status: expected one of ok, out-of-time, out-of-memory, "
                                       "unavailable, wrong-answer, error, got 'fine'"]


def test_a_prepare_setup_that_is_not_times(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    doc["prepares"][0]["setup"] = {"nccl_form_ms": "3 s"}
    assert problems(tmp_path, doc) == ["prepares[0].setup: expected an object of numbers (ms), "
                                       "got {'nccl_form_ms': '3 s'}"]


def test_device_bytes_that_are_not_whole_numbers(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    doc["prepares"][0]["device_bytes"] = [1024, -1]
    assert problems(tmp_path, doc) == ["prepares[0].device_bytes: expected a list of whole numbers >= 0, "
                                       "got [1024, -1]"]
    doc["prepares"][0]["device_bytes"] = [1024, 2048]
    assert problems(tmp_path, doc) == []


def test_a_source_not_in_the_list(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    i = index(doc, dataset="g4")
    was = doc["samples"][i]["source"]
    doc["samples"][i]["source"] = 999
    found = problems(tmp_path, doc)
    assert found[0] == f"samples[{i}]: source 999 is not among the 3 sources of g4"
    assert "g4: cpu.scipy: more samples than its dataset lists sources (extra: source 999)" in found
    assert f"g4: cpu.scipy: 2 of 3 planned samples (missing: source {was}), in a complete run with no failure" in found


def test_a_summary_that_disagrees_with_the_rulebook(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    at = next(i for i, e in enumerate(doc["summaries"]) if e["strategy"] == "cpu.sequential" and e["dataset"] == "g4"
              and not e["predecessors"])
    doc["summaries"][at]["status"] = "wrong-answer"
    assert problems(tmp_path, doc) == [
        f"summaries[{at}] (g4: cpu.sequential): status 'wrong-answer', its samples make it 'ok'"]
    doc["summaries"].pop(at)
    assert problems(tmp_path, doc) == ["g4: cpu.sequential: samples without a summary"]


def test_sources_recorded_for_each_dataset(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    del doc["sources"]["g5"]
    found = problems(tmp_path, doc)
    assert found[0] == "datasets.g5: loaded, but sources.g5 lists no source"
    assert "g5: cpu.sequential: more samples than its dataset lists sources (extra: sources" in found[1]
    doc = copy.deepcopy(fresh)
    doc["samples"][0]["dataset"] = "elsewhere"
    assert "1 sample(s) of dataset 'elsewhere', which datasets does not record" in problems(tmp_path, doc)


def test_samples_of_no_variant_and_datasets_missing(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    doc["config"]["variants"] = [v for v in doc["config"]["variants"] if v["strategy"] != "cpu.scipy"]
    found = problems(tmp_path, doc)
    assert "g4: cpu.scipy: samples of no variant of the config" in found
    assert "g5: cpu.scipy (bfs, predecessors): samples of no variant of the config" in found
    doc = copy.deepcopy(fresh)
    doc["config"]["datasets"].append({"name": "g6", "seed": None})
    assert problems(tmp_path, doc) == ["the config lists 3 datasets, the file records 2"]


def test_knobs_the_config_sets_must_match(tmp_path, fresh):
    doc = copy.deepcopy(fresh)
    doc["config"]["variants"][0]["knobs"] = {"chunk": 7}
    found = problems(tmp_path, doc)
    assert "g4: no sample of cpu.sequential[chunk=7]" in found and "g4: cpu.sequential: samples of no variant " \
           "of the config" in found


def test_a_variant_holding_another_variants_samples_is_suspect(tmp_path, fresh):
    """The +pred row given the distance row's times, source for source (as old peer.gapbs
    files have it): named as the copy, whatever else the file gets right."""
    doc = copy.deepcopy(fresh)
    for s in doc["samples"]:
        if s["strategy"] == "cpu.scipy" and s["dataset"] == "g5" and s["predecessors"]:
            s["time_ms"] = doc["samples"][index(doc, source=s["source"])]["time_ms"]
    assert problems(tmp_path, doc) == [
        "g5: cpu.scipy (bfs, predecessors): suspect: the same times as cpu.scipy without +pred, source for "
        "source (3 samples): a copy of its samples, not a measurement"]
    # one time shared by every sample (a timer's floor) tells nothing: never flagged
    for s in doc["samples"]:
        if s["strategy"] == "cpu.scipy" and s["dataset"] == "g5":
            s["time_ms"] = 0.01
    assert problems(tmp_path, doc) == []


def test_a_broken_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert check_file(bad) == ["line 1: not valid JSON (Expecting property name enclosed in double quotes)"]
    assert check_file(tmp_path / "none.json") == ["no such results file"]


def test_lines_and_the_command(tmp_path, fresh):
    assert check_lines("a.json", []) == ["a.json: OK"]
    assert check_lines("a.json", [f"p{i}" for i in range(25)], shown=3) == [
        "a.json: p0", "a.json: p1", "a.json: p2", "a.json: ... and 22 more problems"]
    good = write(tmp_path, fresh, "good.json")
    doc = copy.deepcopy(fresh)
    doc["samples"][index(doc)]["status"] = "okay"
    bad = write(tmp_path, doc, "bad.json")
    r = CliRunner().invoke(app, ["report", "--check", str(good)])
    assert r.exit_code == 0 and r.stdout == f"{good}: OK\n"
    r = CliRunner().invoke(app, ["report", "--check", str(good), str(bad)])
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[0] == f"{good}: OK" and lines[1].startswith(f"{bad}: samples[") and "got 'okay'" in lines[1]
    r = CliRunner().invoke(app, ["report", "--check"])
    assert r.exit_code == 2 and "--check: name the results files to check" in r.output
    r = CliRunner().invoke(app, ["report", "--check", "--paper", "merrill", str(good)])
    assert r.exit_code == 2 and "--check reads only the results files given" in r.output
