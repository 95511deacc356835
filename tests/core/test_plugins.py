"""Strategies of other installed packages: the entry point group `gpubfs.strategies`,
loaded by the registry once, after the built-in strategies. A fake distribution stands in:
importlib.metadata.entry_points returns EntryPoints of test modules written here. A plugin
that fails is one line on stderr naming it, and none of its strategies count."""

from __future__ import annotations

import importlib.metadata
import json
import sys
import textwrap

import pytest
from typer.testing import CliRunner

from gpubfs_cli.bench import runner as runner_module
from gpubfs_cli.cli import app
from gpubfs_cli.core import strategy as strategy_module
from gpubfs_cli.core.problem import discover
from gpubfs_cli.core.strategy import PLUGIN_GROUP, get_strategy, registry
from gpubfs_cli.graph.samples import grid
from gpubfs_cli.results.schema import load_results

cli = CliRunner()

ECHO = '''
from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.core.strategy import Strategy, register


class Echo(Strategy):
    name = "{name}"
    paper = "cpu"
    section = "a plugin's own"
    summary = "cpu.sequential, installed by another package"

    def traverse(self, source, predecessors=False):
        return sequential_bfs(self.graph, source, predecessors)
'''


@pytest.fixture
def plugins(monkeypatch, tmp_path):
    """plugins(**modules) writes each module (name -> source) where imports find it, and
    plugins.entry(name, value) declares an entry point of the fake distribution. The
    registry is a copy of the built-in one with the plugins not yet loaded."""
    discover()
    monkeypatch.setattr(strategy_module, "_REGISTRY", {p: dict(n) for p, n in strategy_module._REGISTRY.items()})
    monkeypatch.setattr(strategy_module, "_PLUGINS_LOADED", False)
    monkeypatch.syspath_prepend(str(tmp_path))
    entries: list[importlib.metadata.EntryPoint] = []
    calls = []
    real = importlib.metadata.entry_points

    def entry_points(**selection):  # other groups (numba's extensions) as installed
        if selection != {"group": PLUGIN_GROUP}:
            return real(**selection)
        calls.append(selection)
        return list(entries)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    written = []

    class Plugins:
        def __call__(self, **modules: str) -> None:
            for name, source in modules.items():
                (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
                written.append(name)

        def entry(self, name: str, value: str) -> None:
            entries.append(importlib.metadata.EntryPoint(name, value, PLUGIN_GROUP))

        listed = calls

    yield Plugins()
    for name in written:
        sys.modules.pop(name, None)


def strategies_listed(result) -> dict[str, dict]:
    assert result.exit_code == 0, result.output
    return {(r["problem"], r["name"]): r for r in json.loads(result.stdout)}


def test_a_module_entry_point_is_listed_and_runs(plugins, monkeypatch, tmp_path):
    plugins(fake_plugin_echo=ECHO.format(name="plugin.echo") + "\nregister(Echo)\n")
    plugins.entry("echo", "fake_plugin_echo")
    rows = strategies_listed(cli.invoke(app, ["list", "strategies", "--json"]))
    assert rows["bfs", "plugin.echo"]["paper"] == "cpu" and rows["bfs", "plugin.echo"]["unavailable"] is None
    assert ("bfs", "cpu.sequential") in rows  # the built-in ones stay

    monkeypatch.setattr(runner_module, "default_loader", lambda spec, d, p: (grid(5, 5, name=spec.name), {}))
    out = tmp_path / "r.json"
    result = cli.invoke(app, ["run", "-d", "smoke-grid", "-s", "plugin.echo", "--sources", "2", "--warmup", "0",
                              "--predecessors", "both", "--out", str(out), "--dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    samples = load_results(out)["samples"]
    assert len(samples) == 4 and all(s["strategy"] == "plugin.echo" and s["valid"] for s in samples)
    assert "Traceback" not in result.output


def test_the_group_is_read_once_after_the_built_in_strategies(plugins):
    """A plugin cannot take a built-in name: it loads after them, and register refuses a
    second class under one name, so the built-in one stays and the plugin is skipped."""
    builtin = strategy_module._REGISTRY["bfs"]["cpu.sequential"]
    plugins(fake_plugin_clash=ECHO.format(name="cpu.sequential") + "\nregister(Echo)\n")
    plugins.entry("clash", "fake_plugin_clash")
    result = cli.invoke(app, ["list", "strategies", "--json"])
    assert result.exit_code == 0
    assert get_strategy("cpu.sequential") is builtin
    assert result.stderr.splitlines() == [
        "warning: strategy plugin 'clash' (fake_plugin_clash) skipped: RuntimeError: strategy bfs cpu.sequential "
        "registered twice"]
    registry()
    registry()
    assert plugins.listed == [{"group": PLUGIN_GROUP}]


def test_a_function_or_class_entry_point_registers(plugins):
    plugins(fake_plugin_setup=ECHO.format(name="plugin.by_call") + "\n\ndef setup():\n    register(Echo)\n",
            fake_plugin_class=ECHO.format(name="plugin.by_class").replace("class Echo", "@register\nclass Echo"))
    plugins.entry("by-call", "fake_plugin_setup:setup")
    plugins.entry("by-class", "fake_plugin_class:Echo")
    names = registry()["bfs"]
    assert names["plugin.by_call"].section == names["plugin.by_class"].section == "a plugin's own"


def test_a_broken_plugin_is_one_line_and_the_rest_load(plugins):
    """A plugin that cannot be imported, one that raises after registering a strategy
    (that strategy is dropped too), one whose strategy names no paper, and one that is
    not installed: each one line on stderr, no traceback; the good plugin and every
    built-in strategy are listed."""
    plugins(
        fake_plugin_needs=ECHO.format(name="plugin.needs") + "\nimport fake_library_not_installed\n",
        fake_plugin_half=ECHO.format(name="plugin.half") + "\nregister(Echo)\nraise ValueError('second half\\nbroken')\n",
        fake_plugin_nopaper=ECHO.format(name="plugin.nopaper").replace('paper = "cpu"', "") + "\nregister(Echo)\n",
        fake_plugin_good=ECHO.format(name="plugin.good") + "\nregister(Echo)\n",
    )
    for name in ("needs", "half", "nopaper", "good"):
        plugins.entry(name, f"fake_plugin_{name}")
    plugins.entry("gone", "fake_plugin_not_on_the_path")
    result = cli.invoke(app, ["list", "strategies", "--json"])
    rows = strategies_listed(result)
    assert ("bfs", "plugin.good") in rows and ("bfs", "cpu.sequential") in rows
    assert not {n for _, n in rows} & {"plugin.needs", "plugin.half", "plugin.nopaper"}
    assert result.stderr.splitlines() == [
        "warning: strategy plugin 'needs' (fake_plugin_needs) skipped: ModuleNotFoundError: No module named "
        "'fake_library_not_installed'",
        "warning: strategy plugin 'half' (fake_plugin_half) skipped: ValueError: second half",
        "warning: strategy plugin 'nopaper' (fake_plugin_nopaper) skipped: RuntimeError: strategy plugin.nopaper: "
        "no paper (a string)",
        "warning: strategy plugin 'gone' (fake_plugin_not_on_the_path) skipped: ModuleNotFoundError: No module "
        "named 'fake_plugin_not_on_the_path'",
    ]
    table = cli.invoke(app, ["list", "strategies"])  # the table too, and the warnings only once a process
    assert table.exit_code == 0 and "plugin.good" in table.stdout and not table.stderr


def test_entry_points_that_cannot_be_read_are_one_line(plugins, monkeypatch):
    def broken(**selection):
        raise ValueError("bad METADATA")

    monkeypatch.setattr(importlib.metadata, "entry_points", broken)
    result = cli.invoke(app, ["list", "strategies", "--json"])
    assert ("bfs", "cpu.sequential") in strategies_listed(result)
    assert result.stderr == (f"warning: the entry points of group {PLUGIN_GROUP} could not be read (ValueError: bad "
                             "METADATA); no strategy plugin loaded\n")
