"""cpu.sequential vs scipy.sparse.csgraph.breadth_first_order, side by side.

Both run on the same generated graphs from the same sources, through the project's
timing path (bench/timing.py: perf_counter around the call). scipy is timed as the bare
library call without predecessors, its cheapest form (the cpu.scipy strategy adds the
derivation of distances on top). For each source the two run back to back, in
alternating order, so machine noise hits both alike; both must reach the same vertices. Prints one Markdown table: median ms of each,
and the ratio scipy / sequential (above 1: cpu.sequential is faster).

    .venv/bin/python scripts/bench_baseline.py [--sources 21] [--graphs gnm,rmat,...]
"""

from __future__ import annotations

import argparse
import gc
import platform
import time

import numpy as np

from gpubfs_cli.algorithms.bfs.cpu.scipy_ref import ScipyBfs
from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs
from gpubfs_cli.bench.environment import cpu_model
from gpubfs_cli.bench.timing import timed_call, timed_traverse
from gpubfs_cli.graph import build_csr
from gpubfs_cli.graph.generators import generate
from gpubfs_cli.graph.sources import random_sources

# name: (family, params, seed, directed, description)
GRAPHS = {
    "gnm": ("gnm", {"n": 1 << 20, "m": 8 << 20, "directed": False}, 1, False,
            "uniform random, 2^20 vertices, 8M undirected edges"),
    "rmat": ("rmat", {"n": 1 << 20, "m": 8 << 20}, 1, True,
             "R-MAT (GTgraph a=.45 b=.15 c=.15), 2^20 vertices, 8M arcs, directed"),
    "kron": ("kronecker", {"scale": 20, "edgefactor": 16}, 1, False,
             "Graph500 Kronecker scale 20, edge factor 16"),
    "grid3d": ("lattice", {"dims": [100, 100, 100]}, 0, False, "3D 6-point lattice 100^3"),
    "grid2d": ("lattice", {"dims": [1000, 1000]}, 0, False, "2D 4-point lattice 1000^2"),
}


def build(name: str):
    family, params, seed, directed, _ = GRAPHS[name]
    edges = generate(family, params, seed)
    return build_csr(edges, symmetrize=not directed, name=name)


def measure(graph, count: int, seed: int) -> dict:
    from scipy.sparse.csgraph import breadth_first_order

    seq, ref = SequentialBfs(), ScipyBfs()
    seq.prepare(graph)
    ref.prepare(graph)  # the csr_array scipy wants (float64 data, int32 indices), built once
    matrix = ref._matrix

    def scipy_bfs(s: int):
        # the library call alone, in its cheapest form (no predecessors)
        return timed_call(lambda: breadth_first_order(matrix, s, directed=True, return_predecessors=False))

    sources = random_sources(graph, count, seed)
    timed_traverse(seq, sources[0])  # warm-up (numba compile / page-in), not counted
    scipy_bfs(sources[0])
    t_seq, t_ref, reached = [], [], []
    for i, s in enumerate(sources):
        for which in ("seq", "scipy") if i % 2 == 0 else ("scipy", "seq"):
            gc.collect()
            if which == "seq":
                ms, result = timed_traverse(seq, s)
                t_seq.append(ms)
                dist = result.distances
            else:
                ms, order = scipy_bfs(s)
                t_ref.append(ms)
        if not np.array_equal(np.sort(order), np.flatnonzero(dist >= 0)):
            raise SystemExit(f"{graph.name}: the two reach different vertices from source {s}")
        reached.append(len(order))
    return {
        "sources": len(sources),
        "reached": float(np.mean(reached)),
        "seq_ms": float(np.median(t_seq)),
        "scipy_ms": float(np.median(t_ref)),
        "paired": float(np.median(np.asarray(t_ref) / np.asarray(t_seq))),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=int, default=21)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    args = ap.parse_args()
    print(f"machine: {cpu_model()}, Python {platform.python_version()}; "
          f"{args.sources} sources per graph, seed {args.seed}\n")
    print("| graph | n | m (directed) | sources | avg reached | cpu.sequential median ms "
          "| scipy median ms | ratio of medians | median per-source ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.graphs.split(","):
        t0 = time.perf_counter()
        graph = build(name)
        built = time.perf_counter() - t0
        r = measure(graph, args.sources, args.seed)
        print(f"| {name}: {GRAPHS[name][4]} | {graph.n:,} | {graph.m:,} | {r['sources']} "
              f"| {r['reached']:,.0f} | {r['seq_ms']:.1f} | {r['scipy_ms']:.1f} "
              f"| {r['scipy_ms'] / r['seq_ms']:.2f} | {r['paired']:.2f} |", flush=True)
        del graph
        gc.collect()
        print(f"<!-- {name}: built in {built:.1f} s -->", flush=True)


if __name__ == "__main__":
    main()
