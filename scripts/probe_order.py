"""Bottom-up probes per level with do.bfs's in-lists as stored and hubs first (knob
in_order), counted on the host. For each do.* sample of the results files that kept
per-level counters (knobs counters or profile, in_order stored), its graph is loaded
(generated or read as a run would), the BFS from its source computed, and every level
the sample took bottom-up is counted again: each vertex not yet reached scans its
in-list until its first neighbour one level up, probes counted up to and with that hit
(the whole list without one), as the counting build does. The stored order must give
the sample's own edges_examined exactly (a mismatch is printed and exits 1); the
hubs-first order (graph/list_order.hubs_first) gives what in_order: degree will examine
on the same levels, since the direction rule reads no probe counts, and must equal an
in_order: degree sample's own count from the same source where the files hold one.

Beside the probes, each order's warp steps: a warp takes 32 consecutive vertices and a
lane probes its first in-edge alone, then probe_batch at a time (bottom_up.cuh), so a
warp's level costs as many dependent steps as its longest-searching lane takes. Time
that falls less than the steps do is time each step takes longer.

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
from gpubfs_cli.datasets.prepare import ensure_dataset  # noqa: E402
from gpubfs_cli.errors import UserError, exit_status  # noqa: E402
from gpubfs_cli.graph.build import reverse_csr  # noqa: E402
from gpubfs_cli.graph.list_order import hubs_first  # noqa: E402
from gpubfs_cli.results.schema import load_results  # noqa: E402


@numba.njit(parallel=True)
def level_probes(offsets, cols, dist, level, batch=4):
    """(probes, warp steps) of a bottom-up step at `level`: every vertex unreached before
    it scans its list until the first neighbour labelled `level`, that probe included; a
    warp's steps are its lanes' most (1 for the first probe, then 1 a batch)."""
    n = len(offsets) - 1
    total = 0
    steps = 0
    for w in numba.prange((n + 31) // 32):
        most = 0
        t = 0
        for v in range(32 * w, min(32 * w + 32, n)):
            if 0 <= dist[v] <= level:
                continue
            s, e = offsets[v], offsets[v + 1]
            k = s
            while k < e and dist[cols[k]] != level:
                k += 1
            p = (k - s) + (1 if k < e else 0)
            t += p
            if p > 0:
                most = max(most, 1 + (p - 1 + batch - 1) // batch)
        total += t
        steps += most
    return total, steps


def in_lists(graph):
    """The in-edges as CSR, each list in source order (DeviceGraph.with_in_edges' order);
    an undirected graph's own CSR."""
    t = reverse_csr(graph)
    return t.row_offsets, t.col_indices


def counted_samples(paths, only):
    """(dataset, source, directions, probe_batch, edges_examined as stored, as hubs first
    or None) of each do.* sample with per-level counters on the stored in-lists, once per
    dataset and source; the hubs-first counts from an in_order: degree sample of the same
    graph, source and probe batch."""
    stored, hubs = {}, {}
    for path in paths:
        for s in load_results(path).get("samples", []):
            c, knobs = s.get("counters") or {}, s.get("knobs") or {}
            if (not s["strategy"].startswith("do.") or "edges_examined" not in c or s.get("status") != "ok"
                    or (only and s["dataset"] not in only)):
                continue
            key = (s["dataset"], int(s["source"]), int(knobs.get("probe_batch", 4)))
            order = stored if knobs.get("in_order", "stored") == "stored" else hubs
            order.setdefault(key, (list(c["direction"]), list(c["edges_examined"])))
    return [(d, src, directions, batch, examined, hubs.get((d, src, batch), (None, None))[1])
            for (d, src, batch), (directions, examined) in stored.items()]


def probes(args) -> int:
    """The table, one line a bottom-up level of each counted sample; 1 if a count differs
    from the host's."""
    todo = counted_samples(args.results, set(args.only or ()))
    if not todo:
        raise UserError("no do.* sample with per-level counters (knob counters or profile) in the files")
    mismatches = 0
    print(f"{'graph':<24} {'source':>9} {'level':>5} {'stored: GPU':>13} {'host':>13} "
          f"{'hubs first: GPU':>16} {'host':>13} {'ratio':>6} {'warp steps: stored':>19} "
          f"{'hubs first':>11} {'ratio':>6}")
    graphs = {}
    for dataset, source, directions, batch, examined, examined_hubs in sorted(todo, key=lambda t: t[:2]):
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
            stored, stored_steps = level_probes(offsets, cols, dist, level, batch)
            ordered, ordered_steps = level_probes(offsets, hubs, dist, level, batch)
            gpu_hubs = None if examined_hubs is None else examined_hubs[level]
            ok = stored == examined[level] and gpu_hubs in (None, ordered)
            mismatches += not ok
            shown = "-" if gpu_hubs is None else f"{gpu_hubs:,}"
            print(f"{dataset:<24} {source:>9} {level:>5} {examined[level]:>13,} {stored:>13,} {shown:>16} "
                  f"{ordered:>13,} {ordered / max(stored, 1):>6.3f} {stored_steps:>19,} {ordered_steps:>11,} "
                  f"{ordered_steps / max(stored_steps, 1):>6.3f}" + ("" if ok else "  MISMATCH"))
    return 1 if mismatches else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results files with do.bfs's per-level counters")
    ap.add_argument("--data-dir", default=None, help="the dataset cache (default: gpubfs's)")
    ap.add_argument("--only", nargs="*", default=None, help="these graphs only")
    args = ap.parse_args(argv)
    return exit_status(lambda: probes(args))


if __name__ == "__main__":
    sys.exit(main())
