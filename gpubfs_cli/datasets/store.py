"""The graph cache: DATA_DIR/NAME/ with the CSR arrays as .npy and meta.json.

DATA_DIR is `--dir`, else $GPUBFS_DATA_DIR, else the default (gpubfs_cli/folders.py).
A graph is written into a hidden temporary folder beside its final one and renamed
when every file is complete, so an interrupted fetch never leaves a half graph under
NAME/. Temporary names carry the writer's host and process id (`.tmp-KEY-HOST-PID-RANDOM`): a failure
removes its own, and `sweep_stale` (run by every command that uses the cache, and
before each write) removes those whose process is gone (killed, e.g. out of memory). Arrays are
loaded memory-mapped: a 100M-edge graph opens in well under a second and pages in
as it is read.

meta.json (format_version 1): name, kind, source {a download's or file's archive:
origin, url | path, upstream_url, sha256, bytes, checksum, ... (datasets/acquire.py),
format, member | generator, params, seed}, n, m, directed, stats
(GraphStats.to_dict()), policy {symmetrize, self_loops, duplicates, compact_ids,
multiplicity}, expected {n, m, note, n_diff, m_diff}, entry (the catalogue entry it
was built from), weights (where SSSP's edge weights come from: datasets/weights.py),
rule_weights (a file-weighted graph's rule weights, once NAME@weights=rule made them),
graph500_weights (Graph 500's SSSP weights, once NAME@weights=graph500 made them),
files {name: bytes}, sha256 {name: hex} (taken while writing: datasets/checksum.py;
checked on load by datasets/integrity.py), created (ISO-8601 UTC), tool_version.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import tempfile
import time
import uuid
import zlib
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from gpubfs_cli import folders
from gpubfs_cli.datasets import checksum
from gpubfs_cli.datasets.integrity import Written, check_csr
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.graph.csr import CSRGraph

FORMAT_VERSION = 1
DATA_DIR_ENV = "GPUBFS_DATA_DIR"
META = "meta.json"
DOWNLOADS = ".downloads"
_TMP_PREFIX = ".tmp-"


def data_dir(directory: str | Path | None = None) -> Path:
    """`directory` if given, else $GPUBFS_DATA_DIR, else the default (gpubfs_cli/folders.py)."""
    if directory is not None:
        if str(directory) == "":  # Path("") would be ".", the current folder
            raise UserError("--dir: an empty value; expected a path")
        return folders.data_dir(directory)
    return folders.data_dir()  # $GPUBFS_DATA_DIR, else the checkout's or the per-user default


def cache_key(name: str, seed: int | None = None, default_seed: int | None = None) -> str:
    """NAME, or NAME@seed=S for a generated graph built with a non-default seed."""
    if seed is None or seed == default_seed:
        return name
    return f"{name}@seed={seed}"


def valid_key(key: str) -> bool:
    """A name usable as one folder of the cache."""
    return (
        bool(key) and len(key) <= 200 and not key.startswith(".")
        and not any(c in key for c in "/\\") and not any(ord(c) < 32 or ord(c) == 127 for c in key)
    )


def graph_dir(key: str, directory: str | Path | None = None) -> Path:
    """DATA_DIR/KEY, once KEY is usable as a folder name and that path is no symbolic
    link that cannot be followed (which no write could replace: one line saying so)."""
    if not valid_key(key):
        raise UserError(
            f"{key!r} cannot be a dataset name (no '/', '\\', leading '.' or control characters; "
            "at most 200 characters)"
        )
    d = data_dir(directory) / key
    bad = link_problem(d)
    if bad is not None:
        raise folder_link_error(key, d, bad)
    return d


LOOPS = "a symbolic link that loops"
POINTS_NOWHERE = "a symbolic link that points nowhere"
FOLDER = "its folder"  # broken_reason's word for the graph's folder itself


def link_problem(path: Path) -> str | None:
    """LOOPS or POINTS_NOWHERE when `path` is a symbolic link that cannot be followed;
    None when it is anything else (absent, a file, a folder, a link that resolves)."""
    if not os.path.islink(path):
        return None
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return LOOPS
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return POINTS_NOWHERE
    return None


def folder_link_error(key: str, folder: Path, problem: str) -> UserError:
    """A graph's folder that is a broken symbolic link: no fetch can write through it."""
    fetch = (f"gpubfs fetch-dataset {key}" if _resolve_alias(key.split("@seed=")[0]) is not None
             else f"gpubfs fetch-dataset {key} --file FILE --format FORMAT")
    return UserError(f"dataset '{key}': {folder} is {problem}; remove it, then {fetch}")


