"""auto.bfs: measure the graph, then run the strategy that won on the most similar
measured graph.

prepare() computes the graph's features (features.py: degrees, the share of edges in the
top 1% of vertices, the mean depth of the probe BFSes, the CSR's size against this GPU's L2),
looks them up in the decision table (table.py; the shipped auto_table.yaml unless the
`table` knob names another) and instantiates the chosen strategy with its knobs, which
then gets upload, prepare, traverse, prepared_bytes and release. The probe is the host's
sequential BFS from the first 10 random sources a run picks (seed 0), run at once in
threads: about one CPU traversal on a multicore host (~1 s on 100 M edges), inside the
prepare time.

Every answer's counters say what auto chose: auto.choice, auto.knobs (JSON), auto.rule
(the measured graph whose winner it took), auto.distance (how far that graph was),
auto.probe_ms and the features (auto.depth, auto.degree_skew, auto.top1_share, ...).

Knobs: table, the decision table's path ("" = the shipped one).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.core.strategy import (
    Strategy,
    StrategyUnavailable,
    all_strategies,
    make_knobs,
    register,
)
from gpubfs_cli.gpu import backend


@dataclass(frozen=True)
class AutoKnobs:
    table: str = ""  # a decision table (YAML); "" = gpubfs_cli/algorithms/bfs/auto_table.yaml


@register
class AutoBfs(Strategy):
    name = "auto.bfs"
    paper = "auto"
    section = "gpubfs: a strategy chosen per graph from a measured decision table (docs/auto.md)"
    summary = "features of the graph -> the fastest strategy and knobs on the nearest measured graph"
    caveats = (
        "not an algorithm: it runs another registered strategy (counters auto.choice, auto.knobs); "
        "its prepare time includes 10 sequential CPU BFSes run at once (the depth probe)",
    )
    device_kind = "gpu"
    timing = "events"  # until prepare(): then as the strategy it runs
    Knobs = AutoKnobs

    def __init__(self, knobs=None, devices=None):
        super().__init__(knobs, devices)
        self._own_devices = self.devices
        self.delegate: Strategy | None = None
        self._counters: dict = {}

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return backend.gpus_unavailable_reason(1)

    def upload(self, graph) -> None:
        # Before the choice: GPU strategies share this copy (DeviceGraph.of), so the one
        # chosen in prepare() finds the graph there.
        if self.device.is_gpu:
            from gpubfs_cli.gpu.device_graph import DeviceGraph

            DeviceGraph.of(graph, self.device)

    def prepare(self, graph) -> None:
        from gpubfs_cli.algorithms.bfs.gpu.auto.features import graph_features
        from gpubfs_cli.algorithms.bfs.gpu.auto.table import load_table

        super().prepare(graph)
        t0 = time.perf_counter()
        table = load_table(self.knobs.table or None)
        l2 = backend.l2_bytes(self.device) if self.device.is_gpu else table.l2_bytes
        features, probe_ms = graph_features(graph, l2)
        rule, distance = table.nearest(features)
        cls = all_strategies("bfs")[rule.strategy]  # load_table checked the name
        reason = cls.unavailable_reason()
        if reason is not None:
            raise StrategyUnavailable(f"auto chose {rule.strategy} (as on {rule.graph}): {reason}")
        same_kind = cls.device_kind == self.device.kind and len(cls.devices_for(cls.Knobs())) == len(self._own_devices)
        self.delegate = cls(make_knobs(cls, rule.knobs), self._own_devices if same_kind else None)
        self.delegate.upload(graph)
        self.delegate.prepare(graph)
        # Timed as the strategy that runs is, on its devices.
        self.devices = self.delegate.devices
        self.timing = self.delegate.timing
        self._counters = {
            "auto.choice": rule.strategy,
            "auto.knobs": knobs_key(rule.knobs),
            "auto.rule": rule.graph,
            "auto.distance": round(distance, 4),
            "auto.probe_ms": round(probe_ms, 3),
            "auto.decide_ms": round((time.perf_counter() - t0) * 1000.0, 3),
            **{f"auto.{k}": v for k, v in features.to_dict().items() if k not in ("n", "m")},
        }

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        if self.delegate is None:
            raise RuntimeError("auto.bfs: traverse() before prepare()")
        if predecessors and not self.delegate.supports_predecessors:
            raise StrategyUnavailable(f"auto chose {self.delegate.name}, which has no predecessors output")
        answer = self.delegate.traverse(source, predecessors)
        answer.counters = {**answer.counters, **self._counters}
        return answer

    def prepared_bytes(self) -> int:
        return self.delegate.prepared_bytes() if self.delegate is not None else 0

    def release(self) -> None:
        if self.delegate is not None:
            self.delegate.release()
        self.delegate = None
        self.devices = self._own_devices
        self.timing = type(self).timing
        self._counters = {}
        super().release()
