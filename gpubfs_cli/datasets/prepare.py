"""Get a dataset into the cache: download or generate, parse, build the CSR, check, store.

`ensure_dataset` is what `gpubfs fetch-dataset` and the runner call. It returns the
cached graph (memory-mapped) and does the work only when the graph is not cached yet
(or `force`). The built graph's n and m are compared with the paper's; a difference
over 1% is printed as a warning and recorded in meta.json either way.

A graph whose edge list does not fit the GPU is generated on the CPU, and the CSR build
splits itself into parts or moves to the CPU (graph/build.py); running out of memory
all the same, on the GPU or the host, is one UserError line naming the dataset, the
step and the sizes, with nothing left in the cache.
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from gpubfs_cli.datasets import store
from gpubfs_cli.datasets.acquire import acquire
from gpubfs_cli.datasets.catalogue import (
    FORMATS,
    TOLERANCE,
    DatasetEntry,
    Expected,
    entry_from_meta,
    load_catalogue,
)
from gpubfs_cli.datasets.console import console as _console
from gpubfs_cli.datasets.console import say as _say
from gpubfs_cli.datasets.console import warn
from gpubfs_cli.datasets.lock import build_lock
from gpubfs_cli.datasets.weights import OPTION, build_record, check_option, rule_apart, split_option
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.files import check_input_file, plain_json
from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.csr import CSRGraph, narrow_ints
from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.memory import (
    available_memory,
    device_free,
    gb,
    is_out_of_memory,
    out_of_memory,
    release_device,
)

# Called only when a graph is generated: the GPU's array module (CuPy) when a GPU is
# usable, else None. The caller passes gpu.backend.cupy_if_usable; without it graphs
# are generated on the CPU (the same edges, more slowly).
GpuArrays = Callable[[], Any]


def _read(path: Path, fmt: str, *, member, directed, compact_ids, progress=None,
          nonnegative_weights: bool = False) -> EdgeList:
    """The format readers (gpubfs_cli.graph.io); a separate hook so tests can stand in."""
    from gpubfs_cli.graph.io import read_graph

    return read_graph(path, fmt, member=member, directed=directed, compact_ids=compact_ids, progress=progress,
                      nonnegative_weights=nonnegative_weights)


class _ParseBar:
    """A transient rich bar for parsing, driven by the reader's (bytes_done, bytes_total)."""

    def __init__(self, label: str):
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self._p = Progress(
            TextColumn(label), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
            console=_console(), transient=True,
        )
        self._task = self._p.add_task(label, total=None)

    def __enter__(self):
        self._p.start()
        return self

    def __exit__(self, *exc):
        self._p.stop()

    def __call__(self, done: int, total: int) -> None:
        self._p.update(self._task, completed=done, total=total)


def _gpu_module(gpu_xp: GpuArrays | None):
    try:
        return gpu_xp() if gpu_xp is not None else None
    except Exception:  # a broken CuPy install: the CPU will do
        return None


def _generate(family: str, params: dict, seed: int, gpu_xp: GpuArrays | None = None,
              note: Callable[[str], None] | None = None) -> EdgeList:
    """On the GPU when `gpu_xp` gives one and the edge list fits there (the generators
    give identical edges on either); `note` hears why it went to the CPU."""
    from gpubfs_cli.graph.generators import DEVICE_FAMILIES, device_bytes, generate

    xp = _gpu_module(gpu_xp)
    if xp is not None and family in DEVICE_FAMILIES:
        try:
            need = device_bytes(family, params)
        except UserError:
            need = None  # generate says what is wrong with the params
        free = device_free(xp)
        if need is not None and free is not None and need > free:
            if note is not None:
                note(f"generating on the CPU: the edge list needs about {gb(need)} of GPU memory, "
                     f"{gb(free)} is free")
            xp = None
    if xp is not None:
        try:
            return generate(family, dict(params), int(seed), xp=xp)
        except UserError:
            raise
        except Exception as exc:  # e.g. out of GPU memory for a large graph
            failed = type(exc).__name__
        release_device(xp)  # the failed try's arrays, now that its frames are gone
        warn(f"generating {family} on the GPU failed ({failed}); generating on the CPU")
    return generate(family, dict(params), int(seed), xp=np)


