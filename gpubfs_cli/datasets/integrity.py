"""A cached graph's arrays checked before any traversal indexes them.

The traversals (numba, scipy, CUDA) index without bounds checks: a column id out of
range or a row offset past the end reads or writes outside the arrays, which crashes
the process. So on every load `check_csr` reads the arrays in chunks (a few vectorized
passes, no copy of the whole array; a tenth of a second per 100M edges from the page
cache) and refuses a bad one in one line naming the file: offsets from 0 to the length
of col_indices, never decreasing; every column id in [0, n); one weight per edge.

The sizes and sha256 that store.py recorded in meta.json when it wrote the files
(datasets/checksum.py) are checked too: the sizes on every load (a stat), the sha256
only when the files changed since they last passed (a full read from a cold disk:
a scale-27 graph's columns are 17 GB). A graph that passed every check leaves a stamp:
each file's size, mtime and ctime as they were when the check began, the digests they
matched, and meta.json's own sha256. A file rewritten with its size and mtime kept
(`cp -p`, bit rot repaired by a tool) still has a new ctime, so it is hashed again; a
failed check removes the stamp, so a refused file is refused again. A failure names the
dataset, the file and the repair.

meta.json describes the arrays, and what the loader believes of the graph comes from
it: n and m are compared with the arrays on every load, and `directed` with the policy
it was built under (a symmetrized graph is undirected). A meta.json changed since the
graph last passed (its sha256 is not the stamp's) is checked again whole: an undirected
graph must hold each edge both ways, as often (a sum over the edges, chunk by chunk, no
copy of the graph), so a `directed` flipped to false on a directed graph is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubfs_cli.datasets.checksum import file_sha256
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.symmetry import csr_asymmetry

CHUNK = 1 << 24
STAMP = "checked.json"
META = "meta.json"
CHECKED_FILES = ("row_offsets.npy", "col_indices.npy", "weights.npy", "weights-rule.npy", "weights-graph500.npy")


def _fingerprint(folder: Path) -> dict:
    out = {}
    for name in CHECKED_FILES:
        try:
            st = (folder / name).stat()
        except OSError:
            continue
        out[name] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    return out


def _stamp_of(folder: Path, written: Written | None) -> dict:
    try:
        meta = hashlib.sha256((folder / META).read_bytes()).hexdigest()
    except OSError:
        meta = None
    return {"files": _fingerprint(folder), "sha256": dict(written.digests) if written is not None else None,
            "meta": meta}


def _stamped(folder: Path, stamp: dict) -> bool:
    try:
        return json.loads((folder / STAMP).read_text()) == stamp
    except (OSError, ValueError):
        return False


def _stamp(folder: Path, stamp: dict) -> None:
    """Best effort: a read-only cache is checked again next time. Not when a file changed
    while it was checked: what passed may not be what is there now."""
    if stamp != _stamp_of(folder, None) | {"sha256": stamp["sha256"]}:
        return
    tmp = folder / f".{STAMP}.{os.getpid()}"
    try:
        tmp.write_text(json.dumps(stamp))
        os.replace(tmp, folder / STAMP)
    except OSError:
        tmp.unlink(missing_ok=True)


def _unstamp(folder: Path) -> None:
    try:
        (folder / STAMP).unlink(missing_ok=True)
    except OSError:
        pass


@dataclass(frozen=True)
class Written:
    """What meta.json says of a graph's files when they were written: `sizes` {name:
    bytes}, `digests` {name: sha256 hex} (absent in caches written before them), the
    dataset's name and the repair for a file that no longer matches."""

    dataset: str
    sizes: dict
    digests: dict
    repair: str


def check_csr(folder: Path, row_offsets, col_indices, weights, hint: str, written: Written | None = None,
              meta: dict | None = None) -> None:
    """UserError naming the file unless row_offsets is [0, ..., m] non-decreasing,
    every column id is in [0, n) and the weights (if any) give one per edge, (with
    `meta`, meta.json as read) n, m and directed are what the arrays and the build say,
    and (with `written`) each file has the size and sha256 it was written with. The
    sha256, and whether an undirected graph holds each edge both ways, are read only
    when the files or meta.json changed since they last passed; the rest on every load."""
    stamp = _stamp_of(folder, written)  # before any read: a later change is not stamped
    try:
        _check_arrays(folder, row_offsets, col_indices, weights, hint, written)
        if meta is not None:
            _check_meta(folder, meta, row_offsets, col_indices, hint, written)
        if not _stamped(folder, stamp):  # after the checks above, which say more about a damaged array
            if written is not None:
                _check_digests(folder, written)
            if meta is not None and meta.get("directed") is False and not _symmetric(row_offsets, col_indices):
                raise _bad(folder / META, "directed is false, but the graph does not hold each of its edges both "
                                          f"ways: {CHANGED}", hint, written)
    except UserError:
        _unstamp(folder)
        raise
    _stamp(folder, stamp)


