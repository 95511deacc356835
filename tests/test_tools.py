"""tests/tools.require_tool: path when present, skip when missing, fail on CI."""

from __future__ import annotations

import os
import stat

import pytest

from tests.tools import on_ci, require_tool


@pytest.fixture
def fake_path(tmp_path, monkeypatch):
    """PATH holding one executable, `faketool`, and nothing else."""
    tool = tmp_path / "faketool"
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(tmp_path))
    return tool


def test_present_tool_gives_its_path(fake_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    assert require_tool("faketool") == str(fake_path)


@pytest.mark.parametrize("ci", [None, "", "false", "0"])
def test_missing_tool_skips_off_ci(fake_path, monkeypatch, ci):
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.skip.Exception, match="no-such-tool not found"):
        require_tool("no-such-tool")


@pytest.mark.parametrize("ci", ["true", "TRUE", "1", "yes"])
def test_missing_tool_fails_on_ci(fake_path, monkeypatch, ci):
    monkeypatch.setenv("CI", ci)
    assert on_ci()
    with pytest.raises(pytest.fail.Exception, match="no-such-tool not found.*CI=true"):
        require_tool("no-such-tool")


def test_on_ci_reads_the_environment(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert not on_ci()
    monkeypatch.setenv("CI", "true")
    assert on_ci() and os.environ["CI"] == "true"
