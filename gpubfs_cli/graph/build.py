"""Edge list -> CSR: symmetrize, self-loop and duplicate policy, sorted adjacency.

One vectorized path for numpy and cupy arrays (the generators build on the GPU with
the same code). The CSR is built in parts, each a range of source vertices [lo, hi):
an entry u -> v of the part becomes the int64 key (u - lo) * n + v, one sort orders the
part by source and then destination, and duplicates are neighbours in the sorted keys.
Every copy of an edge has the same source, so parts never need merging: a graph built
in one part (whatever fits, the usual case) and one built in many are equal to the bit.

The records are read in chunks, so no int64 copy of the whole edge list is made. How
many entries a part may hold is decided before anything large is allocated, from the
memory free where the build runs (`plan_parts`); more than one part needs a first
pass that counts each vertex's entries, so each part's size is known exactly. On a GPU,
a build that cannot fit (or runs out of memory all the same) moves to the CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from gpubfs_cli.graph import interruptible, memory
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.edges import EdgeList

Policy = Literal["drop", "keep"]

# Peak bytes of the build, per directed entry of a part: the int64 key, a GPU sort's
# scratch copy, the deduplicated copy and its mask, the row quotient, the column.
ENTRY_BYTES = 26
# Per input record of a chunk: range and loop masks, the picked ids, the boolean
# index's scan (int64 on CuPy).
RECORD_BYTES = 48
# Per vertex: the entry counts, one chunk's bincount, a part's row counts.
VERTEX_BYTES = 24
CHUNK_RECORDS = 1 << 26
DEVICE_SHARE = 0.85  # of the free GPU memory: the pool's rounding and fragmentation take the rest
# Entries per GPU part: under 2**31, so CuPy's sort, scans and masks stay on 32-bit indexing.
DEVICE_PART_MAX = (1 << 31) - 1
HOST_SHARE = 0.5  # of the available host memory, once the CSR's own arrays are counted
# Entries per CPU part: a low reading of free memory (memory that grows as it is used)
# never makes parts tiny, and a high one never makes one part need more than ~26 GiB.
HOST_PART_MIN = 1 << 24
HOST_PART_MAX = 1 << 30


@dataclass(frozen=True)
class Plan:
    """How a build reads and splits: `chunk` input records at a time, at most
    `part_entries` directed entries per part."""

    chunk: int
    part_entries: int


class PartTooLarge(Exception):
    """One vertex's entries exceed what a part may hold (on a GPU: build on the CPU)."""


def array_module(a):
    """numpy or cupy, whichever `a` belongs to."""
    mod = type(a).__module__
    if mod.startswith("cupy"):
        import cupy

        return cupy
    return np


def to_numpy(a) -> np.ndarray:
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def entry_bound(records: int, symmetrize: bool) -> int:
    """Directed entries before self-loops and duplicates are dropped, at most."""
    return int(records) * (2 if symmetrize else 1)


def entry_bytes(weight_itemsize: int = 0) -> int:
    """Peak bytes per entry of a part; weights add their copies and the lexsort's order."""
    return ENTRY_BYTES + (8 + 3 * weight_itemsize if weight_itemsize else 0)


def plan_parts(n: int, records: int, symmetrize: bool, budget: int | None, *,
               weight_itemsize: int = 0, chunk: int | None = None) -> Plan | None:
    """The plan for a build that may use `budget` bytes (None: unknown, one part);
    None when even one chunk and the per-vertex arrays do not fit."""
    chunk = max(1, int(chunk or CHUNK_RECORDS))
    bound = entry_bound(records, symmetrize)
    if budget is None:
        return Plan(chunk, max(bound, 1))
    room = int(budget) - VERTEX_BYTES * int(n) - RECORD_BYTES * min(chunk, max(int(records), 1))
    part = room // entry_bytes(weight_itemsize)
    if part < 1:
        return None
    return Plan(chunk, int(min(part, max(bound, 1))))


def host_budget(n: int, records: int, symmetrize: bool, col_itemsize: int, weight_itemsize: int = 0) -> int:
    """Bytes a CPU build may use: a share of the available memory once the finished
    CSR is counted, kept between HOST_PART_MIN and HOST_PART_MAX entries per part."""
    per = entry_bytes(weight_itemsize)
    fixed = VERTEX_BYTES * n + RECORD_BYTES * CHUNK_RECORDS
    bound = entry_bound(records, symmetrize)
    free = memory.available_memory()
    if free is None:
        share = per * HOST_PART_MAX
    else:
        result = bound * (col_itemsize + weight_itemsize) + 8 * (n + 1)
        share = int(HOST_SHARE * max(0, free - result)) - fixed
    share = min(max(share, per * HOST_PART_MIN), per * HOST_PART_MAX)
    return fixed + share


