"""Per-group summaries of a run's samples, for the results file and the end-of-run table.

A group is one (dataset, strategy, knobs, predecessors). Its status is `ok` only when
every sample is; otherwise the most serious failure names the cell, and its time
never becomes a number.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass

from gpubfs_cli.bench.statistics import summarize

SEVERITY = ("wrong-answer", "error", "out-of-memory", "out-of-time", "unavailable")


def group_key(sample: dict) -> tuple:
    return (
        sample["dataset"],
        sample["strategy"],
        json.dumps(sample.get("knobs") or {}, sort_keys=True),
        bool(sample.get("predecessors")),
    )


def summaries(samples: list[dict], labels: dict[tuple[str, str], str] | None = None) -> list[dict]:
    """One entry per group; `labels` maps (strategy, knobs JSON) to the variant's name."""
    labels = labels or {}
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for s in samples:
        groups[group_key(s)].append(s)
    out = []
    for (dataset, strategy, knobs, predecessors), items in groups.items():
        counts: dict[str, int] = defaultdict(int)
        for s in items:
            counts[s["status"]] += 1
        failed = [st for st in SEVERITY if counts.get(st)]
        status = failed[0] if failed else "ok"
        first_bad = next((s for s in items if s["status"] == status), None) if failed else None
        ok = [s for s in items if s["status"] == "ok"]
        entry = {
            "dataset": dataset,
            "strategy": strategy,
            "variant": labels.get((strategy, knobs), strategy),
            "knobs": json.loads(knobs),
            "predecessors": predecessors,
            "status": status,
            "reason": first_bad.get("reason") if first_bad else None,
            "statuses": dict(counts),
            "low_reach": sum(1 for s in ok if s.get("low_reach")),
        }
        if status == "ok":
            entry.update(
                summarize(
                    [s["time_ms"] for s in ok],
                    [s["edges"] for s in ok],
                    [bool(s.get("low_reach")) for s in ok],
                )
            )
        out.append(entry)
    return out


@dataclass
class SummaryTable:
    """Rows are strategy variants, columns datasets; a cell is text."""

    columns: list[str]
    rows: list[tuple[str, list[str]]]
    notes: list[str]


def summary_table(doc: dict) -> SummaryTable:
    """Median ms and harmonic-mean GTEPS per cell, or the failure's status text."""
    datasets = list(doc.get("datasets", {}))
    cells: dict[str, dict[str, str]] = defaultdict(dict)
    failures: dict[tuple[str, str], tuple[dict, dict]] = {}  # (status, reason) -> labels, datasets
    for s in doc.get("summaries", []):
        label = s.get("variant") or s["strategy"]
        if s["predecessors"]:
            label += " +pred"
        if s["status"] == "ok":
            text = f"{s['median_ms']:.3g} ms\n{s['gteps_hmean']:.3g} GTEPS"
            if s.get("low_reach"):
                text += " !"
        else:
            text = s["status"]
            who, where = failures.setdefault((s["status"], s.get("reason") or ""), ({}, {}))
            who[label] = where[s["dataset"]] = None
        cells[label][s["dataset"]] = text
    rows = [(label, [row.get(d, "-") for d in datasets]) for label, row in cells.items()]
    notes = []
    for (status, reason), (who, where) in failures.items():
        on = "every dataset" if len(where) == len(datasets) else ", ".join(where)
        why = f" ({reason})" if reason else ""
        notes.append(f"{status}{why}: {', '.join(who)} on {on}")
    return SummaryTable(datasets, rows, notes)
