"""One --compare cell: B's times against A's, called FASTER / SLOWER only beyond the noise.

The ratio is time of A / time of B (> 1: B is faster). When both groups ran the same
sources it is paired: the median of the per-source ratios, with a bootstrap interval
over sources. Otherwise it is median(A) / median(B), with a bootstrap of each side.
A verdict needs the whole 95% interval outside a band around 1 of half-width
max(MIN_CHANGE, noise), noise being how much a single per-source ratio varies (the
robust relative standard deviation of the ratios; of each side's times when unpaired).
So a difference must be beyond the uncertainty of the median (the interval) and larger
than the measurements' own scatter (as nvbench_compare asks of its noise) and than
MIN_CHANGE (as asv's factor does): two runs of one config on a loaded machine, whose
single timings drift by 10-30%, read SAME.
With fewer than MIN_SAMPLES on either side there is no interval and no verdict.
A regression for --fail-on-regression PCT: the whole interval says B takes more than
(1 + PCT/100) times A's time, so one noisy ratio never fails a build.
"""

from __future__ import annotations

from typing import Any

from gpubfs_cli.report.aggregate import fmt_spread, status_text
from gpubfs_cli.report.table import Cell, fmt_number
from gpubfs_cli.results.groups import Group
from gpubfs_cli.results.statistics import (
    BOOTSTRAP_LEVEL,
    bootstrap_ratio,
    ratio_estimate,
    ratio_noise,
)
from gpubfs_cli.results.status import PARTIAL, partial_reason

MIN_SAMPLES = 3
MIN_CHANGE = 0.10  # ratios within 10% of 1 are SAME whatever the interval says
VERDICTS = ("SAME", "FASTER", "SLOWER")


def compare_note(min_change: float) -> str:
    return (f"FASTER / SLOWER: the whole {BOOTSTRAP_LEVEL:.0%} bootstrap interval of the ratio (paired "
            "by source when both ran the same sources, else of the two medians) lies beyond 1 +- "
            f"max({min_change:.0%}, the scatter of single ratios); SAME otherwise; no verdict with fewer "
            f"than {MIN_SAMPLES} samples a side")


def verdict(low: float, high: float, noise: float, min_change: float = MIN_CHANGE) -> str:
    band = 1 + max(min_change, noise)
    if low > band:
        return "FASTER"
    if high < 1 / band:
        return "SLOWER"
    return "SAME"


def is_regression(high: float, fail_pct: float | None) -> bool:
    """B slower than A by more than fail_pct percent over the whole interval."""
    return fail_pct is not None and high < 1 / (1 + fail_pct / 100)


def times_of(a: Group, b: Group) -> tuple[list[float], list[float], bool]:
    """Per-source times paired when both ran the same sources, else every ok sample; a
    batch strategy's one time per timed call, unpaired (its sources share a call)."""
    if a.batched or b.batched:
        return a.call_times(), b.call_times(), False
    if a.times and set(a.times) == set(b.times):
        sources = sorted(a.times)
        return [a.times[s] for s in sources], [b.times[s] for s in sources], True
    return ([float(s.time_ms) for s in a.ok_samples()], [float(s.time_ms) for s in b.ok_samples()], False)


_NO_RATIO: dict[str, Any] = {"ratio": None, "low": None, "high": None, "noise": None, "paired": None,
                             "samples": None, "verdict": None, "significant": False, "regression": False}


def compare_cell(a: Group | None, b: Group | None, knob: str | None,
                 fail_pct: float | None = None, min_change: float = MIN_CHANGE,
                 copied: str | None = None) -> tuple[Cell, dict[str, Any]]:
    """The cell and its JSON entry (ratio, interval, pairing, verdict, regression);
    `copied` says why a side holds no measurement (report/copies.py): no ratio then."""
    data: dict[str, Any] = dict(_NO_RATIO)
    cell = _cell(a, b, knob, fail_pct, min_change, data)
    if copied is not None and cell.status in ("ok", PARTIAL):
        data.update(_NO_RATIO)
        cell = Cell(f"n/a: {copied}", status="n/a", reason=copied)
    partial = [(side, g) for side, g in (("A", a), ("B", b)) if g is not None and g.partial]
    if partial and cell.status == "ok":  # a side of a stopped run: never read as a whole one
        cell.text += " (" + ", ".join(f"{side}: {g.measured}/{g.planned}" for side, g in partial) + ")"
        cell.status = PARTIAL
        cell.reason = "; ".join(f"{side}: {partial_reason(g.measured, g.planned)}" for side, g in partial)
    data["text"] = cell.text
    return cell, data


def _cell(a, b, knob, fail_pct, min_change, data) -> Cell:
    if a is None or b is None:
        return Cell("missing", status="missing")
    for side, g in (("A", a), ("B", b)):
        if g.status != "ok":
            return Cell(f"{side}: {status_text(g.status, g.reason)}", status=g.status, reason=g.reason)
    ta, tb, paired = times_of(a, b)
    if min(tb) <= 0:
        return Cell("n/a: a zero time", status="n/a", reason="a zero time")
    suffix = f" ({knob})" if knob else ""
    data.update(paired=paired, samples=[len(ta), len(tb)])
    if min(len(ta), len(tb)) < MIN_SAMPLES:
        ratio = ratio_estimate(ta, tb, paired)
        data["ratio"] = ratio
        return Cell(f"{fmt_number(ratio)}x (too few samples){suffix}", value=ratio, knob=knob)
    ratio, low, high = bootstrap_ratio(ta, tb, paired)
    noise = ratio_noise(ta, tb, paired)
    word = verdict(low, high, noise, min_change)
    data.update(ratio=ratio, low=low, high=high, noise=noise, verdict=word, significant=word != "SAME",
                regression=is_regression(high, fail_pct))
    text = f"{fmt_number(ratio)}x {word}{fmt_spread(low, high)}{suffix}"
    return Cell(text, value=ratio, knob=knob, low=low, high=high)
