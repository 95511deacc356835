"""A symmetrized input is undirected: the CSR flag says so, and every edge has its
reverse. Directed arcs become undirected in two places: build_csr(symmetrize=True) and a
catalogue entry with `directed: false` over a family that generates arcs (default-rmat:
R-MAT arcs, symmetrized). A graph left `directed=True` after symmetrizing would make the
validators accept directed-only answers and the reports count edges wrongly."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.datasets import store
from gpubfs_cli.datasets.prepare import ensure_dataset
from gpubfs_cli.graph import EdgeList, build_csr
from tests.datasets.conftest import write_catalogue


def is_symmetric(g) -> bool:
    rows = np.repeat(np.arange(g.n, dtype=np.int64), np.diff(g.row_offsets))
    cols = np.asarray(g.col_indices, dtype=np.int64)
    forward = np.sort(rows * g.n + cols)
    backward = np.sort(cols * g.n + rows)
    return bool(np.array_equal(forward, backward))


def arcs():
    return EdgeList(np.array([0, 1, 2, 3]), np.array([1, 2, 0, 1]), 4, directed=True)


def test_build_csr_symmetrizing_directed_arcs_makes_an_undirected_graph():
    g = build_csr(arcs(), symmetrize=True)
    assert g.directed is False
    assert is_symmetric(g) and g.m == 8


def test_build_csr_keeps_directed_arcs_directed_by_default():
    g = build_csr(arcs())
    assert g.directed is True
    assert not is_symmetric(g) and g.m == 4


def test_build_csr_undirected_input_is_undirected_either_way():
    e = EdgeList(np.array([0, 1]), np.array([1, 2]), 3, directed=False)
    assert build_csr(e).directed is False
    assert build_csr(e, symmetrize=False).directed is False


ENTRY = """  arcs:
    kind: generated
    generator: rmat
    params: {{n: 256, m: 1024}}
    seed: 3
    directed: {directed}
"""


@pytest.mark.parametrize("directed", [False, True])
def test_a_generated_family_of_arcs_follows_the_catalogue_entry(tmp_path, monkeypatch, data_dir, directed):
    write_catalogue(tmp_path / "cat.yaml", ENTRY.format(directed=str(directed).lower()), monkeypatch)
    g = ensure_dataset("arcs", progress=False)
    assert g.directed is directed
    assert is_symmetric(g) is (not directed)
    meta = store.read_meta("arcs", data_dir)
    assert meta["policy"]["symmetrize"] is (not directed)
    # the flag survives the cache
    assert ensure_dataset("arcs", progress=False).directed is directed
