"""A hostile cache entry is refused in one line naming its file, before anything indexes
it: meta.json that is not what readers expect, and CSR arrays whose ids or offsets
would send a traversal outside its arrays (a segfault in numba or scipy)."""

from __future__ import annotations

import json

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
    ("col_indices.npy", np.array([1, -1, 2, 0], np.int32), "vertex id -1 at entry 1 is outside [0, 3)"),
    ("col_indices.npy", np.array([1.0, 2.0, 2.0, 0.0]), "expected a 1-D integer array, found 1-D float64"),
    ("col_indices.npy", np.array([[1, 2], [2, 0]], np.int32), "expected a 1-D integer array, found 2-D int32"),
    ("row_offsets.npy", np.array([0, 3, 2, 4], np.int64), "vertex 1's 3 is followed by 2"),
    ("row_offsets.npy", np.array([1, 2, 3, 4], np.int64), "expected offsets from 0 to 4"),
    ("row_offsets.npy", np.array([0, 2, 3, 9], np.int64), "expected offsets from 0 to 4"),
])
def test_out_of_range_arrays_are_refused_naming_the_file(tmp_path, file, array, said):
    d, folder = _cache(tmp_path)
    _rewrite(folder / file, array)
    with pytest.raises(UserError) as info:
        store.load_graph("mine", d)
    msg = str(info.value)
    assert msg.startswith(f"{folder / file}: ") and said in msg and "\n" not in msg, msg


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


def test_a_graph_that_passed_is_not_read_again_until_its_files_change(tmp_path, monkeypatch):
    from gpubfs_cli.datasets import integrity

    np.save(tmp_path / "row_offsets.npy", np.array([0, 1, 2], np.int64))
    np.save(tmp_path / "col_indices.npy", np.array([1, 0], np.int32))
    load = lambda: (np.load(tmp_path / "row_offsets.npy", mmap_mode="r"),  # noqa: E731
                    np.load(tmp_path / "col_indices.npy", mmap_mode="r"))
    integrity.check_csr(tmp_path, *load(), None, "hint")
    assert (tmp_path / integrity.STAMP).is_file()
    reads = []
    monkeypatch.setattr(integrity, "CHUNK", 1)
    real = np.asarray
    monkeypatch.setattr(integrity.np, "asarray", lambda a, *k, **kw: reads.append(1) or real(a, *k, **kw))
    integrity.check_csr(tmp_path, *load(), None, "hint")
    assert reads == []
    np.save(tmp_path / "col_indices.npy", np.array([1, 7], np.int32))  # changed: checked again, refused
    with pytest.raises(integrity.UserError, match="vertex id 7"):
        integrity.check_csr(tmp_path, *load(), None, "hint")
