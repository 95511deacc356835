"""msbfs.bfs's passes replayed on the host under other switch thresholds: which levels of
each pass go bottom-up at each alpha. For each graph of the results files, the passes of
its first msbfs.bfs variant in the order it ran them (consecutive runs of its batch size),
each pass's BFS distances computed on the CPU, and msbfs.bfs's direction rule replayed on
their counts (gpubfs_cli/algorithms/bfs/gpu/msbfs/replay.py; beta from the samples).

One line a pass: its time, then its directions at each alpha (T/B a level); `same` where
every alpha gives the same directions, so the pass does the same work at each. The last
line per graph counts the passes whose directions differ.
    python scripts/msbfs_directions.py RESULTS.json... --alpha 4 8 [--only GRAPH ...] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpubfs_cli.algorithms.bfs.gpu.msbfs import replay  # noqa: E402
from gpubfs_cli.core.problem import get_problem  # noqa: E402
from gpubfs_cli.core.solve import solve_each  # noqa: E402
from gpubfs_cli.datasets.prepare import ensure_dataset  # noqa: E402
from gpubfs_cli.errors import UserError, exit_status  # noqa: E402
from gpubfs_cli.results.schema import load_results  # noqa: E402


def passes(paths, only) -> dict[str, tuple[dict, int, list[list[int]], list[float]]]:
    """Per graph: the knobs of its first msbfs.bfs variant, its pass size, that variant's
    whole passes (sources in run order) and each one's time in ms (a sample's time is its
    pass's over its size)."""
    found: dict[str, tuple[dict, list[dict]]] = {}
    for path in paths:
        for s in load_results(path).get("samples", []):
            if s["strategy"] != "msbfs.bfs" or s.get("status") != "ok" or (only and s["dataset"] not in only):
                continue
            knobs, rows = found.setdefault(s["dataset"], (s["knobs"], []))
            if s["knobs"] == knobs:
                rows.append(s)
    out = {}
    for name, (knobs, rows) in found.items():
        size = int(rows[0].get("batch") or knobs["width"])
        whole = [rows[i:i + size] for i in range(0, len(rows) - size + 1, size)]
        out[name] = (knobs, size, [[int(r["source"]) for r in p] for p in whole],
                     [p[0]["time_ms"] * size for p in whole])
    return out


def table(args) -> None:
    """Print a line a pass, and a line a graph with how many passes' directions differ."""
    todo = passes(args.results, set(args.only or ()))
    if not todo:
        raise UserError("no msbfs.bfs sample that ran in the files")
    for name in sorted(todo):
        knobs, size, batches, times = todo[name]
        g = ensure_dataset(name, args.data_dir, progress=False)
        out_deg, in_deg = g.out_degrees(), np.bincount(g.col_indices, minlength=g.n)
        print(f"{name}: {len(batches)} passes of {size}, beta {knobs['beta']}")
        print(f"  {'pass':>4} {'first source':>12} {'ms':>8}  " + "  ".join(f"alpha {a:<10g}" for a in args.alpha))
        differ = 0
        for i, (batch, ms) in enumerate(zip(batches, times, strict=True)):
            dist = np.stack(list(solve_each(get_problem("bfs"), g, batch))).astype(np.int32)
            counts = replay.pass_counts(dist, out_deg, in_deg, int(g.m))
            dirs = ["".join("B" if b else "T" for b in replay.directions(*counts, g.n, a, knobs["beta"]))
                    for a in args.alpha]
            same = len(set(dirs)) == 1
            differ += not same
            print(f"  {i:>4} {batch[0]:>12} {ms:>8.3f}  " + "  ".join(f"{d:<16}" for d in dirs)
                  + ("  same" if same else ""))
        print(f"  {name}: {differ} of {len(batches)} passes take other directions")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results files with msbfs.bfs samples")
    ap.add_argument("--alpha", nargs="+", type=float, required=True, help="the switch thresholds to replay")
    ap.add_argument("--only", nargs="*", default=None, help="these graphs only")
    ap.add_argument("--data-dir", default=None, help="the dataset cache (default: gpubfs's)")
    args = ap.parse_args(argv)

    def run() -> None:
        if any(a < 0 for a in args.alpha):
            raise UserError("--alpha: a threshold is 0 or more")
        table(args)

    return exit_status(run)


if __name__ == "__main__":
    sys.exit(main())
