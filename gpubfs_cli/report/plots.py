"""`gpubfs report --plot DIR`: PNG and SVG figures (matplotlib, Agg backend).

- throughput: GTEPS (harmonic mean, best knob) per strategy per graph
- speedup: over cpu.sequential, paired by source
- frontier-GRAPH: Merrill's frontier plot (Fig. 3): vertex- and edge-frontier size per BFS
  iteration, from one sample's `frontier_vertices` / `frontier_edges` counters when the
  strategy recorded them, else recomputed on the CPU from the cached graph for one source
  (the logical frontiers do not depend on the strategy), else skipped with a note.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from gpubfs_cli.errors import UserError
from gpubfs_cli.report.aggregate import BASELINE, Aggregate
from gpubfs_cli.report.build import column_title
from gpubfs_cli.report.load import Results

FORMATS = ("png", "svg")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, out_dir: Path, stem: str) -> list[Path]:
    """Each format to a temporary name, renamed when complete."""
    written = []
    for fmt in FORMATS:
        final = out_dir / f"{stem}.{fmt}"
        tmp = out_dir / f".{stem}.tmp.{fmt}"
        try:
            fig.savefig(tmp, format=fmt, dpi=120, bbox_inches="tight",
                        metadata={"Date": None} if fmt == "svg" else None)
            os.replace(tmp, final)
        finally:
            if tmp.exists():
                tmp.unlink()
        written.append(final)
    return written


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _bars(agg: Aggregate, metric: str, columns, title: str, ylabel: str, out_dir: Path, stem: str):
    datasets = agg.datasets()
    values = np.full((len(columns), len(datasets)), np.nan)
    for i, (strategy, pred) in enumerate(columns):
        for j, ds in enumerate(datasets):
            group, _ = agg.best(ds, strategy, metric, pred)
            v = agg.value(group, metric) if group is not None else None
            if v is not None and v > 0:
                values[i, j] = v
    keep = np.isfinite(values).any(axis=1)  # strategies that failed everywhere draw nothing
    if not keep.any():
        return [], f"{stem}: no {metric} values to plot"
    columns = [c for c, k in zip(columns, keep, strict=True) if k]
    values = values[keep]
    plt = _pyplot()
    width = 0.8 / len(columns)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.25 * len(columns) * len(datasets) + 3), 4.5))
    x = np.arange(len(datasets))
    colors = plt.get_cmap("tab20").colors
    for i, col in enumerate(columns):
        ax.bar(x + (i - (len(columns) - 1) / 2) * width, values[i], width,
               label=column_title(*col), color=colors[i % len(colors)])
    finite = values[np.isfinite(values)]
    if finite.max() / finite.min() > 100:
        ax.set_yscale("log")
    if metric == "speedup":
        ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_xticks(x, datasets, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    try:
        return _save(fig, out_dir, stem), None
    finally:
        plt.close(fig)


def _counters_frontier(agg: Aggregate, dataset: str):
    for g in sorted(agg.groups, key=lambda g: not g.strategy.startswith("merrill.")):
        if g.dataset != dataset or g.status != "ok":
            continue
        for s in g.samples:
            fv, fe = s.counters.get("frontier_vertices"), s.counters.get("frontier_edges")
            if isinstance(fv, list) and isinstance(fe, list) and fv:
                return np.asarray(fv, dtype=float), np.asarray(fe, dtype=float), f"{g.strategy}, source {s.source}"
    return None


def frontier_from_graph(graph, source: int):
    """Logical frontiers of one BFS: vertices at each distance, and their out-degree sum."""
    from gpubfs_cli.traversal.baselines.sequential import sequential_bfs

    dist = np.asarray(sequential_bfs(graph, source).distances)
    reached = dist >= 0
    levels = dist[reached]
    deg = np.diff(np.asarray(graph.row_offsets))[reached]
    return np.bincount(levels).astype(float), np.bincount(levels, weights=deg).astype(float)


def _cached_frontier(results: Results, dataset: str, data_dir):
    try:
        from gpubfs_cli.datasets.store import is_cached, load_graph
    except ImportError:
        return None, "the dataset cache layer is not available"
    try:
        if not is_cached(dataset, data_dir):
            return None, "graph not in the dataset cache"
        graph = load_graph(dataset, data_dir)
    except Exception as exc:  # noqa: BLE001 - a plot is optional; say why it was skipped
        return None, f"cannot load the cached graph ({type(exc).__name__}: {exc})"
    n = (results.datasets.get(dataset) or {}).get("n")
    if n is not None and n != graph.n:
        return None, f"the cached graph has {graph.n} vertices, the results {n}"
    sources = results.sources.get(dataset) or [s.source for s in results.samples if s.dataset == dataset]
    if not sources:
        return None, "no source recorded"
    fv, fe = frontier_from_graph(graph, int(sources[0]))
    return (fv, fe, f"recomputed on the CPU, source {sources[0]}"), None


def _frontier_plot(fv, fe, dataset: str, what: str, out_dir: Path):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    it = np.arange(len(fv))
    ax.plot(np.arange(len(fe)), fe, label="edge frontier")
    ax.plot(it, fv, label="vertex frontier")
    ax.set_xlabel("BFS iteration")
    ax.set_ylabel("frontier size")
    ax.set_title(f"{dataset}: logical frontiers ({what})")
    ax.legend(fontsize="small")
    try:
        return _save(fig, out_dir, f"frontier-{safe_name(dataset)}")
    finally:
        plt.close(fig)


def write_plots(results: Results, out_dir: str | Path, data_dir=None) -> tuple[list[Path], list[str]]:
    """Write every figure; returns (files written, notes on what was skipped and why)."""
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{out_dir}: cannot create the plot folder ({exc.strerror})") from None
    agg = Aggregate(results)
    files: list[Path] = []
    notes: list[str] = []
    cols = agg.columns()
    for metric, stem, title, ylabel, columns in (
        ("gteps", "throughput", "Throughput per strategy", "GTEPS (harmonic mean)", cols),
        ("speedup", "speedup", f"Speedup over {BASELINE}", "speedup (x)",
         [c for c in cols if c[0] != BASELINE]),
    ):
        if not columns:
            notes.append(f"{stem}: no strategies to plot")
            continue
        written, note = _bars(agg, metric, columns, title, ylabel, out_dir, stem)
        files += written
        if note:
            notes.append(note)
    for ds in agg.datasets():
        found = _counters_frontier(agg, ds)
        if found is None:
            found, why = _cached_frontier(results, ds, data_dir)
            if found is None:
                notes.append(f"frontier-{ds}: skipped: {why}")
                continue
        fv, fe, what = found
        files += _frontier_plot(fv, fe, ds, what, out_dir)
    return files, notes
