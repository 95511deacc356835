"""Bottom-up probes per level with do.bfs's in-lists as stored and hubs first (knob
in_order), counted on the host. For each do.* sample of the results files that kept
per-level counters (knobs counters or profile, in_order stored), its graph is loaded
(generated or read as a run would), the BFS from its source computed, and every level
the sample took bottom-up is counted again: each vertex not yet reached scans its
in-list until its first neighbour one level up, probes counted up to and with that hit
(the whole list without one), as the counting build does. The stored order must give
the sample's own edges_examined exactly (a mismatch is printed and exits 1); the
hubs-first order (graph/list_order.hubs_first) gives what in_order: degree will examine
on the same levels, since the direction rule reads no probe counts.

    python scripts/probe_order.py RESULTS.json... [--data-dir DIR] [--only GRAPH ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs  # noqa: E402
from gpubfs_cli.bench.results import load_results  # noqa: E402
from gpubfs_cli.datasets.prepare import ensure_dataset  # noqa: E402
from gpubfs_cli.errors import UserError  # noqa: E402
from gpubfs_cli.graph.build import reverse_csr  # noqa: E402
from gpubfs_cli.graph.list_order import hubs_first  # noqa: E402


@numba.njit(parallel=True)
def level_probes(offsets, cols, dist, level):
    """Probes of a bottom-up step at `level`: every vertex unreached before it scans its
    list until the first neighbour labelled `level`, that probe included."""
    total = 0
    for v in numba.prange(len(offsets) - 1):
        if 0 <= dist[v] <= level:
            continue
        s, e = offsets[v], offsets[v + 1]
        k = s
        while k < e and dist[cols[k]] != level:
            k += 1
        total += (k - s) + (1 if k < e else 0)
    return total


def in_lists(graph):
    """The in-edges as CSR, each list in source order (DeviceGraph.with_in_edges' order);
    an undirected graph's own CSR."""
    t = reverse_csr(graph)
    return t.row_offsets, t.col_indices


def counted_samples(paths, only):
    """(dataset, source, directions, edges_examined) of each do.* sample with per-level
    counters on the stored in-lists, once per dataset and source."""
    seen = {}
    for path in paths:
        for s in load_results(path).get("samples", []):
            c = s.get("counters") or {}
            if (not s["strategy"].startswith("do.") or "edges_examined" not in c or s.get("status") != "ok"
                    or (s.get("knobs") or {}).get("in_order", "stored") != "stored"
                    or (only and s["dataset"] not in only)):
                continue
            seen.setdefault((s["dataset"], int(s["source"])), (list(c["direction"]), list(c["edges_examined"])))
    return [(d, src, *v) for (d, src), v in seen.items()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results files with do.bfs's per-level counters")
    ap.add_argument("--data-dir", default=None, help="the dataset cache (default: gpubfs's)")
    ap.add_argument("--only", nargs="*", default=None, help="these graphs only")
    args = ap.parse_args(argv)
    try:
        todo = counted_samples(args.results, set(args.only or ()))
        if not todo:
            raise UserError("no do.* sample with per-level counters (knob counters or profile) in the files")
        mismatches = 0
        print(f"{'graph':<24} {'source':>9} {'level':>5} {'counted on GPU':>15} {'stored':>13} "
              f"{'hubs first':>13} {'ratio':>6}")
        graphs = {}
        for dataset, source, directions, examined in sorted(todo):
            if dataset not in graphs:
                graphs.clear()  # one graph in memory at a time
                g = ensure_dataset(dataset, args.data_dir, progress=False)
                offsets, cols = in_lists(g)
                graphs[dataset] = (g, offsets, cols, hubs_first(np, offsets, cols, g.out_degrees()))
            g, offsets, cols, hubs = graphs[dataset]
            dist = sequential_bfs(g, source).distances
            for level, bottom_up in enumerate(directions):
                if not bottom_up:
                    continue
                stored, ordered = level_probes(offsets, cols, dist, level), level_probes(offsets, hubs, dist, level)
                ok = stored == examined[level]
                mismatches += not ok
                print(f"{dataset:<24} {source:>9} {level:>5} {examined[level]:>15,} {stored:>13,} {ordered:>13,} "
                      f"{ordered / max(stored, 1):>6.3f}" + ("" if ok else "  MISMATCH"))
        return 1 if mismatches else 0
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
