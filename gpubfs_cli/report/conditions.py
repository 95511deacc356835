"""How a results file's GPU samples were measured: the L2 mode, whether each timed call
was primed (bench/timing.py), and the clocks.

One line per file for the report's header (every format shows it), and a warning line
when a pool mixes warm and cold files: their samples never share a group
(results/groups.py keys groups by L2 mode), but a cell shows one group of its strategy
(the best, in an overview), which may be of either mode. Primed and unprimed runs
alike (groups are keyed by the prime policy too).
"""

from __future__ import annotations

import numbers
from typing import Any

from gpubfs_cli.errors import UserError
from gpubfs_cli.results.keys import L2_MODES

READING_KEYS = ("sm_mhz", "mem_mhz", "temperature_c")


def _reading_ok(v: Any) -> bool:
    return v is None or (isinstance(v, dict) and all(
        isinstance(v.get(k), numbers.Real) and not isinstance(v.get(k), bool) for k in READING_KEYS))


def file_conditions(path: str, doc: dict) -> dict:
    """{l2, prime, clocks: [reading, ...] (before and after, every group and device),
    unread: [reason, ...]} of one results document; a malformed value is a UserError
    naming it."""
    config = doc.get("config") if isinstance(doc.get("config"), dict) else {}
    l2 = config.get("l2", "warm")  # files from before --l2 existed were warm runs
    if l2 not in L2_MODES:
        raise UserError(f"{path}: config.l2: expected {' or '.join(L2_MODES)}, got {l2!r}")
    prime = config.get("prime", False)  # likewise unprimed
    if not isinstance(prime, bool):
        raise UserError(f"{path}: config.prime: expected true or false, got {prime!r}")
    entries = doc.get("clocks") or []
    if not isinstance(entries, list):
        raise UserError(f"{path}: clocks: expected a list, got {type(entries).__name__}")
    readings, unread = [], []
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not _reading_ok(e.get("before")) or not _reading_ok(e.get("after")):
            raise UserError(f"{path}: clocks[{i}]: expected before and after as null or "
                            f"{{{', '.join(READING_KEYS)}}} numbers")
        readings += [e[k] for k in ("before", "after") if e.get(k) is not None]
        if e.get("reason"):
            unread.append(str(e["reason"]))
    return {"l2": l2, "prime": prime, "clocks": readings, "unread": unread}


def _span(values: list[float], unit: str) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:g} {unit}" if lo == hi else f"{lo:g}-{hi:g} {unit}"


def conditions_text(c: dict) -> str:
    """`L2 cold, primed; clocks SM 1755-1980 MHz, memory 2619 MHz, 33-51 C (24 readings)`."""
    text = f"L2 {c['l2']}" + (", primed" if c.get("prime") else "")
    readings = c["clocks"]
    if readings:
        text += (f"; clocks SM {_span([r['sm_mhz'] for r in readings], 'MHz')}, "
                 f"memory {_span([r['mem_mhz'] for r in readings], 'MHz')}, "
                 f"{_span([r['temperature_c'] for r in readings], 'C')} ({len(readings)} readings)")
    if c["unread"]:
        text += f"; clocks not read {len(c['unread'])} times ({c['unread'][0]})"
    return text


def mixed_conditions_note(conditions: list[dict]) -> str | None:
    notes = []
    if len({c["l2"] for c in conditions}) > 1:
        notes.append("these files mix warm- and cold-L2 runs: their samples are kept in separate "
                     "groups, but a cell shows one group of its strategy, which may be of either mode")
    if len({bool(c.get("prime")) for c in conditions}) > 1:
        notes.append("these files mix primed and unprimed runs: their samples are kept in separate "
                     "groups, but a cell shows one group of its strategy, which may be of either")
    return "; ".join(notes) or None
