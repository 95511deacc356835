"""sssp.near_far's rounds replayed on the host: how many light rounds and relaxations a
bucket width costs, beside what the GPU counted. For each sssp.near_far sample of the
results files, its graph is loaded with its weights as a run loads them, and near-far is
run round by round from the sample's source: a round relaxes every edge of its frontier
from the distances at its start; a vertex whose distance falls below the bucket's end
joins the next round (once), one beyond it the far pile; an empty frontier moves the
bucket to the far pile's smallest live distance (the empty buckets between skipped), as
delta.cu does. The GPU's rounds read distances other threads lowered earlier in the same
round, so its counts are close to the replay's, not equal. Every replay's distances are
checked against cpu.dijkstra's.

One line per sample (a source once per graph and width): its time and width, the BFS
depth from its source (the rounds' floor: a vertex k hops out is reached in round k at
the earliest), the replay's buckets, rounds and relaxations, and the GPU's counted ones.
`--scales` replays other widths in the sample's place, each that many times the mean edge
weight (the knob delta_scale), beside the sample's own.
    python scripts/sssp_rounds.py RESULTS.json... [--data-dir DIR] [--only GRAPH ...]
        [--scales 1 4 16 ...]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs  # noqa: E402
from gpubfs_cli.algorithms.bfs.gpu.merrill.multi.exchange import gather_rows  # noqa: E402
from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra  # noqa: E402
from gpubfs_cli.algorithms.sssp.gpu.delta.strategies import default_delta  # noqa: E402
from gpubfs_cli.algorithms.sssp.inputs import integer_weights  # noqa: E402
from gpubfs_cli.datasets.prepare import ensure_dataset  # noqa: E402
from gpubfs_cli.datasets.weights import ensure_weights  # noqa: E402
from gpubfs_cli.errors import UserError, exit_status  # noqa: E402
from gpubfs_cli.results.schema import load_results  # noqa: E402

UNREACHED = np.iinfo(np.int64).max


@dataclass(frozen=True)
class Rounds:
    buckets: int
    rounds: int  # light rounds with a frontier (the kernel's light_rounds)
    relaxations: int
    distances: np.ndarray  # -1 where unreached


def near_far(graph, weights: np.ndarray, source: int, delta: int) -> Rounds:
    """near-far from `source` with bucket width `delta`, a round at a time (the module text)."""
    row = np.asarray(graph.row_offsets, dtype=np.int64)
    col = np.asarray(graph.col_indices)
    w = np.asarray(weights, dtype=np.int64)
    dist = np.full(graph.n, UNREACHED, dtype=np.int64)
    dist[source] = 0
    frontier = np.array([source], dtype=np.int64)
    far = np.empty(0, dtype=np.int64)
    hi, buckets, rounds, relaxations = delta, 1, 0, 0
    while True:
        while len(frontier):
            rounds += 1
            seg, idx = gather_rows(np, row, frontier)
            relaxations += len(idx)
            v = col[idx].astype(np.int64)
            nd = dist[frontier][seg] + w[idx]  # the distances at the round's start
            touched = np.unique(v)
            before = dist[touched]
            np.minimum.at(dist, v, nd)
            lowered = touched[dist[touched] < before]
            near = dist[lowered] < hi
            frontier, far = lowered[near], np.concatenate([far, lowered[~near]])
        live = np.unique(far)
        live = live[dist[live] >= hi]  # the rest were settled inside a bucket
        if not len(live):
            break
        hi = int(dist[live].min()) // delta * delta + delta
        near = dist[live] < hi
        frontier, far = live[near], live[~near]
        buckets += 1
    return Rounds(buckets, rounds, relaxations, np.where(dist == UNREACHED, -1, dist))


def near_far_samples(paths, only):
    """Each sssp.near_far sample that ran (status ok), in file order."""
    for path in paths:
        for s in load_results(path).get("samples", []):
            if (s["strategy"] == "sssp.near_far" and s.get("status") == "ok"
                    and (not only or s["dataset"] in only)):
                yield s


def weighted(name: str, data_dir: str | None):
    """The graph and its integer weights, as a run of an SSSP config loads them."""
    graph = ensure_dataset(name, data_dir, progress=False)
    if graph.weights is None:
        graph = ensure_weights(graph, data_dir)
    return graph, integer_weights(graph)


def table(args) -> None:
    todo = sorted(near_far_samples(args.results, set(args.only or ())), key=lambda s: s["dataset"])
    if not todo:
        raise UserError("no sssp.near_far sample that ran in the files")
    print(f"{'graph':<24} {'source':>9} {'ms':>8} {'width':>9} {'scale':>6} {'depth':>6} {'buckets':>8} "
          f"{'rounds':>7} {'relaxations':>12}   {'counted: buckets':>16} {'rounds':>7} {'relaxations':>12}")
    name, done = None, set()
    for s in todo:
        if s["dataset"] != name:  # one graph in memory at a time (todo is sorted by graph)
            name = s["dataset"]
            graph, w = weighted(name, args.data_dir)
        source, counters = int(s["source"]), s.get("counters") or {}
        own = int(counters.get("delta") or default_delta(graph))
        widths = [(own, None)] + [(default_delta(graph, x), x) for x in args.scales]
        ref = dijkstra(graph, source).distances
        depth = int(sequential_bfs(graph, source).distances.max())
        for delta, scale in widths:
            if (name, source, delta) in done:
                continue
            done.add((name, source, delta))
            got = near_far(graph, w, source, delta)
            if not np.array_equal(got.distances, ref):
                raise UserError(f"{name}: the replay from {source} at width {delta} differs from cpu.dijkstra")
            counted = ("", "", "") if scale is not None else tuple(
                f"{int(counters[k]):,}" if k in counters else "-" for k in ("buckets", "light_rounds", "relaxations"))
            print(f"{name:<24} {source:>9} {s['time_ms']:>8.3f} {delta:>9,} {'' if scale is None else f'{scale:g}':>6} "
                  f"{depth:>6,} {got.buckets:>8,} {got.rounds:>7,} {got.relaxations:>12,}   "
                  f"{counted[0]:>16} {counted[1]:>7} {counted[2]:>12}")


def results_parser(doc: str, what: str) -> argparse.ArgumentParser:
    """The arguments of a script that reads SSSP samples (`what`) from results files and
    loads their graphs: the files, --data-dir and --only."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("results", nargs="+", help=f"results files with {what}")
    ap.add_argument("--data-dir", default=None, help="the dataset cache (default: gpubfs's)")
    ap.add_argument("--only", nargs="*", default=None, help="these graphs only")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = results_parser(__doc__, "sssp.near_far samples")
    ap.add_argument("--scales", nargs="*", type=float, default=[], metavar="X",
                    help="also replay widths of X times the mean edge weight")
    args = ap.parse_args(argv)

    def run() -> None:
        if any(x <= 0 for x in args.scales):
            raise UserError("--scales: each must be above 0")
        table(args)

    return exit_status(run)


if __name__ == "__main__":
    sys.exit(main())
