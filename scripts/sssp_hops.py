"""The chain an SSSP search cannot shorten, and each strategy's time along it. For each SSSP
group of the results files (a graph, a strategy and its knobs), each source's hop floor: the
fewest hops of a shortest path, taken over the vertices at their largest (a breadth-first
search from the source over the tight edges, d[u] + w = d[v], of cpu.dijkstra's distances).
A search that settles a hop a dependent step (a round of sssp.near_far, a local step or a
hand-over of sssp.regions) takes at least that many steps one after another, so a time that
follows the floor source by source at a steady cost a hop is bounded by that chain, not by
the work beside it.

One line per group: its sources, the median ms and hop floor over them, the time per hop
(median, least and most over the sources) and the correlation of time with the floor across
the sources (Pearson; "-" under three sources or where either side is constant).
    python scripts/sssp_hops.py RESULTS.json... [--data-dir DIR] [--only GRAPH ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sssp_rounds import results_parser, weighted  # noqa: E402

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs  # noqa: E402
from gpubfs_cli.algorithms.sssp.cpu.dijkstra import dijkstra  # noqa: E402
from gpubfs_cli.core.knobs import knobs_key  # noqa: E402
from gpubfs_cli.errors import UserError, exit_status  # noqa: E402
from gpubfs_cli.graph import EdgeList, build_csr  # noqa: E402
from gpubfs_cli.results.groups import group_samples  # noqa: E402
from gpubfs_cli.results.schema import doc_samples, load_results  # noqa: E402


def hop_floor(graph, weights: np.ndarray, source: int) -> int:
    """The most hops any reached vertex's fewest-hop shortest path from `source` takes."""
    dist = np.asarray(dijkstra(graph, source).distances, dtype=np.int64)
    row = np.asarray(graph.row_offsets, dtype=np.int64)
    col = np.asarray(graph.col_indices, dtype=np.int64)
    tail = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(row))
    tight = (dist[tail] >= 0) & (dist[tail] + np.asarray(weights, dtype=np.int64) == dist[col])
    dag = build_csr(EdgeList(tail[tight], col[tight], graph.n, directed=True), name=f"{graph.name}-tight")
    return int(sequential_bfs(dag, source).distances.max())


def correlation(x: list[float], y: list[float]) -> str:
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return "-"
    return f"{np.corrcoef(x, y)[0, 1]:.2f}"


def sssp_groups(paths, only):
    """(group, its variant's name in its file) for each SSSP group that ran, graph by graph."""
    out = []
    for path in paths:
        doc = load_results(path)
        names = {(s["dataset"], s["strategy"], knobs_key(s.get("knobs") or {})): s.get("variant") or s["strategy"]
                 for s in doc.get("summaries") or []}
        samples = [s for s in doc_samples(doc) if s.problem == "sssp" and (not only or s.dataset in only)]
        for g in group_samples(samples):
            if g.status == "ok":  # an ok group has its sources' times
                out.append((g, names.get((g.dataset, g.strategy, knobs_key(g.knobs)), g.strategy)))
    return sorted(out, key=lambda gn: gn[0].dataset)


def table(args) -> None:
    todo = sssp_groups(args.results, set(args.only or ()))
    if not todo:
        raise UserError("no SSSP sample that ran in the files")
    print(f"{'graph':<20} {'variant':<52} {'sources':>7} {'ms':>8} {'hops':>6} "
          f"{'us/hop':>7} {'least':>7} {'most':>7} {'corr':>5}")
    name, floors = None, {}
    for g, variant in todo:
        if g.dataset != name:  # one graph in memory at a time (todo is sorted by graph)
            name, floors = g.dataset, {}
            graph, w = weighted(name, args.data_dir)
        sources = sorted(g.times)
        for s in sources:
            if s not in floors:
                floors[s] = hop_floor(graph, w, s)
        ms = [g.times[s] for s in sources]
        hops = [floors[s] for s in sources]
        per_hop = [1000.0 * t / h for t, h in zip(ms, hops, strict=True) if h > 0]
        cost = (f"{np.median(per_hop):>7.3f} {min(per_hop):>7.3f} {max(per_hop):>7.3f}" if per_hop
                else f"{'-':>7} {'-':>7} {'-':>7}")
        print(f"{name:<20} {variant[:52]:<52} {len(sources):>7} {np.median(ms):>8.3f} {np.median(hops):>6g} "
              f"{cost} {correlation(ms, hops):>5}")


def main(argv: list[str] | None = None) -> int:
    args = results_parser(__doc__, "SSSP samples").parse_args(argv)
    return exit_status(lambda: table(args))


if __name__ == "__main__":
    sys.exit(main())
