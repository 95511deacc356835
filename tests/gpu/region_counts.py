"""The work of the region-local strategies (regions.bfs, sssp.regions) on the CUDA emulator:
runs, local steps, pushes and absorbed takes of marks, for each knob set from each source, no
GPU needed (g++ builds the kernel file unchanged, as the emulated tests do). Counts, not times:
the emulated SMs run one thread at a time, so they say how much work a setting spends and how
often regions meet, and a GPU run says what it costs. Every answer is checked against
cpu.sequential (BFS) or cpu.dijkstra (SSSP) before its counts are printed.

GRAPH is a graph file (read as its format gives it, with --format) or a catalogue name (loaded
as a run loads it, with its weights for SSSP). One line per knob set and source, then the
medians over the sources. It lives beside the emulator it drives; from the repository root:
    python -m tests.gpu.region_counts GRAPH [--format F] --problem bfs|sssp [--sms N]
        [--sources V ...] [--knobs JSON ...] [--data-dir DIR]
e.g. python -m tests.gpu.region_counts ../shared/data/USA-road-d.NY.gr.gz --format dimacs9 \\
        --problem sssp --sms 132 --knobs '{}' '{"absorb": 1}'
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pytest  # its MonkeyPatch undoes the emulator's patches

from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.core.strategy import all_strategies, make_knobs
from gpubfs_cli.errors import UserError, exit_status
from tests.gpu import emulated_cupy as ec

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"  # sssp_rounds.weighted, for a catalogue name

NAMES = {"bfs": "regions.bfs", "sssp": "sssp.regions"}
COUNTS = ("runs", "steps", "pushes", "absorbed")


def load(graph: str, fmt: str | None, problem: str, data_dir: str | None):
    """The graph from a file (its weights kept for SSSP) or from the catalogue."""
    if Path(graph).exists():
        if not fmt:
            raise UserError(f"{graph}: a graph file needs --format (dimacs9, mtx, snap, metis, gtgraph)")
        from gpubfs_cli.graph.build import build_csr
        from gpubfs_cli.graph.io import read_graph

        edges = read_graph(graph, fmt)
        return build_csr(edges, symmetrize=False, duplicates="drop", keep_weights=problem == "sssp",
                         name=Path(graph).name)
    if problem == "sssp":
        if str(SCRIPTS) not in sys.path:
            sys.path.insert(0, str(SCRIPTS))
        from sssp_rounds import weighted

        return weighted(graph, data_dir)[0]
    from gpubfs_cli.datasets.prepare import ensure_dataset

    return ensure_dataset(graph, data_dir, progress=False)


def knob_sets(texts: list[str]) -> list[dict]:
    sets = []
    for text in texts:
        try:
            k = json.loads(text)
        except json.JSONDecodeError as e:
            raise UserError(f"--knobs {text!r}: expected a JSON object ({e.msg})") from None
        if not isinstance(k, dict):
            raise UserError(f"--knobs {text!r}: expected a JSON object such as '{{\"absorb\": 1}}'")
        sets.append(k)
    return sets


def emulation(problem: str):
    """The emulated build of the strategy's kernel file (the emulated tests' family: CTAs of
    128 threads, two resident a SM)."""
    if problem == "bfs":
        from tests.algorithms.bfs.gpu import test_regions_emulated as t

        family = t.RG
    else:
        from tests.algorithms.sssp.gpu import test_regions_emulated as t

        family = t.RS
    family = ec.Family(family.kernels, family.driver, family.modules, defines=family.defines[:1])
    return ec.Emulation(family, ec.build_libraries(family)), t.PATCHES


def check(problem: str, graph, source: int, got) -> None:
    """The run's own check (the problem's reference and its validation), or a UserError."""
    p = get_problem(problem)
    why = p.check(graph, source, got, np.asarray(p.reference(graph, source).distances), False)
    if why:
        raise UserError(f"{NAMES[problem]} from {source}: distances differ from the CPU reference: {why}")


def counts(args) -> None:
    sets = knob_sets(args.knobs)
    graph = load(args.graph, args.format, args.problem, args.data_dir)
    sources = args.sources or [0]
    bad = [s for s in sources if not 0 <= s < graph.n]
    if bad:
        raise UserError(f"--sources {bad[0]}: expected a vertex from 0 to {graph.n - 1}")
    cls = all_strategies(args.problem)[NAMES[args.problem]]
    made = [make_knobs(cls, {"cta_size": 128, **k}) for k in sets]  # every set checked before any runs
    em, patches = emulation(args.problem)
    print(f"{NAMES[args.problem]} on {graph.name} ({graph.n:,} vertices, {graph.m:,} edges), {args.sms} emulated SMs")
    print(f"{'knobs':<36} {'source':>9} " + " ".join(f"{c:>9}" for c in COUNTS))
    with pytest.MonkeyPatch.context() as mp, ec.emulated(mp, em, sms=args.sms, seed=args.seed, patches=patches):
        for k, knobs in zip(sets, made, strict=True):
            strategy = cls(knobs)
            strategy.prepare(graph)
            rows = []
            for s in sources:
                got = strategy.traverse(s, False).to_host()
                check(args.problem, graph, s, got)
                rows.append([int(got.counters[c]) for c in COUNTS])
                print(f"{json.dumps(k):<36} {s:>9} " + " ".join(f"{v:>9,}" for v in rows[-1]))
            strategy.release()
            med = np.median(np.array(rows), axis=0)
            print(f"{json.dumps(k):<36} {'median':>9} " + " ".join(f"{v:>9,.1f}" for v in med))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph", help="a graph file (with --format) or a catalogue name")
    ap.add_argument("--format", default=None, help="the file's format (dimacs9, mtx, snap, metis, gtgraph)")
    ap.add_argument("--problem", choices=sorted(NAMES), required=True)
    ap.add_argument("--sms", type=int, default=16, help="emulated SMs (two CTAs resident on each)")
    ap.add_argument("--sources", type=int, nargs="*", default=None, help="source vertices (default: 0)")
    ap.add_argument("--knobs", nargs="*", default=["{}"], help="JSON knob sets, one a variant (default: {})")
    ap.add_argument("--seed", type=int, default=1, help="the emulator's scheduling seed")
    ap.add_argument("--data-dir", default=None, help="the dataset cache, for a catalogue name")
    args = ap.parse_args(argv)
    if args.sms < 1:
        ap.error("--sms must be at least 1")
    return exit_status(lambda: counts(args))


if __name__ == "__main__":
    sys.exit(main())