def resolve_entry(name: str, data_dir: str | Path | None = None, *, repair: bool = False) -> DatasetEntry:
    """A catalogue entry (by name or alias), else a user graph recorded in the cache.

    A user graph whose folder lacks an array is an error saying so, unless `repair`
    (fetch-dataset --force): its meta.json still says where it came from."""
    cat = load_catalogue()
    key = cat.resolve(name)
    if key is not None:
        return cat.get(key)
    base = name.split("@seed=")[0]
    found = next((k for k in (name, base) if store.is_cached(k, data_dir) or store.broken_reason(k, data_dir)), None)
    if found is not None:
        reason = store.broken_reason(found, data_dir)
        if reason is not None and (not repair or store.META in reason):
            raise store.broken_error(found, reason, data_dir)
        meta = store.read_meta(found, data_dir)
        if meta.get("kind") == "user" and meta.get("entry"):
            try:
                return entry_from_meta(meta)
            except (TypeError, ValueError) as exc:
                raise UserError(f"{store.graph_dir(found, data_dir) / store.META}: 'entry' is not "
                                f"a graph's entry ({exc}); {store.repair_hint(found)}") from None
    user = [k for k in store.cached_keys(data_dir) if _kind(k, data_dir) == "user"]
    raise unknown_name("dataset", name, cat.names() + user)


def resolve_name(name: str, data_dir: str | Path | None = None, *, repair: bool = False) -> DatasetEntry:
    """The entry a run's dataset name stands for (an alias, NAME@seed=S,
    NAME@weights=file|rule), its weights option checked against the graph."""
    plain, choice = split_option(name)
    entry = resolve_entry(plain.split("@seed=")[0], data_dir, repair=repair)
    check_option(entry, choice, data_dir)
    return entry


def _kind(key: str, data_dir) -> str | None:
    """A cached graph's kind; None when its meta.json is broken (it names no dataset)."""
    try:
        return store.read_meta(key, data_dir).get("kind")
    except UserError:
        return None


def ensure_dataset(
    name: str,
    data_dir: str | Path | None = None,
    *,
    force: bool = False,
    seed: int | None = None,
    progress: bool = True,
    keep_download: bool = False,
    gpu_xp: GpuArrays | None = None,
    mirror: str | Path | None = None,
    archive: str | Path | None = None,
    accept_checksum: bool = False,
) -> CSRGraph:
    """The graph NAME from the cache, fetching or generating it first when needed.

    `seed` (generated graphs) overrides the catalogue's seed; a non-default seed is
    cached apart as NAME@seed=S. `gpu_xp` (GpuArrays) lets a generated graph be made on
    the GPU. A download's archive comes from `archive` (a local file), else the `mirror`
    folder (else $GPUBFS_MIRROR), else its URLs, and passes one check (datasets/acquire.py);
    `accept_checksum` uses one whose sha256 differs from the catalogue's, recording it. A
    cached graph is returned without looking at any archive. NAME@weights=rule, on a
    graph whose weights are its file's, and NAME@weights=graph500 on any, are NAME's graph
    under that name, without weights: ensure_weights gives it those (datasets/weights.py).
    """
    plain, choice = split_option(name)
    if choice is not None:
        apart = rule_apart(resolve_name(name, data_dir, repair=force), choice, data_dir)
        graph = ensure_dataset(plain, data_dir, force=force, seed=seed, progress=progress,
                               keep_download=keep_download, gpu_xp=gpu_xp, mirror=mirror, archive=archive,
                               accept_checksum=accept_checksum)
        return dataclasses.replace(graph, name=f"{graph.name}{OPTION}{choice}", weights=None) if apart else graph
    if "@seed=" in name and seed is None:
        name, _, text = name.partition("@seed=")
        if not text.lstrip("-").isdigit():
            raise UserError(f"'{name}@seed={text}': the seed must be a whole number")
        seed = int(text)
    entry = resolve_entry(name, data_dir, repair=force)
    if seed is not None and entry.kind != "generated":
        raise UserError(f"dataset '{entry.name}' is not generated: --seed does not apply")
    if archive is not None and entry.kind != "download":
        what = "generated" if entry.kind == "generated" else "your own graph (give --file with a new name)"
        raise UserError(f"dataset '{entry.name}' is {what}: it is built from no catalogue archive, so --file does not apply")
    default_seed = entry.seed if entry.seed is not None else 0
    key = store.cache_key(entry.name, seed, default_seed) if entry.kind == "generated" else entry.name
    if store.is_cached(key, data_dir) and not force:
        if archive is not None:
            _say(progress, f"{key}: already cached; add --force to rebuild it from {archive}")
        return _cached(entry, key, data_dir)
    before = _stamp(key, data_dir)
    with build_lock(key, data_dir, lambda text: _say(progress, f"{key}: {text}")):
        # Another process may have built it while this one waited: a fresh copy serves --force too.
        if store.is_cached(key, data_dir) and (not force or _stamp(key, data_dir) != before):
            return _cached(entry, key, data_dir)
        return build_dataset(entry, key, data_dir, seed=seed, progress=progress, keep_download=keep_download,
                             gpu_xp=gpu_xp, mirror=mirror, archive=archive, accept_checksum=accept_checksum)


