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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
