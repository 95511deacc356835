"""auto.bfs's and auto.sssp's decision tables: read and check one, and look a graph up.

The table is nearest-neighbour over measured graphs: one rule per graph of a catalogue
run, holding the graph's features, its fastest strategy and knobs (median time), that
time and the runner-up's. A graph is given the winner of the rule closest to it in the
distance space of features.DISTANCE_FEATURES (log2 scale): "this graph looks most like
G, and on G strategy S won".

Each problem has its table (SHIPPED_TABLES: algorithms/PROBLEM/auto_table.yaml), whose
rules name that problem's strategies; a table says its problem (`problem`, "bfs" where
absent). Only what auto.* needs at run time lives here; building and checking a table
from results files is gpubfs_cli/workflows/auto_table.py (scripts/build_auto_table.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.auto.features import DISTANCE_FEATURES, Features, vector_of
from gpubfs_cli.errors import UserError

_ALGORITHMS = Path(__file__).resolve().parents[3]
SHIPPED_TABLES = {p: _ALGORITHMS / p / "auto_table.yaml" for p in ("bfs", "sssp")}
TABLE_VERSION = 1


@dataclass(frozen=True)
class Rule:
    graph: str
    features: dict[str, Any]
    strategy: str
    knobs: dict[str, Any]
    ms: float
    vector: np.ndarray = field(repr=False, compare=False, default=None)


@dataclass(frozen=True)
class Table:
    path: Path
    gpu: str
    l2_bytes: int
    rules: tuple[Rule, ...]

    def by_distance(self, features: Features) -> list[tuple[Rule, float]]:
        """Every rule with its distance to `features`, nearest first (equals in table order)."""
        point = features.vector()
        distances = [float(np.linalg.norm(rule.vector - point)) for rule in self.rules]
        return [(self.rules[i], distances[i]) for i in np.argsort(distances, kind="stable")]

    def nearest(self, features: Features) -> tuple[Rule, float]:
        """The rule closest to `features` and its distance (the first of equals)."""
        return self.by_distance(features)[0]


# ------------------------------------------------------------------ reading a table
def load_table(path: str | Path | None = None, registry: dict | None = None, problem: str = "bfs") -> Table:
    """Read and check a decision table of `problem` (default: its shipped one). Every rule
    must name a registered strategy of the problem with knobs it accepts; any mistake is
    one UserError naming the file and the key."""
    from gpubfs_cli.core.strategy import all_strategies, make_knobs
    from gpubfs_cli.errors import unknown_name
    from gpubfs_cli.files import parse_yaml, read_text_file

    path = Path(path) if path else SHIPPED_TABLES[problem]
    doc = parse_yaml(read_text_file(path, "decision table"), str(path))
    strategies = registry if registry is not None else all_strategies(problem)

    def bad(key: str, what: str) -> UserError:
        return UserError(f"{path}: {key}: {what}")

    if not isinstance(doc, dict):
        raise UserError(f"{path}: expected a mapping (version, machine, distance, rules)")
    if doc.get("version") != TABLE_VERSION:
        raise bad("version", f"expected {TABLE_VERSION}, got {doc.get('version')!r}")
    if doc.get("problem", "bfs") != problem:
        raise bad("problem", f"expected {problem} (a table of auto.{problem}), got {doc.get('problem')!r}")
    if doc.get("distance") != list(DISTANCE_FEATURES):
        raise bad("distance", f"expected {list(DISTANCE_FEATURES)} (rebuild the table with this version)")
    machine = doc.get("machine")
    if not isinstance(machine, dict) or not isinstance(machine.get("l2_bytes"), int) or machine["l2_bytes"] <= 0:
        raise bad("machine", "expected a mapping with gpu (name) and l2_bytes (a positive integer)")
    raw_rules = doc.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules:
        raise bad("rules", "expected a non-empty list of rules")
    rules = []
    for i, raw in enumerate(raw_rules):
        key = f"rules[{i}]"
        if not isinstance(raw, dict):
            raise bad(key, "expected a mapping (graph, features, strategy, knobs, ms, runner_up)")
        for name in ("graph", "features", "strategy", "ms"):
            if name not in raw:
                raise bad(key, f"missing '{name}'")
        feats = raw["features"]
        if not isinstance(feats, dict):
            raise bad(f"{key}.features", "expected a mapping of feature values")
        for name in DISTANCE_FEATURES:
            value = feats.get(name)
            ok = isinstance(value, bool) if name == "directed" else (
                isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0)
            if not ok:
                want = "true or false" if name == "directed" else "a number >= 0"
                raise bad(f"{key}.features.{name}", f"expected {want}, got {value!r}")
        name = raw["strategy"]
        if not isinstance(name, str) or name not in strategies:
            raise bad(f"{key}.strategy", str(unknown_name(f"{problem} strategy", str(name), strategies)))
        knobs = raw.get("knobs") or {}
        if not isinstance(knobs, dict):
            raise bad(f"{key}.knobs", "expected a mapping KNOB: value")
        try:
            make_knobs(strategies[name], knobs)
        except UserError as exc:
            raise bad(f"{key}.knobs", str(exc)) from None
        if not isinstance(raw["ms"], (int, float)) or isinstance(raw["ms"], bool):
            raise bad(f"{key}.ms", f"expected a number, got {raw['ms']!r}")
        rules.append(Rule(str(raw["graph"]), dict(feats), name, dict(knobs), float(raw["ms"]), vector_of(feats)))
    return Table(path, str(machine.get("gpu", "")), int(machine["l2_bytes"]), tuple(rules))
