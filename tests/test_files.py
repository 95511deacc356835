"""write_text_atomic: whole files or nothing under the final name."""

from __future__ import annotations

import os

import pytest

from gpubfs_cli.errors import UserError
from gpubfs_cli.files import write_text_atomic


def test_writes_and_replaces(tmp_path):
    p = write_text_atomic(tmp_path / "a" / "out.txt", "one")
    assert p.read_text() == "one"
    write_text_atomic(p, "two")
    assert p.read_text() == "two" and os.listdir(p.parent) == ["out.txt"]


def test_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    p = write_text_atomic(tmp_path / "out.txt", "old")

    def boom(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(p, "new")
    assert p.read_text() == "old" and os.listdir(tmp_path) == ["out.txt"]


def test_unwritable_place_is_a_user_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UserError, match="cannot write"):
        write_text_atomic(blocker / "sub" / "out.txt", "x")


def test_parse_yaml_names_the_place_and_line():
    from gpubfs_cli.files import parse_yaml

    assert parse_yaml("a: 1\n", "x.yaml") == {"a": 1}
    with pytest.raises(UserError, match=r"^x\.yaml:2: not valid YAML"):
        parse_yaml("a: 1\nb: c: d\n", "x.yaml")


def test_plain_json_converts_numpy_and_summarizes_long_arrays():
    import numpy as np

    from gpubfs_cli.files import plain_json

    doc = {1: np.int64(3), "a": (np.float32(0.5), np.arange(3)), "big": np.zeros(100)}
    assert plain_json(doc, array_limit=64) == {"1": 3, "a": [0.5, [0, 1, 2]], "big": "array(100,)"}
    assert plain_json(doc)["big"] == [0.0] * 100
