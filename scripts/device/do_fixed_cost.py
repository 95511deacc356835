"""do.bfs's fixed cost per traversal on the device: a uniform random graph of 2^21
vertices (about 26 edges each, as uniform-n21-e26) plus one 2-vertex component; the
median of 200 timed traversals (runner's timer: CUDA events) from a vertex of that
component, and, for scale, from vertex 0. Target: <= 30 us from the small component.

    python scripts/device/do_fixed_cost.py
Prints one line per strategy variant: `NAME: 2-vertex component MEDIAN us, vertex 0 MEDIAN us`.
"""

from __future__ import annotations

import numpy as np

from gpubfs_cli.bench.timing import timed_traverse
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.edges import EdgeList


def graph(n: int = 1 << 21, m: int = 13 << 21, seed: int = 0):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n - 2, m)
    dst = rng.integers(0, n - 2, m)
    src = np.concatenate([src, [n - 2]])  # the 2-vertex component {n-2, n-1}
    dst = np.concatenate([dst, [n - 1]])
    return build_csr(EdgeList(src, dst, n, directed=False))


def median_us(strategy, source: int, reps: int = 200) -> float:
    for _ in range(3):
        timed_traverse(strategy, source)
    return float(np.median([timed_traverse(strategy, source)[0] for _ in range(reps)])) * 1e3


def main() -> None:
    g = graph()
    for name, knobs in (("do.bfs", {}), ("do.top_down", {})):
        cls = all_strategies()[name]
        strategy = cls(make_knobs(cls, knobs))
        strategy.upload(g)
        strategy.prepare(g)
        print(f"{name}: 2-vertex component {median_us(strategy, g.n - 1):.1f} us, "
              f"vertex 0 {median_us(strategy, 0, 50):.1f} us")
        strategy.release()


if __name__ == "__main__":
    main()
