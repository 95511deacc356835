"""A cached graph's arrays checked before any traversal indexes them.

The traversals (numba, scipy, CUDA) index without bounds checks: a column id out of
range or a row offset past the end reads or writes outside the arrays, which crashes
the process. `check_csr` reads the arrays once, in chunks (a few vectorized passes, no
copy of the whole array; a tenth of a second per 100M edges from the page cache), and
refuses a bad one in one line naming the file. A graph that passed leaves a stamp (the
files' sizes and modification times) so that the next load of the same files skips the
pass: a scale-27 graph's columns are 17 GB, a full read from a cold disk.

The sizes and sha256 that store.py recorded in meta.json when it wrote the files
(datasets/checksum.py) are checked too: the sizes on every load (a stat), the sha256 in
the full pass, so a file changed since it was cached is refused in one line naming the
dataset, the file and the repair.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubfs_cli.datasets.checksum import file_sha256
from gpubfs_cli.errors import UserError

CHUNK = 1 << 24
STAMP = "checked.json"
CHECKED_FILES = ("row_offsets.npy", "col_indices.npy", "weights.npy")


def _fingerprint(folder: Path) -> dict:
    out = {}
    for name in CHECKED_FILES:
        try:
            st = (folder / name).stat()
        except OSError:
            continue
        out[name] = [st.st_size, st.st_mtime_ns]
    return out


def _stamped(folder: Path) -> bool:
    try:
        return json.loads((folder / STAMP).read_text()) == _fingerprint(folder)
    except (OSError, ValueError):
        return False


def _stamp(folder: Path) -> None:
    """Best effort: a read-only cache is checked again next time."""
    tmp = folder / f".{STAMP}.{os.getpid()}"
    try:
        tmp.write_text(json.dumps(_fingerprint(folder)))
        os.replace(tmp, folder / STAMP)
    except OSError:
        tmp.unlink(missing_ok=True)


@dataclass(frozen=True)
class Written:
    """What meta.json says of a graph's files when they were written: `sizes` {name:
    bytes}, `digests` {name: sha256 hex} (absent in caches written before them), the
    dataset's name and the repair for a file that no longer matches."""

    dataset: str
    sizes: dict
    digests: dict
    repair: str


def check_csr(folder: Path, row_offsets, col_indices, weights, hint: str, written: Written | None = None) -> None:
    """UserError naming the file unless row_offsets is [0, ..., m] non-decreasing,
    every column id is in [0, n) and the weights (if any) give one per edge, and (with
    `written`) each file has the size and sha256 it was written with; files that passed
    before, unchanged since, are not read again (their sizes are still compared)."""
    offsets_file = folder / "row_offsets.npy"
    cols_file = folder / "col_indices.npy"
    for path, a in ((offsets_file, row_offsets), (cols_file, col_indices)):
        if a.ndim != 1 or a.dtype.kind not in "iu":
            raise UserError(f"{path}: expected a 1-D integer array, found {a.ndim}-D {a.dtype}; {hint}")
    n, m = len(row_offsets) - 1, len(col_indices)
    if n < 0:
        raise UserError(f"{offsets_file}: empty (expected n + 1 offsets); {hint}")
    if int(row_offsets[0]) != 0 or int(row_offsets[-1]) != m:
        raise UserError(f"{offsets_file}: expected offsets from 0 to {m:,} (the length of "
                        f"col_indices), found {int(row_offsets[0]):,} to {int(row_offsets[-1]):,}; {hint}")
    if written is not None:
        _check_sizes(folder, written)
    if _stamped(folder):
        _check_weights(folder, weights, m, hint)
        return
    for lo in range(0, n, CHUNK):
        part = np.asarray(row_offsets[lo : lo + CHUNK + 1])
        falls = np.flatnonzero(part[1:] < part[:-1])
        if len(falls):
            v = lo + int(falls[0])
            raise UserError(f"{offsets_file}: offsets must not decrease, but vertex {v:,}'s "
                            f"{int(part[falls[0]]):,} is followed by {int(part[falls[0] + 1]):,}; {hint}")
    for lo in range(0, m, CHUNK):
        part = np.asarray(col_indices[lo : lo + CHUNK])
        if int(part.min()) < 0 or int(part.max()) >= n:
            i = int(np.flatnonzero((part < 0) | (part >= n))[0])
            raise UserError(f"{cols_file}: vertex id {int(part[i]):,} at entry {lo + i:,} is outside "
                            f"[0, {n:,}) (n from row_offsets.npy); {hint}")
    _check_weights(folder, weights, m, hint)
    if written is not None:  # after the checks above, which say more about a damaged array
        _check_digests(folder, written)
    _stamp(folder)


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


def _check_weights(folder: Path, weights, m: int, hint: str) -> None:
    if weights is not None and (weights.ndim != 1 or len(weights) != m):
        raise UserError(f"{folder / 'weights.npy'}: expected {m:,} weights (one per edge), "
                        f"found shape {weights.shape}; {hint}")
