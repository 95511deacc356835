"""Per-level table of msbfs.bfs passes from a results file (run with `counters: true` or
`profile: true`): for each msbfs.bfs sample that kept the per-level series (the run's
first source of each turn; the series are its batch's pass), one line per level with its
direction, frontier, microseconds (profile only), vertices and edges examined, labels,
and the bytes the level must move at least, with the time those bytes take at the
bandwidth given:

    bytes = edges_examined * (4 + 8 * words) + labels * 4

(a 4-byte column id and a frontier set of `words` 8-byte words read for each edge
examined: 1, 2 or 4 for the sample's width; a 4-byte distance written for each label;
seen, queue and parent traffic left out, so a floor).
Then the set-up (the kernel's start to level 0: clearing k rows of distances) and the
time and floor per direction.

    python scripts/device/msbfs_profile.py [--tbps 3.0] results/msbfs-knobs-*.json
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from gpubfs_cli.algorithms.bfs.gpu.msbfs.strategies import level_rows, setup_us, words_for
from gpubfs_cli.results.schema import load_results


def floor_us(nbytes: int, tbps: float) -> float:
    """Microseconds `nbytes` take at `tbps` terabytes a second."""
    return nbytes / (tbps * 1e6)


def show(path: str, sample: dict, tbps: float) -> None:
    c = sample["counters"]
    batch = sample.get("batch") or c.get("batch") or 1
    words = words_for(int((sample.get("knobs") or {}).get("width") or batch))  # the build the width picked
    rows = level_rows(c, words)
    call = "" if sample.get("time_ms") is None else f", {sample['time_ms'] * batch:.3f} ms a call"
    print(f"\n{path}: {sample['dataset']} {sample['strategy']} {sample.get('knobs')} source {sample['source']} "
          f"(a batch of {batch}{call}, levels {c['pass_levels']}, bottom-up {c['bottom_up_levels']}, "
          f"sets of {words} word{'s' if words > 1 else ''})")
    print(f"{'level':>5} {'dir':>9} {'frontier':>9} {'us':>9} {'vertices':>10} {'edges':>12} {'labels':>11} "
          f"{'MB':>9} {'floor us':>9}")
    spent: dict[str, float] = defaultdict(float)
    floor: dict[str, float] = defaultdict(float)
    for r in rows:
        least = floor_us(r["bytes"], tbps)
        floor[r["direction"]] += least
        us = "-" if r["us"] is None else f"{r['us']:.1f}"
        if r["us"] is not None:
            spent[r["direction"]] += r["us"]
        print(f"{r['level']:>5} {r['direction']:>9} {r['frontier']:>9} {us:>9} {r['vertices_examined']:>10} "
              f"{r['edges_examined']:>12} {r['labels']:>11} {r['bytes'] / 1e6:>9.2f} {least:>9.1f}")
    setup = setup_us(c)
    if setup is not None:
        print(f"  set-up: {setup:.1f} us")
    for d in sorted(floor):
        took = f"{spent[d]:.1f} us, " if setup is not None else ""
        print(f"  {d}: {took}floor {floor[d]:.1f} us at {tbps:g} TB/s")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tbps", type=float, default=3.0, help="bandwidth of the floor, TB/s (default 3)")
    parser.add_argument("paths", nargs="+", metavar="RESULTS.json")
    args = parser.parse_args(argv)
    if args.tbps <= 0:
        parser.error("--tbps must be above 0")
    shown = 0
    for path in args.paths:
        doc = load_results(path)  # *.json or *.json.gz
        for s in doc.get("samples", []):
            if s["strategy"] == "msbfs.bfs" and "labels" in (s.get("counters") or {}):
                shown += 1
                show(path, s, args.tbps)
    if not shown:
        print("no msbfs.bfs sample with per-level counters in these files", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