ARRAYS = ("row_offsets.npy", "col_indices.npy")


def is_cached(key: str, directory: str | Path | None = None) -> bool:
    """A whole graph in the cache: meta.json and both arrays (else `broken_reason` says which is missing)."""
    if not valid_key(key):
        return False
    d = data_dir(directory) / key
    return all((d / f).is_file() for f in (META, *ARRAYS))


def broken_reason(key: str, directory: str | Path | None = None) -> str | None:
    """Why the cache's folder KEY/ is not a whole graph ('row_offsets.npy is missing',
    'meta.json is a symbolic link that loops', or the folder itself such a link), or None
    when there is no such folder or it holds meta.json and the arrays."""
    if not valid_key(key):
        return None
    d = data_dir(directory) / key
    bad = link_problem(d)
    if bad is not None:
        return f"{FOLDER} is {bad}"
    if not d.is_dir():
        return None
    links = [f"{f} is {bad}" for f in (META, *ARRAYS) if (bad := link_problem(d / f)) is not None]
    missing = [f for f in (META, *ARRAYS) if not (d / f).is_file() and link_problem(d / f) is None]
    if missing:
        links.append(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing")
    return "; ".join(links) or None


def broken_error(key: str, reason: str, directory: str | Path | None = None) -> UserError:
    """One line for a cached graph with a file missing (or a link to none), and its
    repair: fetched again, or rebuilt from the source its meta.json records (a user
    graph's file or URL); a folder that is a broken link is removed first."""
    d = data_dir(directory) / key
    if reason.startswith(f"{FOLDER} is "):
        return folder_link_error(key, d, reason[len(f"{FOLDER} is "):])
    hint = repair_hint(key)
    if _resolve_alias(key.split("@seed=")[0]) is None and (d / META).is_file():
        try:
            meta = json.loads((d / META).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = None
        if isinstance(meta, dict) and meta.get("kind") == "user" and isinstance(meta.get("entry"), dict):
            hint = rebuild_hint(key)
    return UserError(f"dataset '{key}': the cached graph in {d} is broken ({reason}); {hint}")


def check_cache_dir(directory: str | Path | None = None) -> Path:
    """The cache folder, created if needed; a UserError unless new files can be made in it."""
    root = data_dir(directory)
    try:
        root.mkdir(parents=True, exist_ok=True)
        if not root.is_dir():
            raise NotADirectoryError(20, "not a folder")
        fd, probe = tempfile.mkstemp(prefix=f"{_TMP_PREFIX}probe-", dir=root)
        os.close(fd)
        os.unlink(probe)
    except FileExistsError:
        raise UserError(f"{root}: cannot use as the dataset cache (a file, not a folder)") from None
    except OSError as exc:
        raise UserError(f"{root}: cannot use as the dataset cache ({exc.strerror or exc})") from None
    return root


# meta.json keys that readers use, and their types (None stands for absent).
_REQUIRED = {"format_version": int, "n": int, "m": int}
_OPTIONAL = {"directed": bool, "kind": str, "source": dict, "entry": dict, "expected": dict,
             "stats": dict, "weights": dict, "rule_weights": dict, "graph500_weights": dict, "policy": dict,
             "files": dict, "sha256": dict}


def read_meta(key: str, directory: str | Path | None = None) -> dict:
    """meta.json of a cached graph; a UserError naming the file (and how to repair it)
    when it is unreadable, not a JSON object, or a key readers use has the wrong type."""
    path = data_dir(directory) / key / META
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        reason = broken_reason(key, directory)
        if reason is not None and "symbolic link" in reason:  # the folder or meta.json one to nowhere
            raise broken_error(key, reason, directory) from None
        if not isinstance(exc, FileNotFoundError):
            raise UserError(f"{path}: unreadable ({exc.strerror or exc}); {repair_hint(key)}") from None
        raise UserError(
            f"dataset '{key}' is not cached in {data_dir(directory)} (run: gpubfs fetch-dataset {key})"
        ) from None
    except ValueError as exc:  # not UTF-8, not JSON
        raise UserError(f"{path}: unreadable ({exc}); {repair_hint(key)}") from None
    problem = _meta_problem(meta)
    if problem:
        raise UserError(f"{path}: {problem}; {repair_hint(key)}")
    return meta


def _meta_problem(meta) -> str | None:
    if not isinstance(meta, dict):
        return f"expected a JSON object, found {_JSON_NAMES.get(type(meta), type(meta).__name__)}"
    for name, kind in (*_REQUIRED.items(), *_OPTIONAL.items()):
        value = meta.get(name)
        if value is None and name in _OPTIONAL:
            continue
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):  # JSON true is no count
            return f"'{name}' must be {_KIND_WORDS[kind]}, found {json.dumps(value)[:40]}"
        if kind is int and value < 0:
            return f"'{name}' must not be negative, found {value}"
    return None


_KIND_WORDS = {int: "a whole number", bool: "true or false", str: "a string", dict: "an object"}
_JSON_NAMES = {type(None): "null", list: "an array", str: "a string", int: "a number", float: "a number",
               bool: "true or false"}


def repair_hint(key: str) -> str:
    """How to replace a broken cache entry: fetch it again (a catalogue graph), or add
    one's own graph again."""
    if _resolve_alias(key.split("@seed=")[0]) is not None:
        return f"re-fetch with: gpubfs fetch-dataset {key} --force"
    return f"add it again with: gpubfs fetch-dataset {key} --file FILE --format FORMAT --force"


def rebuild_hint(key: str) -> str:
    """The repair for a cached file that no longer matches meta.json (which still names
    the graph's source, a user graph's file or URL included)."""
    return f"repair with: gpubfs fetch-dataset {key} --force"


def cache_size_bytes(key: str, directory: str | Path | None = None) -> int:
    d = data_dir(directory) / key
    if not d.is_dir():
        return 0
    return sum(p.stat().st_size for p in d.iterdir() if p.is_file())


def cached_files(key: str, directory: str | Path | None = None) -> list[Path]:
    """The files in a cached graph's folder: what an export must never write over."""
    try:
        return [p for p in (data_dir(directory) / key).iterdir() if p.is_file()]
    except OSError:
        return []


def broken_keys(directory: str | Path | None = None) -> list[str]:
    """The cache's folders that are not whole graphs (a file missing): `broken_reason`."""
    root = data_dir(directory)
    try:
        return sorted(p.name for p in root.iterdir() if not p.name.startswith(".") and broken_reason(p.name, root))
    except OSError:
        return []


def cached_keys(directory: str | Path | None = None) -> list[str]:
    """Every complete graph in the cache (hidden and temporary folders skipped)."""
    root = data_dir(directory)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if not p.name.startswith(".") and is_cached(p.name, root))


