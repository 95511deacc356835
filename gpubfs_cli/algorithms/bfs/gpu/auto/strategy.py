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

With `gpus` above 1, a graph of at least `mgpu_edges` directed edges (graph.m) runs
mgpu.bfs on that many GPUs at its default knobs instead (multi_gpu_choice): a size rule,
measured on two GPUs (docs/auto.md, "Several GPUs"). It needs no table and no features,
so the probe is skipped (auto.probe_ms 0): ten CPU BFSes take seconds on such graphs. A
smaller graph, or gpus 1, gets the table's choice on one GPU as above. A machine with
fewer than `gpus` GPUs makes auto.bfs unavailable whatever the graph's size.

Every answer's counters say what auto chose: auto.choice, auto.knobs (JSON), auto.rule
(the measured graph whose winner it took, or the size rule), auto.distance (how far that
graph was), auto.probe_ms and the features (auto.depth, auto.degree_skew,
auto.top1_share, ...; the size rule has neither distance nor features). A choice that
cannot take the graph (sssp.regions past 2^31 - 1 on a weight, a strategy this machine
lacks) passes it to the next nearest rule naming another choice: auto.passed_over says
what and why.

Knobs: table, the decision table's path ("" = the shipped one); gpus, the GPUs auto may
use (1: one, the table's choice always); mgpu_edges, the directed edges from which it
runs mgpu.bfs when gpus > 1 (default MGPU_MIN_EDGES).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from gpubfs_cli.core.answer import Answer
from gpubfs_cli.core.knobs import knob, knobs_key, whole
from gpubfs_cli.core.strategy import (
    Strategy,
    StrategyUnavailable,
    all_strategies,
    make_knobs,
    register,
)
from gpubfs_cli.gpu import backend
from gpubfs_cli.gpu.ranks.channels import mpi_world_size

MGPU = "mgpu.bfs"
MGPU_MIN_EDGES = 400_000_000  # the measured multi-GPU crossover (docs/auto.md, "Several GPUs")


class AutoStrategy(Strategy):
    """What auto.bfs and auto.sssp share: measure the graph in prepare(), look it up in the
    problem's decision table (the `table` knob, or the shipped one) and hand the graph to
    the strategy the nearest rule names, timed as it is from then on. The problem is the
    subclass's (`problem`); its Knobs carry `table`."""

    paper = "auto"
    device_kind = "gpu"
    timing = "events"  # until prepare(): then as the strategy it runs

    def __init__(self, knobs=None, devices=None):
        super().__init__(knobs, devices)
        # Until prepare() chooses, auto uploads and is timed on its first device alone:
        # devices_for names every GPU the choice may take, which need not all exist.
        self.devices = self._own_devices = self.devices[:1]
        self.delegate: Strategy | None = None
        self._counters: dict = {}

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return backend.gpus_unavailable_reason(1)

    def _multi_gpu_knobs(self, graph) -> dict | None:
        """The knobs of a choice made without the table (auto.bfs's size rule), else None."""
        return None

    def upload(self, graph) -> None:
        # Before the choice: GPU strategies share this copy (DeviceGraph.of), so the one
        # chosen in prepare() finds the graph there. mgpu.bfs's ranks read their own rows.
        if self.device.is_gpu and self._multi_gpu_knobs(graph) is None:
            from gpubfs_cli.gpu.device_graph import DeviceGraph

            DeviceGraph.of(graph, self.device)

    def prepare(self, graph) -> None:
        """The table's choice: features, the nearest rule, its strategy prepared."""
        from gpubfs_cli.algorithms.bfs.gpu.auto.features import graph_features
        from gpubfs_cli.algorithms.bfs.gpu.auto.table import load_table

        Strategy.prepare(self, graph)
        t0 = time.perf_counter()
        table = load_table(self.knobs.table or None, problem=self.problem)
        l2 = backend.l2_bytes(self.device) if self.device.is_gpu else table.l2_bytes
        features, probe_ms = graph_features(graph, l2)
        rule, distance, passed = self._first_available(table.by_distance(features), graph)
        self._counters = {
            "auto.choice": rule.strategy,
            "auto.knobs": knobs_key(rule.knobs),
            "auto.rule": rule.graph,
            "auto.distance": round(distance, 4),
            **({"auto.passed_over": passed} if passed else {}),
            "auto.probe_ms": round(probe_ms, 3),
            "auto.decide_ms": round((time.perf_counter() - t0) * 1000.0, 3),
            **{f"auto.{k}": v for k, v in features.to_dict().items() if k not in ("n", "m")},
        }

    def _first_available(self, ranked: list, graph) -> tuple:
        """The nearest rule whose choice runs here, prepared as the delegate: (rule,
        distance, what was passed over). A choice this machine lacks, or one that cannot
        take this graph (sssp.regions past 2^31 - 1 on a weight, regions.* past 2^31
        edges), hands the graph to the next nearest rule naming another choice; none
        left is StrategyUnavailable with the nearest's reason."""
        tried: dict[str, str] = {}  # choice -> "strategy (as on graph: why)"
        for rule, distance in ranked:
            choice = f"{rule.strategy} {knobs_key(rule.knobs)}"
            if choice in tried:
                continue
            cls = all_strategies(self.problem)[rule.strategy]  # load_table checked the name
            reason = cls.unavailable_reason()
            if reason is None:
                same_kind = (cls.device_kind == self.device.kind
                             and len(cls.devices_for(cls.Knobs())) == len(self._own_devices))
                try:
                    self._delegate_to(cls, rule.knobs, self._own_devices if same_kind else None, graph)
                    return rule, distance, "; ".join(tried.values())
                except StrategyUnavailable as e:
                    self._drop_delegate()
                    reason = str(e)
            tried[choice] = f"{rule.strategy} (as on {rule.graph}: {reason})"
        raise StrategyUnavailable(f"auto chose {next(iter(tried.values()))}, and no other rule's choice runs here")

    def _drop_delegate(self) -> None:
        if self.delegate is not None:
            self.delegate.release()
        self.delegate = None
        self.devices = self._own_devices
        self.timing = type(self).timing

    def _delegate_to(self, cls: type[Strategy], knobs: dict, devices, graph) -> None:
        """`cls` with `knobs` (overrides) on `devices` (None: its own) made, uploaded and
        prepared; auto is timed from then on as it is, on its devices."""
        self.delegate = cls(make_knobs(cls, knobs), devices)
        self.delegate.upload(graph)
        self.delegate.prepare(graph)
        self.devices = self.delegate.devices
        self.timing = self.delegate.timing

    def traverse(self, source: int, predecessors: bool = False) -> Answer:
        if self.delegate is None:
            raise RuntimeError(f"{self.name}: traverse() before prepare()")
        if predecessors and not self.delegate.supports_predecessors:
            raise StrategyUnavailable(f"auto chose {self.delegate.name}, which has no predecessors output")
        answer = self.delegate.traverse(source, predecessors)
        answer.counters = {**answer.counters, **self._counters}
        return answer

    def prepared_bytes(self) -> int:
        return self.delegate.prepared_bytes() if self.delegate is not None else 0

    def device_bytes(self) -> list[int] | None:
        return self.delegate.device_bytes() if self.delegate is not None else None

    def prepare_details(self) -> dict[str, float]:
        return self.delegate.prepare_details() if self.delegate is not None else {}

    def release(self) -> None:
        self._drop_delegate()
        self._counters = {}
        super().release()


@dataclass(frozen=True)
class AutoKnobs:
    table: str = ""  # a decision table (YAML); "" = gpubfs_cli/algorithms/bfs/auto_table.yaml
    gpus: int = knob(1, 1, 255)
    mgpu_edges: int = knob(MGPU_MIN_EDGES, 0)

    def __post_init__(self) -> None:
        if not whole(self.gpus) or not 1 <= self.gpus <= 255:
            raise ValueError(f"gpus: expected an integer from 1 to 255, got {self.gpus!r}")
        if not whole(self.mgpu_edges) or self.mgpu_edges < 0:
            raise ValueError(f"mgpu_edges: expected an integer >= 0, got {self.mgpu_edges!r}")


def multi_gpu_choice(m: int, gpus: int, min_edges: int) -> dict | None:
    """mgpu.bfs's knobs (its defaults but `gpus`) for a graph of `m` directed edges when
    auto runs it on `gpus` GPUs, else None (one GPU, the table's choice)."""
    if gpus > 1 and m >= min_edges:
        return {"gpus": int(gpus)}
    return None


@register
class AutoBfs(AutoStrategy):
    name = "auto.bfs"
    section = "gpubfs: a strategy chosen per graph from a measured decision table (docs/auto.md)"
    summary = "features of the graph -> the fastest strategy and knobs on the nearest measured graph"
    caveats = (
        "not an algorithm: it runs another registered strategy (counters auto.choice, auto.knobs); "
        "its prepare time includes 10 sequential CPU BFSes run at once (the depth probe)",
        "with gpus > 1, graphs of mgpu_edges directed edges or more run mgpu.bfs on that many GPUs, "
        "without the probe",
    )
    multi_gpu = True  # a run's `gpus` reaches its gpus knob, as mgpu.bfs's
    Knobs = AutoKnobs

    @classmethod
    def devices_for(cls, knobs) -> tuple:
        """One GPU; with gpus > 1, those mgpu.bfs would run on (the results record every
        GPU the variant may use)."""
        if int(knobs.gpus) > 1:
            mgpu = all_strategies("bfs")[MGPU]
            return mgpu.devices_for(make_knobs(mgpu, {"gpus": int(knobs.gpus)}))
        return super().devices_for(knobs)

    def _multi_gpu_knobs(self, graph) -> dict | None:
        return multi_gpu_choice(int(graph.m), int(self.knobs.gpus), int(self.knobs.mgpu_edges))

    def prepare(self, graph) -> None:
        gpus = int(self.knobs.gpus)
        world = mpi_world_size()
        if gpus > 1 and (world is None or world <= 1):  # under MPI mgpu.bfs checks its world
            why = backend.gpus_unavailable_reason(gpus)
            if why is not None:
                raise StrategyUnavailable(f"{self.name}: {why}")
        multi = self._multi_gpu_knobs(graph)
        if multi is None:
            super().prepare(graph)
            return
        Strategy.prepare(self, graph)
        t0 = time.perf_counter()
        self._delegate_to(all_strategies("bfs")[MGPU], multi, None, graph)
        self._counters = {
            "auto.choice": MGPU,
            "auto.knobs": knobs_key(multi),
            "auto.rule": f"multi-GPU: m >= {int(self.knobs.mgpu_edges):,}",
            "auto.probe_ms": 0.0,
            "auto.decide_ms": round((time.perf_counter() - t0) * 1000.0, 3),
        }
