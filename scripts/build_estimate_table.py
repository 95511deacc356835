"""Build the table `gpubfs reproduce` estimates from, out of the shipped results files.

    python scripts/build_estimate_table.py            write gpubfs_cli/configs/estimates.yaml
        [--results DIR]   the shipped results files, one folder down (default docs/results)
        [--out PATH]      the table to write
        [--check]         write nothing; exit 1 when the table differs from a rebuild

The table holds what gpubfs_cli/workflows/history.py's estimate reads of those files (its
docstring says what and why), so an installed wheel, which carries no docs/, estimates as
a checkout does. Rebuild it whenever docs/results changes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gpubfs_cli.errors import UserError, exit_status  # noqa: E402
from gpubfs_cli.workflows import history  # noqa: E402


def build_text(results: Path) -> str:
    """The table's text, from the results files one folder below `results`."""
    files = history.results_files_below(results)
    if not files:
        raise UserError(f"{results}: no results files one folder down (*/*.json, */*.json.gz)")
    docs = history.read_docs(files)
    table = history.Shipped.of_docs(docs).table()
    text = history.table_text(table)
    import yaml

    if yaml.safe_load(text) != table:  # what is written must read back as built
        raise UserError("the table does not read back as built")
    return text


def write_or_check(results: Path, out: Path, check: bool) -> int:
    """Build the table from `results`; write it to `out`, or, with `check`, say whether
    `out` is that table (1 if not)."""
    text = build_text(results)
    if check:
        current = out.read_text(encoding="utf-8") if out.is_file() else None
        if current != text:
            print(f"{out}: stale; rebuild it: python scripts/build_estimate_table.py", file=sys.stderr)
            return 1
        print(f"{out}: up to date")
        return 0
    from gpubfs_cli.files import write_text_atomic

    write_text_atomic(out, text, "estimate table")
    shipped = history.load_shipped.__wrapped__(out)  # what was written must read back
    cells = sum(len(c) for c in shipped.by_model.values())
    print(f"{out}: {cells} cells of {len(shipped.by_model)} GPU models from {shipped.files} results files, "
          f"{len(text) / 1024:.0f} KB")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=history.shipped_dir(), help="the shipped results files' folder")
    ap.add_argument("--out", type=Path, default=None, help="the table (default: the package's)")
    ap.add_argument("--check", action="store_true", help="compare with a rebuild; write nothing")
    args = ap.parse_args(argv)
    out = args.out or history.table_path()
    return exit_status(lambda: write_or_check(args.results, out, args.check))


if __name__ == "__main__":
    sys.exit(main())
