"""The report's figures (matplotlib, no pyplot state): built here as `Plot`s, then
written by `gpubfs report --plot DIR` (PNG and SVG) or embedded by the HTML page (PNG).

- throughput: GTEPS (harmonic mean, best knob) per strategy per graph (per problem); a
  multi-GPU strategy has one bar per GPU count, as it has one column per count in tables
- speedup: over the problem's baseline (cpu.sequential for BFS), paired by source
- per-level: median microseconds per BFS level (time / (depth + 1)) per strategy per graph
- scaling-STRATEGY: a multi-GPU strategy measured at two GPU counts or more: GTEPS against
  the GPU count, one line per graph, do.bfs on one GPU as each graph's dashed reference
- PAPER-TABLE (with --paper): the figure a paper table's `plot` entry asks for, drawn
  from the measured cells of that table (bars, stacked bars, lines over a stat column)
- frontier-GRAPH: Merrill's frontier plot (Fig. 3): vertex- and edge-frontier size per BFS
  iteration, from one sample's `frontier_vertices` / `frontier_edges` counters when the
  strategy recorded them, else from the baseline's logical frontiers that the run stored
  in the dataset's entry (`frontier`), else skipped with a note. Plots read results
  files only: no graph is loaded and no BFS is run.

One look across them: a strategy has one colour in every figure of a report (`Palette`);
the series of one strategy within a figure (+pred, GPU counts, knob sets) share it and
differ by hatch or line style; a median's interquartile range is an error bar; a cell
without a number is marked where its bar would stand (`n/a`, or its failure), never
drawn as zero; a y axis whose values span more than LOG_SPAN is logarithmic.
"""

from __future__ import annotations

import importlib
import io
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gpubfs_cli.errors import UserError
from gpubfs_cli.files import atomic_output, refuse_existing
from gpubfs_cli.report.aggregate import Aggregate, ColumnKey, gpus_label
from gpubfs_cli.report.build import column_title
from gpubfs_cli.report.layouts import rendered_columns
from gpubfs_cli.report.load import Results
from gpubfs_cli.report.table import Cell

FORMATS = ("png", "svg")
LOG_SPAN = 30  # largest / smallest value above which a y axis is logarithmic
HATCHES = ("", "//", "..", "xx", "\\\\", "++")
LINE_STYLES = ("-", "--", ":", "-.")
REFERENCE = "do.bfs"  # the scaling figure's one-GPU reference


@dataclass
class Plot:
    """One built figure: `stem` names its files, `title` captions it in the HTML page."""

    stem: str
    title: str
    figure: object  # matplotlib.figure.Figure


