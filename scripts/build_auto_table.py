"""Build a decision table of auto.bfs or auto.sssp from results files, or check auto against the fastest.

    python scripts/build_auto_table.py RESULTS.json...            write the table
        [--problem P]     bfs (auto.bfs's, the default) or sssp (auto.sssp's); every mode
                          reads that problem's samples and its table
        [--out PATH]      (default gpubfs_cli/algorithms/P/auto_table.yaml)
    python scripts/build_auto_table.py --check RESULTS.json...    per graph: auto's choice,
        [--table PATH]    the fastest strategy and the ratio; exit 1 when auto trails the
                          fastest by more than 10% anywhere. With auto.bfs's own run,
                          `choice` is the chosen strategy's own group over the fastest
                          (the same code measured apart from auto's run);
        [--table-only]    the table's choice as measured, auto's own samples left aside
    python scripts/build_auto_table.py --contenders RESULTS.json...   each candidate's
        [--within R]      lowest ratio to the fastest and where; those within R (1.5) of it
                          somewhere are the ones a rebuilt table could still name

The results files are those of a catalogue run (gpubfs_cli/configs/experiments/catalogue-gpu.yaml:
every GPU strategy on every generated catalogue graph, validated, so each graph's depth
is recorded; auto.sssp's: the sssp-auto study, studies/sssp-auto.yaml). Each graph's fastest strategy is the lowest median; the rules and the pool
of candidates are described in gpubfs_cli/workflows/auto_table.py. --check uses
auto.bfs's own samples where the files have them (a run of auto.bfs beside the others),
else the table's choice as measured in the files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gpubfs_cli.algorithms.bfs.gpu.auto.table import SHIPPED_TABLES, load_table  # noqa: E402
from gpubfs_cli.core.knobs import knobs_key  # noqa: E402
from gpubfs_cli.errors import UserError, exit_status  # noqa: E402
from gpubfs_cli.workflows import auto_table  # noqa: E402


def shown(path) -> str:
    """A path as the reader typed it: relative where it lies under the working directory."""
    path = Path(path).resolve()
    return str(path.relative_to(Path.cwd())) if path.is_relative_to(Path.cwd()) else str(path)


def build(paths: list[str], out: Path, problem: str = "bfs") -> int:
    from gpubfs_cli.files import write_text_atomic

    doc = auto_table.build_table(auto_table.measured(paths, problem))
    write_text_atomic(out, auto_table.table_text(doc), "decision table")
    load_table(out, problem=problem)  # what was written must read back
    print(f"{shown(out)}: {len(doc['rules'])} rules from {len(paths)} results files ({doc['machine']['gpu']})")
    for rule in doc["rules"]:
        runner = rule["runner_up"]
        behind = f"{runner['strategy']} {runner['ms']:.4g} ms" if runner else "-"
        print(f"  {rule['graph']:<26} {rule['strategy']:<30} {rule['ms']:>9.4g} ms   runner-up {behind}")
    return 0


def short(choice: str, problem: str = "bfs") -> str:
    """`strategy {knobs}` as the strategy and the knobs that differ from its defaults."""
    import json

    from gpubfs_cli.core.strategy import get_strategy, knobs_dict, make_knobs

    name, _, text = choice.partition(" ")
    try:
        knobs, defaults = json.loads(text), knobs_dict(make_knobs(get_strategy(name, problem), {}))
    except (ValueError, UserError):
        return choice  # not a strategy and its knobs (e.g. "-", or a table's "as on" line)
    changed = {k: v for k, v in knobs.items() if defaults.get(k) != v}
    return f"{name} {knobs_key(changed)}" if changed else name


def check(paths: list[str], table_path: str | None, tolerance: float, table_only: bool = False,
          problem: str = "bfs") -> int:
    table = load_table(table_path, problem=problem)
    measured = auto_table.measured(paths, problem)
    if table_only:
        measured.auto.clear()
    verdicts = auto_table.check(measured, table, tolerance)
    print(f"{'graph':<26} {'from':<9} {'auto chose':<44} {'fastest':<38} ratio  choice  verdict")
    for v in verdicts:
        ratio = f"{v.ratio:.3f}" if v.ratio is not None else "-"
        choice = f"{v.choice_ratio:.3f}" if v.choice_ratio is not None else "-"
        verdict = "ok" if v.ok else "FAIL"
        print(f"{v.graph:<26} {v.how:<9} {short(v.choice, problem):<44} {v.fastest:<38} {ratio:>5}  {choice:>6}  {verdict}"
              + (f" ({v.note})" if v.note else ""))
    failed = [v for v in verdicts if not v.ok]
    print(f"{len(verdicts) - len(failed)} of {len(verdicts)} graphs within {tolerance:.0%} of the fastest"
          f" (table {shown(table.path)})")
    return 1 if failed else 0


def contenders(paths: list[str], within: float, problem: str = "bfs") -> int:
    rows = auto_table.closest_ratios(auto_table.measured(paths, problem))
    varied: dict[str, set] = {}  # a strategy's knobs that differ between its candidates
    for c in rows:
        for other in rows:
            if other.strategy == c.strategy:
                varied.setdefault(c.strategy, set()).update(k for k in c.knobs if c.knobs[k] != other.knobs.get(k))
    print(f"{'candidate':<44} {'closest':>7}  {'on':<26} graphs")
    for c in rows:
        shown = {k: c.knobs[k] for k in sorted(varied[c.strategy])}
        name = f"{c.strategy} {knobs_key(shown) if shown else ''}".strip()
        print(f"{name:<44} {c.ratio:>7.3f}  {c.graph:<26} {c.graphs}")
    near = sum(c.ratio <= within for c in rows)
    print(f"{near} of {len(rows)} candidates within {within:g}x of the fastest on some graph")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results files of a catalogue run")
    ap.add_argument("--check", action="store_true", help="compare auto with the fastest instead of building")
    ap.add_argument("--problem", choices=sorted(SHIPPED_TABLES), default="bfs",
                    help="whose table: auto.bfs's (bfs) or auto.sssp's (sssp)")
    ap.add_argument("--out", type=Path, default=None, help="the table to write (default: the problem's shipped one)")
    ap.add_argument("--table", default=None, help="the table --check looks choices up in (default: shipped)")
    ap.add_argument("--table-only", action="store_true",
                    help="with --check: judge the table's choice (looked up from each graph's recorded "
                         "features) as measured in the files, leaving auto.bfs's own samples aside")
    ap.add_argument("--contenders", action="store_true",
                    help="list each candidate's lowest ratio to the fastest instead of building")
    ap.add_argument("--within", type=float, default=1.5, help="with --contenders: the ratio that counts as close")
    ap.add_argument("--tolerance", type=float, default=auto_table.TOLERANCE, help="allowed share behind (0.10)")
    args = ap.parse_args(argv)

    def run() -> int:
        if args.contenders:
            return contenders(args.results, args.within, args.problem)
        if args.check:
            return check(args.results, args.table, args.tolerance, args.table_only, args.problem)
        return build(args.results, args.out or SHIPPED_TABLES[args.problem], args.problem)

    return exit_status(run)


if __name__ == "__main__":
    sys.exit(main())
