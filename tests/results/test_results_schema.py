"""gpubfs_cli/results/results.schema.json (JSON Schema, draft 2020-12) describes the results
file: every shipped one under docs/results validates, so does a fresh run's file with
every optional key the writer has (a batch strategy, a reordered variant, both modes, a
primed run, an unavailable cell), and planted faults do not. jsonschema is the dev
extra's: without it these tests skip, saying so."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.bench import runner as runner_module
from gpubfs_cli.cli import app
from gpubfs_cli.gpu import backend
from gpubfs_cli.graph.samples import grid

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema (the dev extra) validates the results files")

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "gpubfs_cli" / "results" / "results.schema.json"
SHIPPED = sorted(p for p in (ROOT / "docs" / "results").rglob("*") if p.name.endswith((".json", ".json.gz")))
ARRAYS = ("samples", "prepares", "summaries", "clocks")


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(validator, doc: dict, where: str = "", origin: dict | None = None) -> list[str]:
    out = []
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        path = list(e.absolute_path)
        if origin and len(path) > 1 and path[0] in origin:  # a kept item: its index in the file
            path[1] = origin[path[0]][path[1]]
        out.append(f"{where}{'/'.join(map(str, path))}: {e.message[:200]}")
    return out


# ---------------------------------------------------------------- the shipped files
# Each file is checked whole but for two reductions that keep every verdict of this schema,
# which bounds no number but by its sign (or -1, 0, 1): a long list of numbers keeps its
# smallest, its largest and one of each type, and of the four big arrays' items one is
# checked per shape (the same keys, the same type and sign of each number, the same
# strings where the schema names their values). The 90,000 samples would take a minute.
ENUM_KEYS = {"status", "l2", "via", "sources_origin", "validate", "predecessors", "stopped_by", "mode", "problem"}


def compact(x):
    if isinstance(x, dict):
        return {k: compact(v) for k, v in x.items()}
    if isinstance(x, list):
        kinds = set(map(type, x))
        if len(x) > 4 and kinds <= {int, float, type(None)}:
            numbers = [v for v in x if v is not None]
            kept = [min(numbers), max(numbers)] if numbers else []
            kept += [next(v for v in x if type(v) is t) for t in kinds - {type(None)}]
            return kept + ([None] if type(None) in kinds else [])
        return [compact(v) for v in x]
    return x


def shape(x, key=None):
    if isinstance(x, str):
        return x if key in ENUM_KEYS else "a string"
    if isinstance(x, bool) or x is None:
        return x
    if isinstance(x, (int, float)):
        return type(x).__name__, x if x in (-1, 0, 1) else (x > 0) - (x < 0)
    if isinstance(x, list):
        return [shape(v, key) for v in x]
    return {k: shape(v, k) for k, v in x.items()}


def reduced(doc: dict) -> tuple[dict, dict[str, list[int]]]:
    """The compacted document with one item per shape of each big array, and each kept
    item's index in the file."""
    doc = compact(doc)
    origin = {}
    for key in ARRAYS:
        if isinstance(doc.get(key), list):
            kept: dict[str, int] = {}
            for i, item in enumerate(doc[key]):
                kept.setdefault(json.dumps(shape(item), sort_keys=True), i)
            origin[key] = list(kept.values())
            doc[key] = [doc[key][i] for i in origin[key]]
    return doc, origin


def test_the_shipped_results_files_are_found():
    assert len(SHIPPED) >= 50 and any(p.name.endswith(".gz") for p in SHIPPED)


@pytest.mark.parametrize("path", SHIPPED, ids=[str(p.relative_to(ROOT / "docs" / "results")) for p in SHIPPED])
def test_every_shipped_results_file_validates(validator, path):
    with (gzip.open(path, "rt", encoding="utf-8") if path.name.endswith(".gz") else open(path, encoding="utf-8")) as f:
        doc, origin = reduced(json.load(f))
    assert not problems(validator, doc, f"{path.name}: ", origin)


# ---------------------------------------------------------------- a fresh run's file
@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """A results file of this code with the writer's optional keys: a batch strategy
    (cpu.msbfs), a reordered variant, both modes, prime, a GPU strategy unavailable."""
    tmp = tmp_path_factory.mktemp("fresh")
    out = tmp / "r.json"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(backend, "unavailable_reason", lambda: "disabled for this test")
        mp.setattr(runner_module, "default_loader", lambda spec, d, p: (grid(6, 6, name=spec.name), {}))
        result = CliRunner().invoke(app, [
            "run", "-d", "smoke-grid", "-s", "cpu.sequential,cpu.msbfs,merrill.hybrid", "--sources", "3",
            "--warmup", "0", "--predecessors", "both", "--prime", "--reorder", "none,degree",
            "--out", str(out), "--dir", str(tmp / "data")])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text(encoding="utf-8"))


def test_a_fresh_results_file_validates_and_holds_the_optional_keys(validator, fresh):
    samples = fresh["samples"]
    assert {"batch", "prime"} <= set().union(*samples) and any(s["status"] == "unavailable" for s in samples)
    assert any("reorder" in s["knobs"] for s in samples) and any("reorder_ms" in p for p in fresh["prepares"])
    assert not problems(validator, fresh)


@pytest.mark.parametrize("fault, expected", [
    (lambda d: d["samples"][0].pop("status"), "samples/0: 'status' is a required property"),
    (lambda d: d["samples"][0].update(reached="12"), "samples/0/reached: '12' is not of type 'integer'"),
    (lambda d: d["samples"][0].update(status="fine"), "samples/0/status: 'fine' is not one of"),
    (lambda d: d["samples"][0].update(status="ok", time_ms=None), "samples/0/time_ms: None is not of type 'number'"),
    (lambda d: d["samples"][0].update(depth="deep"), "samples/0/depth: 'deep' is not of type 'integer', 'null'"),
    (lambda d: d["prepares"][0].update(time_ms=-1.0), "prepares/0/time_ms: -1.0 is less than the minimum of 0"),
    (lambda d: d["config"].update(predecessors=True), "config/predecessors: True is not one of"),
    (lambda d: d.update(schema_version=2), "schema_version: 1 was expected"),
    (lambda d: d.update(extra_key=1), "Additional properties are not allowed ('extra_key' was unexpected)"),
    (lambda d: d.pop("samples"), ": 'samples' is a required property"),
], ids=["no-status", "reached-a-string", "unknown-status", "ok-without-time", "measure-a-string",
        "negative-time", "config-mode-a-bool", "schema-version", "unknown-key", "no-samples"])
def test_a_planted_fault_fails_validation(validator, fresh, fault, expected):
    doc = copy.deepcopy(fresh)
    fault(doc)
    found = problems(validator, doc)
    assert any(expected in p for p in found), found
