"""Convert a stand-in of a large catalogue graph on this host and measure what it cost.

The real archives cannot be fetched on a machine without their hosts, so this writes a
file in the entry's format with the entry's n and m (a road-like path-and-grid pattern
for road and mesh graphs, bands for the KKT matrix, uniform random arcs for the
directed graphs), then builds it through the cache's own path (datasets/prepare.build_dataset, the
entry's policy: symmetrizing, duplicates, weights) in a child process, and prints the
conversion's wall time and peak resident memory beside datasets/footprint.py's plan.

    python scripts/convert_scale.py europe.osm nlpkkt160 USA-road-d.USA soc-LiveJournal1 --dir scratch

The stand-in is plain text (no compression, no tar member): what is measured is the
parse, the CSR build and the cache write, at the real graph's size.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CHUNK = 1 << 22  # records written at a time


def digits(a: np.ndarray, width: int) -> np.ndarray:
    """Whole numbers as right-aligned ASCII columns of `width` (spaces in front)."""
    a = a.astype(np.uint64)
    out = np.full((len(a), width), ord(" "), np.uint8)
    rest = a.copy()
    for k in range(width - 1, -1, -1):
        d = (rest % 10).astype(np.uint8) + ord("0")
        live = (rest > 0) | (k == width - 1)
        out[live, k] = d[live]
        rest //= 10
    return out


def lines(*cols: np.ndarray, prefix: bytes = b"") -> bytes:
    """Rows of the columns, space-separated, one a line, each opening with `prefix`."""
    parts = []
    if prefix:
        parts.append(np.frombuffer(prefix, np.uint8)[None, :].repeat(len(cols[0]), 0))
    for i, c in enumerate(cols):
        width = max(1, len(str(int(c.max())))) if len(c) else 1
        if i:
            parts.append(np.full((len(c), 1), ord(" "), np.uint8))
        parts.append(digits(c, width))
    parts.append(np.full((len(cols[0]), 1), ord("\n"), np.uint8))
    return np.hstack(parts).tobytes()


def pattern(name: str, n: int, m: int, directed: bool, rng: np.random.Generator):
    """Chunks of (u, v) records, 0-based, of a graph shaped like `name`'s."""
    if directed:  # social and web graphs: arcs as listed
        left = m
        while left:
            k = min(CHUNK, left)
            yield rng.integers(0, n, k), rng.integers(0, n, k)
            left -= k
        return
    undirected = m // 2
    if name == "nlpkkt160":  # bands of a KKT matrix: v = u + 1 .. u + b
        band = max(1, undirected // n)
        for k in range(1, band + 1):
            u = np.arange(0, n - k, dtype=np.int64)
            for lo in range(0, len(u), CHUNK):
                yield u[lo:lo + CHUNK], u[lo:lo + CHUNK] + k
        return
    # roads and meshes: a path through every vertex, then grid rungs to reach m
    width = max(2, int(np.sqrt(n)))
    u = np.arange(n - 1, dtype=np.int64)
    for lo in range(0, len(u), CHUNK):
        yield u[lo:lo + CHUNK], u[lo:lo + CHUNK] + 1
    rungs = max(0, min(undirected - (n - 1), n - width))
    u = np.arange(rungs, dtype=np.int64)
    for lo in range(0, len(u), CHUNK):
        yield u[lo:lo + CHUNK], u[lo:lo + CHUNK] + width


def write_standin(entry, path: Path) -> int:
    """The stand-in file in the entry's format; returns its record count."""
    n, m = entry.expected.n, entry.expected.m
    rng = np.random.default_rng(0)
    chunks = list(pattern(entry.name, n, m, bool(entry.directed), rng))
    records = sum(len(u) for u, _ in chunks)
    with open(path, "wb") as f:
        if entry.format == "mtx":
            kind = "real" if entry.name == "nlpkkt160" else "pattern"
            f.write(f"%%MatrixMarket matrix coordinate {kind} symmetric\n{n} {n} {records}\n".encode())
            for u, v in chunks:  # the lower triangle, 1-based
                cols = (v + 1, u + 1) + ((np.ones(len(u), np.int64),) if kind == "real" else ())
                f.write(lines(*cols))
        elif entry.format == "dimacs9":
            f.write(f"p sp {n} {2 * records}\n".encode())
            for u, v in chunks:  # both arcs of each road, as the DIMACS files list them
                w = 1 + (u % 1000)
                f.write(lines(u + 1, v + 1, w, prefix=b"a "))
                f.write(lines(v + 1, u + 1, w, prefix=b"a "))
            records *= 2
        elif entry.format == "snap":
            f.write(f"# Nodes: {n} Edges: {records}\n".encode())
            for u, v in chunks:
                f.write(lines(u, v))
        else:
            raise SystemExit(f"{entry.name}: no stand-in for format {entry.format}")
    return records


def child(name: str, path: str, data_dir: str) -> None:
    """Build the stand-in through the cache's path; print one JSON line."""
    from gpubfs_cli.datasets.catalogue import load_catalogue
    from gpubfs_cli.datasets.prepare import build_dataset

    entry = load_catalogue().get(name)
    standin = dataclasses.replace(entry, file=path, member=None, urls=(), sha256=None)
    t0 = time.perf_counter()
    graph = build_dataset(standin, name, data_dir, progress=False)
    took = time.perf_counter() - t0
    print(json.dumps({"n": graph.n, "m": graph.m, "seconds": round(took, 1),
                      "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="+")
    ap.add_argument("--dir", required=True, help="a scratch folder: the stand-ins and the cache")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.names[0], args.child[0], args.child[1])
        return
    from gpubfs_cli.datasets.catalogue import load_catalogue
    from gpubfs_cli.datasets.footprint import download_of, footprint, human
    from gpubfs_cli.graph.memory import available_memory

    scratch = Path(args.dir)
    scratch.mkdir(parents=True, exist_ok=True)
    print(f"host: {os.cpu_count()} cores, {human(available_memory() or 0)} available")
    for name in args.names:
        entry = load_catalogue().get(name)
        plan = footprint(entry, entry.expected.n, entry.expected.m, download_of(entry, None))
        path = scratch / f"{name}.standin"
        t0 = time.perf_counter()
        records = write_standin(entry, path)
        wrote = time.perf_counter() - t0
        out = subprocess.run([sys.executable, __file__, name, "--dir", args.dir, "--child", str(path),
                              str(scratch / "cache")], capture_output=True, text=True)
        path.unlink()
        if out.returncode:
            print(f"{name}: the conversion failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        got = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{name}: stand-in of {records:,} records ({entry.format}, written in {wrote:.0f} s); "
              f"converted to n = {got['n']:,}, m = {got['m']:,} in {got['seconds']} s; "
              f"peak host memory {human(got['peak_rss'])} (planned {human(plan.host_bytes)}); "
              f"{human(plan.disk_bytes)} cached; a BFS needs {human(plan.gpu_bytes)} of GPU memory")
        subprocess.run(["rm", "-rf", str(scratch / "cache")], check=False)


if __name__ == "__main__":
    main()
