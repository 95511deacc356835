"""GTEPS per watt and watts in the report (report/energy.py), from a hand-made results
file's energy records: the value, records pooled, the TEPS convention, the empty cell's
reason without a record or with one that measured nothing, and `gpubfs report --check`
accepting the records and naming each bad one on a line of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from tests.report.docs import dataset_entry, document, sample, write

STRATEGIES = ("do.bfs", "merrill.hybrid", "classic.harish")
NOT_SUPPORTED = "nvml: NVMLError_NotSupported: Not Supported"


def record(strategy: str = "do.bfs", **kw) -> dict:
    """do.bfs: 10^12 edges over 250 J in 1.25 s: 4 GTEPS per watt at 200 W."""
    return {"dataset": "g", "problem": "bfs", "strategy": strategy, "knobs": {}, "predecessors": False, "l2": "warm",
            "prime": False, "devices": ["gpu:0"], "energy_j": 250.0, "seconds": 1.25, "traversals": 5000,
            "mean_w": 200.0, "edges": 10**12, "edges_graph500": 5 * 10**11, "reason": None, **kw}


def unmeasured(strategy: str, reason: str) -> dict:
    return record(strategy, energy_j=None, seconds=None, traversals=None, mean_w=None, edges=None,
                  edges_graph500=None, reason=reason)


def energy_doc(energy: list[dict] | None = None) -> dict:
    """Three GPU strategies on one graph, two sources each; do.bfs's energy measured,
    merrill.hybrid's not (its GPU lacks the counter), classic.harish without a record."""
    samples = [sample("g", s, src, 0.5) for s in STRATEGIES for src in (0, 1)]
    doc = document(samples, {"g": dataset_entry(100, 400)})
    doc["sources"] = {"g": [0, 1]}
    doc["config"] = {"name": "energy", "datasets": [{"name": "g"}], "predecessors": "false", "energy_s": 1.0,
                     "variants": [{"problem": "bfs", "strategy": s, "knobs": {}} for s in STRATEGIES]}
    doc["equivalent_teps"] = ["do.bfs"]
    doc["energy"] = [record(), unmeasured("merrill.hybrid", NOT_SUPPORTED)] if energy is None else energy
    return doc


def cells(path, *flags) -> dict[str, dict]:
    r = CliRunner().invoke(app, ["report", str(path), "--format", "json", *flags])
    assert r.exit_code == 0, r.output
    table = json.loads(r.stdout)["tables"][0]
    return {column.split(" (")[0]: cell for column, cell in zip(table["columns"][1:], table["rows"][0][1:],
                                                                  strict=True)}


def test_gteps_per_watt_and_watts_of_the_replayed_traversals(tmp_path):
    path = write(tmp_path, "r.json", energy_doc())
    got = cells(path, "--metric", "gteps_per_watt")
    assert got["do.bfs"]["value"] == pytest.approx(4.0)  # 10^12 edges / 250 J / 10^9
    assert got["merrill.hybrid"] == {"text": f"n/a: energy not measured: {NOT_SUPPORTED}", "value": None,
                                     "status": "n/a", "reason": f"energy not measured: {NOT_SUPPORTED}"}
    assert got["classic.harish"]["text"] == "n/a: no energy record: a run with energy_s measures it"
    assert cells(path, "--metric", "gteps_per_watt", "--teps", "graph500")["do.bfs"]["value"] == pytest.approx(2.0)
    assert cells(path, "--metric", "watts")["do.bfs"]["value"] == pytest.approx(200.0)
    r = CliRunner().invoke(app, ["report", str(path), "--metric", "gteps_per_watt", "--format", "md"])
    assert "GTEPS per watt" in r.stdout and "do.bfs (equivalent GTEPS)" in r.stdout
    assert "over this strategy's energy" in r.stdout


