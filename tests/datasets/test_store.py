"""The cache: round trip, meta.json, atomic writes, names."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gpubfs_cli.datasets import store
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph import EdgeList, build_csr


def _graph(directed=False, weights=False):
    src = np.array([0, 0, 1, 2, 3, 4], dtype=np.int64)
    dst = np.array([1, 2, 2, 3, 4, 0], dtype=np.int64)
    w = np.array([5, 6, 7, 8, 9, 10], dtype=np.int32) if weights else None
    return build_csr(EdgeList(src, dst, 6, directed, w), keep_weights=weights, name="tiny")


def test_round_trip_identical_arrays_memory_mapped(tmp_path):
    g = _graph(weights=True)
    store.write_graph("tiny", g, {"kind": "user", "source": {"file": "x"}}, tmp_path)
    back = store.load_graph("tiny", tmp_path)
    assert isinstance(back.row_offsets, np.memmap) and isinstance(back.col_indices, np.memmap)
    np.testing.assert_array_equal(back.row_offsets, g.row_offsets)
    np.testing.assert_array_equal(back.col_indices, g.col_indices)
    np.testing.assert_array_equal(back.weights, g.weights)
    assert back.row_offsets.dtype == np.int64 and back.col_indices.dtype == np.int32
    assert (back.n, back.m, back.directed, back.name) == (6, 12, False, "tiny")
    assert back.stats() == g.stats()


def test_meta_contents(tmp_path):
    g = _graph(directed=True)
    store.write_graph("tiny", g, {"kind": "download", "source": {"url": "http://x/y", "sha256": "ab"}}, tmp_path)
    meta = json.loads((tmp_path / "tiny" / "meta.json").read_text())
    assert meta["format_version"] == store.FORMAT_VERSION
    assert meta["name"] == "tiny" and meta["kind"] == "download"
    assert meta["source"] == {"url": "http://x/y", "sha256": "ab"}
    assert (meta["n"], meta["m"], meta["directed"]) == (6, 6, True)
    assert meta["stats"] == {
        "n": 6, "m": 6, "avg_degree": 1.0, "std_degree": pytest.approx(float(np.std([2, 1, 1, 1, 1, 0]))),
        "max_degree": 2, "mode_degree": 1, "isolated": 1,
    }
    assert set(meta["files"]) == {"row_offsets.npy", "col_indices.npy"}
    assert meta["created"].endswith("+00:00")
    assert store.read_meta("tiny", tmp_path) == meta
    assert store.is_cached("tiny", tmp_path)
    assert store.cache_size_bytes("tiny", tmp_path) == sum(p.stat().st_size for p in (tmp_path / "tiny").iterdir())
    assert store.cached_keys(tmp_path) == ["tiny"]


def test_interrupted_write_leaves_nothing(tmp_path, monkeypatch):
    real_save = np.save
    calls = []

    def failing_save(path, arr, *a, **k):
        calls.append(path)
        if len(calls) == 2:
            raise KeyboardInterrupt  # as if the user pressed Ctrl-C mid-write
        return real_save(path, arr, *a, **k)

    monkeypatch.setattr(store.np, "save", failing_save)
    with pytest.raises(KeyboardInterrupt):
        store.write_graph("tiny", _graph(), {"kind": "user"}, tmp_path)
    assert not (tmp_path / "tiny").exists()
    assert list(tmp_path.iterdir()) == []  # the temporary folder is gone too
    assert not store.is_cached("tiny", tmp_path)


def test_interrupted_rewrite_keeps_old_graph(tmp_path, monkeypatch):
    store.write_graph("tiny", _graph(directed=True), {"kind": "user"}, tmp_path)

    def broken(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(store.np, "save", broken)
    with pytest.raises(OSError):
        store.write_graph("tiny", _graph(directed=False), {"kind": "user"}, tmp_path)
    assert store.load_graph("tiny", tmp_path).m == 6  # the directed original, intact
    assert [p.name for p in tmp_path.iterdir()] == ["tiny"]


def test_replace_existing_and_stale_tmp_removed(tmp_path):
    stale = tmp_path / ".tmp-tiny-999999999-abcd"
    stale.mkdir(parents=True)
    store.write_graph("tiny", _graph(directed=True), {"kind": "user"}, tmp_path)
    store.write_graph("tiny", _graph(directed=False), {"kind": "user"}, tmp_path)
    assert store.load_graph("tiny", tmp_path).m == 12
    assert [p.name for p in tmp_path.iterdir()] == ["tiny"]


def test_data_dir_precedence(tmp_path, monkeypatch):
    monkeypatch.delenv(store.DATA_DIR_ENV, raising=False)
    assert str(store.data_dir()) == "datasets"
    monkeypatch.setenv(store.DATA_DIR_ENV, str(tmp_path / "env"))
    assert store.data_dir() == tmp_path / "env"
    assert store.data_dir(tmp_path / "flag") == tmp_path / "flag"


def test_seed_keys():
    assert store.cache_key("rmat", None, 7) == "rmat"
    assert store.cache_key("rmat", 7, 7) == "rmat"
    assert store.cache_key("rmat", 3, 7) == "rmat@seed=3"


def test_load_unknown_and_uncached_names(tmp_path):
    with pytest.raises(UserError, match=r"unknown dataset 'europe.osn' \(did you mean: europe.osm"):
        store.load_graph("europe.osn", tmp_path)
    with pytest.raises(UserError, match="dataset 'USA-road-d.FLA' is not cached .* gpubfs fetch-dataset USA-road-d.FLA"):
        store.load_graph("road-FLA", tmp_path)  # an alias finds its entry


def test_bad_names_rejected(tmp_path):
    for bad in ("../x", ".hidden", "a/b", ""):
        with pytest.raises(UserError):
            store.graph_dir(bad, tmp_path)
