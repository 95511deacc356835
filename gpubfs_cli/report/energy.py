"""GTEPS per watt (Green Graph 500's metric) and watts: a group's figures from the energy
records of its files (bench/energy.py writes them, report/load.py checks them).

A group's records are those of its cell in its L2 mode and prime policy, the key groups
have (results/groups.py). Pooled files, or a run and its resumption, may hold several:
their energy, seconds and edges are summed, so the figures are those of all their
replayed traversals. gteps_per_watt = the edges of the replayed traversals (the report's
TEPS convention: the samples' edges, or their edges_graph500) / their GPUs' energy in
joules / 1e9; watts = that energy / the replay's seconds. A group without a record, or
whose records measured nothing, has no value and says why.
"""

from __future__ import annotations

from collections import defaultdict

from gpubfs_cli.core.problem import DEFAULT_PROBLEM
from gpubfs_cli.results.keys import CellKey

ENERGY_METRICS = ("gteps_per_watt", "watts")
NO_RECORD = "no energy record: a run with energy_s measures it"


def energy_key(dataset: str, problem: str, strategy: str, knobs: dict, predecessors, l2: str, prime) -> tuple:
    """The group an energy record belongs to (results/groups.group_key's fields)."""
    return (*CellKey.make(dataset, problem, strategy, knobs, predecessors), l2, bool(prime))


def record_key(e: dict, prime: bool = False) -> tuple:
    """energy_key of a record (or a sample) with those fields; `prime` where it has none."""
    return energy_key(e["dataset"], e.get("problem", DEFAULT_PROBLEM), e["strategy"], e.get("knobs") or {},
                      e.get("predecessors"), e.get("l2", "warm"), e.get("prime", prime))


def energy_index(records: list[dict]) -> dict[tuple, list[dict]]:
    """Checked energy records (report/load.py) by the group they belong to."""
    index: dict[tuple, list[dict]] = defaultdict(list)
    for e in records:
        index[record_key(e)].append(e)
    return index


def energy_value(records: list[dict], metric: str, teps: str = "edges") -> tuple[float | None, str | None]:
    """(value, None) of `metric` over a group's energy records, or (None, why not)."""
    if not records:
        return None, NO_RECORD
    measured = [e for e in records if e.get("energy_j") is not None]
    if not measured:
        return None, f"energy not measured: {records[0].get('reason') or 'no reason recorded'}"
    joules = sum(float(e["energy_j"]) for e in measured)
    seconds = sum(float(e["seconds"]) for e in measured)
    if metric == "watts":
        return joules / seconds, None
    if metric != "gteps_per_watt":
        raise ValueError(metric)
    edges = [e.get("edges" if teps == "edges" else "edges_graph500") for e in measured]
    if any(x is None for x in edges):
        return None, "no edge count of the replayed traversals" + (" (Graph500's)" if teps != "edges" else "")
    if joules <= 0:
        return None, "the energy counter did not move over the replayed traversals (0 J)"
    return sum(edges) / joules / 1e9, None
