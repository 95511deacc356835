"""What `gpubfs report` and `gpubfs list papers` do, so cli.py stays thin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.files import refuse_input
from gpubfs_cli.report.build import (
    check_counter,
    check_metric,
    check_teps,
    compare,
    overview,
    shorten_reasons,
    transpose,
)
from gpubfs_cli.report.collapse import collapse_unavailable
from gpubfs_cli.report.layouts import paper_document
from gpubfs_cli.report.load import latest_results, load_many
from gpubfs_cli.report.papers import load_all, load_paper
from gpubfs_cli.report.render import check_format
from gpubfs_cli.report.table import Document

ROWS = ("auto", "datasets", "strategies")


def make_report(
    files: list[Path] | None,
    *,
    metric: str = "ms",
    fmt: str = "table",
    paper: str | None = None,
    compare_files: tuple[Path, Path] | None = None,
    plot_dir: Path | None = None,
    rows: str = "auto",
    teps: str = "edges",
    fail_on_regression: float | None = None,
    min_change: float = 10.0,
    out: str | Path | None = None,
    force: bool = True,
) -> Document:
    """The document to render; plots (if asked) are written here and listed in its notes.

    `rows` orients the plain and --compare tables for table/md/html: datasets or
    strategies as rows; auto puts whichever is more numerous down the page. CSV and JSON
    keep datasets as rows. `teps` is the TEPS convention of every rate (edges |
    graph500). `fail_on_regression` (a percentage, --compare only) lists in
    `doc.data["regressions"]` the cells where B got slower beyond the noise;
    `min_change` (a percentage) is the smallest change --compare calls FASTER/SLOWER.
    `out`, the file the report will be written to, must not be one of its inputs; without
    `force`, figures are never written over files already in `plot_dir`."""
    check_metric(metric)
    check_format(fmt)
    check_teps(teps)
    if rows not in ROWS:
        raise unknown_name("--rows value", rows, ROWS)
    if fail_on_regression is not None:
        if compare_files is None:
            raise UserError("--fail-on-regression needs --compare BASE NEW")
        if not fail_on_regression >= 0:  # also refuses NaN
            raise UserError(f"--fail-on-regression: expected a percentage >= 0, got {fail_on_regression}")
    if not 0 <= min_change < 1e6:
        raise UserError(f"--min-change: expected a percentage >= 0, got {min_change}")
    if compare_files is not None:
        if paper is not None:
            raise UserError("--compare and --paper cannot be combined")
        if files:
            raise UserError("--compare takes its two files itself; give no other results files")
        if out is not None:
            refuse_input(out, compare_files)
        doc = compare(load_many([compare_files[0]]), load_many([compare_files[1]]), fail_on_regression,
                      min_change / 100)
        results = None
    else:
        paths = list(files) if files else [latest_results()]
        if out is not None:
            refuse_input(out, paths)
        results = load_many(paths)
        check_counter(metric, results)
        if paper is not None:
            doc = paper_document(load_paper(paper), results, teps)
        else:
            doc = overview(results, metric, teps)
    if fmt == "table":
        shorten_reasons(doc)
        if paper is None and compare_files is None:  # strategies are the columns of these tables
            for table in doc.tables:
                collapse_unavailable(table)
    if paper is None and fmt in ("table", "md", "html"):
        doc.tables = [_orient(t, rows) for t in doc.tables]
    if plot_dir is not None:
        if results is None:
            results = load_many(list(compare_files))
        from gpubfs_cli.report.plots import Palette, paper_plots, result_plots, save_plots

        palette = Palette.of(results)  # one colour per strategy on every figure
        plots, notes = result_plots(results, palette)
        if paper is not None:
            more, more_notes = paper_plots(load_paper(paper), doc.tables, palette)
            plots, notes = plots + more, notes + more_notes
        written = save_plots(plots, plot_dir, force=force)
        doc.notes.append(f"plots: {len(written)} files written to {plot_dir}")
        doc.notes += [f"plot {n}" for n in notes]
        doc.data["plots"] = [str(p) for p in written]
    if fmt == "html":  # the page also carries figures, environment, command, strategies
        from gpubfs_cli.report.html import attach_page

        attach_page(doc, results if results is not None else load_many(list(compare_files)),
                    load_paper(paper) if paper is not None else None)
    return doc


def _orient(table, rows: str):
    many_strategies = len(table.columns) - 1 > len(table.rows)
    if rows == "strategies" or (rows == "auto" and many_strategies):
        return transpose(table, "strategy")
    return table


def registered_strategies() -> dict[str, str] | None:
    """Registered name -> its paper key (every problem), or None when discovery fails (a
    module being written elsewhere must not break the listing)."""
    try:
        from gpubfs_cli.core.strategy import registry

        return {name: cls.paper for names in registry().values() for name, cls in names.items()}
    except Exception:  # noqa: BLE001
        return None


def papers_listing() -> list[dict[str, Any]]:
    """One entry per configs/papers/*.yaml: what `gpubfs list papers` shows."""
    registered = registered_strategies()
    rows = []
    for p in load_all():
        names = [s["name"] for s in p.strategies]
        ours = dict.fromkeys(n for n in names if registered is not None and n in registered)
        ours.update(dict.fromkeys(n for n, key in (registered or {}).items() if key == p.key))
        rows.append({
            "key": p.key,
            "title": p.title,
            "venue": p.venue,
            "hardware": p.hardware,
            "tables": [t.id for t in p.tables],
            "strategies": names,
            "implemented": list(ours),
            "not_implemented": [n for n in names if registered is not None and n not in registered],
            "registry_error": registered is None,
        })
    return rows
