"""raval.* for BFS on the GPU: every knob value on the graphs of test_strategies.py (which
already runs each raval strategy with its default knobs): EP's chunk sizes, NS's
histogram bin counts (including those that split nothing and nearly everything, and an
MDT of 1 that splits every list into single edges), both NS propagations, HP's WD
thresholds (never, always, in between), WD's thread counts, phase_timing. Levels exact,
one round per level, parents a BFS tree. One test per variant and check loops over the
graphs; the variants whose work does not depend on the whole graph's degrees run
test_strategies.UNION's graphs as one disjoint union.

The same kernels and launchers run on the CPU under the emulator in
tests/algorithms/sssp/gpu/test_raval_emulated.py (for BFS and SSSP).
"""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.core.strategy import all_strategies, make_knobs
from tests.algorithms.bfs.gpu.test_strategies import (
    GRAPHS,
    UNION,
    batch_reference,
    batches,
    check_parents,
    graph,
    report,
    run_checks,
    sources,
)

# Every round reads a count back to the host: make test-gpu runs these apart (Makefile).
pytestmark = pytest.mark.host_paced

VARIANTS = [
    ("raval.bs", {"block_size": 128}),
    ("raval.ep", {"chunk_edges": 1}),
    ("raval.ep", {"chunk_edges": 2}),
    ("raval.ep", {"chunk_edges": 64}),
    ("raval.wd", {"threads": 1}),
    ("raval.wd", {"threads": 4000}),
    ("raval.ns", {"histogram_bins": 1}),  # MDT = the largest degree: nothing split
    ("raval.ns", {"histogram_bins": 2}),
    ("raval.ns", {"histogram_bins": 1_000_000}),  # MDT near the most common degree
    ("raval.ns", {"mdt": 1}),  # every list split into single edges
    ("raval.ns", {"propagation": "pass"}),
    ("raval.ns", {"propagation": "pass", "mdt": 3}),
    ("raval.hp", {"wd_threshold": 0}),  # sub-iterations only
    ("raval.hp", {"wd_threshold": 0, "mdt": 1}),
    ("raval.hp", {"wd_threshold": 32, "mdt": 2}),
    ("raval.hp", {"wd_threshold": 1 << 30}),  # WD for every list
    ("raval.hp", {"histogram_bins": 1, "wd_threshold": 0}),  # MDT = max degree: one sub-iteration
]
VARIANTS += [(name, {"phase_timing": True})
             for name in ("raval.bs", "raval.ep", "raval.wd", "raval.ns", "raval.hp")]


def _id(v) -> str:
    name, knobs = v
    return name + "".join(f"-{k}={x}" for k, x in knobs.items())


def _strategy(variant):
    name, knobs = variant
    cls = all_strategies("bfs")[name]
    return cls(make_knobs(cls, knobs))


def _rounds_ok(name: str, g, ref, rounds: int) -> bool:
    """One round per level; EP's worklists hold the edges out of a level, so a last level
    without out-edges (or an isolated source) takes no round."""
    levels = ref.counters["levels"]
    if name != "raval.ep":
        return rounds == levels
    last = ref.distances == levels - 1
    sinks = not np.any(np.repeat(last, g.out_degrees()))
    return rounds == (levels - 1 if sinks else levels)


def union_safe(variant) -> bool:
    """Whether a disjoint union tests what the graphs alone do. NS and HP take their MDT
    from the whole graph's degree histogram (unless the mdt knob sets it), and HP bounds a
    round's sub-iterations by the largest degree: those run on each graph alone."""
    name, knobs = variant
    return name in ("raval.bs", "raval.ep", "raval.wd") or (name == "raval.ns" and knobs.get("mdt", 0) > 0)


# raval.hp with MDT 1 and no WD walks star100k's hub one edge per sub-iteration (100,000
# host reads a traversal): about as long as all its other graphs, so that graph is a test
# of its own, listed first to start first.
SPLIT = {_id(("raval.hp", {"wd_threshold": 0, "mdt": 1})): ("star100k",)}


def cases(variants, names, split=SPLIT) -> list:
    """(variant, graphs) per test: the split-off graphs alone first, then each variant on
    the rest of `names`."""
    alone = [(v, (g,)) for v in variants for g in split.get(_id(v), ()) if g in names]
    rest = [(v, tuple(g for g in names if g not in split.get(_id(v), ()))) for v in variants]
    return alone + rest


