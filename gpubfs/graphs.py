"""gpubfs.load_graph: a graph from the catalogue, the cache or a file of your own, by the
dataset layer's own path (what `gpubfs fetch-dataset` runs)."""

from __future__ import annotations

import os
from pathlib import Path


def load_graph(name_or_path: str | os.PathLike, *, format: str | None = None, data_dir: str | os.PathLike | None = None,
               name: str | None = None, undirected: bool = False, compact_ids: bool = False):
    """The CSR graph (gpubfs_cli.graph.csr.CSRGraph: row_offsets, col_indices, weights or
    None, n, m, directed, name), its arrays memory-mapped from the dataset cache.

    - A catalogue name or alias (`gpubfs list datasets`), or a graph already cached:
      fetched or generated into the cache first when it is not there, as `gpubfs
      fetch-dataset NAME` does.
    - With `format` (dimacs9, metis, snap, mtx, gtgraph): a graph file of your own, read
      and cached as `gpubfs fetch-dataset NAME --file PATH --format FORMAT` does, under
      `name` (default: the file name up to its first dot). Later calls, and `gpubfs.run`
      configs, find it there by that name. `undirected` and `compact_ids` are
      fetch-dataset's --undirected and --compact-ids.

    `data_dir` is the dataset cache (default: $GPUBFS_DATA_DIR, else what `gpubfs info`
    names). Bad input is a UserError of one line."""
    from gpubfs_cli.errors import UserError

    text = os.fspath(name_or_path) if isinstance(name_or_path, (str, os.PathLike)) else None
    if not isinstance(text, str):
        raise UserError(f"load_graph: expected a dataset name or a file path, got {name_or_path!r}")
    directory = None if data_dir is None else os.fspath(data_dir)
    if format is not None:
        from gpubfs_cli.datasets.prepare import add_user_dataset

        key = name if name is not None else Path(text).name.split(".")[0]
        return add_user_dataset(key, format, file=text, undirected=undirected, compact_ids=compact_ids,
                                data_dir=directory)
    if name is not None or undirected or compact_ids:
        raise UserError("load_graph: name, undirected and compact_ids apply only to a file read with format=")
    from gpubfs_cli.datasets import store
    from gpubfs_cli.datasets.catalogue import FORMATS, load_catalogue
    from gpubfs_cli.datasets.prepare import ensure_dataset
    from gpubfs_cli.gpu.backend import cupy_if_usable

    if (Path(text).is_file() and load_catalogue().resolve(text) is None
            and not (store.valid_key(text) and store.is_cached(text, directory))):
        raise UserError(f"{text}: a graph file needs its format: load_graph({text!r}, format=...) "
                        f"with one of {', '.join(FORMATS)}")
    return ensure_dataset(text, directory, gpu_xp=cupy_if_usable)