def _cached(entry: DatasetEntry, key: str, data_dir) -> CSRGraph:
    old = store.read_meta(key, data_dir).get("entry") or {}
    changed = [k for k in _DEFINING if k in old and old[k] != entry.to_dict()[k]]
    if changed and entry.kind != "user":
        warn(f"{key}: the catalogue changed {', '.join(changed)} since it was cached; "
             f"rebuild with: gpubfs fetch-dataset {entry.name} --force")
    return store.load_graph(key, data_dir)


def _stamp(key: str, data_dir) -> tuple[int, int] | None:
    """Which copy of a cached graph is in place (each write renames a new folder in)."""
    try:
        st = store.graph_dir(key, data_dir).stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


# Entry fields that change the built graph (a cached graph built with others is stale).
_DEFINING = ("format", "member", "directed", "self_loops", "duplicates", "compact_ids",
             "multiplicity", "weights", "generator", "params")


def add_user_dataset(
    name: str,
    fmt: str,
    *,
    url: str | None = None,
    file: str | Path | None = None,
    undirected: bool = False,
    compact_ids: bool = False,
    data_dir: str | Path | None = None,
    force: bool = False,
    progress: bool = True,
    keep_download: bool = False,
) -> CSRGraph:
    """A graph of the user's own, from a URL or a local file, through the same path.

    `compact_ids` renumbers the ids that occur to 0..k-1 (sparse SNAP ids)."""
    if (url is None) == (file is None):
        raise UserError("give exactly one of --url and --file")
    if fmt not in FORMATS:
        raise unknown_name("format", fmt, FORMATS)
    if "@" in name:
        raise UserError(f"'{name}' cannot name your graph: '@' is kept for generated graphs "
                        "cached with another seed (NAME@seed=S)")
    if "," in name or name != name.strip():
        raise UserError(f"'{name}' cannot name your graph: `gpubfs run --dataset` splits its value at commas "
                        "and trims spaces, so no run could name it (choose a name without ',' or outer spaces)")
    clash = load_catalogue().resolve(name)
    if clash is not None:
        raise UserError(f"'{name}' is a catalogue dataset ('{clash}'); choose another name for your graph")
    store.graph_dir(name, data_dir)  # checks the name is usable as a folder
    if file is not None:
        path = check_input_file(file, "file")  # a folder, a FIFO, a device: said as such
        file = str(path.resolve())

    def cached() -> CSRGraph:
        old = store.read_meta(name, data_dir).get("entry") or {}
        same = (
            old.get("format") == fmt and bool(old.get("compact_ids")) == compact_ids
            and (old.get("file") == file if file else url in (old.get("urls") or []))
        )
        if not same:
            raise UserError(f"dataset '{name}' is already cached from another source; add --force to replace it")
        return store.load_graph(name, data_dir)

    if store.is_cached(name, data_dir) and not force:
        return cached()
    before = _stamp(name, data_dir)
    with build_lock(name, data_dir, lambda text: _say(progress, f"{name}: {text}")):
        if store.is_cached(name, data_dir) and (not force or _stamp(name, data_dir) != before):
            return cached()
        entry = DatasetEntry(
            name=name,
            kind="user",
            description=f"user graph from {url or file}",
            directed=False if undirected else None,
            urls=(url,) if url else (),
            format=fmt,
            file=file,
            compact_ids=compact_ids,
            weights=True,  # the file's weights when it has some; else the default rule
        )
        return build_dataset(entry, name, data_dir, progress=progress, keep_download=keep_download)