def test_records_of_one_group_are_pooled(tmp_path):
    """A run and its resumption, or two files: their energy, seconds and edges summed."""
    doc = energy_doc([record(), record(energy_j=750.0, seconds=1.25, mean_w=600.0)])
    path = write(tmp_path, "r.json", doc)
    assert cells(path, "--metric", "gteps_per_watt")["do.bfs"]["value"] == pytest.approx(2.0)  # 2e12 / 1000 J
    assert cells(path, "--metric", "watts")["do.bfs"]["value"] == pytest.approx(400.0)  # 1000 J / 2.5 s


def test_a_record_of_another_mode_is_not_the_cells(tmp_path):
    path = write(tmp_path, "r.json", energy_doc([record(l2="cold"), record(prime=True), record(predecessors=True)]))
    assert cells(path, "--metric", "watts")["do.bfs"]["reason"] == "no energy record: a run with energy_s measures it"


def test_check_accepts_the_records(tmp_path):
    path = write(tmp_path, "r.json", energy_doc())
    r = CliRunner().invoke(app, ["report", "--check", str(path)])
    assert (r.exit_code, r.stdout) == (0, f"{path}: OK\n")


@pytest.mark.parametrize("fault, expected", [
    (lambda e: e[0].update(energy_j="a lot"), "energy[0].energy_j: expected a number >= 0 or null, got 'a lot'"),
    (lambda e: e[0].update(energy_j=-5.0), "energy[0].energy_j: expected a number >= 0 or null, got -5.0"),
    (lambda e: e[0].update(traversals=2.5), "energy[0].traversals: expected a whole number >= 0 or null, got 2.5"),
    (lambda e: e[0].pop("strategy"), "energy[0]: missing key 'strategy'"),
    (lambda e: e[0].update(seconds=0), "energy[0].seconds: expected a number > 0 (a record with energy_j), got 0"),
    (lambda e: e[1].update(reason=None),
     "energy[1].reason: expected why nothing was measured (a record without energy_j), got None"),
    (lambda e: e.append("fine"), "energy[2]: expected an object, got 'fine'"),
    (lambda e: e[0].update(strategy="lbbfs.hybrid"),
     "energy[0] (g: lbbfs.hybrid): no sample of its variant on that graph in that mode (an energy record of "
     "another run?)"),
], ids=["energy-a-string", "negative-energy", "traversals-a-fraction", "no-strategy", "no-seconds", "no-reason",
        "not-an-object", "no-such-variant"])
def test_check_names_a_bad_record_on_one_line(tmp_path, fault, expected):
    doc = energy_doc()
    fault(doc["energy"])
    path = write(tmp_path, "r.json", doc)
    r = CliRunner().invoke(app, ["report", "--check", str(path)])
    assert (r.exit_code, r.stdout) == (1, f"{path}: {expected}\n")


def test_a_report_of_a_bad_record_is_one_error_line(tmp_path):
    doc = energy_doc()
    doc["energy"] = {"do.bfs": 250.0}
    path = write(tmp_path, "r.json", doc)
    r = CliRunner().invoke(app, ["report", str(path), "--metric", "gteps_per_watt"])
    assert r.exit_code == 2
    assert r.stderr.strip().splitlines() == [f"error: {path}: energy: expected a list, got {{'do.bfs': 250.0}}"]


def test_the_records_follow_the_results_schema():
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (the dev extra) validates the results files")
    schema = json.loads((Path(__file__).parents[2] / "gpubfs_cli" / "results" / "results.schema.json").read_text())
    doc = energy_doc()
    for key, value in (("energy", doc["energy"]), ("config", doc["config"])):
        part = {**schema["properties"][key], "$defs": schema["$defs"]}
        assert [e.message for e in jsonschema.Draft202012Validator(part).iter_errors(value)] == []
    part = {**schema["properties"]["energy"], "$defs": schema["$defs"]}
    doc["energy"][0]["energy_j"] = -1.0
    assert [e.message for e in jsonschema.Draft202012Validator(part).iter_errors(doc["energy"])] == [
        "-1.0 is less than the minimum of 0"]
