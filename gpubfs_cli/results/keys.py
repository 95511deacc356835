"""What identifies a measurement: one cell-key type, and the conventions every recorded
sample's knobs and modes follow.

A cell is one (dataset, problem, strategy, knob variant, option): the runner's resume,
`reproduce`'s finished cells, the report's tables and the count of failed cells all key
by `CellKey`, so no two of them can disagree on what is the same cell. Groups add the
run's L2 mode and prime policy to it (results/groups.py), since samples of two modes
are never averaged together.

Two harness facts travel inside a sample's knobs, under fixed names: a multi-GPU
variant's GPU count (GPUS_KNOB, the knob every multi-GPU strategy declares) and the
vertex order of a variant run on a relabelled graph (REORDER_KNOB; absent: the graph's
own order, NO_REORDER). Both are part of the variant's identity, so every grouping by
knobs keeps counts and orders apart.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.core.problem import DEFAULT_PROBLEM
from gpubfs_cli.core.strategy import GPUS_KNOB

__all__ = ["GPUS_KNOB", "L2_MODES", "NO_REORDER", "REORDER_KNOB", "CellKey", "gpus_of", "reorder_of"]

NO_REORDER = "none"
REORDER_KNOB = "reorder"
L2_MODES = ("warm", "cold")  # a run's L2 mode (--l2): cold evicts the GPU's L2 before each timed sample


class CellKey(NamedTuple):
    dataset: str
    problem: str
    strategy: str
    variant: str  # the knobs as knobs_key spells them
    predecessors: bool  # the problem's option

    @classmethod
    def make(cls, dataset: str, problem: str, strategy: str, knobs: dict, predecessors: Any) -> CellKey:
        return cls(dataset, problem, strategy, knobs_key(knobs), bool(predecessors))

    @classmethod
    def of(cls, sample: Any) -> CellKey:
        """A sample's cell: a Sample, or a sample's dict as a results file holds it."""
        if isinstance(sample, dict):
            return cls.make(sample["dataset"], sample.get("problem", DEFAULT_PROBLEM), sample["strategy"],
                            sample.get("knobs") or {}, sample.get("predecessors"))
        return cls.make(sample.dataset, sample.problem, sample.strategy, sample.knobs, sample.predecessors)


def gpus_of(knobs: dict[str, Any]) -> Any:
    """The GPU count a variant's knobs name; None for a single-device strategy."""
    return knobs.get(GPUS_KNOB)


def reorder_of(knobs: dict[str, Any]) -> Any:
    """The vertex order a variant's graph was relabelled in; None: the graph's own."""
    return knobs.get(REORDER_KNOB)
