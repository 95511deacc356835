"""tests/build_cache.py: a build runs once for its command and sources, also when two
callers ask at the same time, and again when a source changes."""

from __future__ import annotations

import os
import threading
import time

import pytest

from tests import build_cache


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    monkeypatch.setattr(build_cache, "CACHE_DIR", tmp_path / "cache")
    return tmp_path


def counting_cmd(tmp_path, source):
    """Copies `source` to the output and notes each run in runs.txt."""
    return ["sh", "-c", f'sleep 0.3; echo run >> {tmp_path / "runs.txt"}; cp {source} "$1"', "sh",
            build_cache.OUT]


def runs(tmp_path) -> int:
    p = tmp_path / "runs.txt"
    return len(p.read_text().splitlines()) if p.exists() else 0


def test_a_build_runs_once_and_keeps_its_product(cache):
    src = cache / "a.cu"
    src.write_text("one")
    cmd = counting_cmd(cache, src)
    first = build_cache.build(cmd, [src], keep=".so")
    again = build_cache.build(cmd, [src], keep=".so")
    assert runs(cache) == 1
    assert first.returncode == again.returncode == 0
    assert again.product == first.product and again.product.read_text() == "one"


def test_a_changed_source_builds_again(cache):
    src = cache / "a.cu"
    src.write_text("one")
    cmd = counting_cmd(cache, src)
    build_cache.build(cmd, [src], keep=".so")
    src.write_text("two")
    assert build_cache.build(cmd, [src], keep=".so").product.read_text() == "two"
    assert runs(cache) == 2


def test_two_callers_at_once_build_once(cache):
    src = cache / "a.cu"
    src.write_text("one")
    cmd = counting_cmd(cache, src)
    got = []
    threads = [threading.Thread(target=lambda: got.append(build_cache.build(cmd, [src], keep=".so")))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert runs(cache) == 1 and len(got) == 2 and got[0] == got[1]


def test_a_failure_is_returned_with_its_messages_and_no_product(cache):
    src = cache / "a.cu"
    src.write_text("one")
    built = build_cache.build(["sh", "-c", "echo broken >&2; exit 3", build_cache.OUT], [src], keep=".so")
    assert built.returncode == 3 and "broken" in built.stderr and built.product is None


def test_entries_unused_for_a_week_are_pruned(cache, monkeypatch):
    src = cache / "a.cu"
    src.write_text("one")
    first = build_cache.build(counting_cmd(cache, src), [src], keep=".so")
    record = first.product.with_suffix(".json")
    week = time.time() - (build_cache.KEEP_DAYS + 1) * 86400
    os.utime(record, (week, week))
    monkeypatch.setattr(build_cache, "_pruned", False)
    src.write_text("two")  # another key: this call prunes, then builds
    build_cache.build(counting_cmd(cache, src), [src], keep=".so")
    assert not record.exists() and not first.product.exists()


def test_two_clones_share_a_key_and_another_source_does_not(tmp_path, monkeypatch):
    # a fresh clone elsewhere reuses a build: the checkout's root does not enter the key
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        (root / "k").mkdir(parents=True)
        (root / "k" / "x.cu").write_text("same")

    def key_in(root):
        monkeypatch.setattr(build_cache, "ROOT", root)
        return build_cache.key(["sh", f"-I{root}/k", str(root / "k" / "x.cu")], [root / "k" / "x.cu"])

    assert key_in(a) == key_in(b)
    (b / "k" / "x.cu").write_text("edited")
    assert key_in(a) != key_in(b)


def test_the_cache_lives_where_the_environment_says(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBFS_TEST_CACHE", str(tmp_path / "mine"))
    assert build_cache.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("GPUBFS_TEST_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert build_cache.cache_dir() == tmp_path / "xdg" / "gpubfs" / "test-builds"
    (tmp_path / "file").write_text("")  # a cache home that cannot hold a folder
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    assert build_cache.cache_dir() == build_cache.ROOT / "build" / "test-cache"
