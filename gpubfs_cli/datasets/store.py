"""The graph cache: DATA_DIR/NAME/ with the CSR arrays as .npy and meta.json.

DATA_DIR is `--dir`, else $GPUBFS_DATA_DIR, else ./datasets. A graph is written into
a hidden temporary folder beside its final one and renamed when every file is
complete, so an interrupted fetch never leaves a half graph under NAME/. Arrays are
loaded memory-mapped: a 100M-edge graph opens in well under a second and pages in
as it is read.

meta.json (format_version 1): name, kind, source {url, sha256, format, member |
generator, params, seed | file, sha256, format}, n, m, directed, stats
(GraphStats.to_dict()), policy {symmetrize, self_loops, duplicates, compact_ids,
multiplicity}, expected {n, m, note, n_diff, m_diff}, entry (the catalogue entry it
was built from), weights (where SSSP's edge weights come from: datasets/weights.py),
files {name: bytes}, created (ISO-8601 UTC), tool_version.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.graph.csr import CSRGraph

FORMAT_VERSION = 1
DATA_DIR_ENV = "GPUBFS_DATA_DIR"
META = "meta.json"
DOWNLOADS = ".downloads"
_TMP_PREFIX = ".tmp-"


def data_dir(directory: str | Path | None = None) -> Path:
    """`directory` if given, else $GPUBFS_DATA_DIR, else ./datasets."""
    if directory is not None:
        return Path(directory)
    env = os.environ.get(DATA_DIR_ENV)
    return Path(env) if env else Path("datasets")


def cache_key(name: str, seed: int | None = None, default_seed: int | None = None) -> str:
    """NAME, or NAME@seed=S for a generated graph built with a non-default seed."""
    if seed is None or seed == default_seed:
        return name
    return f"{name}@seed={seed}"


def graph_dir(key: str, directory: str | Path | None = None) -> Path:
    if not key or "/" in key or "\\" in key or key.startswith("."):
        raise UserError(f"'{key}' cannot be a dataset name (no '/', '\\', or leading '.')")
    return data_dir(directory) / key


def is_cached(key: str, directory: str | Path | None = None) -> bool:
    d = data_dir(directory) / key
    return (d / META).is_file() and (d / "row_offsets.npy").is_file()


def read_meta(key: str, directory: str | Path | None = None) -> dict:
    path = data_dir(directory) / key / META
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(
            f"dataset '{key}' is not cached in {data_dir(directory)} (run: gpubfs fetch-dataset {key})"
        ) from None
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: unreadable ({exc}); re-fetch with --force") from None


def cache_size_bytes(key: str, directory: str | Path | None = None) -> int:
    d = data_dir(directory) / key
    if not d.is_dir():
        return 0
    return sum(p.stat().st_size for p in d.iterdir() if p.is_file())


def cached_keys(directory: str | Path | None = None) -> list[str]:
    """Every complete graph in the cache (hidden and temporary folders skipped)."""
    root = data_dir(directory)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if not p.name.startswith(".") and is_cached(p.name, root))


def load_graph(name: str, data_dir: str | Path | None = None) -> CSRGraph:
    """The cached CSR graph NAME (or NAME@seed=S), arrays memory-mapped read-only.

    A catalogue alias (e.g. 'road-FLA') finds its entry's cache too.
    """
    directory = data_dir
    key = name
    if not is_cached(key, directory):
        key = _resolve_alias(name)
        if key is None:
            raise unknown_name("dataset", name, _catalogue_names() + cached_keys(directory))
    meta = read_meta(key, directory)
    version = meta.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise UserError(
            f"dataset '{key}': cache format {version!r} is not readable by this version "
            f"(expects {FORMAT_VERSION}); re-fetch with --force"
        )
    d = _data_dir_path(directory) / key
    try:
        row_offsets = np.load(d / "row_offsets.npy", mmap_mode="r")
        col_indices = np.load(d / "col_indices.npy", mmap_mode="r")
        # Weights made by a rule (datasets/weights.py) are loaded by ensure_weights,
        # which first checks that they follow the catalogue's current rule.
        derived = (meta.get("weights") or {}).get("rule") == "hash"
        has_weights = (d / "weights.npy").is_file() and not derived
        weights = np.load(d / "weights.npy", mmap_mode="r") if has_weights else None
    except (OSError, ValueError) as exc:
        raise UserError(f"{d}: cached arrays unreadable ({exc}); re-fetch with --force") from None
    if len(row_offsets) != meta.get("n", -1) + 1 or len(col_indices) != meta.get("m", -1):
        raise UserError(f"{d}: arrays do not match meta.json (n, m); re-fetch with --force")
    return CSRGraph(row_offsets, col_indices, directed=bool(meta.get("directed")), weights=weights, name=key)


def _data_dir_path(directory: str | Path | None) -> Path:
    return data_dir(directory)


def _resolve_alias(name: str) -> str | None:
    try:
        from gpubfs_cli.datasets.catalogue import load_catalogue

        return load_catalogue().resolve(name)
    except UserError:
        return None


def _catalogue_names() -> list[str]:
    try:
        from gpubfs_cli.datasets.catalogue import load_catalogue

        return load_catalogue().names()
    except UserError:
        return []


def write_graph(key: str, graph: CSRGraph, meta: dict, directory: str | Path | None = None) -> Path:
    """Write graph + meta.json under DATA_DIR/key atomically; replaces an existing entry."""
    final = graph_dir(key, directory)
    final.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_tmp(final.parent, key)
    tmp = final.parent / f"{_TMP_PREFIX}{key}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        files = {
            "row_offsets.npy": np.asarray(graph.row_offsets),
            "col_indices.npy": np.asarray(graph.col_indices),
        }
        if graph.weights is not None:
            files["weights.npy"] = np.asarray(graph.weights)
        for fname, arr in files.items():
            np.save(tmp / fname, arr)
        full = {
            "format_version": FORMAT_VERSION,
            "name": key,
            **meta,
            "n": graph.n,
            "m": graph.m,
            "directed": bool(graph.directed),
            "stats": graph.stats().to_dict(),
            "files": {f: (tmp / f).stat().st_size for f in files},
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "tool_version": _tool_version(),
        }
        (tmp / META).write_text(json.dumps(full, indent=1, default=_json_default) + "\n", encoding="utf-8")
        _swap_in(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def add_array(key: str, fname: str, array: np.ndarray, meta_update: dict,
              directory: str | Path | None = None) -> Path:
    """Add (or replace) one .npy file in a cached graph's folder and merge
    `meta_update` into its meta.json, each written to a temporary name and renamed:
    the array first, so a meta.json that describes it never precedes it."""
    d = graph_dir(key, directory)
    meta = read_meta(key, directory)
    tag = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp_array = d / f"{_TMP_PREFIX}{fname}-{tag}"
    tmp_meta = d / f"{_TMP_PREFIX}{META}-{tag}"
    try:
        with open(tmp_array, "wb") as f:
            np.save(f, np.asarray(array))
        os.replace(tmp_array, d / fname)
        meta.update(meta_update)
        meta["files"] = {**(meta.get("files") or {}), fname: (d / fname).stat().st_size}
        tmp_meta.write_text(json.dumps(meta, indent=1, default=_json_default) + "\n", encoding="utf-8")
        os.replace(tmp_meta, d / META)
    finally:
        for p in (tmp_array, tmp_meta):
            p.unlink(missing_ok=True)
    return d / fname


def remove(key: str, directory: str | Path | None = None) -> None:
    d = graph_dir(key, directory)
    if d.exists():
        shutil.rmtree(d)


def _swap_in(tmp: Path, final: Path) -> None:
    """Rename tmp to final; an old final is moved aside first, then deleted."""
    old = None
    if final.exists():
        old = final.parent / f"{_TMP_PREFIX}old-{final.name}-{uuid.uuid4().hex[:8]}"
        os.replace(final, old)
    os.replace(tmp, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _remove_stale_tmp(root: Path, key: str) -> None:
    """Temporary folders of this key left by a process that no longer runs."""
    for p in root.glob(f"{_TMP_PREFIX}{key}-*"):
        pid = p.name[len(_TMP_PREFIX) + len(key) + 1 :].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _tool_version() -> str:
    from gpubfs_cli import __version__

    return __version__


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")
