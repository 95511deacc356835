"""scripts/sanitize.py on the CPU: its cases (every registered GPU strategy, BFS and
SSSP, on every small nasty graph), its shards, and its exit status with a fake
compute-sanitizer (a shell script standing in for the real one, printing what memcheck
prints; its arguments are `--tool memcheck --error-exitcode 1 PYTHON SCRIPT --inner
--shard I/N`, so "$9" is the shard)."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gpubfs_cli.core.strategy import registry
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.graph import samples

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
        names = samples.NASTY_SSSP if problem == "sssp" else samples.NASTY_BFS
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


def run_outer(tmp_path, body: str, jobs: int = 3) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, COMPUTE_SANITIZER=str(fake_sanitizer(tmp_path, body)))
    return subprocess.run([sys.executable, str(SCRIPT), "--jobs", str(jobs)], capture_output=True, text=True,
                          env=env, cwd=ROOT)


# The fake's own shard, each case passing (the driver's --list with the same shard).
OK_LINES = '"$5" "$6" --list "$8" "$9" | sed "s/^/SANITIZE-CASE ok /; s/$/ (0.1 s)/"\n'
CLEAN_END = 'echo "========= ERROR SUMMARY: 0 errors"\nexit 0\n'


def test_shards_split_the_cases():
    every = listed()
    shards = [tuple(line.split()) for i in range(3) for line in subprocess.run(
        [sys.executable, str(SCRIPT), "--list", "--shard", f"{i}/3"], capture_output=True, text=True,
        check=True, cwd=ROOT).stdout.splitlines()]
    assert sorted(shards) == sorted(every)
    # Whole strategies per shard: each kernel is compiled by one sanitizer process.
    owner = {}
    for i in range(3):
        out = subprocess.run([sys.executable, str(SCRIPT), "--list", "--shard", f"{i}/3"],
                             capture_output=True, text=True, check=True, cwd=ROOT).stdout
        for p, s, _ in (line.split() for line in out.splitlines()):
            assert owner.setdefault((p, s), i) == i


@pytest.mark.parametrize("jobs", [1, 3])
def test_clean_run_exits_zero(tmp_path, jobs):
    proc = run_outer(tmp_path, OK_LINES + CLEAN_END, jobs)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "sanitize: clean" in proc.stdout and f"{len(listed())} of {len(listed())} cases ran" in proc.stdout


@pytest.mark.parametrize("body,expect,runs", [
    ('echo "========= Invalid __global__ read of size 4 bytes"\n'
     'echo "========= ERROR SUMMARY: 1 error"\nexit 1\n', "reported 1 error", True),
    ('echo "SANITIZE-CASE FAIL bfs classic.harish star300 (0.1 s): wrong answer"\n'
     'echo "========= ERROR SUMMARY: 0 errors"\nexit 1\n', "FAIL bfs classic.harish star300", True),
    ('echo "========= ERROR SUMMARY: 0 errors"\nexit 0\n', "cases ran", False),  # the driver ran nothing
    ("exit 0\n", "no ERROR SUMMARY line from 1 of 3", True),
])
def test_errors_fail_with_a_summary(tmp_path, body, expect, runs):
    # The problem is planted in shard 1 of 3 only; the other shards (and shard 1, but
    # where the problem is that its driver ran nothing) report their cases passing.
    ok = OK_LINES if runs else f'[ "$9" = "1/3" ] || {OK_LINES}'
    proc = run_outer(tmp_path, ok + f'if [ "$9" = "1/3" ]; then\n{body}fi\n' + CLEAN_END)
    assert proc.returncode == 1, proc.stdout
    assert "sanitize: FAILED" in proc.stdout and expect in proc.stdout


def test_missing_sanitizer_is_one_clear_line(tmp_path):
    import os

    env = dict(os.environ, COMPUTE_SANITIZER="", PATH=str(tmp_path), CUDA_HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, env=env, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "compute-sanitizer not found" in proc.stderr


# NCCL's kernel-image probe as memcheck prints it (an H100 run, frames shortened).
PROBE = "".join(f'echo "{ln}"\n' for ln in (
    "========= Program hit cudaErrorNoKernelImageForDevice (error 209) due to \\\"no kernel image is "
    "available for execution on the device\\\" on CUDA API call to cudaFuncGetAttributes.",
    "=========     Saved host backtrace up to driver entry point at error",
    "=========         Host Frame: ncclInitKernelsForDevice(int, int, unsigned long*) in enqueue.cc:52 "
    "[0x6d9d3] in libnccl.so.2",
    "=========         Host Frame: prepare in multi_gpu.py:151",
    "========= ",
    "========= Program hit cudaErrorNoKernelImageForDevice (error 209) due to \\\"no kernel image is "
    "available for execution on the device\\\" on CUDA API call to cudaGetLastError.",
    "=========         Host Frame: ncclInitKernelsForDevice(int, int, unsigned long*) in enqueue.cc:54 "
    "[0x6db34] in libnccl.so.2",
    "========= ",
))


def test_nccl_probe_is_not_counted(tmp_path):
    body = PROBE + 'echo "========= ERROR SUMMARY: 2 errors"\nexit 1\n'
    proc = run_outer(tmp_path, OK_LINES + f'if [ "$9" = "1/3" ]; then\n{body}fi\n' + CLEAN_END)
    assert proc.returncode == 0, proc.stdout
    assert "sanitize: clean" in proc.stdout and "not counted: 2 CUDA API errors" in proc.stdout


@pytest.mark.parametrize("extra,count", [
    # the same API error outside NCCL
    ('echo "========= Program hit cudaErrorNoKernelImageForDevice (error 209) due to \\"x\\" on CUDA '
     'API call to cudaFuncGetAttributes."\necho "=========         Host Frame: launch in do.py:3"\n', 3),
    # a memory error beside the probe
    ('echo "========= Invalid __global__ read of size 4 bytes"\n', 3),
    # the probe's records but a count that says more happened
    ("", 3),
])
def test_errors_beside_the_nccl_probe_count(tmp_path, extra, count):
    body = PROBE + extra + f'echo "========= ERROR SUMMARY: {count} errors"\nexit 1\n'
    proc = run_outer(tmp_path, OK_LINES + f'if [ "$9" = "1/3" ]; then\n{body}fi\n' + CLEAN_END)
    assert proc.returncode == 1, proc.stdout
    assert "sanitize: FAILED" in proc.stdout and f"reported {count} error(s) (2 of them NCCL" in proc.stdout