CHANGED = "meta.json was changed since the graph was cached"


def _bad(path: Path, problem: str, repair: str, written: Written | None) -> UserError:
    """One line: the dataset (when known), the file, what is wrong, the repair."""
    if written is None:
        return UserError(f"{path}: {problem}; {repair}")
    return UserError(f"dataset '{written.dataset}': {path}: {problem}; {repair}")


def _check_meta(folder: Path, meta: dict, row_offsets, col_indices, hint: str, written: Written | None) -> None:
    """meta.json's n, m and directed against the arrays and the policy it records."""
    n, m = len(row_offsets) - 1, len(col_indices)
    for key, value, held in (("n", n, f"row_offsets.npy holds {n:,} vertices (n + 1 offsets)"),
                             ("m", m, f"col_indices.npy holds {m:,} edges")):
        if meta.get(key) != value:
            raise _bad(folder / META, f"{key} is {json.dumps(meta.get(key))}, but {held}: {CHANGED}", hint, written)
    symmetrized = (meta.get("policy") or {}).get("symmetrize")
    if isinstance(symmetrized, bool) and bool(meta.get("directed")) == symmetrized:
        raise _bad(folder / META, f"directed is {json.dumps(meta.get('directed'))}, but the graph was built "
                                  f"{'symmetrized (undirected)' if symmetrized else 'as directed'} "
                                  f"(policy.symmetrize: {json.dumps(symmetrized)}): {CHANGED}", hint, written)


def _symmetric(row_offsets, col_indices) -> bool:
    """Whether every edge (u, v) comes with (v, u), as often (graph/symmetry.py: one
    parallel pass, no sort, no copy)."""
    return int(csr_asymmetry(np.asarray(row_offsets), np.asarray(col_indices))) == 0


def _check_arrays(folder: Path, row_offsets, col_indices, weights, hint: str, written: Written | None) -> None:
    offsets_file = folder / "row_offsets.npy"
    cols_file = folder / "col_indices.npy"

    def bad(path: Path, problem: str) -> UserError:
        return _bad(path, problem, hint if written is None else written.repair, written)

    for path, a in ((offsets_file, row_offsets), (cols_file, col_indices)):
        if a.ndim != 1 or a.dtype.kind not in "iu":
            raise bad(path, f"expected a 1-D integer array, found {a.ndim}-D {a.dtype}")
    n, m = len(row_offsets) - 1, len(col_indices)
    if n < 0:
        raise bad(offsets_file, "empty (expected n + 1 offsets)")
    if int(row_offsets[0]) != 0 or int(row_offsets[-1]) != m:
        raise bad(offsets_file, f"expected offsets from 0 to {m:,} (the length of col_indices), found "
                                f"{int(row_offsets[0]):,} to {int(row_offsets[-1]):,}")
    if written is not None:
        _check_sizes(folder, written)
    for lo in range(0, n, CHUNK):
        part = np.asarray(row_offsets[lo : lo + CHUNK + 1])
        falls = np.flatnonzero(part[1:] < part[:-1])
        if len(falls):
            v = lo + int(falls[0])
            raise bad(offsets_file, f"offsets must not decrease, but vertex {v:,}'s {int(part[falls[0]]):,} "
                                    f"is followed by {int(part[falls[0] + 1]):,}")
    for lo in range(0, m, CHUNK):
        part = np.asarray(col_indices[lo : lo + CHUNK])
        if int(part.min()) < 0 or int(part.max()) >= n:
            i = int(np.flatnonzero((part < 0) | (part >= n))[0])
            raise bad(cols_file, f"vertex id {int(part[i]):,} at entry {lo + i:,} is outside [0, {n:,}) "
                                 "(n from row_offsets.npy)")
    if weights is not None and (weights.ndim != 1 or len(weights) != m):
        raise bad(folder / "weights.npy", f"expected {m:,} weights (one per edge), found shape {weights.shape}")


def _recorded(table: dict, name: str, kind: type):
    value = table.get(name) if isinstance(table, dict) else None
    return value if isinstance(value, kind) and not isinstance(value, bool) else None


def _check_sizes(folder: Path, written: Written) -> None:
    for name in CHECKED_FILES:
        want = _recorded(written.sizes, name, int)
        try:
            got = (folder / name).stat().st_size
        except OSError:
            continue  # a missing weights.npy is made again by its rule; the others fail to load
        if want is not None and got != want:
            raise UserError(f"dataset '{written.dataset}': {folder / name} is {got:,} bytes, but {want:,} "
                            f"were written: the file changed since it was cached; {written.repair}")


def _check_digests(folder: Path, written: Written) -> None:
    for name in CHECKED_FILES:
        want = _recorded(written.digests, name, str)
        if want is None or not (folder / name).is_file():
            continue
        if file_sha256(folder / name) != want:
            raise UserError(f"dataset '{written.dataset}': {folder / name} does not match the sha256 "
                            f"recorded when it was written: the file changed since it was cached; {written.repair}")
