"""Time the dataset cache on a synthetic CSR graph: write, memory-mapped load, export.

    python scripts/bench_datasets.py [--edges 100000000] [--vertices 4000000] [--dir /tmp/x]

Random CSR arrays (no parsing, no CSR build) so only the cache and export layers are
timed. Needs about 1.2 GB of memory per 100M edges and 3.5 GB of disk for the exports.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from gpubfs_cli.datasets import store
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.io.export import export_graph


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edges", type=int, default=100_000_000)
    ap.add_argument("--vertices", type=int, default=4_000_000)
    ap.add_argument("--dir", type=Path, default=None)
    args = ap.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="gpubfs-bench-"))
    n, m = args.vertices, args.edges
    rng = np.random.default_rng(1)
    ro = np.zeros(n + 1, np.int64)
    np.cumsum(rng.multinomial(m, np.full(n, 1 / n)), out=ro[1:])
    graph = CSRGraph(ro, rng.integers(0, n, m, dtype=np.int32), directed=True, name="bench")
    try:
        t = time.perf_counter()
        store.write_graph("bench", graph, {"kind": "user"}, root)
        print(f"write_graph      {time.perf_counter() - t:7.2f} s  ({m:,} edges)")
        del graph
        t = time.perf_counter()
        g = store.load_graph("bench", root)
        print(f"load_graph       {time.perf_counter() - t:7.3f} s  (memory-mapped)")
        t = time.perf_counter()
        np.asarray(g.col_indices).sum(dtype=np.int64)
        print(f"first full read  {time.perf_counter() - t:7.2f} s")
        # Warm the numba formatter so its compile time is not counted.
        export_graph(CSRGraph(np.array([0, 1]), np.array([0], np.int32), True), root / "warm.el", "el")
        for fmt in ("el", "mtx"):
            out = root / f"bench.{fmt}"
            t = time.perf_counter()
            export_graph(g, out, fmt)
            dt = time.perf_counter() - t
            print(f"export {fmt:<4}      {dt:7.2f} s  ({out.stat().st_size / 1e9:.2f} GB, {m / dt / 1e6:.1f} M edges/s)")
            out.unlink()
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
