"""What is already measured: the one model behind `gpubfs run --resume` (the sources a
stopped run's journal holds, so none is measured twice and none lost) and `gpubfs
reproduce` (the cells of a paper's results folder that need no further run).

Per cell (results/keys.CellKey): the sources with a sample, with their repeats (a source
listed twice needs two samples); the sources with an ok sample; and whether a sample's
status ended the cell's mode (results/status.ENDS_A_MODE). The two users ask it two
questions, by the rulebook's two rules:
  left / ended     a resumed run: what of a turn's sources holds no sample yet (any
                   status: the run it continues measured them), and whether the mode ended
                   (bench/schedule.remaining asks both, for the turns and for a graph held whole)
  finished         reproduce: the cell ended in a failure that is a result
                   (MEASURED_FAILURES), or is ok with an ok sample of every planned source
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from gpubfs_cli.results.keys import CellKey
from gpubfs_cli.results.status import ENDS_A_MODE, MEASURED_FAILURES, group_status, sample_status


class Done:
    def __init__(self, samples: Iterable[Any]):
        """`samples`: Sample objects, or samples' dicts as a results file or journal holds them."""
        self._sources: dict[CellKey, Counter] = defaultdict(Counter)
        self._ok: dict[CellKey, set[int]] = defaultdict(set)
        self._statuses: dict[CellKey, list[str]] = defaultdict(list)
        self._ended: set[CellKey] = set()
        for s in samples:
            key = CellKey.of(s)
            raw = s if isinstance(s, dict) else vars(s)
            source, status = raw["source"], raw["status"]
            checked = sample_status(status, raw.get("valid"), raw.get("time_ms"))
            self._statuses[key].append(checked)
            if source >= 0:
                self._sources[key][source] += 1
                if checked == "ok":
                    self._ok[key].add(source)
            if status in ENDS_A_MODE:
                self._ended.add(key)

    def copy(self) -> Done:
        """A copy whose `left` uses up samples of its own."""
        other = Done(())
        other._sources = defaultdict(Counter, {k: Counter(v) for k, v in self._sources.items()})
        other._ok, other._statuses, other._ended = self._ok, self._statuses, self._ended
        return other

    def cells(self) -> list[CellKey]:
        return list(self._statuses)

    def ended(self, key: CellKey) -> bool:
        """Whether a sample's status ended the cell's mode."""
        return key in self._ended

    def left(self, key: CellKey, indexed: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The (index, source) pairs of `indexed` that hold no sample yet. Each sample
        covers one occurrence of its source and is used up here, so a source given twice
        runs twice, and a later turn never counts a sample an earlier one used."""
        have = self._sources.get(key, Counter())
        out = []
        for at, source in indexed:
            if have[source] > 0:
                have[source] -= 1
            else:
                out.append((at, source))
        return out

    def finished(self, key: CellKey, planned: int) -> bool:
        """Whether the cell needs no further run: a failure that is a result, or ok with
        an ok sample of each of its `planned` distinct sources (0: none planned, never)."""
        status = group_status(self._statuses.get(key, []))
        return status in MEASURED_FAILURES or (status == "ok" and planned > 0 and len(self._ok[key]) >= planned)
