"""scripts/device/ab_summary.py (kernel_ab.sh's table): medians, B / A, the rounds' spread
and B / A paired by source, worked by hand on small runs files; bad input is one line."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpubfs_cli.results.schema import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "device" / "ab_summary.py"
spec = importlib.util.spec_from_file_location("ab_summary", SCRIPT)
ab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab)


def sample(source, ms, *, dataset="g", strategy="s", status="ok", valid=True, knobs=None):
    return {"dataset": dataset, "strategy": strategy, "source": source, "time_ms": ms,
            "status": status, "valid": valid, **({"knobs": knobs} if knobs is not None else {})}


def write(folder: Path, name: str, samples: list[dict]) -> None:
    doc = {"schema_version": SCHEMA_VERSION, "datasets": {}, "sources": {}, "samples": samples}
    (folder / name).write_text(json.dumps(doc))


def row(lines: list[str], dataset: str, strategy: str) -> list[str]:
    [line] = [x for x in lines[1:] if x.split()[:2] == [dataset, strategy]]
    return line.split()


def test_medians_rounds_and_the_paired_ratio(tmp_path):
    # A: sources 1, 2, 3 at 10, 20, 40 ms in round 1 and 12, 20, 40 in round 2;
    # B: each source half as long, but source 3's second round failed.
    write(tmp_path, "ab-A1.json", [sample(1, 10.0), sample(2, 20.0), sample(3, 40.0)])
    write(tmp_path, "ab-A2.json", [sample(1, 12.0), sample(2, 20.0), sample(3, 40.0)])
    write(tmp_path, "ab-B1.json", [sample(1, 5.0), sample(2, 10.0), sample(3, 20.0)])
    write(tmp_path, "ab-B2.json", [sample(1, 6.0), sample(2, 10.0), sample(3, 0.0, status="error")])
    cols = row(ab.table(tmp_path), "g", "s")
    # A's six times' median 20; B's five (5, 6, 10, 10, 20) median 10
    assert cols[2:5] == ["20.000", "10.000", "0.500"]
    # round medians: A 20 and 20; B 10 and 8
    assert cols[5:7] == ["20.000-20.000", "8.000-10.000"]
    assert cols[7] == "6/5"
    # per source: A 11, 20, 40; B 5.5, 10, 20: every ratio 0.5, so the interval is a point
    assert cols[8:12] == ["0.500", "(0.500-0.500)", "3", "sources"]
    assert cols[12:] == ["1", "B", "not", "ok"]


def test_pairing_follows_the_sources_not_the_order(tmp_path):
    # B is A's times with sources 1 and 3 swapped: the medians agree, the pairs do not
    write(tmp_path, "ab-A1.json", [sample(1, 1.0), sample(2, 2.0), sample(3, 4.0)])
    write(tmp_path, "ab-B1.json", [sample(1, 4.0), sample(2, 2.0), sample(3, 1.0)])
    cols = row(ab.table(tmp_path), "g", "s")
    assert cols[4] == "1.000"
    assert cols[8] == "1.000" and cols[9] == "(0.250-4.000)"
    write(tmp_path, "ab-B1.json", [sample(1, 1.0), sample(2, 2.0), sample(3, 4.0)])
    assert row(ab.table(tmp_path), "g", "s")[8:10] == ["1.000", "(1.000-1.000)"]


def test_a_variant_on_one_side_only_and_invalid_answers(tmp_path):
    write(tmp_path, "ab-A1.json", [sample(1, 2.0), sample(2, 2.0), sample(1, 3.0, strategy="t")])
    write(tmp_path, "ab-B1.json", [sample(1, 1.0), sample(2, 1.0), sample(1, 9.0, strategy="t", valid=False)])
    t = row(ab.table(tmp_path), "g", "t")
    # no source on both sides: no paired column at all, then the note
    assert t[3] == "nan" and t[7] == "1/0" and t[8:] == ["1", "B", "not", "ok"]
    assert row(ab.table(tmp_path), "g", "s")[8:] == ["0.500", "(0.500-0.500)", "2", "sources"]


def test_variants_of_one_strategy_are_rows_of_their_own(tmp_path):
    # s at its defaults and s[leader_async=True] on both sides, plus a knob B's code alone
    # has (at one value): the variants pair with their own kind, the new knob splits nothing
    def two(side, fast, slow, extra):
        return [sample(1, fast, knobs={"leader_async": False, **extra}),
                sample(1, slow, knobs={"leader_async": True, **extra})]
    write(tmp_path, "ab-A1.json", two("A", 2.0, 4.0, {}))
    write(tmp_path, "ab-B1.json", two("B", 1.0, 1.0, {"new_knob": 7}))
    lines = ab.table(tmp_path)
    assert row(lines, "g", "s[leader_async=False]")[8] == "0.500"
    assert row(lines, "g", "s[leader_async=True]")[8] == "0.250"
    assert lines[0] == ab.header(len("s[leader_async=False]")) and len(lines) == 3


def test_one_source(tmp_path):
    write(tmp_path, "ab-A1.json", [sample(7, 3.0)])
    write(tmp_path, "ab-B1.json", [sample(7, 2.4)])
    assert row(ab.table(tmp_path), "g", "s")[8:] == ["0.800", "(0.800-0.800)", "1", "source"]


def test_the_script_prints_the_table(tmp_path):
    write(tmp_path, "ab-A1.json", [sample(1, 2.0, dataset="rmat20", strategy="do.bfs")])
    write(tmp_path, "ab-B1.json", [sample(1, 1.0, dataset="rmat20", strategy="do.bfs")])
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == ab.HEADER and row(lines, "rmat20", "do.bfs")[4] == "0.500"


@pytest.mark.parametrize("files, says", [
    ({}, "no ab-A<round>.json"),
    ({"ab-A1.json": "{not json"}, "ab-A1.json:1: not valid JSON"),
    ({"ab-A1.json": json.dumps({"runs": []})}, "ab-A1.json: not a gpubfs results file"),
])
def test_bad_input_is_one_line(tmp_path, files, says):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and says in proc.stderr


def test_usage():
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert proc.returncode == 2 and "usage:" in proc.stderr