def _matplotlib(module: str):
    """A matplotlib module: the plots extra installs it; without it, one line."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        why = "" if (exc.name or "").split(".")[0] == "matplotlib" else f" ({exc})"
        raise UserError(f"figures need matplotlib: pip install 'gpubfs[plots]'{why}") from None


def _figure(figsize):
    """A figure outside pyplot: nothing global to close, no open-figure limit."""
    fig = _matplotlib("matplotlib.figure").Figure(figsize=figsize)
    return fig, fig.subplots()


def _colors(name: str):
    return _matplotlib("matplotlib").colormaps[name].colors


class Palette:
    """One colour per strategy for every figure of a report: the report's strategies,
    sorted, take tab20's colours in turn (its ten hues first, then their light twins), so
    a strategy is the same colour in the throughput bars, the speedup bars and a paper's
    figure. A name the report does not hold (a paper column nothing measured) hashes
    into the palette."""

    def __init__(self, strategies: Iterable[str]):
        base = _colors("tab20")
        self.colors = [base[i] for i in range(0, len(base), 2)] + [base[i] for i in range(1, len(base), 2)]
        self._index = {name: i for i, name in enumerate(sorted(set(strategies)))}

    @classmethod
    def of(cls, results: Results) -> Palette:
        return cls(s.strategy for s in results.samples)

    def __call__(self, strategy: str | None):
        i = self._index.get(strategy) if strategy is not None else None
        if i is None:
            i = zlib.crc32((strategy or "").encode())
        return self.colors[i % len(self.colors)]


def _savefig(fig, target, fmt: str) -> None:
    fig.savefig(target, format=fmt, dpi=120, bbox_inches="tight",
                metadata={"Date": None} if fmt == "svg" else None)


def save_plot(plot: Plot, out_dir: Path, *, force: bool = True) -> list[Path]:
    """Each format to a temporary name, published whole (files.atomic_output: without
    `force`, a figure another command wrote there meanwhile is refused, not replaced)."""
    written = []
    for fmt in FORMATS:
        final = out_dir / f"{plot.stem}.{fmt}"
        with atomic_output(final, "figure", force=force, option="--plot folder", binary=True) as f:
            _savefig(plot.figure, f, fmt)
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
    return [f for p in plots for f in save_plot(p, out_dir, force=force)]


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
    ticker = _matplotlib("matplotlib.ticker")

    axis.set_major_locator(ticker.LogLocator(base=10))
    axis.set_major_formatter(ticker.FuncFormatter(_plain_tick))
    axis.set_minor_locator(ticker.LogLocator(base=10, subs=(2.0, 5.0)))
    few_decades = np.log10(high / low) <= 3
    axis.set_minor_formatter(ticker.FuncFormatter(_plain_tick) if few_decades else ticker.NullFormatter())


def scale_y(ax, values, log: bool | None = None, extent=()) -> bool:
    """A log y axis where `log` says so, or (None) where the positive values span more
    than LOG_SPAN; labelled by label_log_axis over the values and `extent` (error bars'
    ends). Returns whether the axis is logarithmic."""
    shown = np.asarray(values, dtype=float).ravel()
    shown = shown[np.isfinite(shown) & (shown > 0)]
    if log is None:
        log = bool(shown.size) and shown.max() / shown.min() > LOG_SPAN
    if not log or not shown.size:
        return False
    ax.set_yscale("log")
    ends = np.asarray(list(extent), dtype=float)
    ends = ends[np.isfinite(ends) & (ends > 0)]
    label_log_axis(ax.yaxis, min(shown.min(), *ends) if ends.size else shown.min(),
                   max(shown.max(), *ends) if ends.size else shown.max())
    return True


def safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def missing_text(cell: Cell | None) -> str:
    """What marks a cell without a number: `n/a` (no samples, no value), else its
    failure (`out-of-time`, `wrong-answer`, ...)."""
    if cell is None or cell.status in ("missing", "n/a", "ok", "partial"):
        return "n/a"
    return cell.status


def mark_missing(ax, x: float, text: str) -> None:
    """A cell without a number, where its bar would stand: its word, upright, at the foot
    of the axes (any scale), never a bar of height zero."""
    transforms = _matplotlib("matplotlib.transforms")
    ax.text(x, 0.01, text, transform=transforms.blended_transform_factory(ax.transData, ax.transAxes),
            rotation=90, ha="center", va="bottom", fontsize=6, color="0.35", gid="missing")


def _spreads(cells: list[Cell], values: np.ndarray) -> np.ndarray | None:
    """2 x n error-bar lengths below and above each value (its cell's low/high), or None
    when no cell has a spread."""
    if not any(c.low is not None for c in cells):
        return None
    err = np.zeros((2, len(cells)))
    for j, (c, v) in enumerate(zip(cells, values, strict=True)):
        if c.low is not None and np.isfinite(v):
            err[0, j], err[1, j] = max(v - c.low, 0.0), max(c.high - v, 0.0)
    return err


def _repeats(keys: list) -> list[int]:
    """Each series' index among the earlier series of the same strategy (its hatch or
    line style): the first is plain, the next ones differ."""
    seen: dict = {}
    out = []
    for k in keys:
        out.append(seen.get(k, 0))
        seen[k] = seen.get(k, 0) + 1
    return out


def draw_bars(ax, labels: list[str], series: list[tuple[str, str | None, list[Cell]]], palette: Palette) -> list:
    """Grouped bars: one group per label, one bar per series (its legend label, its
    strategy, its cells); each with its cells' interquartile ranges as error bars, each
    cell without a number marked. Returns the ends of the error bars (for the axis)."""
    width = 0.8 / max(len(series), 1)
    xs = np.arange(len(labels))
    ends = []
    for i, ((name, strategy, cells), repeat) in enumerate(zip(series, _repeats([s[1] for s in series]), strict=True)):
        x = xs + (i - (len(series) - 1) / 2) * width
        values = np.array([c.value if c.value is not None and c.status in ("ok", "partial") else np.nan
                           for c in cells], dtype=float)
        values[~(values > 0)] = np.nan  # a rate of 0 or a time of 0 is no bar either
        ok = np.isfinite(values)
        err = _spreads(cells, values)
        ax.bar(x[ok], values[ok], width, label=name, color=palette(strategy), hatch=HATCHES[repeat % len(HATCHES)],
               edgecolor="black", linewidth=0.3, yerr=None if err is None else err[:, ok],
               error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "0.2"})
        if err is not None:
            ends += list(values[ok] - err[0, ok]) + list(values[ok] + err[1, ok])
        for j in np.flatnonzero(~ok):
            mark_missing(ax, x[j], missing_text(cells[j]))
    ax.set_xticks(xs, labels, rotation=30, ha="right")
    return ends


def _bars(agg: Aggregate, metric: str, columns: list[ColumnKey], title: str, ylabel: str, stem: str,
          palette: Palette):
    datasets = agg.datasets()
    cells = [[agg.cell(ds, c.strategy, metric, c.predecessors, c.knobs) for ds in datasets] for c in columns]
    has = np.array([[c.value is not None and c.status in ("ok", "partial") and c.value > 0 for c in row]
                    for row in cells], dtype=bool).reshape(len(columns), len(datasets))
    keep = has.any(axis=1)  # strategies that failed everywhere draw nothing
    if not keep.any():
        return None, f"{stem}: no {metric} values to plot"
    # graphs with no samples at all (a graph the run never got to) are left out
    shown = [j for j, ds in enumerate(datasets)
             if has[:, j].any() or any(cells[i][j].status != "missing" for i in range(len(columns)))]
    series = [(column_title(c, agg.option_label), c.strategy, [cells[i][j] for j in shown])
              for i, c in enumerate(columns) if keep[i]]
    labels = [datasets[j] for j in shown]
    fig, ax = _figure((max(6.0, 0.25 * len(series) * len(labels) + 3), 4.5))
    ends = draw_bars(ax, labels, series, palette)
    scale_y(ax, [c.value for _, _, cs in series for c in cs if c.value is not None], extent=ends)
    if metric == "speedup":
        ax.axhline(1.0, color="gray", linewidth=0.8)
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


def _integer_ticks(axis) -> None:
    axis.set_major_locator(_matplotlib("matplotlib.ticker").MaxNLocator(integer=True))


def _frontier_plot(fv, fe, dataset: str, what: str) -> Plot:
    """Both frontiers on a log axis (the vertex frontier is often a hundredth of the edge
    frontier: a linear axis flattens it), levels as whole numbers; an empty frontier
    (size 0) is a gap, having no place on a log axis."""
    fig, ax = _figure((7, 4))
    fv = np.where(fv > 0, fv, np.nan)
    fe = np.where(fe > 0, fe, np.nan)
    small = len(fv) <= 60  # markers while they can be told apart
    ax.plot(np.arange(len(fe)), fe, label="edge frontier", marker="." if small else None)
    ax.plot(np.arange(len(fv)), fv, label="vertex frontier", marker="." if small else None)
    scale_y(ax, np.concatenate([fv, fe]), log=True)
    _integer_ticks(ax.xaxis)
    ax.set_xlabel("BFS iteration (level)")
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


def _numeric_gpus(gpus) -> bool:
    return isinstance(gpus, (int, float)) and not isinstance(gpus, bool)


def scaling_plots(agg: Aggregate) -> list[Plot]:
    """GTEPS against GPU count of each multi-GPU strategy (and option, vertex order)
    measured at two GPU counts or more: one line per graph (its best knob at each count),
    and do.bfs's best rate on that graph, one GPU, as a dashed line in the graph's colour.
    Lines stand for graphs here, so they take their colours from a palette of their own."""
    counts: dict[tuple, list] = {}
    for col in agg.columns():
        if _numeric_gpus(col.gpus):
            counts.setdefault((col.strategy, col.predecessors, col.reorder), []).append(col.gpus)
    plots = []
    graph_colors = _colors("Dark2")
    for (strategy, predecessors, reorder), gpus in counts.items():
        if len(gpus) < 2:
            continue
        base = ColumnKey(strategy, predecessors, None, reorder)
        name = column_title(base, agg.option_label)
        lines = []
        for ds in agg.datasets():
            points = [(n, agg.cell(ds, strategy, "gteps", predecessors, ColumnKey(*base[:2], n, reorder).knobs))
                      for n in gpus]
            points = [(n, c.value) for n, c in points if c.value is not None and c.status in ("ok", "partial")]
            if points:
                ref = agg.cell(ds, REFERENCE, "gteps", predecessors) if strategy != REFERENCE else None
                lines.append((ds, points, ref.value if ref is not None and ref.status == "ok" else None))
        if not lines:
            continue
        fig, ax = _figure((7, 4.5))
        values = []
        for k, (ds, points, ref) in enumerate(lines):
            color = graph_colors[k % len(graph_colors)]
            xs, ys = zip(*points, strict=True)
            ax.plot(xs, ys, marker="o", color=color, label=ds)
            values += ys
            if ref is not None:
                ax.axhline(ref, color=color, linestyle="--", linewidth=1.0, label=f"{REFERENCE}, 1 GPU: {ds}")
                values.append(ref)
        ax.set_xticks(sorted(gpus), [gpus_label(n) for n in sorted(gpus)])
        ax.set_xlim(min(gpus) - 0.3, max(gpus) + 0.3)
        scale_y(ax, values)
        ax.set_xlabel("GPUs")
        ax.set_ylabel("GTEPS (harmonic mean over sources)")
        title = f"{name}: GTEPS against GPU count (dashed: {REFERENCE} on one GPU)"
        ax.set_title(title, fontsize="small")
        ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
        stem = "scaling-" + safe_name(strategy) + ("-pred" if predecessors else "") + (
            f"-{safe_name(str(reorder))}" if reorder is not None else "")
        plots.append(Plot(stem, title, fig))
    return plots


def result_plots(results: Results, palette: Palette | None = None) -> tuple[list[Plot], list[str]]:
    """Every figure of a pool of results; returns (plots, notes on what was skipped and why).
    `palette`: the report's strategy colours (default: those of `results`)."""
    palette = palette or Palette.of(results)
    plots: list[Plot] = []
    notes: list[str] = []
    for problem in results.problem_keys() or ["bfs"]:
        agg = Aggregate(results, problem)
        cols = agg.columns()
        tag = "" if problem == "bfs" else f"-{problem}"
        what = "" if problem == "bfs" else f" ({problem.upper()})"
        bars = [
            ("gteps", "throughput" + tag, "Throughput per strategy" + what, "GTEPS (harmonic mean)", cols),
            ("speedup", "speedup" + tag, f"Speedup over {agg.baseline_name}" + what,
             "speedup (x): median of per-source ratios [q25-q75]",
             [c for c in cols if c.strategy != agg.baseline_name]),
        ]
        if problem == "bfs":  # levels are BFS depths
            bars.append(("us_level", "per-level", "Time per BFS level: time / (depth + 1)",
                         "us per level (median [q25-q75])", cols))
        for metric, stem, title, ylabel, columns in bars:
            if not columns:
                notes.append(f"{stem}: no strategies to plot")
                continue
            plot, note = _bars(agg, metric, columns, title, ylabel, stem, palette)
            if plot is not None:
                plots.append(plot)
            if note:
                notes.append(note)
        plots += [replace_stem(p, tag) for p in scaling_plots(agg)]
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


