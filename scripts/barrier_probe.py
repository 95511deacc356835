"""The floor of one level in do.bfs's mid-frontier mode, on the GPU: a loop
of barriers among a team of CTAs (scripts/barrier_probe.cu), per barrier in
microseconds, from the difference of two launches (N and 0 iterations, CUDA events,
median of 5). Rows: the barrier (team_sync as shipped, with a release add and acquire
polls; the same with full fences, its first form; the cooperative grid barrier), the team's size, and what each iteration adds to the
chain (nothing, one dependent L2 load, one returned atomic). On an H100 (2026-11-24,
docs/results/h100-2026-11-24/barrier-probe.log), 132 CTAs: team_sync with fences 1.462 us,
release/acquire 1.130, grid.sync 1.194; 528 CTAs 2.596 / 2.003 / 1.724.

    python3 scripts/barrier_probe.py [--iters 4000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BARRIERS = {0: "team_sync (release/acquire)", 1: "fences, relaxed add", 2: "grid.sync (all CTAs)"}
EXTRAS = {0: "barrier alone", 1: "+ 1 dependent L2 load", 2: "+ 1 returned atomic"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=4000)
    ap.add_argument("--block", type=int, default=256)
    args = ap.parse_args()
    import cupy as cp

    from gpubfs_cli.gpu.launch import sm_count
    from gpubfs_cli.gpu.modules import load_module

    kern = load_module(ROOT / "scripts" / "barrier_probe.cu", cooperative=True).get_function("barrier_loop")
    sms = sm_count()
    count = cp.zeros(1, dtype=cp.uint64)
    word = cp.zeros(8, dtype=cp.uint64)
    start, stop = cp.cuda.Event(), cp.cuda.Event()

    def launch_us(grid: int, iters: int, team: int, mode: int, extra: int) -> float:
        count.fill(0)
        start.record()
        kern((grid,), (args.block,), (count, word, cp.int32(iters), cp.int32(team), cp.int32(mode), cp.int32(extra)))
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop) * 1e3

    print(f"per barrier, us (CTAs of {args.block} threads, {sms} SMs, {args.iters} iterations)")
    print(f"{'barrier':28s} {'CTAs':>5s} " + " ".join(f"{v:>22s}" for v in EXTRAS.values()))
    grid = 4 * sms
    for mode, label in BARRIERS.items():
        teams = (sms, grid) if mode == 2 else (1, 16, 32, 66, sms, 2 * sms, grid)
        for team in teams:
            row = []
            for extra in EXTRAS:
                g = team if mode == 2 else grid
                launch_us(g, 10, team, mode, extra)  # warm
                d = [launch_us(g, args.iters, team, mode, extra) - launch_us(g, 0, team, mode, extra)
                     for _ in range(5)]
                row.append(statistics.median(d) / args.iters)
            print(f"{label:28s} {team:5d} " + " ".join(f"{x:22.3f}" for x in row))


if __name__ == "__main__":
    main()
