"""The table builder across results files of different ages: a knob added since an older
file ran (leader_async, direct_below) is absent from that file's samples. The newer file's
cell of the same variant replaces the older one (not a second candidate that could win on
the older code's time), a variant at another value stays a candidate of its own, and
--check finds a table's choice in an older held-out file where that file ran the same
variant."""

from __future__ import annotations

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.auto.features import recorded_features
from gpubfs_cli.algorithms.bfs.gpu.auto.table import Rule, Table
from gpubfs_cli.results.schema import SCHEMA_VERSION, Prepare, Sample, write_results
from gpubfs_cli.workflows import auto_table as builder

INFO = {"status": "ok", "n": 1000, "m": 4000, "directed": False, "stats": {"max_degree": 8}, "depth_avg": 10.0}
NF, DELTA = "sssp.near_far", "sssp.delta"
OLD = {"cta_size": 256}  # what an older file recorded
NEW = {"cta_size": 256, "leader_async": False}  # the same variant: a knob added since, at its default
WIDE = {"cta_size": 512, "leader_async": True}
DEFAULTS = builder.knob_defaults(NF, "sssp")


def results_file(path, cells: list[tuple[str, dict, float]], created: str):
    """One results file of graph "g": each (strategy, knobs, ms) measured on the GPU."""
    samples, prepares = [], []
    for strategy, knobs, ms in cells:
        prepares.append(Prepare("g", strategy, knobs, 1.0, devices=["gpu:0"], problem="sssp").to_dict())
        samples += [Sample("g", strategy, knobs, s, ms, 10, 10, True, problem="sssp").to_dict() for s in range(3)]
    write_results(path, {"schema_version": SCHEMA_VERSION, "created": created,
                         "environment": {"gpu": {"name": "Test GPU", "l2_bytes": 1 << 20}},
                         "datasets": {"g": INFO}, "sources": {"g": [0, 1, 2]},
                         "prepares": prepares, "samples": samples})
    return str(path)


def test_same_variant_is_every_older_knob_at_the_newer_value_and_the_rest_at_their_defaults():
    assert DEFAULTS["cta_size"] == 256 and DEFAULTS["leader_async"] is False
    assert builder.same_variant(OLD, NEW, DEFAULTS) and builder.same_variant(NEW, NEW, DEFAULTS)
    assert builder.same_variant({}, NEW, DEFAULTS)
    assert not builder.same_variant(OLD, WIDE, DEFAULTS)  # cta_size differs
    assert not builder.same_variant({"cta_size": 512}, WIDE, DEFAULTS)  # leader_async is not its default
    assert not builder.same_variant(NEW, OLD, DEFAULTS)  # names a knob the other lacks
    assert not builder.same_variant({"cta_size": 256, "gone": 1}, NEW, DEFAULTS)
    assert not builder.same_variant(OLD, NEW, None)  # an unknown strategy's knobs must all be named
    assert builder.knob_defaults("no.such", "sssp") is None


def test_a_newer_file_replaces_the_older_cell_of_the_same_variant(tmp_path):
    older = results_file(tmp_path / "old.json", [(NF, OLD, 1.0), (NF, {"cta_size": 512}, 4.0),
                                                 (DELTA, {}, 3.0)], "2026-01-01T00:00:00+00:00")
    newer = results_file(tmp_path / "new.json", [(NF, NEW, 2.0), (NF, WIDE, 2.5)], "2026-02-01T00:00:00+00:00")
    m = builder.measured([newer, older], problem="sssp")
    got = sorted((e["ms"], e["strategy"], e["file"]) for e in m.candidates["g"].values())
    # the older near_far at 256 threads (1.0 ms) is gone; its 512-thread cell and delta stay
    assert got == [(2.0, NF, newer), (2.5, NF, newer), (3.0, DELTA, older), (4.0, NF, older)]
    (rule,) = builder.build_table(m)["rules"]
    assert (rule["knobs"], rule["ms"], rule["candidates"]) == (NEW, 2.0, 4)


def test_check_finds_the_choice_where_an_older_file_ran_the_same_variant(tmp_path):
    held_out = results_file(tmp_path / "h.json", [(NF, OLD, 1.0), (DELTA, {}, 1.05)], "2026-01-01T00:00:00+00:00")
    m = builder.measured([held_out], problem="sssp")
    feats = recorded_features(INFO, 1 << 20)

    def verdict(knobs):
        table = Table(tmp_path / "t.yaml", "Test GPU", 1 << 20,
                      (Rule("g", feats.to_dict(), NF, knobs, 1.0, np.asarray(feats.vector())),))
        (v,) = builder.check(m, table)
        return v

    assert verdict(NEW).ok and verdict(NEW).ratio == 1.0  # the older file's near_far at 256 threads
    assert not verdict(WIDE).ok and "not measured" in verdict(WIDE).note
