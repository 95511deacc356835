"""scripts/fixed_cost.py on the CPU: its --knobs parsing and matching, and the turns its
cases take (fake cases standing in for strategies and floor probes)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import fixed_cost  # noqa: E402


def test_knobs_parse_as_yaml_and_go_to_strategies_that_have_them():
    knobs = fixed_cost.parse_knobs(["small_frontier=512", "culling=atomic", "growth=false"])
    assert knobs == {"small_frontier": 512, "culling": "atomic", "growth": False}
    assert fixed_cost.knobs_for("bfs", "merrill.hybrid", knobs) == {"small_frontier": 512, "culling": "atomic"}
    assert fixed_cost.knobs_for("bfs", "lbbfs.hybrid", knobs) == {}
    with pytest.raises(SystemExit, match="not KEY=VALUE"):
        fixed_cost.parse_knobs(["small_frontier"])


class Fake(fixed_cost.Case):
    def __init__(self, key, log, fail_at=None, result=None):
        super().__init__(key, result)
        self.log, self.fail_at = log, fail_at

    def sample(self):
        self.log.append(self.key)
        if len(self.us) == self.fail_at:
            raise RuntimeError("wrong answer")
        return float(len(self.log))


def test_cases_take_turns_in_blocks_and_a_failure_ends_only_its_own():
    log: list[str] = []
    cases = [Fake("a", log), Fake("b", log, fail_at=1), Fake("c", log),
             Fake("x", log, result={"unavailable": "no GPU"})]
    fixed_cost.take_turns(cases, 3, block=2)
    # Round r starts at case r; each turn is one untimed traversal, then up to 2 timed (3
    # in all); b fails its second timed one and sits out round 1; x never runs.
    assert log == ["a", "a", "a", "b", "b", "b", "c", "c", "c", "c", "c", "a", "a"]
    assert cases[0].outcome() == {"us": [2.0, 3.0, 13.0]} and cases[2].outcome() == {"us": [8.0, 9.0, 11.0]}
    assert cases[1].outcome() == {"error": "RuntimeError: wrong answer"}
    assert cases[3].outcome() == {"unavailable": "no GPU"}
