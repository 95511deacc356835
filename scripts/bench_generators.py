"""Generate every catalogue graph of kind `generated`, build its CSR, and report.

    .venv/bin/python scripts/bench_generators.py [--device cpu|gpu] [--markdown] [NAMES...]

For each graph (all generated entries of gpubfs_cli/configs/datasets.yaml, or NAMES), in a fresh
process: generate (numpy + numba, or CuPy with --device gpu) + build_csr with the entry's
policy, as `gpubfs fetch-dataset` does. Prints n and m beside the paper's (the entry's
`expected`), average / standard deviation / maximum out-degree, the seconds for
generate and build (GPU: after cupy synchronize), that process's peak RSS and, on the
GPU, the CuPy pool's bytes at the end. Nothing is written to the dataset cache.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time


def _one(name: str, device: str) -> dict:
    import resource

    import numpy as np

    from gpubfs_cli.datasets.catalogue import load_catalogue
    from gpubfs_cli.graph.build import build_csr
    from gpubfs_cli.graph.generators import generate

    entry = load_catalogue().get(name)
    xp = np
    sync = lambda: None  # noqa: E731
    if device == "gpu":
        import cupy

        xp = cupy
        sync = cupy.cuda.runtime.deviceSynchronize
        generate(entry.generator, {**entry.params, **_tiny(entry.generator)}, 0, xp=xp)  # warm-up
        sync()
    t0 = time.perf_counter()
    edges = generate(entry.generator, dict(entry.params), entry.seed or 0, xp=xp)
    sync()
    t1 = time.perf_counter()
    records = edges.num_records
    symmetrize = not edges.directed or entry.directed is False
    g = build_csr(edges, symmetrize=symmetrize, self_loops=entry.self_loops, duplicates=entry.duplicates)
    sync()
    t2 = time.perf_counter()
    del edges
    s = g.stats()
    out = {
        "name": name, "device": device, "records": records, "n": s.n, "m": s.m,
        "paper_n": entry.expected.n, "paper_m": entry.expected.m,
        "avg": s.avg_degree, "std": s.std_degree, "max": s.max_degree, "isolated": s.isolated,
        "generate_s": t1 - t0, "build_s": t2 - t1,
        "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }
    if device == "gpu":
        import cupy

        out["gpu_pool_gb"] = cupy.get_default_memory_pool().total_bytes() / 2**30
    return out


def _tiny(family: str) -> dict:
    """Parameters that make a family's graph tiny (GPU warm-up: compile the kernels)."""
    return {"rmat": {"m": 1000}, "gnm": {"m": 1000}, "kronecker": {"scale": 8},
            "lattice": {"dims": [4, 4, 4]}, "luo_scalefree": {"n": 20000},
            "small_world": {"n": 1000}, "forest_fire": {"n": 100}}[family]


def _generated_names() -> list[str]:
    from gpubfs_cli.datasets.catalogue import load_catalogue

    cat = load_catalogue()
    return [n for n in cat.names() if cat.get(n).kind == "generated"]


def _fmt(x: int | None) -> str:
    return "-" if x is None else f"{x:,}"


def _row(r: dict, markdown: bool) -> str:
    dm = "" if not r.get("paper_m") else f"{100 * (r['m'] - r['paper_m']) / r['paper_m']:+.1f}%"
    cells = [r["name"], _fmt(r["n"]), _fmt(r["paper_n"]), _fmt(r["m"]), _fmt(r["paper_m"]), dm,
             f"{r['avg']:.1f}", f"{r['std']:.1f}", _fmt(r["max"]),
             f"{r['generate_s']:.1f}", f"{r['build_s']:.1f}", f"{r['peak_rss_gb']:.2f}"]
    if "gpu_pool_gb" in r:
        cells.append(f"{r['gpu_pool_gb']:.2f}")
    return ("| " + " | ".join(cells) + " |") if markdown else "  ".join(cells)


HEADER = ["name", "n", "paper n", "m", "paper m", "m diff", "avg", "std", "max",
          "gen s", "build s", "peak RSS GB"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(_one(args.one, args.device)))
        return 0
    names = args.names or _generated_names()
    header = HEADER + (["GPU pool GB"] if args.device == "gpu" else [])
    print(("| " + " | ".join(header) + " |\n|" + "---|" * len(header)) if args.markdown else "  ".join(header))
    failed = 0
    for name in names:
        p = subprocess.run([sys.executable, __file__, "--device", args.device, "--one", name],
                           capture_output=True, text=True)
        if p.returncode != 0:
            failed += 1
            last = (p.stderr.strip().splitlines() or ["?"])[-1]
            print(f"{name}: failed ({last})", flush=True)
            continue
        print(_row(json.loads(p.stdout.strip().splitlines()[-1]), args.markdown), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
