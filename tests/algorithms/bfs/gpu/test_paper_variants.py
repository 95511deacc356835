"""Which configuration each Merrill and Luo paper column measures: the paper's
behaviour and today's adaptations are told apart by knob values, and the run configs
measure every variant the columns select."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from gpubfs_cli.algorithms.bfs.gpu.luo.hierarchical import LuoKnobs
from gpubfs_cli.algorithms.bfs.gpu.merrill.strategies import MerrillKnobs
from gpubfs_cli.bench.config import load_config
from gpubfs_cli.configs import experiments_dir
from gpubfs_cli.core.strategy import get_strategy, make_knobs
from gpubfs_cli.report.papers import load_paper

EXPERIMENTS = experiments_dir()
FAITHFUL = {"claim_threshold": 0, "grid_threshold": 0}


def _measured(*configs: str) -> set[tuple[str, tuple]]:
    """(strategy, sorted knob items, as results files record them) of every variant the
    run configs measure."""
    out = set()
    for name in configs:
        for v in load_config(EXPERIMENTS / name).variants:
            knobs = asdict(make_knobs(get_strategy(v.strategy), v.overrides))
            out.add((v.strategy, tuple(sorted(knobs.items()))))
    return out


def _selects(col, measured) -> bool:
    return any(s == col.strategy and set(col.knobs.items()) <= set(k) for s, k in measured)


def test_every_merrill_column_says_which_configuration():
    adapted = {"claim_threshold": MerrillKnobs.claim_threshold,
               "grid_threshold": MerrillKnobs.grid_threshold}  # fmt: skip
    measured = _measured("merrill.yaml", "merrill-pred.yaml", "merrill-fig10.yaml")
    multi = _measured("merrill-fig11.yaml")
    kinds = set()
    for table in load_paper("merrill").tables:
        for col in table.columns:
            if table.id == "fig11":  # the multi-GPU strategies have neither knob: one configuration
                assert _selects(col, multi), f"fig11.{col.key}: merrill-fig11.yaml does not measure it"
                continue
            if not (col.strategy or "").startswith("merrill."):
                continue
            if col.knobs == adapted:
                assert col.header.endswith("(adapted)"), (table.id, col.header)
            else:
                assert col.knobs == FAITHFUL and col.header.endswith("(paper's knobs)"), (table.id, col.header)
            kinds.add((table.id, tuple(sorted(col.knobs.items()))))
            assert _selects(col, measured), f"{table.id}.{col.key}: no run config measures it"
    for table in ("table2", "fig10"):  # both configurations reported in each
        assert {k for t, k in kinds if t == table} == {
            tuple(sorted(adapted.items())), tuple(sorted(FAITHFUL.items()))}  # fmt: skip


@pytest.mark.parametrize(("table", "split"), [("table1", False), ("table2", False)])
def test_luo_regular_tables_run_unsplit(table, split):
    (t,) = [t for t in load_paper("luo").tables if t.id == table]
    for col in t.columns:
        if col.strategy == "luo.hierarchical":
            assert (col.knobs.get("split_degree", LuoKnobs.split_degree) > 0) == split


def test_luo_table3_shows_the_split_run_and_keeps_the_unsplit_one():
    (t,) = [t for t in load_paper("luo").tables if t.id == "table3"]
    cols = [c for c in t.columns if c.strategy == "luo.hierarchical"]
    split = [c for c in cols if c.knobs.get("split_degree", 0) > 0]
    unsplit = [c for c in cols if c.knobs.get("split_degree") == 0]
    assert len(split) == 1 and "split" in split[0].header
    assert len(unsplit) == 1 and "unsplit" in unsplit[0].header
    published = {k for row in t.rows for k in row.published}
    assert split[0].key in published and unsplit[0].key not in published
    measured = _measured("luo.yaml")
    assert _selects(split[0], measured) and _selects(unsplit[0], measured)


@pytest.mark.gpu
def test_luo_split_is_done_in_prepare():
    """Table 3's split variant: the pieces are built once in prepare() (timed apart, the
    results' prepare time) and traversals only read them."""
    import numpy as np

    from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
    from gpubfs_cli.graph.samples import linked_stars

    g = linked_stars()
    cls = get_strategy("luo.hierarchical")
    s = cls(make_knobs(cls, {"split_degree": 8}))
    s.prepare(g)
    try:
        pieces = s.piece_begin
        assert pieces is not None and int(pieces.size) - 1 > g.n  # the hubs were cut
        before = s.prepared_bytes()
        for src in (0, 2, g.n - 1):
            r = s.traverse(src).to_host()
            np.testing.assert_array_equal(r.distances, sequential_bfs(g, src).distances)
        assert s.piece_begin is pieces and s.prepared_bytes() == before
    finally:
        s.release()
