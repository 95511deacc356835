"""Where does the run-order effect come from? (Without rounds, the first variant to run on
a graph measures slow through all its sources, e.g. do.bfs 0.216 against 0.163 ms on
g500-s20-ef16: docs/performance.md.) Runs the same strategy in several fresh instances,
one after another, on one graph, and splits each sample into the host's share (start
event to the launch returning) and the events' total.

    python scripts/device/order_probe.py [--graph NAME] [--strategy NAME] [--sources N]
        [--trials T] [--reupload]   (--reupload: the graph leaves the GPU between trials)
        [--gaps MS,...]             (an idle gap before each sample, one trial per gap:
                                     does the GPU slow down when it waits between samples?)
        [--prime none,kernel,traverse]  (every gap with each: `kernel` launches a one-
                                     element kernel and waits for it just before each
                                     sample, `traverse` an untimed traversal from the
                                     previous source)

Each trial: a new instance, upload, prepare, 2 warm-up traversals, then every source
timed through the runner's bench/timing.timed_call (events around traverse()), the answer
copied back after the events. Prints per trial the median event time, the median host
share, and the median of the same sources' CPU check (the work between samples).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graph", default="g500-s20-ef16")
    ap.add_argument("--strategy", default="do.bfs")
    ap.add_argument("--sources", type=int, default=30)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--reupload", action="store_true")
    ap.add_argument("--gaps", default="", help="comma-separated idle gaps (ms), one trial each")
    ap.add_argument("--prime", default="none", help="comma-separated: none, kernel, traverse")
    a = ap.parse_args()

    import numpy as np

    from gpubfs_cli.bench.timing import timed_traverse_split
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.core.solve import solve_each
    from gpubfs_cli.core.strategy import all_strategies, make_knobs
    from gpubfs_cli.datasets.store import load_graph
    from gpubfs_cli.gpu.device_graph import DeviceGraph
    from gpubfs_cli.graph.sources import choose_sources

    graph = load_graph(a.graph)
    sources = choose_sources(graph, count=a.sources, seed=0).vertices
    problem = get_problem("bfs")
    refs = list(solve_each(problem, graph, sources))
    cls = all_strategies("bfs")[a.strategy]
    gaps = [float(x) for x in a.gaps.split(",")] if a.gaps else [0.0] * a.trials
    primes = a.prime.split(",")
    if set(primes) - {"none", "kernel", "traverse"}:
        print(f"--prime: expected none, kernel or traverse, got {a.prime}", file=sys.stderr)
        return 2
    import cupy as cp

    tick = cp.zeros(1, cp.int32)
    print(f"{a.graph}: n={graph.n} m={graph.m}; {a.strategy}, {len(sources)} sources, {len(gaps)} trials"
          f"{', re-uploaded each trial' if a.reupload else ''}")
    for trial, (gap, prime) in enumerate((g, p) for g in gaps for p in primes):
        strategy = cls(make_knobs(cls, {}))
        strategy.upload(graph)
        strategy.prepare(graph)
        for _ in range(2):
            strategy.traverse(sources[0]).to_host()
        events, hosts, checks = [], [], []
        before = sources[-1]
        for s, ref in zip(sources, refs, strict=True):
            if gap:
                time.sleep(gap / 1e3)
            if prime == "traverse":
                strategy.traverse(before).to_host()  # the copy back waits for it
            elif prime == "kernel":
                tick += 1
                cp.cuda.Device().synchronize()
            before = s

            ms, host_ms, answer = timed_traverse_split(strategy, s)
            events.append(ms * 1e3)
            hosts.append(host_ms * 1e3)
            host = answer.to_host()
            t1 = time.perf_counter()
            if not np.array_equal(np.asarray(host.distances), ref):
                print(f"  trial {trial}: wrong answer from {s}")
                return 1
            checks.append((time.perf_counter() - t1) * 1e6)
        strategy.release()
        if a.reupload:
            DeviceGraph.release(graph)
        print(f"  trial {trial} (gap {gap:g} ms, prime {prime}): events median {statistics.median(events):8.1f} us (min {min(events):.1f}), "
              f"host launch median {statistics.median(hosts):6.1f} us, check between samples "
              f"{statistics.median(checks):8.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
