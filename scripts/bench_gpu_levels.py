"""Per-level cost and Luo-style timings of the GPU strategies (run on a GPU machine).

    python3 scripts/bench_gpu_levels.py [--quick] [--sections levels,luo,big] [--json FILE]

Sections:
  levels  microseconds per BFS level (median CUDA-event time / levels) on a path of
          100,000 vertices and a 2000 x 2000 grid, both from vertex 0;
  luo     ms per traversal on Luo's 1M-vertex 6-degree 3D grid (100^3, from the
          centre) and a 1M-vertex scale-free-like graph, beside cpu.sequential;
  big     luo.hierarchical against cpu.sequential on a 215^3 (~10M vertex) 3D grid.
Every GPU answer is checked against cpu.sequential (exact distances). Graphs are
built here with numpy (lattices directly in CSR, no sort).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpubfs_cli.bench.timing import timed_traverse  # noqa: E402
from gpubfs_cli.graph.build import build_csr  # noqa: E402
from gpubfs_cli.graph.csr import CSRGraph  # noqa: E402
from gpubfs_cli.graph.edges import EdgeList  # noqa: E402
from gpubfs_cli.traversal.baselines.sequential import sequential_bfs  # noqa: E402
from gpubfs_cli.traversal.strategy import all_strategies, make_knobs  # noqa: E402


def lattice(*dims: int) -> CSRGraph:
    """An undirected grid graph (path, 2D, 3D) built straight into sorted CSR."""
    n = int(np.prod(dims))
    coords = np.indices(dims).reshape(len(dims), -1)
    strides = [int(np.prod(dims[i + 1:])) for i in range(len(dims))]
    ids = np.arange(n, dtype=np.int64)
    cand, ok = [], []
    # Ascending neighbour order: -largest stride ... -1, +1 ... +largest stride.
    for axis in range(len(dims)):
        cand.append(ids - strides[axis])
        ok.append(coords[axis] > 0)
    for axis in reversed(range(len(dims))):
        cand.append(ids + strides[axis])
        ok.append(coords[axis] < dims[axis] - 1)
    cand, ok = np.stack(cand, axis=1), np.stack(ok, axis=1)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(ok.sum(axis=1), out=offsets[1:])
    cols = cand[ok].astype(np.int32)
    return CSRGraph(offsets, cols, directed=False, name="x".join(map(str, dims)))


def scale_free_like(n: int, seed: int = 1) -> CSRGraph:
    """Luo's scale-free graphs (DAC 2010 section 4): 0.1% of the vertices are hubs of
    degree ~1000, the others have degree about 6. Construction (not given in the
    paper): the non-hubs form a ring with offsets +-1, +-2 on a random order, plus a
    random perfect matching; each hub joins ~1000 distinct non-hubs (every non-hub
    gets one hub edge). So non-hubs have degree 6, hubs (n - hubs) / hubs."""
    rng = np.random.default_rng(seed)
    hubs = max(1, n // 1000)
    rest = rng.permutation(np.arange(hubs, n))
    r = len(rest)
    src = [rest, rest]
    dst = [np.roll(rest, -1), np.roll(rest, -2)]
    half = rng.permutation(rest)[: r - r % 2].reshape(2, -1)
    src.append(half[0])
    dst.append(half[1])
    src.append(np.arange(r) % hubs)
    dst.append(rest)
    e = EdgeList(np.concatenate(src), np.concatenate(dst), n, directed=False)
    return build_csr(e, name=f"scalefree{n}")


def variants(section: str) -> list[tuple[str, dict]]:
    """Every GPU strategy with default knobs, plus luo.hierarchical's layers forced
    (and, per section, the cooperative block size or node splitting)."""
    gpu = [name for name, cls in all_strategies().items() if cls.device == "gpu"]
    out = [(name, {}) for name in gpu]
    if "luo.hierarchical" not in gpu:
        return out
    luo = "luo.hierarchical"
    out += [(luo, {"mode": m}) for m in ("block", "cooperative", "level")]
    if section == "levels":
        out += [(luo, {"mode": "cooperative", "grid_block_size": b}) for b in (512, 1024)]
    if section == "luo":
        out += [(luo, {"grid_block_size": 1024}), (luo, {"split_degree": 32}),
                (luo, {"split_degree": 128})]
        if "hong.vwarp" in gpu:
            out += [("hong.vwarp", {"W": w}) for w in (1, 32)]
    if section == "big":
        out = [(n, k) for n, k in out if n == luo or n.startswith("merrill")]
        out += [(luo, {"grid_block_size": 1024}), (luo, {"grid_blocks_per_sm": 4})]
    return out


def label(name: str, knobs: dict) -> str:
    return name + "".join(f"[{k}={v}]" for k, v in knobs.items())


def measure(name, knobs, graph, source, ref, repeats, budget_s):
    """Median ms over `repeats` timed traversals after one warm-up (fewer repeats when
    one traversal is slow). Returns a row dict."""
    cls = all_strategies()[name]
    row = {"strategy": label(name, knobs), "graph": graph.name, "n": graph.n, "m": graph.m}
    if cls.device == "gpu" and cls.unavailable_reason():
        return row | {"status": f"unavailable ({cls.unavailable_reason()})"}
    s = cls(make_knobs(cls, knobs))
    try:
        t0 = time.perf_counter()
        s.prepare(graph)
        row["prepare_s"] = round(time.perf_counter() - t0, 3)
        t0 = time.perf_counter()
        ms, res = timed_traverse(s, source)  # warm-up, also checked
        once = time.perf_counter() - t0
        if not np.array_equal(res.distances, ref.distances):
            return row | {"status": "wrong-answer"}
        times = [ms]
        extra = repeats if once * repeats < budget_s else 0
        if extra:
            times = []
            for _ in range(extra):
                ms, res = timed_traverse(s, source)
                times.append(ms)
        levels = int(ref.counters["levels"])
        med = statistics.median(times)
        row |= {"status": "ok", "levels": levels, "ms": round(med, 4), "runs": len(times),
                "us_per_level": round(med * 1000 / levels, 3),
                "counters": {k: v for k, v in res.counters.items() if not hasattr(v, "__len__")}}
    except Exception as exc:  # keep going: a failing strategy is a row, not a crash
        row |= {"status": f"error: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}"}
    finally:
        s.release()
    return row


def cpu_row(graph, source, repeats):
    times = []
    ref = None
    for _ in range(repeats + 1):
        t0 = time.perf_counter_ns()
        ref = sequential_bfs(graph, source)
        times.append((time.perf_counter_ns() - t0) / 1e6)
    med = statistics.median(times[1:])  # the first call may compile
    levels = int(ref.counters["levels"])
    row = {"strategy": "cpu.sequential", "graph": graph.name, "n": graph.n, "m": graph.m,
           "status": "ok", "levels": levels, "ms": round(med, 3), "runs": repeats,
           "us_per_level": round(med * 1000 / levels, 3)}
    return ref, row


def run_section(graphs, names, repeats, budget_s, rows):
    for graph, source in graphs:
        t0 = time.perf_counter()
        ref, crow = cpu_row(graph, source, repeats)
        rows.append(crow)
        print(f"# {graph.name}: n={graph.n} m={graph.m} source={source} levels={crow['levels']} "
              f"cpu={crow['ms']} ms", flush=True)
        for name, knobs in names:
            row = measure(name, knobs, graph, source, ref, repeats, budget_s)
            row["speedup_vs_cpu"] = round(crow["ms"] / row["ms"], 2) if row.get("ms") else None
            rows.append(row)
            print(f"  {row['strategy']:<42} {row.get('status')} ms={row.get('ms')} "
                  f"us/level={row.get('us_per_level')} x{row['speedup_vs_cpu']}", flush=True)
        print(f"  ({time.perf_counter() - t0:.1f} s)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sections", default="levels,luo,big")
    ap.add_argument("--quick", action="store_true", help="smaller graphs, fewer repeats")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--budget", type=float, default=6.0, help="seconds of repeats per row")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    sections = args.sections.split(",")
    q = args.quick
    rows: list[dict] = []
    if "levels" in sections:
        # The path runs one level per vertex; algebraic.spmv pays ~0.2 ms a level, so it
        # gets a shorter path (its per-level cost is the same host-bound figure).
        names = variants("levels")
        slow = [v for v in names if v[0] == "algebraic.spmv"]
        fast = [v for v in names if v[0] != "algebraic.spmv"]
        run_section([(lattice(20_000 if q else 100_000), 0)], fast, args.repeats, args.budget, rows)
        run_section([(lattice(5_000 if q else 20_000), 0)], slow, args.repeats, args.budget, rows)
        grid = lattice(*((500, 500) if q else (2000, 2000)))
        run_section([(grid, 0)], names, args.repeats, args.budget, rows)
    if "luo" in sections:
        side = 50 if q else 100
        centre = ((side // 2) * side + side // 2) * side + side // 2
        graphs = [(lattice(side, side, side), centre), (scale_free_like(side**3), 0)]
        run_section(graphs, variants("luo"), args.repeats, args.budget, rows)
    if "big" in sections:
        side = 100 if q else 215
        centre = ((side // 2) * side + side // 2) * side + side // 2
        run_section([(lattice(side, side, side), centre)], variants("big"), args.repeats,
                    args.budget, rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    print("\n| graph | strategy | levels | ms | us/level | x cpu |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['graph']} | {r['strategy']} | {r.get('levels', '')} | {r.get('ms', r.get('status'))} "
              f"| {r.get('us_per_level', '')} | {r.get('speedup_vs_cpu') or ''} |")


if __name__ == "__main__":
    main()
