"""What every results file records of its code: the package's git tree id as it is on
disk, the one `git rev-parse COMMIT:gpubfs_cli` gives for the commit holding it, so a
run on a checkout with changes on top ('+dirty') still names its code."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from gpubfs_cli.bench import code
from gpubfs_cli.bench import environment as env

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo, *args) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    pkg = tmp_path / "pkg"
    (pkg / "sub" / "deeper").mkdir(parents=True)
    (pkg / "a.py").write_text("a = 1\n")
    (pkg / "a.cu").write_text("// kernel\n")
    (pkg / "sub" / "b.py").write_text("b = 2\n")
    (pkg / "sub" / "deeper" / "c.yaml").write_text("c: 3\n")
    (pkg / "sub-x").write_text("sorts before sub/ in git's order, after it by name\n")
    (pkg / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(pkg / "run.sh", 0o755)
    os.symlink("a.py", pkg / "link")
    (tmp_path / ".gitignore").write_text("*.pyc\n")
    (tmp_path / "outside.txt").write_text("not the package\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    return tmp_path


def test_a_clean_checkout_names_its_commits_tree(repo):
    assert code.source_tree(repo, "pkg") == git(repo, "rev-parse", "HEAD:pkg")


def test_changes_on_top_name_the_tree_they_would_commit(repo):
    pkg = repo / "pkg"
    (pkg / "a.py").write_text("a = 10\n")            # changed
    (pkg / "sub" / "new.cuh").write_text("// new\n")  # new, not ignored
    (pkg / "sub" / "b.pyc").write_bytes(b"\0")        # ignored
    (pkg / "sub" / "deeper" / "c.yaml").unlink()      # deleted: its folder goes too
    (repo / "outside.txt").write_text("changed outside the package\n")
    before = code.source_tree(repo, "pkg")
    assert before != git(repo, "rev-parse", "HEAD:pkg")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two")
    assert before == git(repo, "rev-parse", "HEAD:pkg")


def test_no_checkout_no_tree(tmp_path):
    (tmp_path / "pkg").mkdir()
    assert code.source_tree(tmp_path, "pkg") is None


def test_the_environment_and_info_carry_it():
    got = env.collect_environment(["gpubfs", "info"])
    assert "source_tree" in got
    lines = env.describe_lines({**got, "source_tree": "f" * 40, "git_commit": "abc+dirty"})
    assert lines[-1].endswith(f"(git abc+dirty, package tree {'f' * 40})")
