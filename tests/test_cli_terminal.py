"""The commands on a terminal of a fixed width (CliRunner, a forced-terminal console):
every table line within the width, names never cut, unavailable strategies in one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpubfs_cli import cli
from gpubfs_cli.cli import app
from gpubfs_cli.gpu import backend

runner = CliRunner()
H200 = sorted(str(p) for p in (Path(__file__).resolve().parent.parent / "docs" / "results" / "h200-2026-11-22")
              .glob("*.json.gz"))


def terminal(monkeypatch, width: int) -> None:
    monkeypatch.setattr(cli, "console", Console(force_terminal=True, width=width, color_system=None))


def lines_of(result) -> list[str]:
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def tokens(lines: list[str]) -> set[str]:
    return set(re.split(r"[\s│┃,]+", "\n".join(lines)))


@pytest.mark.parametrize("width", [80, 120])
def test_report_and_paper_tables_fit_the_terminal(monkeypatch, width):
    terminal(monkeypatch, width)
    for args in ([], ["--paper", "merrill"]):
        lines = lines_of(runner.invoke(app, ["report", *args, *H200]))
        assert max(map(len, lines)) <= width
    assert any(line.startswith("Table 2.") for line in lines)


def test_list_strategies_keeps_every_name_whole(monkeypatch):
    from gpubfs_cli.core.strategy import registry

    terminal(monkeypatch, 80)
    lines = lines_of(runner.invoke(app, ["list", "strategies"]))
    assert max(map(len, lines)) <= 80 and not any("…" in line for line in lines)
    rows = {line.split("│")[1].strip() for line in lines if line.startswith("│")}
    assert rows >= {name for names in registry().values() for name in names}
    assert any(line.startswith("knobs (defaults):") for line in lines)  # under the table at 80
    # a name that serves two problems lists each problem's own knobs
    assert "peer.gapbs (bfs): binary=, threads=0, trials=2" in lines
    assert any(line.startswith("peer.gapbs (sssp):") and "delta=" in line for line in lines)


def test_list_datasets_shows_names_and_papers(monkeypatch, tmp_path):
    terminal(monkeypatch, 80)
    lines = lines_of(runner.invoke(app, ["list", "datasets", "--dir", str(tmp_path)]))
    assert max(map(len, lines)) <= 80 and not any("…" in line for line in lines)
    shown = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in lines if line.startswith("│")}
    for row in json.loads(runner.invoke(app, ["list", "datasets", "--json", "--dir", str(tmp_path)]).stdout):
        assert shown[row["name"]].split()[0] == (row["papers"] or ["-"])[0]  # on the name's line


def test_list_papers_keeps_every_strategy_name_whole(monkeypatch):
    terminal(monkeypatch, 80)
    lines = lines_of(runner.invoke(app, ["list", "papers"]))
    assert max(map(len, lines)) <= 80 and not any("…" in line for line in lines)
    listed = tokens(lines)
    for paper in json.loads(runner.invoke(app, ["list", "papers", "--json"]).stdout):
        assert paper["key"] in listed
        assert set(paper["implemented"]) <= listed


def test_run_collapses_unavailable_strategies_after_the_measured_rows(monkeypatch, tmp_path):
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")
    terminal(monkeypatch, 80)
    result = runner.invoke(app, ["run", "-d", "smoke-gnm", "-s", "cpu.sequential,merrill.*,classic.*",
                                 "--sources", "2", "--out", str(tmp_path / "r.json"), "--dir", str(tmp_path / "data")])
    lines = lines_of(result)
    drawn = [line for line in lines if line[:1] in "┃│"]
    assert any(line.startswith("│ cpu.sequential ") for line in drawn)
    assert not any("unavailable" in line or "merrill" in line for line in drawn)
    collapsed = [i for i, line in enumerate(lines) if "strategies unavailable: disabled for this test" in line]
    assert len(collapsed) == 1 and collapsed[0] > max(i for i, line in enumerate(lines) if line[:1] == "│")
    assert re.match(r"\d+ strategies unavailable: disabled for this test \(classic\.\*, merrill\.\*\)$",
                    lines[collapsed[0]])
    assert max(len(line) for line in lines if not line.startswith("results: ")) <= 80