def part_cuts(entries: np.ndarray, part_entries: int, *, oversize: bool) -> tuple[list[int], list[int]]:
    """Split vertices 0..n-1 into consecutive ranges of at most `part_entries` entries
    (`entries`: each vertex's count) -> (cuts [0, ..., n], each part's entry count).

    A vertex with more entries than a part holds gets a part of its own when
    `oversize`, else PartTooLarge."""
    n = len(entries)
    cum = np.cumsum(entries, dtype=np.int64)  # int64: the total passes 2**31 on big graphs
    cuts, sizes, base = [0], [], 0
    while cuts[-1] < n:
        lo = cuts[-1]
        hi = int(np.searchsorted(cum, base + part_entries, side="right"))
        if hi <= lo:
            if not oversize:
                raise PartTooLarge(f"vertex {lo} has {int(entries[lo]):,} entries, "
                                   f"more than a part of {part_entries:,}")
            hi = lo + 1
        top = int(cum[hi - 1])
        cuts.append(hi)
        sizes.append(top - base)
        base = top
    return cuts, sizes


def build_csr(
    edges: EdgeList,
    *,
    symmetrize: bool | None = None,
    self_loops: Policy = "drop",
    duplicates: Policy = "drop",
    keep_weights: bool = False,
    name: str = "",
    memory_bytes: int | None = None,
    chunk: int | None = None,
    report: Callable[[str], None] | None = None,
) -> CSRGraph:
    """Build a CSRGraph (numpy arrays on the host) from an EdgeList.

    symmetrize defaults to `not edges.directed`; the result is directed=False then.
    With duplicates="drop" a repeated edge keeps its lightest weight.

    The build runs where the edges are (numpy or cupy). `memory_bytes` is what it may
    use (default: measured free memory there), `chunk` the records read at a time;
    `report` hears, in a line, when the build splits into parts or moves to the CPU.
    """
    xp = array_module(edges.src)
    n = int(edges.n)
    if symmetrize is None:
        symmetrize = not edges.directed
    src, dst = xp.asarray(edges.src), xp.asarray(edges.dst)
    if src.dtype.kind != "i" or dst.dtype.kind != "i":  # unsigned ids: signed keys and counts
        src, dst = src.astype(xp.int64), dst.astype(xp.int64)
    w = xp.asarray(edges.weights) if keep_weights and edges.weights is not None else None
    _check_ids(src, dst, n, chunk or CHUNK_RECORDS)
    job = _Job(n, symmetrize, self_loops, duplicates, np.int32 if n < 2**31 else np.int64,
               report or (lambda text: None), 0 if w is None else w.dtype.itemsize)
    if xp is not np:
        built, why = job.try_device(src, dst, w, xp, memory_bytes, chunk)
        if built is not None:
            return job.graph(built, edges.directed, name)
        job.say(f"building the CSR on the CPU: {why}")
        src, dst = to_numpy(src), to_numpy(dst)
        w = None if w is None else to_numpy(w)
    if memory_bytes is None:
        memory_bytes = host_budget(n, len(src), symmetrize, np.dtype(job.col_dtype).itemsize, job.wsize)
    plan = plan_parts(n, len(src), symmetrize, memory_bytes, weight_itemsize=job.wsize, chunk=chunk)
    if plan is None:
        plan = Plan(max(1, int(chunk or CHUNK_RECORDS)), 1)  # what is asked; a MemoryError says if it fails
    return job.graph(job.run(src, dst, w, np, plan, oversize=True, where="CPU"), edges.directed, name)


