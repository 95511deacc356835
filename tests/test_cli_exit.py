"""`gpubfs run`'s exit status, through Typer's CliRunner: 0 when every cell is fine, 1 for
a wrong answer or an error anywhere (also beside out-of-time samples), 2 for bad input,
130 for Ctrl-C. Fake strategies are registered for the test only; the catalogue's
small datasets are replaced by a 5 x 5 grid so nothing is generated."""

from __future__ import annotations

import time

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.bench import runner as runner_module
from gpubfs_cli.cli import app
from gpubfs_cli.core import strategy as strategy_module
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.problem import discover
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.graph.samples import grid
from gpubfs_cli.results.schema import load_results

cli = CliRunner()


class Fake(Strategy):
    paper = "cpu"
    section = "test"

    def traverse(self, source, predecessors=False):
        return sequential_bfs(self.graph, source, predecessors)


class Right(Fake):
    name = "fakecli.right"


def wrong_bfs(graph, source, predecessors):
    r = sequential_bfs(graph, source, predecessors)
    d = r.distances.copy()
    d[np.argmax(d)] += 1
    return Answer(d, r.parents)


class Wrong(Fake):
    name = "fakecli.wrong"

    def traverse(self, source, predecessors=False):
        return wrong_bfs(self.graph, source, predecessors)


class Raises(Fake):
    name = "fakecli.raises"

    def traverse(self, source, predecessors=False):
        raise ValueError("boom")


class Slow(Fake):
    name = "fakecli.slow"

    def traverse(self, source, predecessors=False):
        time.sleep(0.08)
        return super().traverse(source, predecessors)


class WrongThenSlow(Fake):
    """The first source answers wrong at once, later ones right but over the limit."""

    name = "fakecli.wrong_then_slow"
    first = True

    def traverse(self, source, predecessors=False):
        if WrongThenSlow.first:
            WrongThenSlow.first = False
            return wrong_bfs(self.graph, source, predecessors)
        time.sleep(0.08)
        return super().traverse(source, predecessors)


class CtrlC(Fake):
    """Answers the first traversal, then the user presses Ctrl-C."""

    name = "fakecli.ctrl_c"
    calls = 0

    def traverse(self, source, predecessors=False):
        CtrlC.calls += 1
        if CtrlC.calls > 1:
            raise KeyboardInterrupt
        return super().traverse(source, predecessors)


class CtrlCAtOnce(Fake):
    name = "fakecli.ctrl_c_at_once"

    def traverse(self, source, predecessors=False):
        raise KeyboardInterrupt


FAKES = (Right, Wrong, Raises, Slow, WrongThenSlow, CtrlC, CtrlCAtOnce)


@pytest.fixture(autouse=True)
def fakes(monkeypatch):
    discover()
    bfs = strategy_module._REGISTRY["bfs"]
    for cls in FAKES:
        monkeypatch.setitem(bfs, cls.name, cls)
    WrongThenSlow.first = True
    CtrlC.calls = 0

    monkeypatch.setattr(runner_module, "default_loader", lambda spec, d, p: (grid(5, 5, name=spec.name), {}))


def gpubfs_run(tmp_path, *args):
    out = tmp_path / "r.json"
    result = cli.invoke(app, ["run", "-d", "smoke-grid", "--sources", "3", "--warmup", "0",
                              "--out", str(out), "--dir", str(tmp_path / "data"), *args])
    return result, out


def test_exit_0_when_every_cell_is_right(tmp_path):
    result, out = gpubfs_run(tmp_path, "-s", "fakecli.right", "--predecessors", "both")
    assert result.exit_code == 0, result.output
    assert {s["status"] for s in load_results(out)["samples"]} == {"ok"}


def test_exit_0_with_out_of_time_only(tmp_path):
    # out-of-time is a cell, not a failed run
    result, out = gpubfs_run(tmp_path, "-s", "fakecli.slow", "--time-limit", "0.03")
    assert result.exit_code == 0, result.output
    assert [s["status"] for s in load_results(out)["samples"]] == ["out-of-time"]


@pytest.mark.parametrize(("strategy", "status"), [
    ("fakecli.wrong", "wrong-answer"),
    ("fakecli.raises", "error"),
    ("fakecli.wrong_then_slow", "wrong-answer"),  # not hidden by the out-of-time sample
])
def test_exit_1_for_a_failed_cell(tmp_path, strategy, status):
    result, out = gpubfs_run(tmp_path, "-s", f"fakecli.right,{strategy}", "--time-limit", "0.05")
    assert result.exit_code == 1, result.output
    doc = load_results(out)
    cells = {c["strategy"]: c["status"] for c in doc["summaries"]}
    assert cells == {"fakecli.right": "ok", strategy: status}
    assert "1 cells failed" in result.output


def test_exit_1_when_a_dataset_cannot_be_loaded(tmp_path, monkeypatch):
    def load(spec, data_dir, progress):
        if spec.name == "smoke-gnm":
            raise OSError("disk on fire")
        return grid(5, 5, name=spec.name), {}

    monkeypatch.setattr(runner_module, "default_loader", load)
    result, out = gpubfs_run(tmp_path, "-d", "smoke-gnm", "-s", "fakecli.right")
    assert result.exit_code == 1, result.output
    assert "smoke-gnm: not run: OSError: disk on fire" in result.output


def test_exit_1_when_nothing_ran(tmp_path, monkeypatch):
    monkeypatch.setattr(runner_module, "default_loader",
                        lambda spec, d, p: (_ for _ in ()).throw(OSError("disk on fire")))
    result, out = gpubfs_run(tmp_path, "-s", "fakecli.right")
    assert result.exit_code == 1, result.output
    assert "nothing ran: no results file written" in result.output
    assert not out.exists()


@pytest.mark.parametrize("args", [
    ["-s", "fakecli.nonesuch"],
    ["-s", "fakecli.right", "--predecessors", "maybe"],
    ["-s", "fakecli.right", "--sources", "many"],
    ["-s", "fakecli.right", "--source", "999"],
])
def test_exit_2_for_bad_input(tmp_path, args):
    result, out = gpubfs_run(tmp_path, *args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output


def test_exit_130_on_ctrl_c_keeps_what_finished(tmp_path):
    result, out = gpubfs_run(tmp_path, "-s", "fakecli.ctrl_c")
    assert result.exit_code == 130, result.output
    doc = load_results(out)
    assert doc["interrupted"] is True
    assert [s["status"] for s in doc["samples"]] == ["ok"]
    assert "interrupted" in result.output


def test_exit_130_on_ctrl_c_before_any_sample(tmp_path):
    result, out = gpubfs_run(tmp_path, "-s", "fakecli.ctrl_c_at_once")
    assert result.exit_code == 130, result.output
    assert not out.exists()