def build_dataset(
    entry: DatasetEntry,
    key: str,
    data_dir: str | Path | None = None,
    *,
    seed: int | None = None,
    progress: bool = True,
    keep_download: bool = False,
    gpu_xp: GpuArrays | None = None,
    mirror: str | Path | None = None,
    archive: str | Path | None = None,
    accept_checksum: bool = False,
) -> CSRGraph:
    """Acquire, parse, build, check and cache one entry under `key` (always does the work).

    The cache folder is checked first (before a long download or build); a graph with
    no edges left after the build is refused. The download is removed afterwards,
    whether the build worked or not, unless `keep_download`: a failed fetch leaves
    nothing in the cache."""
    store.check_cache_dir(data_dir)
    downloads: list[Path] = []
    stage = _Stage()
    try:
        try:
            return _build(entry, key, data_dir, seed=seed, progress=progress, downloads=downloads,
                          gpu_xp=gpu_xp, stage=stage, mirror=mirror, archive=archive,
                          accept_checksum=accept_checksum)
        except Exception as exc:  # MemoryError (CuPy's too), or a CUDA allocation failure
            if not is_out_of_memory(exc):
                raise
            what, sizes = out_of_memory(exc, _gpu_module(gpu_xp))
        xp = _gpu_module(gpu_xp)
        if xp is not None:
            release_device(xp)
        sizes = f" ({sizes})" if sizes else ""
        raise UserError(f"dataset '{key}': out of {what} while {stage.doing}{sizes}; the cache is unchanged")
    finally:
        if not keep_download:
            for downloaded in downloads:
                shutil.rmtree(downloaded.parent, ignore_errors=True)
                try:
                    downloaded.parent.parent.rmdir()  # .downloads, when nothing else is kept there
                except OSError:
                    pass


class _Stage:
    """The step a build is at, for the out-of-memory line."""

    doing = "preparing"


def _build(entry: DatasetEntry, key: str, data_dir, *, seed, progress: bool, downloads: list[Path],
           gpu_xp: GpuArrays | None = None, stage: _Stage | None = None, mirror=None, archive=None,
           accept_checksum: bool = False) -> CSRGraph:
    stage = stage or _Stage()
    times: dict[str, float] = {}
    try:
        previous = store.read_meta(key, data_dir) if store.is_cached(key, data_dir) else {}
    except UserError:  # a broken entry being replaced (--force): nothing of it is kept
        previous = {}
    t0 = time.perf_counter()
    seed_used = None
    if entry.kind == "generated":
        seed_used = entry.seed if seed is None else seed
        if seed_used is None:
            seed_used = 0
        _say(progress, f"{key}: generating {entry.generator} {entry.params} seed={seed_used}")
        stage.doing = f"generating {entry.generator}"
        edges = _generate(entry.generator or "", entry.params, seed_used, gpu_xp,
                          note=lambda text: _say(progress, f"{key}: {text}"))
        source = {"generator": entry.generator, "params": entry.params, "seed": seed_used}
        times["generate_s"] = time.perf_counter() - t0
    else:
        check_host_fit(entry, key)
        got = acquire(entry, key, data_dir, previous, mirror=mirror,
                      archive=archive if archive is not None else entry.file,
                      accept_checksum=accept_checksum, progress=progress)
        path = got.path
        if got.origin == "url":
            downloads.append(path)
        # download_s only for bytes that came over the network: planners derive a rate from it
        times["download_s" if got.download_s is not None else "checksum_s"] = time.perf_counter() - t0
        source = got.source()
        if entry.kind == "user" and entry.file is not None:
            source["file"] = str(path)  # the key user graphs' records had before `path`
        source.update(format=entry.format, member=entry.member)
        _say(progress, f"{key}: parsing {path.name} ({entry.format})")
        stage.doing = f"parsing {path.name}"
        t1 = time.perf_counter()
        kwargs = {"member": entry.member, "directed": entry.directed, "compact_ids": entry.compact_ids}
        if entry.weights and not entry.multiplicity:  # kept for SSSP: refused now, not at run time
            kwargs["nonnegative_weights"] = True
        if progress and _console().is_terminal:
            with _ParseBar(f"parsing {path.name}") as bar:
                edges = _read(path, entry.format or "", progress=bar, **kwargs)
        else:
            edges = _read(path, entry.format or "", **kwargs)
        times["parse_s"] = time.perf_counter() - t1
    if entry.multiplicity:
        stage.doing = "expanding multiplicities"
        edges = expand_multiplicity(edges, key)
    elif not entry.weights:
        edges.weights = None  # values not kept: free them before the build (GBs on nlpkkt160)
    # A symmetric file stays undirected even where the entry says directed (its reader
    # returns it as undirected); directed=False symmetrizes whatever the file is.
    symmetrize = not edges.directed or entry.directed is False
    _say(progress, f"{key}: building CSR from {edges.num_records:,} records")
    stage.doing = "building the CSR"
    t2 = time.perf_counter()
    keep_weights = entry.weights and not entry.multiplicity and edges.weights is not None
    graph = build_csr(
        edges,
        symmetrize=symmetrize,
        self_loops=entry.self_loops,
        duplicates=entry.duplicates,  # parallel weighted edges keep the lightest weight
        keep_weights=keep_weights,
        name=key,
        report=lambda text: _say(progress, f"{key}: {text}"),
    )
    if keep_weights:
        graph.weights = narrow_ints(graph.weights)
    info = dict(edges.info)
    records = edges.num_records
    on_device = type(edges.src).__module__.startswith("cupy")
    del edges
    if on_device:  # the edge list and the build's cached blocks go back to the driver
        release_device(_gpu_module(gpu_xp))
    if graph.m == 0:
        dropped = " (all self-loops, which are dropped)" if records and entry.self_loops == "drop" else ""
        raise UserError(f"dataset '{key}': the graph has no edges after {records:,} records{dropped}; "
                        "nothing to traverse")
    times["build_s"] = time.perf_counter() - t2
    expected = compare_expected(key, graph.n, graph.m, entry.expected, progress)
    meta = {
        "kind": entry.kind,
        "source": source,
        "policy": {
            "symmetrize": symmetrize,
            "self_loops": entry.self_loops,
            "duplicates": entry.duplicates,
            "compact_ids": entry.compact_ids,
            "multiplicity": entry.multiplicity,
            "weights": graph.weights is not None,
        },
        "expected": expected,
        "input_info": plain_json(info, array_limit=64),
        "times": {k: round(v, 3) for k, v in times.items()},
        "entry": entry.to_dict(),
        "weights": build_record(entry, seed_used, graph.weights is not None),
    }
    t3 = time.perf_counter()
    stage.doing = "writing the cache"
    final = store.write_graph(key, graph, meta, data_dir)
    del graph
    _say(progress, f"{key}: cached in {final} ({time.perf_counter() - t3:.1f} s to write)")
    return store.load_graph(key, data_dir)


