"""scripts/sanitize.py on the CPU: its cases (every registered GPU strategy, BFS and
SSSP, on every small nasty graph) and its exit status with a fake compute-sanitizer
(a shell script standing in for the real one, printing what memcheck prints)."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gpubfs_cli.core.strategy import registry
from gpubfs_cli.gpu.base import GpuStrategy
from tests.algorithms.bfs.gpu import emulated_bfs
from tests.algorithms.sssp.gpu import weighted_graphs

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "sanitize.py"


def listed() -> list[tuple[str, ...]]:
    out = subprocess.run([sys.executable, str(SCRIPT), "--list"], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    return [tuple(line.split()) for line in out.splitlines()]


def test_cases_cover_every_gpu_strategy_and_graph():
    got = listed()
    assert len(got) == len(set(got))
    want = set()
    for problem, strategies in registry().items():
        names = weighted_graphs.NASTY if problem == "sssp" else emulated_bfs.GRAPHS
        want |= {(problem, s, g) for s, cls in strategies.items() if issubclass(cls, GpuStrategy)
                 for g in names}
    assert set(got) == want
    problems = {p for p, _, _ in got}
    assert problems == {"bfs", "sssp"}
    assert not any(s.startswith("cpu.") for _, s, _ in got)
    for family in ("classic", "merrill", "luo", "lbbfs", "bfs4k", "raval"):
        assert any(s.startswith(family + ".") for _, s, _ in got), family


def fake_sanitizer(tmp_path: Path, body: str) -> Path:
    """A compute-sanitizer that checks its arguments, then runs `body` (sh)."""
    tool = tmp_path / "compute-sanitizer"
    tool.write_text("#!/bin/sh\n"
                    '[ "$1 $2 $3 $4" = "--tool memcheck --error-exitcode 1" ] || { echo bad args "$@"; exit 9; }\n'
                    + body)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool


def run_outer(tmp_path, body: str) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, COMPUTE_SANITIZER=str(fake_sanitizer(tmp_path, body)))
    return subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, env=env, cwd=ROOT)


def ok_lines() -> str:
    return "".join(f'echo "SANITIZE-CASE ok {p} {s} {g} (0.1 s)"\n' for p, s, g in listed())


def test_clean_run_exits_zero(tmp_path):
    proc = run_outer(tmp_path, ok_lines() + 'echo "========= ERROR SUMMARY: 0 errors"\nexit 0\n')
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "sanitize: clean" in proc.stdout


@pytest.mark.parametrize("body,expect", [
    ('echo "========= Invalid __global__ read of size 4 bytes"\n'
     'echo "========= ERROR SUMMARY: 1 error"\nexit 1\n', "reported 1 error"),
    ('echo "SANITIZE-CASE FAIL bfs classic.harish star300 (0.1 s): wrong answer"\n'
     'echo "========= ERROR SUMMARY: 0 errors"\nexit 1\n', "FAIL bfs classic.harish star300"),
    ('echo "========= ERROR SUMMARY: 0 errors"\nexit 0\n', "cases ran"),  # the driver ran nothing
    ("exit 0\n", "no ERROR SUMMARY"),
])
def test_errors_fail_with_a_summary(tmp_path, body, expect):
    # Every failing body keeps the cases that pass, so only the planted problem fails.
    proc = run_outer(tmp_path, ok_lines() + body if "cases ran" not in expect else body)
    assert proc.returncode == 1, proc.stdout
    assert "sanitize: FAILED" in proc.stdout and expect in proc.stdout


def test_missing_sanitizer_is_one_clear_line(tmp_path):
    import os

    env = dict(os.environ, COMPUTE_SANITIZER="", PATH=str(tmp_path), CUDA_HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, env=env, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "compute-sanitizer not found" in proc.stderr