# Sources a split-off case runs from: each costs about what a whole test of the variant's
# other graphs does (the hub's round walks its edges one per sub-iteration from any source
# that reaches it), so two: the first pick and the second.
SPLIT_SOURCES = 2


def case_sources(case, pick, count: int | None = None, split=SPLIT):
    """name -> the sources a case runs from: pick(name)[:count], or the first
    SPLIT_SOURCES when the case is a split-off graph alone."""
    variant, names = case
    if len(names) == 1 and names[0] in split.get(_id(variant), ()):
        count = SPLIT_SOURCES
    return lambda name: tuple(pick(name))[:count]


def case_ids(case_list, split=SPLIT) -> list[str]:
    """The variant's id, and the graph's for a split-off one."""
    return [_id(v) + ("-" + names[0] if names[0] in split.get(_id(v), ()) else "") for v, names in case_list]


def _batches(variant, names):
    return batches(names, union=UNION if union_safe(variant) else ())


def _check_levels(variant):
    def check(at, got) -> None:
        ref = batch_reference(at)
        assert got.distances.dtype == np.int32, at.label
        np.testing.assert_array_equal(got.distances, ref.distances, err_msg=at.label)
        c = got.counters
        assert _rounds_ok(variant[0], at.batch.graph, ref, c["iterations"]), \
            f"{at.label}: {c['iterations']} rounds, {ref.counters['levels']} levels"
        assert c["kernel_launches"] > c["iterations"], f"{at.label}: {c}"
        if variant[1].get("phase_timing"):
            assert isinstance(c["kernel_ms"], float) and c["kernel_ms"] >= 0 and c["overhead_ms"] >= 0, \
                f"{at.label}: {c}"
        else:
            assert "kernel_ms" not in c, f"{at.label}: {c}"
    return check


def check_tree(at, got) -> None:
    np.testing.assert_array_equal(got.distances, batch_reference(at).distances, err_msg=at.label)
    check_parents(at.batch.graph, at.vertex, got.distances, got.parents, at.label)


LEVEL_CASES = cases(VARIANTS, list(GRAPHS))


@pytest.mark.gpu
@pytest.mark.parametrize("case", LEVEL_CASES, ids=case_ids(LEVEL_CASES))
def test_levels_match_sequential(case):
    variant, names = case
    report(run_checks(_id(variant), lambda: _strategy(variant), _batches(variant, names), case_sources(case, sources),
                      False, _check_levels(variant)))


PARENT_GRAPHS = ["grid60x60", "star100k", "loops_dups", "directed", "kronecker", "disconnected", "single"]
PARENT_CASES = cases(VARIANTS, PARENT_GRAPHS)


@pytest.mark.gpu
@pytest.mark.parametrize("case", PARENT_CASES, ids=case_ids(PARENT_CASES))
def test_parents_form_a_bfs_tree(case):
    variant, names = case
    report(run_checks(_id(variant), lambda: _strategy(variant), _batches(variant, names),
                      case_sources(case, sources, 4), True, check_tree))


@pytest.mark.gpu
def test_ns_splits_the_star_hub_and_hp_runs_its_sub_iterations():
    """star100k: the hub (degree 100,000) and 100,000 leaves of degree 1. The histogram
    (10 bins) puts the leaves in the first bin: MDT 10,000, the hub split in 10 (9
    children). HP with that MDT needs 10 sub-iterations for the hub's round."""
    g = graph("star100k")
    ns = _strategy(("raval.ns", {}))
    ns.prepare(g)
    c = ns.traverse(0).to_host().counters
    assert (c["mdt"], c["split_nodes"], c["child_nodes"], c["iterations"]) == (10_000, 1, 9, 2)
    ns.release()
    hp = _strategy(("raval.hp", {"wd_threshold": 0}))
    hp.prepare(g)
    c = hp.traverse(0).to_host().counters
    assert c["mdt"] == 10_000 and c["wd_passes"] == 0
    assert c["sub_iterations"] == 10 + 1  # the hub's round, then the leaves' (one edge each)
    hp.release()
