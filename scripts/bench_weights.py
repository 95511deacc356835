"""Time the weight rule on a cached graph, this checkout's against a git revision's.

    .venv/bin/python scripts/bench_weights.py NAME --against REV [--dir DIR] [--rounds 3]

Loads graph NAME from the dataset cache (DIR, else the default), then takes turns: REV's
rule_weights (gpubfs_cli/graph/weights.py as committed there, loaded beside this one), then
this checkout's, each on the Graph 500 kernel 3's range [0, 2^24 - 1]. Checks the two
arrays equal and prints each round's seconds and their ratio. The first call of each is
untimed (numba compiles).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _module_at(rev: str, path: str, name: str):
    text = subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout
    file = Path(tempfile.mkdtemp()) / f"{name}.py"
    file.write_text(text)
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name")
    ap.add_argument("--against", required=True, help="git revision whose rule_weights to time beside")
    ap.add_argument("--dir", default=None, help="dataset cache folder")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    import numpy as np

    from gpubfs_cli.datasets.store import load_graph
    from gpubfs_cli.graph import weights

    old = _module_at(args.against, "gpubfs_cli/graph/weights.py", "weights_at_rev")
    graph = load_graph(args.name, args.dir)
    print(f"{args.name}: n {graph.n:,}, m {graph.m:,}; {args.against} against this checkout")
    rules = [m.WeightRule(0, 2**24 - 1, 1) for m in (old, weights)]
    for m, rule in zip((old, weights), rules, strict=True):
        m.rule_weights(graph, rule)
    for r in range(args.rounds):
        times, made = [], []
        for m, rule in zip((old, weights), rules, strict=True):
            start = time.perf_counter()
            made.append(m.rule_weights(graph, rule))
            times.append(time.perf_counter() - start)
        if not np.array_equal(*made):
            sys.exit(f"round {r}: the two revisions' weights differ")
        print(f"round {r}: {args.against} {times[0]:.3f} s, this checkout {times[1]:.3f} s, "
              f"ratio {times[0] / times[1]:.2f}")


if __name__ == "__main__":
    main()
