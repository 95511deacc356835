"""The sizes and sha256 recorded when a graph is cached: written into meta.json with the
arrays, the sizes compared on every load, the sha256 in integrity's full pass, a file
that no longer matches refused in one line naming the dataset, the file and the repair,
and `gpubfs fetch-dataset NAME --force` repairing it."""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.datasets import integrity, store
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.csr import CSRGraph

FILES = ("row_offsets.npy", "col_indices.npy")


def _cache(tmp_path, key="mine"):
    # 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 0: n = 3, m = 4
    g = CSRGraph(np.array([0, 2, 3, 4], np.int64), np.array([1, 2, 2, 0], np.int32), directed=True, name=key)
    d = tmp_path / "cache"
    store.write_graph(key, g, {"kind": "user"}, d)
    return d, d / key


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _load_error(key, d) -> str:
    with pytest.raises(UserError) as info:
        store.load_graph(key, d)
    return str(info.value)


@pytest.fixture
def hashed(monkeypatch):
    """The files integrity hashes again, in order."""
    seen = []
    real = integrity.file_sha256
    monkeypatch.setattr(integrity, "file_sha256", lambda path: seen.append(path.name) or real(path))
    return seen


def test_the_sizes_and_sha256_of_every_file_are_recorded(tmp_path):
    d, folder = _cache(tmp_path)
    meta = store.read_meta("mine", d)
    assert meta["files"] == {f: (folder / f).stat().st_size for f in FILES}
    assert meta["sha256"] == {f: _sha(folder / f) for f in FILES}
    store.add_array("mine", "weights.npy", np.array([5, 6, 7, 8], np.int32), {"weights": {"rule": "file"}}, d)
    meta = store.read_meta("mine", d)
    assert meta["files"]["weights.npy"] == (folder / "weights.npy").stat().st_size
    assert meta["sha256"]["weights.npy"] == _sha(folder / "weights.npy")
    assert store.load_graph("mine", d).weights.tolist() == [5, 6, 7, 8]


def test_a_changed_file_is_refused_by_its_sha256_in_one_line(tmp_path, hashed):
    d, folder = _cache(tmp_path)
    np.save(folder / "col_indices.npy", np.array([1, 2, 1, 0], np.int32))  # same size, ids in range
    msg = _load_error("mine", d)
    assert msg == (f"dataset 'mine': {folder / 'col_indices.npy'} does not match the sha256 recorded when it was "
                   "written: the file changed since it was cached; repair with: gpubfs fetch-dataset mine --force")
    assert "col_indices.npy" in hashed


def test_the_sha256_is_read_only_in_the_full_pass(tmp_path, hashed):
    d, _ = _cache(tmp_path)
    store.load_graph("mine", d)  # the first load: the full pass, every file hashed
    assert hashed == list(FILES)
    hashed.clear()
    store.load_graph("mine", d)  # stamped and unchanged: nothing read again
    assert hashed == []


def test_sizes_are_compared_on_every_load(tmp_path, hashed):
    d, folder = _cache(tmp_path)
    store.load_graph("mine", d)
    meta = json.loads((folder / "meta.json").read_text())
    meta["files"]["row_offsets.npy"] += 8  # the files are stamped as checked: only the size tells
    (folder / "meta.json").write_text(json.dumps(meta))
    hashed.clear()
    msg = _load_error("mine", d)
    size = (folder / "row_offsets.npy").stat().st_size
    assert msg == (f"dataset 'mine': {folder / 'row_offsets.npy'} is {size:,} bytes, but {size + 8:,} were "
                   "written: the file changed since it was cached; repair with: gpubfs fetch-dataset mine --force")
    assert hashed == []


def test_bytes_appended_to_an_array_are_refused(tmp_path):
    d, folder = _cache(tmp_path)
    with open(folder / "col_indices.npy", "ab") as f:  # np.load would not notice: the shape is in the header
        f.write(b"\0" * 8)
    assert "col_indices.npy is 152 bytes, but 144 were written" in _load_error("mine", d)


def test_a_cache_written_before_checksums_still_loads(tmp_path):
    d, folder = _cache(tmp_path)
    meta = json.loads((folder / "meta.json").read_text())
    del meta["sha256"]
    meta["files"] = {}
    (folder / "meta.json").write_text(json.dumps(meta))
    np.save(folder / "col_indices.npy", np.array([1, 2, 1, 0], np.int32))
    assert store.load_graph("mine", d).col_indices.tolist() == [1, 2, 1, 0]


def test_a_damaged_array_still_says_what_is_wrong_with_it(tmp_path):
    """The structural checks run before the checksum: an id out of range is named as such."""
    d, folder = _cache(tmp_path)
    np.save(folder / "col_indices.npy", np.array([1, 2, 7, 0], np.int32))
    assert "vertex id 7 at entry 2 is outside [0, 3)" in _load_error("mine", d)


# ---- the repair, through the CLI ------------------------------------------------

runner = CliRunner()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def _damage(path) -> None:
    """Another valid id in one place: the same size, nothing out of range."""
    cols = np.load(path)
    cols[0] = (cols[0] + 1) % (cols.max() + 1)
    np.save(path, cols)
    os.utime(path, ns=(0, 0))  # a time the stamp does not hold, whatever the clock's resolution


def test_force_repairs_a_catalogue_graph_that_fails_its_checksum(tmp_path):
    d = tmp_path / "cache"
    assert cli("fetch-dataset", "smoke-grid", "--dir", d).exit_code == 0
    path = d / "smoke-grid" / "col_indices.npy"
    _damage(path)
    res = cli("fetch-dataset", "smoke-grid", "--dir", d)
    assert res.exit_code == 2
    assert res.stderr.splitlines() == [
        f"error: dataset 'smoke-grid': {path} does not match the sha256 recorded when it was written: the file "
        "changed since it was cached; repair with: gpubfs fetch-dataset smoke-grid --force"]
    res = cli("fetch-dataset", "smoke-grid", "--force", "--dir", d)
    assert res.exit_code == 0, res.output
    assert _sha(path) == store.read_meta("smoke-grid", d)["sha256"]["col_indices.npy"]
    assert store.load_graph("smoke-grid", d).m == 79_488
    assert cli("fetch-dataset", "smoke-grid", "--dir", d).exit_code == 0


def test_force_repairs_a_users_graph_from_its_recorded_file(tmp_path):
    d = tmp_path / "cache"
    edges = tmp_path / "edges.txt"
    edges.write_text("0 1\n1 2\n2 3\n3 0\n0 2\n")
    assert cli("fetch-dataset", "mine", "--file", edges, "--format", "snap", "--dir", d).exit_code == 0
    before = store.load_graph("mine", d).col_indices.tolist()
    path = d / "mine" / "col_indices.npy"
    _damage(path)
    res = cli("fetch-dataset", "mine", "--dir", d)
    assert res.exit_code == 2 and res.stderr.strip().endswith("repair with: gpubfs fetch-dataset mine --force")
    res = cli("fetch-dataset", "mine", "--force", "--dir", d)
    assert res.exit_code == 0, res.output
    assert store.load_graph("mine", d).col_indices.tolist() == before
