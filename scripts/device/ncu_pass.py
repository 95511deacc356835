"""One strategy's traversals from the same sources, twice, for Nsight Compute to profile
the second (warm) launch of a kernel: what bounds a persistent kernel, where the level
profiles (do_profile.py, msbfs_profile.py) give only time against a floor.

    ncu --clock-control none -k regex:msbfs_bfs --launch-skip 1 --launch-count 1 \\
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \\
        --section WarpStateStats python3 scripts/device/ncu_pass.py 'msbfs.bfs[width=256]' g500-s20-ef16

STRATEGY is NAME or NAME[KNOB=VALUE,...] as `gpubfs run -s` spells it, of `--problem`'s
strategies (bfs, or sssp: the graph then with its weights, NAME@weights=graph500 as a run
names them); the graph is generated, or read from the cache or $GPUBFS_MIRROR, as `gpubfs
run` would; a batch strategy answers its batch's width of sources (seed 0) in one call.
The answers are not checked: run the same variant under `gpubfs run` for that.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gpubfs_cli.errors import exit_status  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("strategy", help="NAME or NAME[KNOB=VALUE,...]")
    ap.add_argument("graph", help="a catalogue name")
    ap.add_argument("--calls", type=int, default=2, help="traversals (default 2: ncu skips the first)")
    ap.add_argument("--problem", default="bfs", choices=("bfs", "sssp"))
    a = ap.parse_args(argv)
    return exit_status(lambda: run(a.strategy, a.graph, a.calls, a.problem))


def run(text: str, name: str, calls: int, problem: str = "bfs") -> None:
    from gpubfs_cli.bench.config_cli import strategy_entry
    from gpubfs_cli.bench.inputs import default_weights
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.core.strategy import get_strategy, make_knobs
    from gpubfs_cli.datasets.prepare import ensure_dataset
    from gpubfs_cli.graph.sources import choose_sources

    entry = strategy_entry(text, None)
    sname, knobs = (entry, {}) if isinstance(entry, str) else (entry["name"], entry.get("knobs", {}))
    cls = get_strategy(sname, problem)
    graph = ensure_dataset(name, progress=False)
    if get_problem(problem).needs_weights:
        graph = default_weights(graph, None)
    strategy = cls(make_knobs(cls, knobs))
    strategy.upload(graph)
    strategy.prepare(graph)
    width = strategy.batch_size()
    sources = [int(s) for s in choose_sources(graph, count=width, seed=0).vertices]
    for _ in range(calls):
        if width > 1:
            answers = strategy.traverse_batch(sources)
        else:
            answers = [strategy.traverse(sources[0])]
        answers[0].to_host()
    print(f"{name}: n={graph.n} m={graph.m}; {text}: {calls} calls of {width} source(s), first {sources[0]}")
    strategy.release()


if __name__ == "__main__":
    sys.exit(main())
