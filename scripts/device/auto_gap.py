"""Why do auto.bfs's samples trail its own choice's? (With one warm-up run, auto's median
was 10-20 us per traversal behind the group of the strategy it ran, in the same run;
docs/auto.md, "Evidence".) One process per call, one graph after another:

    python scripts/device/auto_gap.py [--graphs A,B] [--sources N] [--trials T]
        [--warmup-ms MS]

For each graph: auto.bfs (A) and a fresh instance of the strategy it chose, with its
knobs (C), both prepared, then three comparisons, every sample timed through the
runner's bench/timing.timed_call and checked against the baseline after its events:

  side by side   A and C take turns source by source (the order flips every source),
                 after one warm-up each: is auto's traverse() itself slower?
  after prepare  T trials of: re-prepare A (its prepare runs the depth probe, CPU only),
                 1 warm-up, every source; the same for C; and for C followed by the probe
                 alone (P: C's prepare, then as much CPU work as A's): does what runs
                 before the first sample slow the samples after it?
  warm by time   the same three, each warmed up for --warmup-ms after prepare (the
                 runner's `warmup_ms`)

Prints each arm's median event time and the host's share (start event to traverse()
returning), in microseconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="smoke-rmat,smoke-gnm,rmat20,g500-s20-ef16")
    ap.add_argument("--sources", type=int, default=10)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--warmup-ms", type=float, default=50.0)
    a = ap.parse_args()
    for name in a.graphs.split(","):
        if not one_graph(name, a.sources, a.trials, a.warmup_ms):
            return 1
    return 0


def one_graph(name: str, count: int, trials: int, warmup_ms: float) -> bool:
    import numpy as np

    from gpubfs_cli.algorithms.bfs.probe import probe_depth
    from gpubfs_cli.bench.schedule import warm_up_runs
    from gpubfs_cli.bench.timing import timed_traverse_split
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.core.solve import solve_each
    from gpubfs_cli.core.strategy import all_strategies, make_knobs
    from gpubfs_cli.datasets.prepare import ensure_dataset
    from gpubfs_cli.gpu.backend import cupy_if_usable
    from gpubfs_cli.gpu.device_graph import DeviceGraph
    from gpubfs_cli.graph.sources import choose_sources

    graph = ensure_dataset(name, None, progress=False, gpu_xp=cupy_if_usable)
    sources = choose_sources(graph, count=count, seed=0).vertices
    refs = list(solve_each(get_problem("bfs"), graph, sources))
    registry = all_strategies("bfs")

    def fresh(strategy_name, knobs):
        cls = registry[strategy_name]
        strategy = cls(make_knobs(cls, knobs))
        strategy.upload(graph)
        strategy.prepare(graph)
        return strategy

    auto = fresh("auto.bfs", {})
    choice = auto.delegate.name
    knobs = json.loads(auto._counters["auto.knobs"])
    chosen = fresh(choice, knobs)
    print(f"{name}: n={graph.n:,} m={graph.m:,}; auto chose {choice} {knobs}; {len(sources)} sources")

    def sample(strategy, s, ref, into):
        ms, host_ms, answer = timed_traverse_split(strategy, s)
        if not np.array_equal(np.asarray(answer.to_host().distances), ref):
            raise SystemExit(f"{name}: {strategy.name} gave a wrong answer from {s}")
        into.append((ms * 1e3, host_ms * 1e3))

    def warm(strategy, ms):  # the runner's warm-up: one run, then on until `ms` has passed
        for _ in warm_up_runs(1, ms):
            strategy.traverse(sources[0]).to_host()

    def show(label, rows):
        ev = statistics.median(r[0] for r in rows)
        host = statistics.median(r[1] for r in rows)
        print(f"  {label:34s} events {ev:8.1f} us  host {host:7.1f} us  ({len(rows)} samples)")

    a_rows, c_rows = [], []
    warm(auto, 0)
    warm(chosen, 0)
    for i, (s, ref) in enumerate(zip(sources, refs, strict=True)):
        pair = [(auto, a_rows), (chosen, c_rows)]
        for strategy, rows in pair if i % 2 == 0 else pair[::-1]:
            sample(strategy, s, ref, rows)
    show("side by side: A (auto.bfs)", a_rows)
    show(f"side by side: C ({choice})", c_rows)
    auto.release()
    chosen.release()

    for wm in (0.0, warmup_ms):
        arms = {"A": [], "C": [], "P": []}
        probe_ms = []
        for _ in range(trials):
            for arm in ("A", "C", "P"):
                strategy = fresh("auto.bfs", {}) if arm == "A" else fresh(choice, knobs)
                if arm == "P":
                    t0 = time.perf_counter()
                    probe_depth(graph)
                    probe_ms.append((time.perf_counter() - t0) * 1e3)
                warm(strategy, wm)
                for s, ref in zip(sources, refs, strict=True):
                    sample(strategy, s, ref, arms[arm])
                strategy.release()
        what = f"warm-up {wm:g} ms" if wm else "1 warm-up"
        show(f"after prepare, {what}: A", arms["A"])
        show(f"after prepare, {what}: C", arms["C"])
        show(f"after prepare, {what}: P (C+probe)", arms["P"])
        print(f"  (the probe alone: {statistics.median(probe_ms):.1f} ms)")
    DeviceGraph.release(graph)
    return True


if __name__ == "__main__":
    sys.exit(main())
