"""External programs the CPU-side checks need (g++ for the CUDA emulator, nvcc for the
compile and spill checks).

A missing tool skips the test on a developer's machine, visibly; on CI (CI=true) the
checks are the point of the run, so a missing tool fails it instead of passing quietly.
"""

from __future__ import annotations

import os
import shutil

import pytest


def on_ci() -> bool:
    """CI=true (or 1/yes), as GitHub Actions, GitLab and most CI services set it."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def require_tool(name: str) -> str:
    """The path of program `name` on PATH; skips the calling test when it is missing,
    or fails it under CI=true."""
    path = shutil.which(name)
    if path is not None:
        return path
    message = f"{name} not found on PATH"
    if on_ci():
        pytest.fail(f"{message} (CI=true: the tests that need it must run)", pytrace=False)
    pytest.skip(f"{message}: tests that need it skipped")


def one_line(r, *parts, code=2) -> str:
    """A CLI result that failed with `code` and one stderr line, `error: ...`, holding
    each of `parts`: that line."""
    assert r.exit_code == code, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for p in parts:
        assert p in lines[0], lines[0]
    return lines[0]