def replace_stem(plot: Plot, tag: str) -> Plot:
    """The problem's tag after a figure's stem (`-sssp`; nothing for BFS)."""
    return Plot(plot.stem + tag, plot.title, plot.figure) if tag else plot


def write_plots(results: Results, out_dir: str | Path) -> tuple[list[Path], list[str]]:
    """Write every figure; returns (files written, notes on what was skipped and why)."""
    plots, notes = result_plots(results)
    return save_plots(plots, out_dir), notes


def _measured(cell: Cell) -> bool:
    return cell.value is not None and bool(np.isfinite(cell.value)) and cell.status in ("ok", "partial")


def _cell_values(table, columns) -> np.ndarray:
    """rows x columns of the measured cell values (nan where failed or missing)."""
    out = np.full((len(table.rows), len(columns)), np.nan)
    for i, row in enumerate(table.rows):
        for j, cell in enumerate(row[1:]):
            if _measured(cell):
                out[i, j] = cell.value
    return out


def paper_table_plot(paper_key: str, pt, table, palette: Palette | None = None) -> tuple[Plot | None, str | None]:
    """The figure of one paper table (pt.plot) from its measured Table (whose columns
    may split a paper column by GPU count: each split column is a series of its own).
    Rows nothing was measured on are left out (the note names them); a cell without a
    number in a drawn row is marked."""
    stem = f"{paper_key}-{pt.id}"
    spec = pt.plot
    columns = rendered_columns(pt, table)
    palette = palette or Palette(c.strategy for c in columns if c.strategy)
    values = _cell_values(table, columns)
    series = [j for j, c in enumerate(columns) if c.strategy is not None]
    if not np.isfinite(values[:, series]).any():
        return None, f"{stem}: no measured values to plot"
    # columns and rows with no samples at all are left out, and named in the note
    unmeasured = [j for j in series if all(r[j + 1].status == "missing" for r in table.rows)]
    series = [j for j in series if j not in unmeasured]
    drawn = [i for i, row in enumerate(table.rows) if any(row[j + 1].status != "missing" for j in series)]
    left_out = [table.rows[i][0].text for i in range(len(table.rows)) if i not in drawn]
    gaps = [f"no samples on {', '.join(left_out)}"] if left_out else []
    gaps += [f"none of {', '.join(columns[j].header for j in unmeasured)}"] if unmeasured else []
    note = f"{stem}: {'; '.join(gaps)}: left out of the figure" if gaps else None
    rows = [table.rows[i] for i in drawn]
    values = values[drawn]
    labels = [r[0].text for r in rows]
    fig, ax = _figure((max(6.0, 0.9 * len(labels) + 3), 4.5))
    ends: list = []
    if spec["kind"] == "lines":
        xcol = next(j for j, c in enumerate(columns) if c.key == spec["x"])
        x = values[:, xcol]
        placed = np.isfinite(x)
        order = np.argsort(x[placed])
        for j, repeat in zip(series, _repeats([columns[j].strategy for j in series]), strict=True):
            y = values[placed, j][order]
            if np.isfinite(y).any():  # a missing point is a gap in its line, never a 0
                ax.plot(x[placed][order], y, marker="o", label=columns[j].header,
                        color=palette(columns[j].strategy), linestyle=LINE_STYLES[repeat % len(LINE_STYLES)])
                cells = [rows[i][j + 1] for i in np.flatnonzero(placed)[order]]
                err = _spreads(cells, y)
                if err is not None:
                    ok = np.isfinite(y)
                    ax.errorbar(x[placed][order][ok], y[ok], yerr=err[:, ok], fmt="none",
                                ecolor=palette(columns[j].strategy), elinewidth=0.8, capsize=2)
                    ends += list(y[ok] - err[0, ok]) + list(y[ok] + err[1, ok])
        ax.set_xscale("log", base=2)
        ax.set_xlabel(columns[xcol].header)
    elif spec["kind"] == "stacked":
        stacks = list(dict.fromkeys(columns[j].stack or columns[j].header for j in series))
        width = 0.8 / len(stacks)
        xs = np.arange(len(labels))
        for k, name in enumerate(stacks):
            members = [j for j in series if (columns[j].stack or columns[j].header) == name]
            x = xs + (k - (len(stacks) - 1) / 2) * width
            bottom = np.zeros(len(labels))
            for h, j in enumerate(members):
                v = values[:, j]
                ok = np.isfinite(v)
                ax.bar(x[ok], v[ok], width, bottom=bottom[ok], label=columns[j].header,
                       color=palette(columns[j].strategy), hatch=HATCHES[h % len(HATCHES)], edgecolor="black",
                       linewidth=0.3)
                bottom += np.nan_to_num(v)
            for i in range(len(labels)):
                if not np.isfinite(values[i, members]).any():
                    mark_missing(ax, x[i], missing_text(rows[i][members[0] + 1]))
        ax.set_xticks(xs, labels, rotation=30, ha="right")
    else:
        ends = draw_bars(ax, labels, [(columns[j].header, columns[j].strategy, [r[j + 1] for r in rows])
                                      for j in series], palette)
    shown = values[:, series]
    if spec["kind"] == "stacked":  # the axis holds the stacks' totals
        totals = {}
        for j in series:
            key = columns[j].stack or columns[j].header
            totals[key] = totals.get(key, 0) + np.nan_to_num(values[:, j])
        shown = np.array(list(totals.values()))
    scale_y(ax, shown, spec.get("log"), ends)
    ax.set_ylabel(spec.get("ylabel", ""))
    ax.set_title(pt.title, fontsize="small")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return Plot(stem, pt.title, fig), note


def paper_plots(paper, tables, palette: Palette | None = None) -> tuple[list[Plot], list[str]]:
    """The figures of every paper table with a `plot` entry; `tables` are the rendered
    tables of paper_document, in the paper's table order; `palette`: the report's
    strategy colours (result_plots' own, so both agree)."""
    plots, notes = [], []
    if palette is None:
        palette = Palette(c.strategy for t in paper.tables for c in t.columns if c.strategy)
    for pt, table in zip(paper.tables, tables, strict=True):
        if pt.plot:
            plot, note = paper_table_plot(paper.key, pt, table, palette)
            if plot is not None:
                plots.append(plot)
            if note:
                notes.append(note)
    return plots, notes


def write_paper_plots(paper, tables, out_dir: str | Path,
                      palette: Palette | None = None) -> tuple[list[Path], list[str]]:
    plots, notes = paper_plots(paper, tables, palette)
    return save_plots(plots, out_dir), notes
