"""kernel_ab.sh's table: code before (A) against after (B), from the runs it alternates.

    python scripts/device/ab_summary.py OUT_DIR

reads OUT_DIR/ab-A<round>.json and ab-B<round>.json and prints, per graph and variant
(a strategy, with the knobs that tell its variants apart where a side ran several,
NAME[knob=value,...]),
each side's median ms over its ok samples, B / A of those medians, the spread of each
side's round medians (how far two runs of the same code land), the sample counts, and B
over A paired by source: each source's median over its rounds on each side, the median of
the per-source ratios with a 95 % bootstrap interval (gpubfs's own reader and statistics). Samples
that are not ok or not valid are counted, not timed. A missing or unreadable file, or no
runs at all, is one line and exit status 2.
"""

from __future__ import annotations

import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gpubfs_cli.errors import UserError  # noqa: E402
from gpubfs_cli.report.aggregate import knob_label  # noqa: E402
from gpubfs_cli.results.schema import load_results  # noqa: E402
from gpubfs_cli.results.statistics import bootstrap_ratio  # noqa: E402

RUN = re.compile(r"^ab-([AB])(\d+)\.json$")
WIDTH = 18  # the variant column, wider where a label is


def header(width: int = WIDTH) -> str:
    return (f"{'dataset':15s} {'strategy':{width}s} {'A ms':>9s} {'B ms':>9s} {'B/A':>6s}  rounds A (min-max)  "
            f"rounds B (min-max)  samples A/B  paired B/A (95 %)")


HEADER = header()


class SummaryError(Exception):
    """One line: which file, what is wrong."""


def runs(folder: Path) -> dict[str, list[Path]]:
    """Each side's run files, in round order."""
    found: dict[str, list[tuple[int, Path]]] = {"A": [], "B": []}
    for p in folder.glob("ab-*.json"):
        m = RUN.match(p.name)
        if m:
            found[m.group(1)].append((int(m.group(2)), p))
    if not found["A"] and not found["B"]:
        raise SummaryError(f"{folder}: no ab-A<round>.json or ab-B<round>.json files")
    return {side: [p for _, p in sorted(files)] for side, files in found.items()}


def samples(path: Path) -> list[dict]:
    """The file's samples (gpubfs's results reader: a bad file is one line naming it)."""
    try:
        return list(load_results(path)["samples"])
    except UserError as e:
        raise SummaryError(str(e)) from None


def labeller(read: list[tuple[str, list[list[dict]]]]):
    """The variant label of a sample: its strategy, plus the knobs whose values differ
    among that strategy's samples within one side (a knob only one side's code has, at
    its default, does not split the pairs)."""
    seen: dict = defaultdict(lambda: defaultdict(set))  # (side, strategy) -> knob -> values
    for side, files in read:
        for f in files:
            for s in f:
                for k, v in (s.get("knobs") or {}).items():
                    seen[(side, s["strategy"])][k].add(repr(v))
    varying: dict = defaultdict(set)
    for (_, name), knobs in seen.items():
        varying[name] |= {k for k, values in knobs.items() if len(values) > 1}

    def label(s: dict) -> str:
        keys = sorted(varying[s["strategy"]])
        if not keys:
            return s["strategy"]
        return f"{s['strategy']}[{knob_label(s.get('knobs') or {}, keys)}]".replace(" ", "_")

    return label


def collect(folder: Path):
    """(times, round_medians, per_source, bad): keyed by (dataset, variant, side);
    per_source maps a source to its times over the rounds."""
    times: dict = defaultdict(list)
    round_medians: dict = defaultdict(list)
    per_source: dict = defaultdict(lambda: defaultdict(list))
    bad: dict = defaultdict(int)
    read = [(side, [samples(f) for f in files]) for side, files in runs(folder).items()]
    label = labeller(read)
    for side, files in read:
        for f in files:
            mine: dict = defaultdict(list)
            for s in f:
                key = (s["dataset"], label(s), side)
                if s.get("status") == "ok" and s.get("valid") is not False and s.get("time_ms") is not None:
                    mine[key].append(float(s["time_ms"]))
                    per_source[key][s["source"]].append(float(s["time_ms"]))
                else:
                    bad[key] += 1
            for key, t in mine.items():
                times[key].extend(t)
                round_medians[key].append(statistics.median(t))
    return times, round_medians, per_source, bad


def paired(per_source: dict, ds: str, name: str) -> str:
    """B over A paired by source, '0.905 (0.899-0.911) 8 sources', or '' with no common source."""
    a, b = per_source.get((ds, name, "A"), {}), per_source.get((ds, name, "B"), {})
    common = sorted(set(a) & set(b), key=str)
    if not common:
        return ""
    ma = [statistics.median(a[s]) for s in common]
    mb = [statistics.median(b[s]) for s in common]
    est, lo, hi = bootstrap_ratio(mb, ma, True)
    return f"{est:.3f} ({lo:.3f}-{hi:.3f}) {len(common)} source{'s' if len(common) > 1 else ''}"


def table(folder: Path) -> list[str]:
    times, round_medians, per_source, bad = collect(folder)
    keys = sorted({k[:2] for k in times} | {k[:2] for k in bad})
    width = max([WIDTH] + [len(name) for _, name in keys])
    lines = [header(width)]
    nan = float("nan")
    for ds, name in keys:
        a, b = times.get((ds, name, "A"), []), times.get((ds, name, "B"), [])
        ma = statistics.median(a) if a else nan
        mb = statistics.median(b) if b else nan
        ra, rb = round_medians.get((ds, name, "A"), [ma]), round_medians.get((ds, name, "B"), [mb])
        note = "".join(f"  {bad[(ds, name, s)]} {s} not ok" for s in "AB" if (ds, name, s) in bad)
        lines.append(f"{ds:15s} {name:{width}s} {ma:9.3f} {mb:9.3f} {mb / ma:6.3f}  {min(ra):8.3f}-{max(ra):<8.3f}  "
                     f"{min(rb):8.3f}-{max(rb):<8.3f}  {len(a)}/{len(b)}  {paired(per_source, ds, name)}{note}")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python scripts/device/ab_summary.py OUT_DIR", file=sys.stderr)
        return 2
    try:
        print("\n".join(table(Path(argv[0]))))
    except SummaryError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
