"""scripts/commit_of_tree.py: a results file's recorded package tree named by the commits of
this checkout that hold it, whatever its recorded commit says."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "docs" / "results" / "h200-2026-11-30" / "check-after-none.json.gz"


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def head_tree() -> tuple[str, str]:
    try:
        return git("rev-parse", "HEAD"), git("rev-parse", "HEAD:gpubfs_cli")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")


def results_with(tmp_path: Path, name: str, commit: str, tree: str) -> Path:
    doc = json.loads(gzip.decompress(SHIPPED.read_bytes()))
    doc["environment"]["code"] = {"commit": commit, "tree": tree, "dirty": True}
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def run(*files: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "commit_of_tree.py"), *map(str, files)],
                          capture_output=True, text=True, timeout=120)


def test_a_stale_commit_is_named_by_its_tree(tmp_path, head_tree):
    head, tree = head_tree
    known = results_with(tmp_path, "known.json", "0" * 40, tree)
    unknown = results_with(tmp_path, "unknown.json", head, "f" * 40)
    done = run(known, unknown)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{known}: recorded commit 0000000+dirty, tree {tree[:8]}: the package of ")
    assert head[:7] in lines[0]
    assert lines[1] == f"{unknown}: recorded commit {head[:7]}+dirty, tree ffffffff: no commit here has that tree"


def test_an_unreadable_file_is_one_line_and_fails(tmp_path, head_tree):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    done = run(bad)
    assert done.returncode == 1 and done.stdout.count("\n") == 1 and done.stdout.startswith(f"{bad}: cannot be read")
