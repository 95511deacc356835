"""Benchmark the Merrill et al. strategies on the GPU (run it on the device machine).

Generates the graphs on the GPU (CuPy), builds the CSR, then for each strategy and knob
set: prepare, warm-up, timed traversals from seeded random sources through
gpubfs_cli.bench.timing.timed_traverse (CUDA events), validation of the first sources
against cpu.sequential, and one profiled traversal (in-kernel %globaltimer stamps per
phase) to show where the time goes. Prints a table last:

    graph, strategy, knobs, GTEPS (harmonic mean), median ms, us/iteration,
    redundant expansion factor, and the profile split by phase kind.

usage: python scripts/bench_merrill.py [--graphs a,b] [--sources 16] [--budget 200]
       [--json OUT.json] [--quick]
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

from gpubfs_cli.bench.timing import timed_call, timed_traverse  # noqa: E402
from gpubfs_cli.gpu.device_graph import DeviceGraph  # noqa: E402
from gpubfs_cli.gpu.strategies import merrill  # noqa: E402
from gpubfs_cli.graph.build import build_csr  # noqa: E402
from gpubfs_cli.graph.edges import EdgeList  # noqa: E402
from gpubfs_cli.traversal.baselines.sequential import sequential_bfs  # noqa: E402
from gpubfs_cli.traversal.strategy import get_strategy, make_knobs  # noqa: E402


# ---------------------------------------------------------------- graphs (on the GPU)
def _rmat(cp, scale: int, m: int, a: float, b: float, c: float, seed: int):
    rng = cp.random.RandomState(seed)
    src = cp.zeros(m, cp.int32)
    dst = cp.zeros(m, cp.int32)
    for bit in range(scale):
        r = rng.random_sample(m, dtype=cp.float32)
        src |= (r >= a + b).astype(cp.int32) << bit
        dst |= (((r >= a) & (r < a + b)) | (r >= a + b + c)).astype(cp.int32) << bit
        del r
    return src, dst


def _permute(cp, src, dst, n: int, seed: int):
    perm = cp.random.RandomState(seed + 1).permutation(n).astype(cp.int32)
    return perm[src], perm[dst]


def _lattice(cp, dims: tuple[int, ...]):
    n = int(np.prod(dims))
    ids = cp.arange(n, dtype=cp.int32).reshape(dims)
    src, dst = [], []
    for axis in range(len(dims)):
        lo = [slice(None)] * len(dims)
        hi = [slice(None)] * len(dims)
        lo[axis] = slice(0, -1)
        hi[axis] = slice(1, None)
        src.append(ids[tuple(lo)].ravel())
        dst.append(ids[tuple(hi)].ravel())
    return cp.concatenate(src), cp.concatenate(dst), n


def make_graph(name: str):
    import cupy as cp

    if name == "rmat.2Mv.128Me":  # GTgraph R-MAT defaults, directed arcs
        s, d = _rmat(cp, 21, 128_000_000, 0.45, 0.15, 0.15, 1)
        e, kw = EdgeList(s, d, 1 << 21, directed=True), {"duplicates": "keep"}
    elif name == "random.2Mv.128Me":  # GTgraph random G(n, M), directed arcs
        rng = cp.random.RandomState(2)
        s = rng.randint(0, 1 << 21, 128_000_000, dtype=cp.int32)
        d = rng.randint(0, 1 << 21, 128_000_000, dtype=cp.int32)
        e, kw = EdgeList(s, d, 1 << 21, directed=True), {"duplicates": "keep"}
    elif name == "kron_g500-logn20":  # Graph500 Kronecker, edge factor 48, multigraph
        s, d = _rmat(cp, 20, 48 << 20, 0.57, 0.19, 0.19, 3)
        s, d = _permute(cp, s, d, 1 << 20, 3)
        e, kw = EdgeList(s, d, 1 << 20, directed=False), {"duplicates": "keep", "self_loops": "keep"}
    elif name == "g500-s20-ef16":  # Graph500 scale 20 edge factor 16, simple
        s, d = _rmat(cp, 20, 16 << 20, 0.57, 0.19, 0.19, 4)
        s, d = _permute(cp, s, d, 1 << 20, 4)
        e, kw = EdgeList(s, d, 1 << 20, directed=False), {}
    elif name == "uniform-n21-e26":  # 2^21 vertices, 2^26 undirected samples, simple
        rng = cp.random.RandomState(5)
        s = rng.randint(0, 1 << 21, 1 << 26, dtype=cp.int32)
        d = rng.randint(0, 1 << 21, 1 << 26, dtype=cp.int32)
        e, kw = EdgeList(s, d, 1 << 21, directed=False), {}
    elif name == "grid5pt.5000":
        s, d, n = _lattice(cp, (5000, 5000))
        e, kw = EdgeList(s, d, n, directed=False), {}
    elif name == "grid7pt.300":
        s, d, n = _lattice(cp, (300, 300, 300))
        e, kw = EdgeList(s, d, n, directed=False), {}
    else:
        raise SystemExit(f"unknown graph {name}")
    g = build_csr(e, name=name, **kw)
    del e, s, d
    cp.get_default_memory_pool().free_all_blocks()
    return g


GRAPHS = ["g500-s20-ef16", "uniform-n21-e26", "grid5pt.5000", "rmat.2Mv.128Me", "random.2Mv.128Me",
          "kron_g500-logn20", "grid7pt.300"]  # fmt: skip
DEFAULT = ["merrill.hybrid", "merrill.two_phase", "merrill.contract_expand",
           "merrill.expand_contract"]  # fmt: skip
# Knob studies: (graphs, strategy, knobs)
STUDIES = [
    (("g500-s20-ef16", "kron_g500-logn20", "grid7pt.300"), "merrill.hybrid",
     {"claim_threshold": 0}),
    (("g500-s20-ef16", "uniform-n21-e26"), "merrill.hybrid", {"culling": "atomic"}),
    (("grid5pt.5000", "uniform-n21-e26", "g500-s20-ef16"), "merrill.hybrid",
     {"blocks_per_sm": 2}),
    (("grid5pt.5000",), "merrill.hybrid", {"claim_threshold": 1}),
    (("g500-s20-ef16",), "merrill.hybrid", {"gather": "warp"}),
    (("g500-s20-ef16",), "merrill.hybrid", {"gather": "scan"}),
    (("g500-s20-ef16",), "merrill.hybrid", {"gather": "serial"}),
    (("uniform-n21-e26",), "merrill.hybrid", {"culling": "bitmask"}),
    (("uniform-n21-e26",), "merrill.hybrid", {"culling": "label"}),
    (("uniform-n21-e26",), "merrill.hybrid", {"culling": "warp"}),
]


def pick_sources(g, k: int, seed: int = 12345) -> list[int]:
    rng = np.random.default_rng(seed)
    cand = np.flatnonzero(g.out_degrees() > 0)
    return [int(v) for v in rng.choice(cand, size=min(k, len(cand)), replace=False)]


def profile_split(strategy, source: int) -> dict:
    """One instrumented traversal: time per phase kind (us) and iteration count."""
    strategy.profile = True
    try:
        r = strategy.traverse(source).to_host()
    finally:
        strategy.profile = False
    p = np.asarray(r.counters["profile"], np.int64).reshape(-1, merrill.PROF_WORDS)
    iters = int(r.counters["iterations"])
    if iters + 1 > len(p):
        return {"iterations": iters}
    start, mid, size, kind = p[: iters + 1].T
    dur = np.diff(start)  # ns per iteration
    out = {"iterations": iters, "kernel_us": float((start[iters] - start[0]) / 1e3)}
    for k, label in enumerate(merrill.PROF_KINDS):
        sel = kind[:iters] == k
        if sel.any():
            out[label] = {"iterations": int(sel.sum()), "us": float(dur[sel].sum() / 1e3),
                          "max_frontier": int(size[:iters][sel].max())}  # fmt: skip
            if k in (1, 3):  # first phase of two-phase / huge iterations
                out[label]["first_phase_us"] = float((mid[:iters][sel] - start[:iters][sel]).sum() / 1e3)
    return out


def bench_one(g, name: str, knobs: dict, sources, refs, warmup: int) -> dict:
    cls = get_strategy(name)
    s = cls(make_knobs(cls, knobs))
    prep_ms, _ = timed_call(lambda: s.prepare(g), "gpu")
    try:
        for src in sources[:warmup]:
            s.traverse(src).to_host()
        times, teps, per_iter, redundant, valid = [], [], [], [], True
        for src in sources:
            ms, r = timed_traverse(s, src, False)
            edges = int(r.counters["frontier_edges"].sum())
            times.append(ms)
            teps.append(edges / (ms * 1e-3))
            per_iter.append(ms * 1e3 / max(1, r.counters["iterations"]))
            redundant.append(r.counters["redundant_expansion"])
            if src in refs and not np.array_equal(r.distances, refs[src]):
                valid = False
        prof = profile_split(s, sources[0])
    finally:
        s.release()
    return {
        "graph": g.name, "strategy": name, "knobs": knobs, "prepare_ms": prep_ms,
        "times_ms": times, "median_ms": statistics.median(times),
        "gteps_hmean": len(teps) / sum(1 / t for t in teps) / 1e9,
        "us_per_iteration": statistics.median(per_iter),
        "redundant": statistics.mean(redundant), "valid": valid, "profile": prof,
    }  # fmt: skip


def fmt_row(r: dict) -> str:
    knobs = ",".join(f"{k}={v}" for k, v in r["knobs"].items()) or "defaults"
    p = r["profile"]
    split = " ".join(
        f"{k}:{v['iterations']}it/{v['us']:.0f}us" for k, v in p.items() if isinstance(v, dict)
    )
    return (f"{r['graph']:<17} {r['strategy'][8:]:<16} {knobs:<22} {r['gteps_hmean']:7.2f} "
            f"{r['median_ms']:9.3f} {r['us_per_iteration']:8.2f} {r['redundant']:6.3f} "
            f"{'ok' if r['valid'] else 'WRONG'}  {split}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--sources", type=int, default=16)
    ap.add_argument("--validate", type=int, default=2)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--budget", type=float, default=200.0, help="seconds; later configs skipped")
    ap.add_argument("--json", default="")
    ap.add_argument("--quick", action="store_true", help="default knobs only")
    args = ap.parse_args()
    import cupy as cp

    from gpubfs_cli.gpu.backend import device_properties

    t0 = time.time()
    props = device_properties()
    print(f"device: {props['name']}, {props['sm_count']} SMs, L2 {props['l2_bytes'] >> 20} MB",
          flush=True)  # fmt: skip
    rows = []
    for gname in args.graphs.split(","):
        if time.time() - t0 > args.budget:
            print(f"budget spent: skipping {gname}", flush=True)
            continue
        tg = time.time()
        g = make_graph(gname)
        sources = pick_sources(g, args.sources)
        refs = {s: sequential_bfs(g, s).distances for s in sources[: args.validate]}
        print(f"{gname}: n={g.n} m={g.m} built+refs in {time.time() - tg:.1f}s", flush=True)
        configs = [(n, {}) for n in DEFAULT]
        if not args.quick:
            configs += [(n, k) for graphs, n, k in STUDIES if gname in graphs]
        for name, knobs in configs:
            if time.time() - t0 > args.budget:
                print(f"budget spent: skipping {gname} {name} {knobs}", flush=True)
                continue
            try:
                r = bench_one(g, name, knobs, sources, refs, args.warmup)
            except Exception as exc:  # a failure is a row, not the end of the run
                print(f"{gname} {name} {knobs}: FAILED {type(exc).__name__}: {exc}", flush=True)
                continue
            rows.append(r)
            print(fmt_row(r), flush=True)
        DeviceGraph.release(g)
        del g
        cp.get_default_memory_pool().free_all_blocks()
    if args.json:
        Path(args.json).write_text(json.dumps({"device": props, "rows": rows}, indent=1))
    print(f"\n# {props['name']}: GTEPS = sum of out-degrees of reached vertices / time, "
          f"harmonic mean over {args.sources} sources; us/it = median ms / iterations")  # fmt: skip
    print(f"{'graph':<17} {'strategy':<16} {'knobs':<22} {'GTEPS':>7} {'med ms':>9} "
          f"{'us/it':>8} {'redund':>6} valid  profile")  # fmt: skip
    for r in rows:
        print(fmt_row(r))
    print(f"total {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