@dataclass
class _Job:
    """One build's policy; `run` makes (offsets, cols, weights) as host arrays."""

    n: int
    symmetrize: bool
    self_loops: Policy
    duplicates: Policy
    col_dtype: type
    say: Callable[[str], None]
    wsize: int  # bytes per weight, 0 without

    def try_device(self, src, dst, w, xp, memory_bytes: int | None, chunk: int | None):
        """-> ((offsets, cols, weights), None), or (None, why the GPU cannot): decided
        from the free memory before allocating, or an out-of-memory error midway."""
        free = memory.device_free(xp) if memory_bytes is None else None
        budget = memory_bytes
        if budget is None and free is not None:
            budget = int(free * DEVICE_SHARE)
        plan = plan_parts(self.n, len(src), self.symmetrize, budget, weight_itemsize=self.wsize, chunk=chunk)
        if plan is None:
            have = memory.gb(free if free is not None else budget)
            return None, f"the GPU has {have} free, too little for the per-vertex arrays and one chunk"
        plan = Plan(plan.chunk, min(plan.part_entries, DEVICE_PART_MAX))
        try:
            return self.run(src, dst, w, xp, plan, oversize=False, where="GPU"), None
        except PartTooLarge as exc:
            why = f"one part does not fit the GPU ({exc})"
        except Exception as exc:
            if not memory.is_out_of_memory(exc):
                raise
            why = f"the GPU ran out of memory ({memory.out_of_memory(exc, xp)[1] or exc})"
        memory.release_device(xp)  # the failed try's arrays, now that its frames are gone
        return None, why

    def graph(self, built, directed: bool, name: str) -> CSRGraph:
        offsets, cols, w = built
        return CSRGraph(row_offsets=offsets, col_indices=cols, directed=not self.symmetrize and directed,
                        weights=w, name=name)

    def run(self, src, dst, w, xp, plan: Plan, *, oversize: bool, where: str):
        n = self.n
        bound = entry_bound(len(src), self.symmetrize)
        if bound <= plan.part_entries:
            counts, cols, ws = self.part(src, dst, w, 0, n, bound, xp, plan.chunk)
            offsets = xp.zeros(n + 1, dtype=xp.int64)
            if n:
                xp.cumsum(counts, out=offsets[1:])
            del counts
            return to_numpy(offsets), to_numpy(cols), None if ws is None else to_numpy(ws)
        entries = to_numpy(self.entries(src, dst, xp, plan.chunk))
        # As few parts as the plan allows, of even sizes: the same passes, a lower peak.
        total = int(entries.sum())
        even = -(-total // max(1, -(-total // plan.part_entries)))
        target = min(plan.part_entries, max(even, int(entries.max(initial=0))))
        cuts, sizes = part_cuts(entries, target, oversize=oversize)
        del entries
        parts = "in one part of" if len(sizes) == 1 else f"in {len(sizes)} parts of at most"
        self.say(f"building the CSR on the {where} {parts} {target:,} entries ({total:,} in all)")
        offsets = np.zeros(n + 1, dtype=np.int64)
        cols = np.empty(total, dtype=self.col_dtype)
        wout = None if w is None else np.empty(total, dtype=w.dtype)
        pos = 0
        for lo, hi, size in zip(cuts[:-1], cuts[1:], sizes, strict=True):
            counts, c, ws = self.part(src, dst, w, lo, hi, size, xp, plan.chunk)
            k = len(c)
            _copy_into(c, cols[pos : pos + k])
            if ws is not None:
                _copy_into(ws, wout[pos : pos + k])
            np.cumsum(to_numpy(counts), out=offsets[lo + 1 : hi + 1])
            offsets[lo + 1 : hi + 1] += pos
            pos += k
            del counts, c, ws
        if xp is not np:
            memory.release_device(xp)
        return offsets, _shrink(cols, pos), None if wout is None else _shrink(wout, pos)

    def entries(self, src, dst, xp, chunk: int):
        """Each vertex's directed entries before duplicates are dropped (int64)."""
        count = xp.zeros(self.n, dtype=xp.int64)
        for a in range(0, len(src), chunk):
            s, d = src[a : a + chunk], dst[a : a + chunk]
            loop_free = s != d if self.symmetrize or self.self_loops == "drop" else None
            count += xp.bincount(s[loop_free] if self.self_loops == "drop" else s, minlength=self.n)
            if self.symmetrize:
                count += xp.bincount(d[loop_free], minlength=self.n)
            del s, d, loop_free
        return count

    def part(self, src, dst, w, lo: int, hi: int, size: int, xp, chunk: int):
        """Sources lo..hi-1: (row counts, sorted columns, their weights) on xp.

        A symmetrized record (u, v) gives u -> v and v -> u; a kept self-loop is one
        entry, not two."""
        n = self.n
        whole = lo == 0 and hi == n
        keys = xp.empty(size, dtype=xp.int64)
        wk = None if w is None else xp.empty(size, dtype=w.dtype)
        pos = 0
        for a in range(0, len(src), chunk):
            s, d = src[a : a + chunk], dst[a : a + chunk]
            ws = None if w is None else w[a : a + chunk]
            loop_free = s != d if self.symmetrize or self.self_loops == "drop" else None
            pick = _both(_rows_in(s, lo, hi, whole), loop_free if self.self_loops == "drop" else None)
            pos = _put(keys, wk, pos, s, d, ws, pick, lo, n)
            if self.symmetrize:
                pick = _both(_rows_in(d, lo, hi, whole), loop_free)
                pos = _put(keys, wk, pos, d, s, ws, pick, lo, n)
            del s, d, ws, loop_free, pick
        keys = keys[:pos]
        if wk is None:
            interruptible.sort(keys)
        else:
            # By edge, then weight: the first of a run of parallel edges is the lightest,
            # the one a shortest path uses (DIMACS 9 files list parallel arcs).
            wk = wk[:pos]
            order = _lexsort(wk, keys, xp)
            keys, wk = keys[order], wk[order]
            del order
        if self.duplicates == "drop" and len(keys) > 1:
            first = xp.empty(len(keys), dtype=bool)
            first[0] = True
            xp.not_equal(keys[1:], keys[:-1], out=first[1:])
            if not bool(first.all()):
                keys = keys[first]
                if wk is not None:
                    wk = wk[first]
            del first
        if len(keys):
            counts = xp.bincount(keys // n, minlength=hi - lo)
            keys %= n
        else:
            counts = xp.zeros(hi - lo, dtype=xp.int64)
        return counts, keys.astype(self.col_dtype), wk


def _check_ids(src, dst, n: int, chunk: int) -> None:
    """Every id in [0, n), chunk by chunk (no reduction over more than 2**31 items)."""
    for a in range(0, len(src), chunk):
        for ids in (src[a : a + chunk], dst[a : a + chunk]):
            if int(ids.min()) < 0 or int(ids.max()) >= n:
                raise ValueError(f"edge endpoint out of range [0, {n})")


def _rows_in(a, lo: int, hi: int, whole: bool):
    """Mask of ids in lo..hi-1; None when that is every id."""
    if whole:
        return None
    m = a >= lo
    m &= a < hi
    return m


def _both(a, b):
    if a is None:
        return b
    if b is None:
        return a
    a &= b
    return a


def _put(keys, wk, pos: int, s, d, ws, pick, lo: int, n: int) -> int:
    """Write the keys (s - lo) * n + d of the picked records at keys[pos:]."""
    if pick is not None:
        s, d = s[pick], d[pick]
        ws = None if ws is None else ws[pick]
    k = len(s)
    out = keys[pos : pos + k]
    out[...] = s
    if lo:
        out -= lo
    out *= n
    out += d
    if wk is not None:
        wk[pos : pos + k] = ws
    return pos + k


def _lexsort(w, keys, xp):
    if xp is np:
        if len(keys) < interruptible.MIN_ITEMS:
            return np.lexsort((w, keys))  # a tuple: keys stay int64, never cast to float
        return interruptible.call(lambda: np.lexsort((w, keys)))
    return xp.lexsort(xp.stack([w, keys]))


def _copy_into(a, out: np.ndarray) -> None:
    """Device or host array `a` into the host slice `out`, without a staging copy."""
    if isinstance(a, np.ndarray):
        out[...] = a
    else:
        a.get(out=out)


def _shrink(a: np.ndarray, k: int) -> np.ndarray:
    """The first k items, in place where the allocator allows (no second copy of the CSR)."""
    if k == len(a):
        return a
    try:
        a.resize(k, refcheck=False)
        return a
    except ValueError:
        return a[:k].copy()


def reverse_csr(graph: CSRGraph, weights: bool = False) -> CSRGraph:
    """The transpose (in-edges as a CSR, each list sorted): every edge reversed and kept,
    self-loops and parallel edges included, with its weight where `weights`. An
    undirected graph is its own transpose."""
    if not graph.directed:
        return graph
    src = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(graph.row_offsets))
    w = np.asarray(graph.weights) if weights and graph.weights is not None else None
    return build_csr(EdgeList(np.asarray(graph.col_indices), src, graph.n, True, w),
                     self_loops="keep", duplicates="keep", keep_weights=w is not None, name=graph.name)
