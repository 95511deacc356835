"""A hostile or rotten cache entry is refused in one line naming its file, before
anything indexes it: meta.json that is not what readers expect, CSR arrays whose ids or
offsets would send a traversal outside its arrays (a segfault in numba or scipy), on
every load, and a file changed since it passed (its ctime) hashed again."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pytest

from gpubfs_cli.datasets import integrity, store
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.csr import CSRGraph


def _cache(tmp_path, key="mine") -> tuple:
    # 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 0: n = 3, m = 4
    g = CSRGraph(np.array([0, 2, 3, 4], np.int64), np.array([1, 2, 2, 0], np.int32), directed=True, name=key)
    d = tmp_path / "cache"
    store.write_graph(key, g, {"kind": "user"}, d)
    return d, d / key


def _rewrite(path, array) -> None:
    np.save(path, array)


@pytest.mark.parametrize(("text", "said"), [
    ("{bad", "unreadable"),
    ("null", "expected a JSON object, found null"),
    ("[1, 2]", "expected a JSON object, found an array"),
    ('{"format_version": 1, "n": "3", "m": 4}', "'n' must be a whole number"),
    ('{"format_version": 1, "n": 3, "m": -4}', "'m' must not be negative"),
    ('{"format_version": 1, "n": 3, "m": 4, "expected": [1]}', "'expected' must be an object"),
    ('{"format_version": 1, "n": true, "m": 4}', "'n' must be a whole number"),
])
def test_broken_meta_is_one_line_naming_the_file_and_the_repair(tmp_path, text, said):
    d, folder = _cache(tmp_path)
    (folder / "meta.json").write_text(text)
    with pytest.raises(UserError) as info:
        store.read_meta("mine", d)
    msg = str(info.value)
    assert msg.startswith(f"{folder / 'meta.json'}: ") and said in msg and "\n" not in msg
    assert msg.endswith("add it again with: gpubfs fetch-dataset mine --file FILE --format FORMAT --force")


def test_a_catalogue_graph_is_told_to_fetch_again(tmp_path):
    d, folder = _cache(tmp_path, "smoke-rmat")
    (folder / "meta.json").write_text("[]")
    with pytest.raises(UserError, match=r"re-fetch with: gpubfs fetch-dataset smoke-rmat --force$"):
        store.load_graph("smoke-rmat", d)


@pytest.mark.parametrize(("file", "array", "said"), [
    ("col_indices.npy", np.array([1, 2, 7, 0], np.int32), "vertex id 7 at entry 2 is outside [0, 3)"),
    ("col_indices.npy", np.array([0, 0, 3, 1], np.int32), "vertex id 3 at entry 2 is outside [0, 3)"),
    ("col_indices.npy", np.array([1, -1, 2, 0], np.int32), "vertex id -1 at entry 1 is outside [0, 3)"),
    ("col_indices.npy", np.array([1.0, 2.0, 2.0, 0.0]), "expected a 1-D integer array, found 1-D float64"),
    ("col_indices.npy", np.array([[1, 2], [2, 0]], np.int32), "expected a 1-D integer array, found 2-D int32"),
    ("row_offsets.npy", np.array([0, 3, 2, 4], np.int64), "vertex 1's 3 is followed by 2"),
    ("row_offsets.npy", np.array([1, 2, 3, 4], np.int64), "expected offsets from 0 to 4 (the length of "
                                                           "col_indices), found 1 to 4"),
    ("row_offsets.npy", np.array([0, 2, 3, 9], np.int64), "expected offsets from 0 to 4 (the length of "
                                                           "col_indices), found 0 to 9"),
])
def test_out_of_range_arrays_are_refused_naming_the_file(tmp_path, file, array, said):
    d, folder = _cache(tmp_path)
    _rewrite(folder / file, array)
    with pytest.raises(UserError) as info:
        store.load_graph("mine", d)
    msg = str(info.value)
    assert msg.startswith(f"dataset 'mine': {folder / file}: ") and said in msg and "\n" not in msg, msg
    assert msg.endswith("; repair with: gpubfs fetch-dataset mine --force")
    assert not (folder / integrity.STAMP).exists()


def test_ids_are_checked_chunk_by_chunk(tmp_path, monkeypatch):
    monkeypatch.setattr(integrity, "CHUNK", 2)  # the bad id in the last chunk, the fall across a cut
    d, folder = _cache(tmp_path)
    assert store.load_graph("mine", d).m == 4
    _rewrite(folder / "col_indices.npy", np.array([1, 2, 2, 3], np.int32))
    with pytest.raises(UserError, match="vertex id 3 at entry 3 is outside"):
        store.load_graph("mine", d)
    _rewrite(folder / "col_indices.npy", np.array([1, 2, 2, 0], np.int32))
    _rewrite(folder / "row_offsets.npy", np.array([0, 3, 2, 4], np.int64))
    with pytest.raises(UserError, match="vertex 1's 3 is followed by 2"):
        store.load_graph("mine", d)


def test_weights_of_the_wrong_length_are_refused(tmp_path):
    d, folder = _cache(tmp_path)
    _rewrite(folder / "weights.npy", np.array([1, 2, 3], np.int32))
    meta = json.loads((folder / "meta.json").read_text())
    meta["weights"] = {"rule": "file"}
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(UserError, match=r"weights.npy: expected 4 weights \(one per edge\), found shape \(3,\)"):
        store.load_graph("mine", d)


def _later_than(path) -> None:
    """Wait until the file system's clock has moved past `path`'s ctime, so that a write
    now gives a new ctime even where timestamps are coarse."""
    probe = path.with_name(".probe")
    while True:
        probe.write_bytes(b"")
        if probe.stat().st_ctime_ns > path.stat().st_ctime_ns:
            probe.unlink()
            return
        time.sleep(0.001)


def _rot(path, array) -> None:
    """`array` written over `path` with its size and modification time kept (as `cp -p`
    of a corrupted copy leaves it): only the ctime tells."""
    before = path.stat()
    _later_than(path)
    _rewrite(path, array)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert after.st_ctime_ns != before.st_ctime_ns


def _refusal(d) -> str:
    with pytest.raises(UserError) as info:
        store.load_graph("mine", d)
    return str(info.value)


@pytest.mark.parametrize(("file", "array", "said"), [
    ("col_indices.npy", np.array([1, 2, 1 << 30, 0], np.int32),
     "vertex id 1,073,741,824 at entry 2 is outside [0, 3) (n from row_offsets.npy)"),  # a segfault
    ("row_offsets.npy", np.array([0, 3, 1, 4], np.int64),
     "offsets must not decrease, but vertex 1's 3 is followed by 1"),  # a traceback
    ("col_indices.npy", np.zeros(4, np.int32),
     "does not match the sha256 recorded when it was written: the file changed since it was cached"),  # silent
])
def test_bit_rot_with_size_and_mtime_kept_is_refused_on_the_next_load(tmp_path, file, array, said):
    d, folder = _cache(tmp_path)
    assert store.load_graph("mine", d).m == 4  # passed: stamped as checked
    assert (folder / integrity.STAMP).is_file()
    _rot(folder / file, array)
    for _ in range(2):  # refused again: no stamp lets it through
        msg = _refusal(d)
        assert msg.startswith(f"dataset 'mine': {folder / file}") and said in msg, msg
        assert msg.endswith("; repair with: gpubfs fetch-dataset mine --force") and "\n" not in msg
        assert not (folder / integrity.STAMP).exists()


def test_the_structure_is_checked_on_every_load_the_sha256_when_files_change(tmp_path, monkeypatch):
    d, folder = _cache(tmp_path)
    hashed, reads = [], []
    real_sha, real_asarray = integrity.file_sha256, np.asarray
    monkeypatch.setattr(integrity, "file_sha256", lambda path: hashed.append(path.name) or real_sha(path))
    monkeypatch.setattr(integrity.np, "asarray", lambda a, *k, **kw: reads.append(len(a)) or real_asarray(a, *k, **kw))
    monkeypatch.setattr(integrity, "CHUNK", 2)
    for _ in range(2):
        store.load_graph("mine", d)
    assert hashed == ["row_offsets.npy", "col_indices.npy"]  # the first load only
    assert reads == [3, 2, 2, 2] * 2  # offsets and columns chunk by chunk, every load
    _rot(folder / "col_indices.npy", np.array([1, 2, 1, 0], np.int32))  # in range: only the sha256 tells
    hashed.clear()
    assert "does not match the sha256" in _refusal(d)
    assert hashed == ["row_offsets.npy", "col_indices.npy"]


def test_a_stale_stamp_lets_no_refused_file_through(tmp_path):
    """The stamp of a check that passed, put back after a later refusal (a copy of the
    folder, a restore), does not match the rotten file."""
    d, folder = _cache(tmp_path)
    store.load_graph("mine", d)
    stamp = (folder / integrity.STAMP).read_bytes()
    _rot(folder / "col_indices.npy", np.array([2, 2, 2, 0], np.int32))
    assert "does not match the sha256" in _refusal(d)
    (folder / integrity.STAMP).write_bytes(stamp)
    assert "does not match the sha256" in _refusal(d)


def test_a_stamp_holds_only_for_the_digests_it_was_checked_against(tmp_path):
    d, folder = _cache(tmp_path)
    store.load_graph("mine", d)
    meta = json.loads((folder / "meta.json").read_text())
    meta["sha256"]["col_indices.npy"] = "0" * 64
    (folder / "meta.json").write_text(json.dumps(meta))
    assert "col_indices.npy does not match the sha256" in _refusal(d)


def test_the_stamp_is_written_only_after_every_check_passed(tmp_path, monkeypatch):
    d, folder = _cache(tmp_path)
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps(dict(meta, n=4)))
    with pytest.raises(UserError, match=r"meta.json: n is 4, but row_offsets.npy holds 3 vertices"):
        store.load_graph("mine", d)
    assert not (folder / integrity.STAMP).exists()
    (folder / "meta.json").write_text(json.dumps(meta))
    _rewrite(folder / "col_indices.npy", np.array([1, 2, 1, 0], np.int32))
    assert "does not match the sha256" in _refusal(d)
    assert not (folder / integrity.STAMP).exists()
    _rewrite(folder / "col_indices.npy", np.array([1, 2, 2, 0], np.int32))
    real = integrity.file_sha256

    def changes_meanwhile(path):  # another process rewrites a file while this one hashes
        if path.name == "col_indices.npy":
            _later_than(path)
            _rewrite(path, np.array([1, 2, 2, 0], np.int32))
        return real(path)

    monkeypatch.setattr(integrity, "file_sha256", changes_meanwhile)
    store.load_graph("mine", d)
    assert not (folder / integrity.STAMP).exists()  # what passed may not be what is there now
    monkeypatch.setattr(integrity, "file_sha256", real)
    store.load_graph("mine", d)
    assert (folder / integrity.STAMP).is_file()


def test_a_folder_checked_without_its_record_names_the_file_and_the_hint(tmp_path):
    np.save(tmp_path / "row_offsets.npy", np.array([0, 1, 2], np.int64))
    np.save(tmp_path / "col_indices.npy", np.array([1, 5], np.int32))
    load = (np.load(tmp_path / "row_offsets.npy", mmap_mode="r"), np.load(tmp_path / "col_indices.npy", mmap_mode="r"))
    with pytest.raises(UserError) as info:
        integrity.check_csr(tmp_path, *load, None, "the hint")
    assert str(info.value) == (f"{tmp_path / 'col_indices.npy'}: vertex id 5 at entry 1 is outside [0, 2) "
                               "(n from row_offsets.npy); the hint")


# ---- meta.json changed after the graph was cached ---------------------------------

def _undirected_cache(tmp_path) -> tuple:
    """A symmetrized (undirected) triangle and a pendant: 0-1, 1-2, 2-0, 2-3."""
    g = CSRGraph(np.array([0, 2, 4, 7, 8], np.int64), np.array([1, 2, 0, 2, 0, 1, 3, 2], np.int32),
                 directed=False, name="mine")
    d = tmp_path / "cache"
    store.write_graph("mine", g, {"kind": "user", "policy": {"symmetrize": True}}, d)
    return d, d / "mine"


def _edit_meta(folder, **changes) -> None:
    meta = json.loads((folder / "meta.json").read_text())
    meta.update(changes)
    (folder / "meta.json").write_text(json.dumps(meta))


def _meta_refusal(d, folder, said: str) -> None:
    for _ in range(2):  # refused again: no stamp lets it through
        msg = _refusal(d)
        assert msg.startswith(f"dataset 'mine': {folder / 'meta.json'}: {said}"), msg
        assert "meta.json was changed since the graph was cached" in msg and "\n" not in msg
        assert msg.endswith("; add it again with: gpubfs fetch-dataset mine --file FILE --format FORMAT --force")
        assert not (folder / integrity.STAMP).exists()


@pytest.mark.parametrize(("change", "said"), [
    ({"n": 5}, "n is 5, but row_offsets.npy holds 4 vertices (n + 1 offsets)"),
    ({"m": 7}, "m is 7, but col_indices.npy holds 8 edges"),
    ({"directed": True}, "directed is true, but the graph was built symmetrized (undirected) "
                         "(policy.symmetrize: true)"),
])
def test_a_meta_json_edited_after_the_check_is_refused_naming_the_field(tmp_path, change, said):
    d, folder = _undirected_cache(tmp_path)
    assert store.load_graph("mine", d).directed is False  # passed: stamped as checked
    assert (folder / integrity.STAMP).is_file()
    _edit_meta(folder, **change)
    _meta_refusal(d, folder, said)


def test_directed_flipped_to_false_on_a_directed_graph_is_refused(tmp_path):
    """Even with the build's policy edited to agree: the graph does not hold its edges
    both ways, and the changed meta.json is checked again whole."""
    d, folder = _cache(tmp_path)
    assert store.load_graph("mine", d).directed is True
    _edit_meta(folder, directed=False, policy={"symmetrize": True})
    _meta_refusal(d, folder, "directed is false, but the graph does not hold each of its edges both ways")


def test_the_stamp_covers_meta_json(tmp_path, monkeypatch):
    """A changed meta.json, even one that still passes, is checked again whole (the
    arrays' sha256 and an undirected graph's edges both ways); an unchanged one is not."""
    d, folder = _undirected_cache(tmp_path)
    store.load_graph("mine", d)
    hashed, walked = [], []
    real_sha, real_symmetric = integrity.file_sha256, integrity._symmetric
    monkeypatch.setattr(integrity, "file_sha256", lambda path: hashed.append(path.name) or real_sha(path))
    monkeypatch.setattr(integrity, "_symmetric", lambda *a: walked.append(1) or real_symmetric(*a))
    store.load_graph("mine", d)
    assert hashed == walked == []
    _edit_meta(folder, note="an edit")
    assert store.load_graph("mine", d).directed is False
    assert hashed == ["row_offsets.npy", "col_indices.npy"] and walked == [1]
    store.load_graph("mine", d)
    assert len(hashed) == 2 and walked == [1]  # stamped again


def test_edges_both_ways_are_counted(monkeypatch):
    rng = np.random.default_rng(5)
    from gpubfs_cli.graph import EdgeList, build_csr

    src, dst = rng.integers(0, 40, 200), rng.integers(0, 40, 200)
    for directed in (True, False):
        g = build_csr(EdgeList(src, dst, 40, directed))
        assert integrity._symmetric(g.row_offsets, g.col_indices) is (not directed)
    empty = np.zeros(4, np.int64)
    assert integrity._symmetric(empty, np.zeros(0, np.int32))


def test_an_edge_listed_once_more_one_way_is_not_symmetric():
    """Every edge both ways, but one of them twice forward: the multiset is not symmetric
    (the check counts, not just looks up), on a memory-mapped CSR as the cache loads it."""
    from gpubfs_cli.graph import EdgeList, build_csr

    g = build_csr(EdgeList(np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0]), 4, False))
    assert integrity._symmetric(g.row_offsets, g.col_indices)
    offsets = np.array(g.row_offsets, np.int64)
    cols = np.array(g.col_indices, np.int32)
    extra = np.insert(cols, offsets[1], 1)  # vertex 0 lists 1 once more
    offsets[1:] += 1
    assert not integrity._symmetric(offsets, extra)