def load_graph(name: str, data_dir: str | Path | None = None) -> CSRGraph:
    """The cached CSR graph NAME (or NAME@seed=S), arrays memory-mapped read-only, after
    `open_cached`'s checks and the arrays' own (datasets/integrity.py).

    A catalogue alias (e.g. 'road-FLA') finds its entry's cache too.
    """
    directory = data_dir
    key = name
    if not is_cached(key, directory) and broken_reason(key, directory) is None:
        key = _resolve_alias(name)
        if key is None:
            raise unknown_name("dataset", name, _catalogue_names() + cached_keys(directory))
    meta, d, row_offsets, col_indices, weights = open_cached(key, directory)
    written = Written(key, meta.get("files") or {}, meta.get("sha256") or {}, rebuild_hint(key))
    check_csr(d, row_offsets, col_indices, weights, repair_hint(key), written, meta=meta)
    return CSRGraph(row_offsets, col_indices, directed=bool(meta.get("directed")), weights=weights, name=key)


def open_cached(key: str, directory: str | Path | None = None) -> tuple[dict, Path, np.ndarray, np.ndarray,
                                                                       np.ndarray | None]:
    """(meta, folder, row_offsets, col_indices, weights or None) of the cache's KEY/, after
    the checks that cost no pass over the arrays: every file there (`broken_reason`),
    meta.json readable and of a format this version reads, and each array's header and
    length (memory-mapped: an empty, cut or foreign file fails here). What `gpubfs list
    datasets` calls cached passed these; a load then reads the arrays through
    (integrity.check_csr). Each failure is one UserError naming the file and the repair."""
    reason = broken_reason(key, directory)
    if reason is not None:  # a file deleted by hand, or a copy cut short
        raise broken_error(key, reason, directory)
    meta = read_meta(key, directory)
    version = meta.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise UserError(
            f"dataset '{key}': cache format {version!r} is not readable by this version "
            f"(expects {FORMAT_VERSION}); {repair_hint(key)}"
        )
    d = _data_dir_path(directory) / key
    row_offsets = _open_array(d / "row_offsets.npy", key)
    col_indices = _open_array(d / "col_indices.npy", key)
    # Weights made by a rule (datasets/weights.py) are loaded by ensure_weights,
    # which first checks that they follow the catalogue's current rule.
    derived = (meta.get("weights") or {}).get("rule") == "hash"
    has_weights = (d / "weights.npy").is_file() and not derived
    weights = _open_array(d / "weights.npy", key) if has_weights else None
    return meta, d, row_offsets, col_indices, weights


