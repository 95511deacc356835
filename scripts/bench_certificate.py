"""Time the BFS certificate's passes on a cached graph, each beside its other form.

    .venv/bin/python scripts/bench_certificate.py NAME [--dir DIR] [--rounds 3]

Runs cpu.sequential from the graph's first vertex with an edge (parents asked for), then
takes turns, in one process: the edge pass (core.checks._violations) on int64 levels and
on the int32 levels `summable` keeps; the tree-edge search (bfs.validate._not_edges) in
each parent's list and in the shorter of the two lists; the pointer doubling
(tree_depths) and the one pass that shows it is not needed (broken_chains); and the whole
certificate (graph500_failures). Prints each round's
seconds. The first call of each is untimed (numba compiles).
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name")
    ap.add_argument("--problem", choices=("bfs", "sssp"), default="bfs")
    ap.add_argument("--dir", default=None, help="dataset cache folder")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    import numpy as np

    from gpubfs_cli.bench.inputs import default_weights
    from gpubfs_cli.core.checks import _violations, broken_chains, tree_depths
    from gpubfs_cli.core.strategy import get_strategy
    from gpubfs_cli.datasets.prepare import ensure_dataset

    g = ensure_dataset(args.name, args.dir, progress=False)
    if args.problem == "sssp":
        g = default_weights(g, args.dir)
    source = int(np.argmax(np.diff(g.row_offsets) > 0))
    baseline = get_strategy("cpu.dijkstra" if args.problem == "sssp" else "cpu.sequential", args.problem)()
    baseline.prepare(g)
    answer = baseline.traverse(source, True)
    dist, parents = np.asarray(answer.distances), np.asarray(answer.parents).astype(np.int64)
    kids = np.flatnonzero(parents >= 0)
    kids = kids[kids != source]
    ro, co = np.asarray(g.row_offsets), np.asarray(g.col_indices)
    none = np.zeros(0, dtype=np.bool_)
    chains = {"pointer doubling": lambda: tree_depths(parents, source),
              "descending chains": lambda: broken_chains(parents, source, dist)}
    if args.problem == "sssp":
        from gpubfs_cli.algorithms.sssp.validate import certificate_failures

        w = np.asarray(g.weights)
        passes = {"edge pass, weighted": lambda: _violations(ro, co, w, False, dist.astype(np.int64), none), **chains,
                  "whole certificate": lambda: certificate_failures(g, source, dist, parents)}
    else:
        from gpubfs_cli.algorithms.bfs.validate import _not_edges, graph500_failures

        unit = np.zeros(1, dtype=np.int64)
        passes = {
            "edge pass, int64 levels": lambda: _violations(ro, co, unit, True, dist.astype(np.int64), none),
            "edge pass, int32 levels": lambda: _violations(ro, co, unit, True, dist, none),
            "tree edges, parent's list": lambda: _not_edges(ro, co, parents, kids, False),
            "tree edges, shorter list": lambda: _not_edges(ro, co, parents, kids, not g.directed),
            **chains,
            "whole certificate": lambda: graph500_failures(g, source, dist, parents),
        }
    print(f"{args.name}: n {g.n:,}, m {g.m:,}, {'directed' if g.directed else 'undirected'}; from vertex "
          f"{source}, {len(kids) + 1:,} reached")
    for run in passes.values():
        run()
    for r in range(args.rounds):
        times = []
        for name, run in passes.items():
            start = time.perf_counter()
            run()
            times.append(f"{name} {time.perf_counter() - start:.3f}")
        print(f"round {r} (s): " + "; ".join(times))


if __name__ == "__main__":
    main()
