"""Parsing throughput of read_graph on synthetic edge files (SNAP text and DIMACS .gr).

    .venv/bin/python scripts/bench_parse.py [--edges 20000000] [--gzip] [--dir DIR]

Writes the files to a temporary folder (or DIR), then times read_graph on each in a fresh
process (median of 3 runs, after loading the compiled parser on a tiny file) and
prints edges/s, file size, the CPU time (steadier than wall time on a shared machine)
and that process's peak RSS, beside its RSS before parsing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

# numpy and numba are imported in the child processes only: a child's ru_maxrss starts
# from its parent's peak, so the parent stays small.


def _digits(x, out, p):
    if x == 0:
        out[p] = 48
        return p + 1
    start = p
    while x > 0:
        out[p] = 48 + x % 10
        x //= 10
        p += 1
    out[start:p] = out[start:p][::-1].copy()
    return p


def _format(src, dst, weights, dimacs, out):
    """One line per edge: 'u<TAB>v' (SNAP) or 'a u v w' (DIMACS, 1-based)."""
    p = 0
    for i in range(src.shape[0]):
        if dimacs:
            out[p] = 97
            out[p + 1] = 32
            p = _digits(src[i] + 1, out, p + 2)
            out[p] = 32
            p = _digits(dst[i] + 1, out, p + 1)
            out[p] = 32
            p = _digits(weights[i], out, p + 1)
        else:
            p = _digits(src[i], out, p)
            out[p] = 9
            p = _digits(dst[i], out, p + 1)
        out[p] = 10
        p += 1
    return p


def write_files(folder: str, edges: int, n: int, gz: bool) -> list[tuple[str, str]]:
    import numpy as np
    from numba import njit

    global _digits
    _digits = njit(cache=True)(_digits)
    fmt_lines = njit(cache=True)(_format)
    rng = np.random.default_rng(1)
    src = rng.integers(0, n, edges, dtype=np.int64)
    dst = rng.integers(0, n, edges, dtype=np.int64)
    weights = rng.integers(1, 1000, edges, dtype=np.int64)
    out = np.empty(edges * 32 + 64, np.uint8)
    files = []
    for name, dimacs in (("synthetic.txt", False), ("synthetic.gr", True)):
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            if dimacs:
                f.write(f"c synthetic\np sp {n} {edges}\n".encode())
            else:
                f.write(f"# synthetic\n# Nodes: {n} Edges: {edges}\n".encode())
            size = fmt_lines(src, dst, weights, dimacs, out)
            f.write(memoryview(out)[:size])
        files.append((path, "dimacs9" if dimacs else "snap"))
    if gz:
        subprocess.run(["gzip", "-k", "-f", "-1", files[0][0]], check=True)
        files.append((files[0][0] + ".gz", "snap"))
    return files


def measure(path: str, fmt: str, runs: int) -> dict:
    from gpubfs_cli.graph.io import read_graph

    # load the compiled parser on a tiny file first, so the baseline RSS includes it
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as tiny:
        tiny.write("p sp 2 1\na 1 2 1\n" if fmt == "dimacs9" else "0 1\n")
        tiny.flush()
        read_graph(tiny.name, fmt)
    rss_before_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times, cpu_times = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        edges = read_graph(path, fmt)
        times.append(time.perf_counter() - t0)
        cpu_times.append(time.process_time() - c0)
        records = edges.num_records
        del edges
    seconds = statistics.median(times)
    return {
        "file": os.path.basename(path),
        "format": fmt,
        "bytes": os.path.getsize(path),
        "records": records,
        "seconds": seconds,
        "edges_per_s": records / seconds,
        "cpu_seconds": statistics.median(cpu_times),
        "mb_per_s": os.path.getsize(path) / seconds / 1e6,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_before_mib": rss_before_mib,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=20_000_000)
    parser.add_argument("--vertices", type=int, default=1 << 24)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--gzip", action="store_true", help="also time a gzip -1 copy of the SNAP file")
    parser.add_argument("--dir", help="write the files here (kept) instead of a temporary folder")
    parser.add_argument("--measure", nargs=2, metavar=("PATH", "FORMAT"), help=argparse.SUPPRESS)
    parser.add_argument("--write", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(*args.measure, args.runs)))
        return
    if args.write:
        print(json.dumps(write_files(args.dir, args.edges, args.vertices, args.gzip)))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.dir or tmp
        os.makedirs(folder, exist_ok=True)
        t0 = time.perf_counter()
        cmd = [sys.executable, __file__, "--write", "--dir", folder, "--edges", str(args.edges),
               "--vertices", str(args.vertices)] + (["--gzip"] if args.gzip else [])
        files = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        print(f"wrote {len(files)} files of {args.edges:,} edges in {time.perf_counter() - t0:.1f} s")
        for path, fmt in files:
            out = subprocess.run(
                [sys.executable, __file__, "--measure", path, fmt, "--runs", str(args.runs)],
                check=True, capture_output=True, text=True,
            )
            r = json.loads(out.stdout)
            print(
                f"{r['file']:<18} {r['format']:<8} {r['bytes'] / 2**20:8.1f} MiB  "
                f"{r['records']:>11,} edges  {r['seconds']:6.2f} s  "
                f"{r['edges_per_s'] / 1e6:6.1f} M edges/s  {r['mb_per_s']:6.1f} MB/s  "
                f"(CPU {r['cpu_seconds']:5.2f} s)  "
                f"peak RSS {r['peak_rss_mib']:7.0f} MiB (before parsing {r['rss_before_mib']:.0f})"
            )


if __name__ == "__main__":
    main()