def _open_array(path: Path, key: str) -> np.ndarray:
    """One cached .npy, memory-mapped (its header read, its length checked by the map)."""
    try:
        return np.load(path, mmap_mode="r")
    except EOFError:
        problem = "empty (0 bytes)"
    except (OSError, ValueError) as exc:
        text = str(exc)
        if "pickled" in text:  # what numpy makes of a file with no .npy header
            problem = "not a .npy array"
        elif "mmap length is greater than file size" in text:
            problem = f"cut short ({_bytes(path):,} bytes, fewer than its header's shape needs)"
        else:
            problem = getattr(exc, "strerror", None) or text
    raise UserError(f"dataset '{key}': {path}: unreadable as a cached array: {problem}; {repair_hint(key)}")


def _bytes(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


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
    """Write graph + meta.json under DATA_DIR/key atomically; replaces an existing entry.

    A folder that cannot be written (or a full disk) is a UserError; the temporary
    folder is removed on any failure."""
    final = graph_dir(key, directory)
    check_cache_dir(final.parent)
    sweep_stale(final.parent)
    tmp = final.parent / _tmp_name(key)
    try:
        tmp.mkdir()
    except OSError as exc:
        raise UserError(f"{final.parent}: cannot write the dataset cache ({exc.strerror or exc})") from None
    try:
        files = {
            "row_offsets.npy": np.asarray(graph.row_offsets),
            "col_indices.npy": np.asarray(graph.col_indices),
        }
        if graph.weights is not None:
            files["weights.npy"] = np.asarray(graph.weights)
        saved = {fname: checksum.save(tmp / fname, arr) for fname, arr in files.items()}
        full = {
            "format_version": FORMAT_VERSION,
            "name": key,
            **meta,
            "n": graph.n,
            "m": graph.m,
            "directed": bool(graph.directed),
            "stats": graph.stats().to_dict(),
            "files": {f: size for f, (size, _) in saved.items()},
            "sha256": {f: digest for f, (_, digest) in saved.items()},
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "tool_version": _tool_version(),
        }
        (tmp / META).write_text(json.dumps(full, indent=1, default=_json_default) + "\n", encoding="utf-8")
        _swap_in(tmp, final)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise UserError(f"{final}: cannot write the dataset cache ({exc.strerror or exc})") from None
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
    tmp_array = d / _tmp_name(fname)
    tmp_meta = d / _tmp_name(META)
    try:
        size, digest = checksum.save(tmp_array, array)
        os.replace(tmp_array, d / fname)
        meta.update(meta_update)
        meta["files"] = {**(meta.get("files") or {}), fname: size}
        meta["sha256"] = {**(meta.get("sha256") or {}), fname: digest}
        tmp_meta.write_text(json.dumps(meta, indent=1, default=_json_default) + "\n", encoding="utf-8")
        os.replace(tmp_meta, d / META)
    finally:
        for p in (tmp_array, tmp_meta):
            p.unlink(missing_ok=True)
    return d / fname


def _swap_in(tmp: Path, final: Path) -> None:
    """Rename tmp to final; an old final is moved aside first, then deleted."""
    old = None
    if final.exists():
        old = final.parent / _tmp_name(f"old-{final.name}")
        os.replace(final, old)
    os.replace(tmp, final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


_HOST = f"{zlib.crc32(socket.gethostname().encode()):08x}"
UNOWNED_AGE_S = 24 * 3600  # a temporary name without a live owner we can check: removed after a day


def _tmp_name(what: str) -> str:
    """.tmp-WHAT-HOST-PID-RANDOM: whose it is, so a sweep knows when its owner is gone."""
    return f"{_TMP_PREFIX}{what}-{_HOST}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _stale(p: Path) -> bool:
    """A temporary name whose writer is gone: this host's, of a process that no longer
    runs; or older than UNOWNED_AGE_S (another host's, or a name without an owner)."""
    parts = p.name.rsplit("-", 3)
    if len(parts) == 4 and parts[1] == _HOST and parts[2].isdigit():
        return not _alive(int(parts[2]))
    other_host = len(parts) == 4 and len(parts[1]) == 8 and all(c in "0123456789abcdef" for c in parts[1])
    if not other_host and len(parts) >= 3 and parts[-2].isdigit():  # .tmp-KEY-PID-RANDOM (before hosts)
        return not _alive(int(parts[-2]))
    try:
        return time.time() - p.lstat().st_mtime > UNOWNED_AGE_S
    except OSError:
        return False


def _size(p: Path) -> int:
    try:
        if p.is_dir() and not p.is_symlink():
            return sum(f.lstat().st_size for f in p.rglob("*") if f.is_file())
        return p.lstat().st_size
    except OSError:
        return 0


def sweep_stale(directory: str | Path | None = None) -> list[tuple[Path, int]]:
    """Remove the temporary folders and files that interrupted writes left in the cache
    (in DATA_DIR and in each graph's folder); -> [(path, bytes)] of what was removed.
    Never raises: a cache that cannot be read is left as it is."""
    root = data_dir(directory)
    removed: list[tuple[Path, int]] = []
    try:
        if not root.is_dir():
            return removed
        places = [root] + [d for d in root.iterdir() if d.is_dir() and not d.name.startswith(".")]
        for place in places:
            for p in place.glob(f"{_TMP_PREFIX}*"):
                if not _stale(p):
                    continue
                size = _size(p)
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    p.unlink(missing_ok=True)
                if not os.path.lexists(p):
                    removed.append((p, size))
    except OSError:
        pass
    return removed


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
