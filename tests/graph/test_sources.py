"""Sources: seeded, out-degree >= 1, the same list every time, explicit and fixed ones."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.errors import UserError
from gpubfs_cli.graph import EdgeList, build_csr
from gpubfs_cli.graph.sources import choose_sources, fixed_source_of, random_sources


def graph(name="g"):
    # vertices 0..49 have out-edges, 50..99 have none
    rng = np.random.default_rng(7)
    src = np.concatenate([np.arange(50), rng.integers(0, 50, 100)])
    dst = rng.integers(0, 100, len(src))
    return build_csr(EdgeList(src, dst, 100, True), name=name)


def test_random_sources_are_seeded_distinct_and_have_out_edges():
    g = graph()
    a = random_sources(g, 20, seed=3)
    assert a == random_sources(g, 20, seed=3)
    assert a != random_sources(g, 20, seed=4)
    assert len(set(a)) == 20
    assert all(g.out_degrees()[v] >= 1 for v in a)
    # more sources than candidates: each candidate once, never a repeat
    many = random_sources(g, 80, seed=3)
    assert sorted(many) == list(range(50))


def test_more_sources_than_candidates_says_so():
    chosen = choose_sources(graph("few"), count=80, seed=3)
    assert sorted(chosen.vertices) == list(range(50))
    assert chosen.note == "80 sources asked for, but only 50 vertices have an out-edge: runs from each of them once"
    assert choose_sources(graph("few"), count=50, seed=3).note is None


def test_fixed_source_says_it_replaces_random_ones():
    g = graph()
    chosen = choose_sources(g, count=20, seed=1, meta={"fixed_source": 42})
    assert chosen.note == "runs from its one fixed source, vertex 42 (the dataset's fixed_source), not 20 random sources"
    assert choose_sources(g, count=1, seed=1, meta={"fixed_source": 42}).note is None
    assert choose_sources(g, count=20, seed=1, explicit=[3], meta={"fixed_source": 42}).note is None


def test_graphs_with_other_names_get_other_sources():
    assert random_sources(graph("a"), 10, 0) != random_sources(graph("b"), 10, 0)


def test_explicit_then_fixed_then_random():
    g = graph()
    assert choose_sources(g, count=5, seed=1).origin == "random"
    assert choose_sources(g, count=5, seed=1).vertices == random_sources(g, 5, 1)
    meta = {"fixed_source": 42}
    chosen = choose_sources(g, count=5, seed=1, meta=meta)
    assert (chosen.vertices, chosen.origin) == ([42], "fixed_source")
    chosen = choose_sources(g, count=5, seed=1, explicit=[3, 7], meta=meta)
    assert (chosen.vertices, chosen.origin) == ([3, 7], "explicit")


def test_fixed_source_from_meta_entry_and_lattice_center():
    assert fixed_source_of({}) is None
    assert fixed_source_of({"entry": {"fixed_source": 9}}) == 9
    meta = {"entry": {"fixed_source": "center"}, "input_info": {"center": 13}}
    assert fixed_source_of(meta) == 13
    with pytest.raises(UserError, match="fixed_source 'center'"):
        fixed_source_of({"entry": {"fixed_source": "center"}}, "grid")


def test_out_of_range_sources_are_user_errors():
    g = graph()
    with pytest.raises(UserError, match=r"--source: vertex 100 is out of range .*0 <= v < 100"):
        choose_sources(g, explicit=[100])
    with pytest.raises(UserError, match="meta.json fixed_source"):
        choose_sources(g, meta={"fixed_source": 500})


def test_shorter_lists_are_prefixes_of_longer_ones():
    rng = np.random.default_rng(5)
    g = build_csr(EdgeList(rng.integers(0, 500, 3000), rng.integers(0, 500, 3000), 500, False), name="p")
    long = random_sources(g, 100, seed=3)
    assert random_sources(g, 10, seed=3) == long[:10]
    assert len(set(long)) == 100
