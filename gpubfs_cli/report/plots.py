"""The report's figures (matplotlib, no pyplot state): built here as `Plot`s, then
written by `gpubfs report --plot DIR` (PNG and SVG) or embedded by the HTML page (PNG).

- throughput: GTEPS (harmonic mean, best knob) per strategy per graph (per problem); a
  multi-GPU strategy has one bar per GPU count, as it has one column per count in tables
- speedup: over the problem's baseline (cpu.sequential for BFS), paired by source
- per-level: median microseconds per BFS level (time / (depth + 1)) per strategy per graph
- PAPER-TABLE (with --paper): the figure a paper table's `plot` entry asks for, drawn
  from the measured cells of that table (bars, stacked bars, lines over a stat column)
- frontier-GRAPH: Merrill's frontier plot (Fig. 3): vertex- and edge-frontier size per BFS
  iteration, from one sample's `frontier_vertices` / `frontier_edges` counters when the
  strategy recorded them, else from the baseline's logical frontiers that the run stored
  in the dataset's entry (`frontier`), else skipped with a note. Plots read results
  files only: no graph is loaded and no BFS is run.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubfs_cli.errors import UserError
from gpubfs_cli.files import refuse_existing
from gpubfs_cli.report.aggregate import Aggregate
from gpubfs_cli.report.build import column_title
from gpubfs_cli.report.layouts import rendered_columns
from gpubfs_cli.report.load import Results

FORMATS = ("png", "svg")


@dataclass
class Plot:
    """One built figure: `stem` names its files, `title` captions it in the HTML page."""

    stem: str
    title: str
    figure: object  # matplotlib.figure.Figure


def _figure(figsize):
    """A figure outside pyplot: nothing global to close, no open-figure limit."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.subplots()


def _colors(name: str):
    import matplotlib

    return matplotlib.colormaps[name].colors


def _savefig(fig, target, fmt: str) -> None:
    fig.savefig(target, format=fmt, dpi=120, bbox_inches="tight",
                metadata={"Date": None} if fmt == "svg" else None)


def save_plot(plot: Plot, out_dir: Path) -> list[Path]:
    """Each format to a temporary name, renamed when complete."""
    written = []
    for fmt in FORMATS:
        final = out_dir / f"{plot.stem}.{fmt}"
        tmp = out_dir / f".{plot.stem}.tmp.{fmt}"
        try:
            _savefig(plot.figure, tmp, fmt)
            os.replace(tmp, final)
        except OSError as exc:  # a full disk, a folder that refuses files
            raise UserError(f"{final}: cannot write the figure ({exc.strerror or exc})") from None
        finally:
            if tmp.exists():
                tmp.unlink()
        written.append(final)
    return written


def save_plots(plots: list[Plot], out_dir: str | Path, *, force: bool = True) -> list[Path]:
    """Every figure to `out_dir`; without `force`, refused before any is written when one
    would replace a file there (the rule of every output a user names)."""
    out_dir = _make_dir(out_dir)
    if not force:
        for plot in plots:
            for fmt in FORMATS:
                refuse_existing(out_dir / f"{plot.stem}.{fmt}", "--plot folder")
    return [f for p in plots for f in save_plot(p, out_dir)]


def png_bytes(plot: Plot) -> bytes:
    buf = io.BytesIO()
    _savefig(plot.figure, buf, "png")
    return buf.getvalue()


def _plain_tick(value: float, _pos=None) -> str:
    """0.06, 0.2, 1, 50, 1e+06: plain digits where they are short."""
    return f"{value:g}"


