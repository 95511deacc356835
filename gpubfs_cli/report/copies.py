"""Variants whose samples copy another variant's, which no report shows as a measurement.

Two variants of one cell set (a dataset, problem, strategy, L2 mode and prime policy:
their knobs or option differ) that took the same time on every source, sample for
sample, did not both measure anything: timers resolve microseconds or finer, and two
runs never agree so over several sources. Files written before peer.gapbs's predecessor
row became `unavailable` hold such a row: the +pred variant recorded the samples of the
distances-only one (docs/peers.md).

Which of a pair is the copy: the variant with the option (predecessors, parents) when
its twin has none, the cheaper run being the one measured; else both, since neither
can be told from the other. `report --check` names every such pair; the tables show a
copy as n/a, naming its twin.

Groups with fewer than MIN_SAMPLES timed samples, or one time for all of them (a timer's
floor on a tiny graph), are never compared.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Iterable

from gpubfs_cli.results.groups import Group

MIN_SAMPLES = 3


def _times(group: Group) -> tuple | None:
    """Every timed sample as (source, time), sorted; None when too few to tell."""
    timed = [(s.source, float(s.time_ms)) for s in group.ok_samples()]
    if len(timed) < MIN_SAMPLES or len({t for _, t in timed}) < 2:
        return None
    return tuple(sorted(timed))


def identical_pairs(groups: Iterable[Group]) -> list[tuple[Group, Group]]:
    """Each pair of groups of one cell set with the same (source, time) samples."""
    by_set: dict[tuple, dict[tuple, list[Group]]] = defaultdict(lambda: defaultdict(list))
    for g in groups:
        times = _times(g)
        if times is not None:
            by_set[(g.dataset, g.problem, g.strategy, g.l2, g.prime)][times].append(g)
    return [pair for same in by_set.values() for alike in same.values()
            for pair in itertools.combinations(alike, 2)]


def copies(groups: Iterable[Group]) -> dict[int, Group]:
    """id(group) -> the twin whose samples it holds, for every group that is a copy."""
    out: dict[int, Group] = {}
    for a, b in identical_pairs(groups):
        if a.predecessors != b.predecessors:
            copy, twin = (a, b) if a.predecessors else (b, a)
            out.setdefault(id(copy), twin)
        else:
            out.setdefault(id(a), b)
            out.setdefault(id(b), a)
    return out


def variant_text(group: Group, other: Group, option_label: str = "+pred") -> str:
    """`peer.gapbs without +pred`, `peer.gapbs threads=1`: `group` told apart from `other`
    by the knobs whose values differ and by the option."""
    knobs = [f"{k}={group.knobs.get(k)}" for k in sorted(set(group.knobs) | set(other.knobs))
             if json.dumps(group.knobs.get(k)) != json.dumps(other.knobs.get(k))]
    option = [] if group.predecessors == other.predecessors else [
        option_label if group.predecessors else f"without {option_label}"]
    return " ".join([group.strategy, *knobs, *option])


def copy_reason(group: Group, twin: Group, option_label: str = "+pred") -> str:
    """Why a copy's cell holds no number."""
    return (f"the same times as {variant_text(twin, group, option_label)}, source for source: a copy of its "
            "samples, not a measurement")
