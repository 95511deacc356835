"""scripts/bench_weights.py and scripts/bench_certificate.py run on a cached graph: the weight
rule beside a git revision's (the two arrays checked equal), and the BFS and SSSP
certificates' passes each beside its other form."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    from gpubfs_cli.datasets.prepare import ensure_dataset

    d = tmp_path_factory.mktemp("cache")
    ensure_dataset("smoke-gnm", d, progress=False)
    return d


def script(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_weights_beside_a_revision(cache):
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("not a git checkout: no revision to time beside")
    done = script("bench_weights.py", "smoke-gnm", "--against", "HEAD", "--dir", str(cache), "--rounds", "1")
    assert done.returncode == 0, done.stderr
    assert "smoke-gnm: n " in done.stdout and "round 0: HEAD " in done.stdout and "ratio " in done.stdout


def test_certificate_passes(cache):
    done = script("bench_certificate.py", "smoke-gnm", "--dir", str(cache), "--rounds", "1")
    assert done.returncode == 0, done.stderr
    for name in ("edge pass, int64 levels", "edge pass, int32 levels", "tree edges, parent's list",
                 "tree edges, shorter list", "pointer doubling", "descending chains", "whole certificate"):
        assert f"{name} " in done.stdout, done.stdout


def test_certificate_passes_of_sssp(cache):
    done = script("bench_certificate.py", "smoke-gnm", "--problem", "sssp", "--dir", str(cache), "--rounds", "1")
    assert done.returncode == 0, done.stderr
    for name in ("edge pass, weighted", "pointer doubling", "descending chains", "whole certificate"):
        assert f"{name} " in done.stdout, done.stdout