def label_log_axis(axis, low: float, high: float) -> None:
    """Label every decade of a log axis, and the 2s and 5s between when the data spans
    at most three decades; matplotlib's default leaves minor ticks below 1 unlabelled."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10))
    axis.set_major_formatter(FuncFormatter(_plain_tick))
    axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))
    few_decades = np.log10(high / low) <= 3
    axis.set_minor_formatter(FuncFormatter(_plain_tick) if few_decades else NullFormatter())


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _bars(agg: Aggregate, metric: str, columns, title: str, ylabel: str, stem: str):
    datasets = agg.datasets()
    values = np.full((len(columns), len(datasets)), np.nan)
    for i, col in enumerate(columns):
        for j, ds in enumerate(datasets):
            group, _ = agg.best(ds, col.strategy, metric, col.predecessors, col.knobs)
            v = agg.value(group, metric) if group is not None else None
            if v is not None and v > 0:
                values[i, j] = v
    keep = np.isfinite(values).any(axis=1)  # strategies that failed everywhere draw nothing
    if not keep.any():
        return None, f"{stem}: no {metric} values to plot"
    columns = [c for c, k in zip(columns, keep, strict=True) if k]
    values = values[keep]
    width = 0.8 / len(columns)
    fig, ax = _figure((max(6.0, 0.25 * len(columns) * len(datasets) + 3), 4.5))
    x = np.arange(len(datasets))
    colors = _colors("tab20")
    for i, col in enumerate(columns):
        ax.bar(x + (i - (len(columns) - 1) / 2) * width, values[i], width,
               label=column_title(col, agg.option_label), color=colors[i % len(colors)])
    finite = values[np.isfinite(values)]
    if finite.max() / finite.min() > 100:
        ax.set_yscale("log")
        label_log_axis(ax.yaxis, finite.min(), finite.max())
    if metric == "speedup":
        ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_xticks(x, datasets, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return Plot(stem, title, fig), None


def _counters_frontier(agg: Aggregate, dataset: str):
    for g in sorted(agg.groups, key=lambda g: not g.strategy.startswith("merrill.")):
        if g.dataset != dataset or g.status != "ok":
            continue
        for s in g.samples:
            fv, fe = s.counters.get("frontier_vertices"), s.counters.get("frontier_edges")
            if isinstance(fv, list) and isinstance(fe, list) and fv:
                return np.asarray(fv, dtype=float), np.asarray(fe, dtype=float), f"{g.strategy}, source {s.source}"
    return None


def _recorded_frontier(results: Results, dataset: str):
    """The baseline's logical frontiers, stored by the run in the dataset's entry."""
    entry = (results.datasets.get(dataset) or {}).get("frontier")
    if not isinstance(entry, dict) or not entry.get("vertices"):
        return None, "no frontier recorded (the run validated nothing, or predates frontiers)"
    fv = np.asarray(entry["vertices"], dtype=float)
    fe = np.asarray(entry["edges"], dtype=float)
    return (fv, fe, f"{entry.get('by', 'baseline')}, source {entry.get('source')}"), None


def _frontier_plot(fv, fe, dataset: str, what: str) -> Plot:
    fig, ax = _figure((7, 4))
    it = np.arange(len(fv))
    ax.plot(np.arange(len(fe)), fe, label="edge frontier")
    ax.plot(it, fv, label="vertex frontier")
    ax.set_xlabel("BFS iteration")
    ax.set_ylabel("frontier size")
    title = f"{dataset}: logical frontiers ({what})"
    ax.set_title(title)
    ax.legend(fontsize="small")
    return Plot(f"frontier-{safe_name(dataset)}", title, fig)


def _make_dir(out_dir: str | Path) -> Path:
    out_dir = Path(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{out_dir}: cannot create the plot folder ({exc.strerror})") from None
    return out_dir


def result_plots(results: Results) -> tuple[list[Plot], list[str]]:
    """Every figure of a pool of results; returns (plots, notes on what was skipped and why)."""
    plots: list[Plot] = []
    notes: list[str] = []
    for problem in results.problem_keys() or ["bfs"]:
        agg = Aggregate(results, problem)
        cols = agg.columns()
        tag = "" if problem == "bfs" else f"-{problem}"
        what = "" if problem == "bfs" else f" ({problem.upper()})"
        bars = [
            ("gteps", "throughput" + tag, "Throughput per strategy" + what, "GTEPS (harmonic mean)", cols),
            ("speedup", "speedup" + tag, f"Speedup over {agg.baseline_name}" + what, "speedup (x)",
             [c for c in cols if c.strategy != agg.baseline_name]),
        ]
        if problem == "bfs":  # levels are BFS depths
            bars.append(("us_level", "per-level", "Cost per BFS level", "us per level (median)", cols))
        for metric, stem, title, ylabel, columns in bars:
            if not columns:
                notes.append(f"{stem}: no strategies to plot")
                continue
            plot, note = _bars(agg, metric, columns, title, ylabel, stem)
            if plot is not None:
                plots.append(plot)
            if note:
                notes.append(note)
    agg = Aggregate(results, "bfs")
    for ds in agg.datasets():
        found = _counters_frontier(agg, ds)
        if found is None:
            found, why = _recorded_frontier(results, ds)
            if found is None:
                notes.append(f"frontier-{ds}: skipped: {why}")
                continue
        fv, fe, what = found
        plots.append(_frontier_plot(fv, fe, ds, what))
    return plots, notes


def write_plots(results: Results, out_dir: str | Path) -> tuple[list[Path], list[str]]:
    """Write every figure; returns (files written, notes on what was skipped and why)."""
    plots, notes = result_plots(results)
    return save_plots(plots, out_dir), notes


def _cell_values(table, columns) -> np.ndarray:
    """rows x columns of the measured cell values (nan where failed or missing)."""
    out = np.full((len(table.rows), len(columns)), np.nan)
    for i, row in enumerate(table.rows):
        for j, cell in enumerate(row[1:]):
            if cell.value is not None and np.isfinite(cell.value):
                out[i, j] = cell.value
    return out


def paper_table_plot(paper_key: str, pt, table) -> tuple[Plot | None, str | None]:
    """The figure of one paper table (pt.plot) from its measured Table (whose columns
    may split a paper column by GPU count: each split column is a series of its own)."""
    stem = f"{paper_key}-{pt.id}"
    spec = pt.plot
    columns = rendered_columns(pt, table)
    values = _cell_values(table, columns)
    series = [j for j, c in enumerate(columns) if c.strategy is not None]
    if not np.isfinite(values[:, series]).any():
        return None, f"{stem}: no measured values to plot"
    labels = [r[0].text for r in table.rows]
    colors = _colors("tab10")
    fig, ax = _figure((max(6.0, 0.9 * len(labels) + 3), 4.5))
    if spec["kind"] == "lines":
        xcol = next(j for j, c in enumerate(columns) if c.key == spec["x"])
        x = values[:, xcol]
        for k, j in enumerate(series):
            ok = np.isfinite(x) & np.isfinite(values[:, j])
            if ok.any():
                order = np.argsort(x[ok])
                ax.plot(x[ok][order], values[ok, j][order], marker="o", label=columns[j].header,
                        color=colors[k % len(colors)])
        ax.set_xscale("log", base=2)
        ax.set_xlabel(columns[xcol].header)
    else:
        stacks = (list(dict.fromkeys(columns[j].stack or columns[j].header for j in series))
                  if spec["kind"] == "stacked" else [columns[j].header for j in series])
        width = 0.8 / len(stacks)
        xs = np.arange(len(labels))
        hatches = ["", "//", "..", "xx"]
        for k, name in enumerate(stacks):
            members = [j for j in series if (columns[j].stack or columns[j].header) == name] \
                if spec["kind"] == "stacked" else [series[k]]
            bottom = np.zeros(len(labels))
            for h, j in enumerate(members):
                v = np.nan_to_num(values[:, j])
                seg = columns[j].header
                ax.bar(xs + (k - (len(stacks) - 1) / 2) * width, v, width, bottom=bottom, label=seg,
                       color=colors[k % len(colors)], hatch=hatches[h % len(hatches)], edgecolor="black",
                       linewidth=0.3)
                bottom += v
        ax.set_xticks(xs, labels, rotation=30, ha="right")
    if spec.get("log"):
        ax.set_yscale("log")
        shown = values[:, series][np.isfinite(values[:, series]) & (values[:, series] > 0)]
        if shown.size:
            label_log_axis(ax.yaxis, shown.min(), shown.max())
    ax.set_ylabel(spec.get("ylabel", ""))
    ax.set_title(pt.title, fontsize="small")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return Plot(stem, pt.title, fig), None


def paper_plots(paper, tables) -> tuple[list[Plot], list[str]]:
    """The figures of every paper table with a `plot` entry; `tables` are the rendered
    tables of paper_document, in the paper's table order."""
    plots, notes = [], []
    for pt, table in zip(paper.tables, tables, strict=True):
        if pt.plot:
            plot, note = paper_table_plot(paper.key, pt, table)
            if plot is not None:
                plots.append(plot)
            if note:
                notes.append(note)
    return plots, notes


def write_paper_plots(paper, tables, out_dir: str | Path) -> tuple[list[Path], list[str]]:
    plots, notes = paper_plots(paper, tables)
    return save_plots(plots, out_dir), notes
