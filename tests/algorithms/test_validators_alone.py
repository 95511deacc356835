"""Each validator on its own, without the runner, against each class of wrong answer
that tests/bench/test_runner_answers.py runs through the runner: the BFS and SSSP
validators with the baseline's distances as the reference, and the checks that need no
reference (BFS: graph500_failures; SSSP: certificate_failures), which must catch a wrong
answer judged by its own distances alone."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.algorithms.bfs import validate as bfs_validate
from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs
from gpubfs_cli.algorithms.sssp import validate as sssp_validate
from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra
from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.checks import tree_depths
from tests.bench.test_runner_answers import (
    BFS_ONLY,
    BOTH,
    SOURCE,
    SSSP_ONLY,
    WITH_PARENTS,
    bfs_graph,
    dist_fractional,
    dist_other_int_dtype,
    dist_short,
    parents_missing,
    parents_other_tree,
    parents_short,
    sssp_graph,
)

VALIDATORS = {"bfs": (bfs_graph, sequential_bfs, bfs_validate.validate),
              "sssp": (sssp_graph, dijkstra, sssp_validate.validate)}


def damaged(problem: str, damage):
    graph_of, baseline, _ = VALIDATORS[problem]
    g = graph_of()
    right = baseline(g, SOURCE, True)
    d, p = damage(g, right.distances.copy(), right.parents.copy())
    return g, right, d, p


def _cases():
    for problem, extra in (("bfs", BFS_ONLY), ("sssp", SSSP_ONLY)):
        for damage, _, reason in BOTH:
            yield pytest.param(problem, damage, False, reason, id=f"{problem}-{damage.__name__}")
        for damage, _, reason in BOTH + WITH_PARENTS + extra:
            yield pytest.param(problem, damage, True, reason, id=f"{problem}-{damage.__name__}-parents")


@pytest.mark.parametrize(("problem", "damage", "option", "reason"), list(_cases()))
def test_the_validator_alone_gives_the_runners_verdict(problem, damage, option, reason):
    g, right, d, p = damaged(problem, damage)
    got = VALIDATORS[problem][2](g, SOURCE, Answer(d, p if option else None), right.distances, option)
    if reason is None:
        assert got is None
    else:
        assert got is not None and got.startswith(reason), got


# Damage the checks without a reference can see: values, not shapes (those are the
# comparison's), and not fractional levels (consistent among themselves: only the
# baseline's integers tell).
NOT_WITHOUT_REFERENCE = {dist_short, dist_fractional, parents_short, parents_missing, dist_other_int_dtype,
                         parents_other_tree}


def _wrong_cases():
    for problem, extra in (("bfs", BFS_ONLY), ("sssp", SSSP_ONLY)):
        for damage, _, _ in BOTH + WITH_PARENTS + extra:
            if damage not in NOT_WITHOUT_REFERENCE:
                yield pytest.param(problem, damage, id=f"{problem}-{damage.__name__}")


def no_reference(problem: str, g, d, p) -> list[str]:
    if problem == "bfs":
        return bfs_validate.graph500_failures(g, SOURCE, d, p)
    return sssp_validate.certificate_failures(g, SOURCE, d, p)


@pytest.mark.parametrize(("problem", "damage"), list(_wrong_cases()))
def test_the_checks_without_a_reference_catch_a_wrong_answer_by_its_own_distances(problem, damage):
    g, right, d, p = damaged(problem, damage)
    assert no_reference(problem, g, right.distances, right.parents) == []
    assert no_reference(problem, g, d, p) != []


@pytest.mark.parametrize("damage", [dist_other_int_dtype, parents_other_tree])
@pytest.mark.parametrize("problem", ["bfs", "sssp"])
def test_the_checks_without_a_reference_pass_another_right_answer(problem, damage):
    g, _, d, p = damaged(problem, damage)
    assert no_reference(problem, g, d, p) == []


def test_a_whole_tree_too_deep_passes_the_trusting_checks_and_fails_the_edge_pass():
    """Levels and parents that agree with each other, but too deep: vertex 1 (level 1)
    hung below 7 below 6 below the source. Compared with its own distances it passes
    validate (parent_failures trusts them); the edge pass of graph500_failures, which
    needs no reference, sees edges skip levels, as SSSP's certificate sees what
    relaxation alone cannot."""
    g = bfs_graph()
    right = sequential_bfs(g, SOURCE, True)
    p = right.parents.astype(np.int64)
    p[7], p[1] = 6, 7  # vertex x + 6 y: 0 -> 6 -> 7 -> 1 are grid edges
    depth, broken = tree_depths(p, SOURCE)
    assert not broken.any() and depth[1] == 3
    d = depth.astype(right.distances.dtype)
    assert bfs_validate.parent_failures(g, SOURCE, d, p) == []
    assert bfs_validate.validate(g, SOURCE, Answer(d, p), d, True) is None
    assert bfs_validate.validate(g, SOURCE, Answer(d, p), right.distances, True).startswith("distances differ")
    assert {f.split(":")[0] for f in bfs_validate.graph500_failures(g, SOURCE, d, p)} == {"edge-span"}
