"""do.bfs's levels replayed on the host, beside each sample's time: why one source takes
longer than another on the same graph. For each do.* sample of the results files, its
graph is loaded (generated or read as a run would) and the BFS from its source computed.
Per level: the frontier's vertices and out-edges (n_f, m_f), the in-edges of the vertices
not reached yet (m_u), and do.bfs's direction rule replayed with the sample's knobs
(do.cu: bottom-up when m_f * alpha > m_u and, with growth, the frontier grew; top-down
again when n_f * beta < n and, with growth, it shrank). The level's work in its direction:
m_f edges top-down; bottom-up, the in-list probes and warp steps of probe_order.py, in the
sample's in_order. A sample that kept per-level counters has its counted directions checked
against the replay: a difference is printed and exits 1.

One line per sample: time, depth, the directions (T/B a level), the edges top-down, the
probes and warp steps bottom-up, and the largest top-down level's m_f. `--knobs` replays
each sample with other knobs (e.g. alpha=14): the work do.bfs would do with them, beside
the time it took with its own (no counted check then).
    python scripts/level_shape.py RESULTS.json... [--data-dir DIR] [--only GRAPH ...] [--levels]
        [--counted]   (only the samples that kept counters: the replay's check)
        [--knobs KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "scripts"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from fixed_cost import parse_knobs  # noqa: E402
from probe_order import in_lists, level_probes  # noqa: E402

from gpubfs_cli.algorithms.bfs.cpu.sequential import sequential_bfs  # noqa: E402
from gpubfs_cli.algorithms.bfs.gpu.do.strategies import DoKnobs  # noqa: E402
from gpubfs_cli.algorithms.bfs.problem import per_level  # noqa: E402
from gpubfs_cli.datasets.prepare import ensure_dataset  # noqa: E402
from gpubfs_cli.errors import UserError, exit_status  # noqa: E402
from gpubfs_cli.graph.list_order import hubs_first  # noqa: E402
from gpubfs_cli.results.schema import load_results  # noqa: E402

MILLI = 1000  # the kernel reads alpha and beta in thousandths


def knobs_of(sample, extra=None) -> DoKnobs:
    """The sample's knobs as do.bfs took them (defaults for any it does not record), with
    `extra` in their place where given."""
    names = {f.name for f in dataclasses.fields(DoKnobs)}
    unknown = sorted(set(extra or ()) - names)
    if unknown:
        raise UserError(f"--knobs: do.bfs has no knob {', '.join(unknown)}")
    knobs = {k: v for k, v in (sample.get("knobs") or {}).items() if k in names}
    try:
        return DoKnobs(**{**knobs, **(extra or {})})
    except ValueError as exc:
        raise UserError(f"--knobs: {exc}") from None


def level_sizes(dist, out_deg, in_deg, m_in):
    """(n_f, m_f, m_u) per level: the frontier's vertices and out-edges, and the in-edges
    of the vertices not reached by the end of that level (the kernel's m_u at its rule)."""
    n_f, m_f, in_f = per_level(dist, out_deg, in_deg)
    return n_f, m_f, m_in - np.cumsum(in_f)


def replay(n_f, m_f, m_u, n, k: DoKnobs) -> list[int]:
    """do.bfs's direction per level (1 bottom-up), as do.cu decides it from the same counts."""
    if not k.bottom_up:
        return [0] * len(n_f)
    alpha, beta = round(float(k.alpha) * MILLI), round(float(k.beta) * MILLI)
    bu, prev, out = False, 0, []
    for nf, mf, mu in zip(n_f.tolist(), m_f.tolist(), m_u.tolist(), strict=True):
        if not bu and mf * alpha > mu * MILLI and (not k.growth or nf > prev):
            bu = True
        elif bu and nf * beta < n * MILLI and (not k.growth or nf < prev):
            bu = False
        prev = nf
        out.append(int(bu))
    return out


def do_samples(paths, only, counted):
    """Each do.* sample that ran (status ok), in file order; with `counted`, those alone that
    kept their per-level directions."""
    for path in paths:
        for s in load_results(path).get("samples", []):
            if (s["strategy"].startswith("do.") and s.get("status") == "ok" and (not only or s["dataset"] in only)
                    and (not counted or "direction" in (s.get("counters") or {}))):
                yield s


def table(args, extra) -> int:
    """Print the table (a line a sample, with --levels a line a level too); the count of
    samples whose counted directions differ from the replay."""
    todo = sorted(do_samples(args.results, set(args.only or ()), args.counted), key=lambda s: s["dataset"])
    if not todo:
        raise UserError("no do.* sample that ran" + (" with per-level counters" if args.counted else "")
                        + " in the files")
    mismatches = 0
    print(f"{'graph':<24} {'strategy':<11} {'source':>9} {'ms':>7} {'depth':>5} {'directions':<12} "
          f"{'top-down edges':>15} {'bottom-up probes':>17} {'warp steps':>11} {'largest TD m_f':>15}")
    name = None
    for s in todo:
        if s["dataset"] != name:  # one graph in memory at a time (todo is sorted by graph)
            name = s["dataset"]
            g = ensure_dataset(name, args.data_dir, progress=False)
            offsets, stored = in_lists(g)
            out_deg, in_deg = g.out_degrees(), np.diff(offsets)
            orders = {"stored": stored}  # in_order: degree (hubs first) built when a sample asks
            levels = {}  # source -> (dist, n_f, m_f, m_u): rounds and variants share a source
        k = knobs_of(s, extra)
        if k.in_order not in orders:
            orders[k.in_order] = hubs_first(np, offsets, stored, out_deg)
        cols = orders[k.in_order]
        source = int(s["source"])
        if source not in levels:
            dist = sequential_bfs(g, source).distances
            levels[source] = (dist, *level_sizes(dist, out_deg, in_deg, int(offsets[-1])))
        dist, n_f, m_f, m_u = levels[source]
        dirs = replay(n_f, m_f, m_u, g.n, k)
        counted = None if extra else (s.get("counters") or {}).get("direction")
        ok = counted is None or list(counted)[:len(dirs)] == dirs
        mismatches += not ok
        work = [level_probes(offsets, cols, dist, L, k.probe_batch) if bu else (int(m_f[L]), 0)
                for L, bu in enumerate(dirs)]
        td = [w for (w, _), bu in zip(work, dirs, strict=True) if not bu]
        bu_probes = sum(w for (w, _), bu in zip(work, dirs, strict=True) if bu)
        steps = sum(st for _, st in work)
        print(f"{name:<24} {s['strategy']:<11} {source:>9} {s['time_ms']:>7.3f} {len(dirs) - 1:>5} "
              f"{''.join('B' if b else 'T' for b in dirs):<12} {sum(td):>15,} {bu_probes:>17,} {steps:>11,} "
              f"{max(td, default=0):>15,}" + ("" if ok else f"  MISMATCH: counted {list(counted)}"))
        if args.levels:
            for L, (bu, (w, st)) in enumerate(zip(dirs, work, strict=True)):
                print(f"    level {L}: n_f {int(n_f[L]):,} m_f {int(m_f[L]):,} m_u {int(m_u[L]):,} "
                      + (f"bottom-up {w:,} probes, {st:,} warp steps" if bu else f"top-down {w:,} edges"))
    return mismatches


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results files with do.* samples")
    ap.add_argument("--data-dir", default=None, help="the dataset cache (default: gpubfs's)")
    ap.add_argument("--only", nargs="*", default=None, help="these graphs only")
    ap.add_argument("--levels", action="store_true", help="each level's counts and work too")
    ap.add_argument("--counted", action="store_true", help="only the samples with per-level counters")
    ap.add_argument("--knobs", nargs="*", default=[], metavar="KEY=VALUE",
                    help="replay with these knobs in place of the samples' own")
    args = ap.parse_args(argv)
    extra = parse_knobs(args.knobs)

    def run() -> int:
        knobs_of({}, extra)  # a wrong knob is refused before any graph loads
        return 1 if table(args, extra) else 0

    return exit_status(run)


if __name__ == "__main__":
    sys.exit(main())
