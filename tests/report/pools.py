"""Each shipped set (tests/report/test_shipped_results.py's SHIPPED) loaded once per test
process: a test that renders every paper layout of every set would otherwise read and
check the same files once per layout, most of its time. Only whole sets are pooled;
any other list of files loads as it always does."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import pytest

from gpubfs_cli.report import command
from gpubfs_cli.report.load import Results, load_many


@functools.lru_cache(maxsize=4)  # the callers go set by set
def _pool(paths: tuple[str, ...]) -> Results:
    return load_many(list(paths))


@contextlib.contextmanager
def pooled_sets(sets: dict[str, list[Path]]):
    """While open, `gpubfs report` over exactly one of `sets` reuses that set's pool."""
    keys = {tuple(str(Path(p).resolve()) for p in files) for files in sets.values()}

    def load(paths):
        key = tuple(str(Path(p).resolve()) for p in paths)
        return _pool(key) if key in keys else load_many(paths)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(command, "load_many", load)
        yield
