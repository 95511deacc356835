"""The gpubfs command line: arguments in, calls into the layers, rendering out.

No logic lives here. Errors a user can cause (UserError) become one line on stderr
and exit code 2; see `user_errors`.
"""

from __future__ import annotations

import functools
import json
import sys

import typer
from rich.console import Console
from rich.table import Table

from gpubfs_cli.errors import UserError

app = typer.Typer(
    help="Reproduce the tables of five GPU BFS papers on today's GPUs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
list_app = typer.Typer(help="What exists: strategies, datasets, papers.", no_args_is_help=True)
app.add_typer(list_app, name="list")

console = Console()
err_console = Console(stderr=True, soft_wrap=True, highlight=False)


def user_errors(fn):
    """Turn a UserError into one line on stderr and exit code 2 (never a traceback)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            err_console.print(f"error: {exc}", markup=False)
            raise typer.Exit(exc.exit_code) from None

    return wrapper


# ---------------------------------------------------------------- list strategies
@list_app.command("strategies")
@user_errors
def list_strategies(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Every registered strategy: paper, section, device, knobs, availability here."""
    from gpubfs_cli.traversal.strategy import all_strategies, knobs_dict

    rows = []
    for name, cls in all_strategies().items():
        rows.append(
            {
                "name": name,
                "paper": cls.paper,
                "section": cls.section,
                "device": cls.device,
                "summary": cls.summary,
                "knobs": knobs_dict(cls.Knobs()),
                "unavailable": cls.unavailable_reason(),
            }
        )
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    table = Table(title="strategies")
    for col in ("name", "paper", "device", "knobs (defaults)", "here"):
        table.add_column(col)
    for r in rows:
        knobs = ", ".join(f"{k}={v}" for k, v in r["knobs"].items()) or "-"
        here = "yes" if r["unavailable"] is None else f"no: {r['unavailable']}"
        table.add_row(r["name"], r["paper"], r["device"], knobs, here)
    console.print(table)


# ---------------------------------------------------------------- report
@app.command("report")
@user_errors
def report(
    results: list[str] = typer.Argument(None, help="Results files (default: the newest in results/); several are pooled."),
    metric: str = typer.Option("ms", "--metric", help="ms (median), gteps (harmonic mean) or speedup (over cpu.sequential)."),
    fmt: str = typer.Option("table", "--format", help="table, md, csv, json or html."),
    out: str = typer.Option(None, "--out", help="Write the report to FILE instead of the terminal."),
    paper: str = typer.Option(None, "--paper", help="A paper's table layout, published | measured (gpubfs list papers)."),
    compare_files: tuple[str, str] = typer.Option(None, "--compare", help="A B: per-cell time ratio, marked only beyond the run-to-run spread."),
    plot: str = typer.Option(None, "--plot", help="Also write PNG and SVG figures to this folder."),
    directory: str = typer.Option(None, "--dir", help="Dataset cache, for frontier plots recomputed from a cached graph."),
) -> None:
    """Tables from results files: datasets x strategies, a paper's layout, or A vs B."""
    from pathlib import Path

    from gpubfs_cli.report.command import make_report
    from gpubfs_cli.report.render import print_rich, render, write_output

    doc = make_report(
        [Path(r) for r in results or []], metric=metric, fmt=fmt, paper=paper,
        compare_files=(Path(compare_files[0]), Path(compare_files[1])) if compare_files else None,
        plot_dir=Path(plot) if plot else None, data_dir=directory,
    )
    if out is None and fmt == "table":
        print_rich(doc, console)
        return
    text = render(doc, fmt)
    if out is None:
        sys.stdout.write(text)
        return
    write_output(out, text)
    err_console.print(f"wrote {out}", markup=False)


@list_app.command("papers")
@user_errors
def list_papers(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """The five papers: venue, hardware, tables reproduced, strategies implemented here."""
    from gpubfs_cli.report.command import papers_listing

    rows = papers_listing()
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    table = Table(title="papers")
    for col in ("key", "title / venue", "hardware", "tables", "strategies here"):
        table.add_column(col)
    for r in rows:
        done = ", ".join(r["implemented"]) or "-"
        if r["not_implemented"]:
            done += f" (not yet: {', '.join(r['not_implemented'])})"
        hw = f"GPU {r['hardware']['gpu']}\nCPU {r['hardware']['cpu']}"
        table.add_row(r["key"], f"{r['title']}\n{r['venue']}", hw, ", ".join(r["tables"]), done)
    console.print(table)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