def check_host_fit(entry: DatasetEntry, key: str) -> None:
    """Refuse, before any download, a catalogue graph whose conversion (planned from its
    catalogue n and m: datasets/footprint.py) needs more host memory than is available."""
    from gpubfs_cli.datasets.footprint import download_of, footprint, human

    if entry.expected.n is None or entry.expected.m is None:
        return
    need = footprint(entry, entry.expected.n, entry.expected.m, download_of(entry, None)).host_bytes
    free = available_memory()
    if free is not None and need > free:
        raise UserError(f"dataset '{key}': its conversion needs about {human(need)} of host memory "
                        f"(n = {entry.expected.n:,}, m = {entry.expected.m:,}), {human(free)} is available; "
                        "nothing was downloaded")


def expand_multiplicity(edges: EdgeList, key: str) -> EdgeList:
    """Integer values as edge multiplicities (SuiteSparse multigraphs): entry (u, v, k) -> k edges."""
    if edges.weights is None:
        warn(f"{key}: the file carries no values, so multiplicities cannot be expanded")
        return edges
    counts = np.asarray(edges.weights)
    if counts.dtype.kind == "f":
        if not np.all(counts == np.round(counts)):
            raise UserError(f"dataset '{key}': multiplicity values must be whole numbers")
    counts = counts.astype(np.int64)
    if len(counts) and int(counts.min()) < 0:
        raise UserError(f"dataset '{key}': multiplicity values must not be negative")
    src = np.repeat(np.asarray(edges.src), counts)
    dst = np.repeat(np.asarray(edges.dst), counts)
    info = dict(edges.info, multiplicity_records=int(len(counts)))
    return EdgeList(src, dst, edges.n, edges.directed, None, info)


def compare_expected(key: str, n: int, m: int, exp: Expected, progress: bool = True) -> dict:
    """Differences from the paper's n and m; warns when one is off by more than 1%."""
    out = {"n": exp.n, "m": exp.m, "note": exp.note, "n_diff": None, "m_diff": None}
    for what, got, want in (("n", n, exp.n), ("m", m, exp.m)):
        if want is None:
            continue
        diff = got - want
        out[f"{what}_diff"] = diff
        if want and abs(diff) > TOLERANCE * want:
            src = f" ({exp.note})" if exp.note else ""
            warn(f"{key}: {what} = {got:,} but the paper lists {want:,}{src}: off by {diff:+,} ({diff / want:+.1%})")
    return out
