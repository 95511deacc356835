"""Reading a run's journal (results/journal.py writes it): its records replayed, by
`kind`, into the results document they make, and every damaged or impossible line one
error naming it. The record kinds are listed in results/journal.py.

A sample belongs to a variant the run planned: the header's `plan` lists each variant's
problem, strategy and knobs as its samples record them, and a sample of any other (a
hand-edited line, one of another run) is refused, never merged into the results. A
journal written before the header had a plan is held to its config's variants: the
strategy, and every knob the config sets."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.core.problem import DEFAULT_PROBLEM
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import read_file_bytes
from gpubfs_cli.results.groups import label_key, summaries
from gpubfs_cli.results.keys import CellKey
from gpubfs_cli.results.schema import is_time_ms, load_results, new_results

JOURNAL_VERSION = 1
SUFFIX = ".journal.jsonl"
KINDS = ("header", "dataset", "measured", "end", "resume")
HEADER_START = b'{"kind":"header"'  # how the writer begins every journal


class BadRecord(ValueError):
    """A record no run writes (its line is named by the reader)."""


EMPTY = ("an empty journal (the run stopped before it wrote its first line, so there is nothing to "
         "resume): run the same command again without --resume; it replaces this journal")


def _check_time(value, what: str) -> None:
    if value is not None and not is_time_ms(value):
        raise BadRecord(f"{what}: expected a time >= 0 (ms), found {json.dumps(value)}")


class Replay:
    """The results document a journal's records make, record by record."""

    def __init__(self, header: dict):
        self.header = header
        self.doc = new_results(header["environment"], header["config"], header["problems"],
                               header["equivalent_teps"], header["created"])
        self.labels: dict[tuple, str] = {}
        self.names: dict[str, str] = {}  # spec label -> the dataset's name in the document
        self.plan, self._exact = _plan(header)
        self._planned_keys = {(p, s, knobs_key(k)) for (p, s), ks in self.plan.items() for k in ks} \
            if self._exact else set()
        self._of_plan: set[tuple] = set()  # (problem, strategy, knobs key) found planned
        self._held: Counter = Counter()  # (group, source) -> samples replayed
        self._planned: dict[str, Counter] = {}  # dataset -> its sources, counted

    def apply(self, record: dict, checked: Counter | None = None) -> None:
        """Apply one record; BadRecord when it holds what no run writes (nothing applied).
        `checked`: what `check` already gave for it (the writer checks before writing)."""
        kind, doc = record["kind"], self.doc
        if kind == "dataset":
            doc["datasets"][record["name"]] = record["info"]
            if "sources" in record:
                doc["sources"][record["name"]] = record["sources"]
                self._planned[record["name"]] = Counter(record["sources"])
            if record.get("spec"):
                self.names[record["spec"]] = record["name"]
        elif kind == "measured":
            self._held.update(self.check(record) if checked is None else checked)
            for s in record["samples"]:
                self.labels[label_key(s.get("problem", "bfs"), s["strategy"], s.get("knobs") or {})] = record["variant"]
            doc["samples"] += record["samples"]
            doc["prepares"] += record["prepares"]
            doc["clocks"] += record["clocks"]
            doc["energy"] += record.get("energy", [])  # journals from before the key lack it
        elif kind == "end":
            for key in ("finished", "complete", "interrupted", "stopped_by", "interrupted_during", "failed"):
                if record.get(key) is not None:
                    doc[key] = record[key]
        elif kind == "resume":
            for key in ("stopped_by", "interrupted_during", "failed"):
                doc.pop(key, None)
            doc.update(finished=None, complete=False, interrupted=False)
            doc.setdefault("resumed", []).append(
                {k: record.get(k) for k in ("at", "command_line", "git_commit", "source_tree")})
        elif kind == "header":  # a run writes one, as the first line: a second is another run's
            raise BadRecord("a second header (a journal of another run appended?)")

    def check(self, record: dict) -> Counter:
        """BadRecord when a measured record holds a negative time or energy, or a source more
        samples than the run's sources list it (a line copied); else its samples by
        (group, source). Changes nothing."""
        if record["kind"] != "measured":
            return Counter()
        for p in record["prepares"]:
            for key in ("time_ms", "upload_ms", "reorder_ms"):
                _check_time(p.get(key), f"a prepare of {p['strategy']} on {p['dataset']}: {key}")
            for key, value in (p.get("setup") or {}).items():
                _check_time(value, f"a prepare of {p['strategy']} on {p['dataset']}: setup.{key}")
        for e in record.get("energy", []):
            for key in ("energy_j", "seconds"):
                if e.get(key) is not None and not is_time_ms(e[key]):  # a finite number >= 0
                    raise BadRecord(f"an energy record of {e['strategy']} on {e['dataset']}: {key}: expected a "
                                    f"number >= 0, found {json.dumps(e[key])}")
        new: Counter = Counter()
        for s in record["samples"]:
            what = f"a sample of {s['strategy']} on {s['dataset']}, source {s['source']}"
            _check_time(s.get("time_ms"), f"{what}: time_ms")
            if s["dataset"] not in self.doc["datasets"]:
                raise BadRecord(f"{what}: no dataset record of the journal names {s['dataset']!r} "
                                "(a sample of another run?)")
            unplanned = self._unplanned(s)
            if unplanned is not None:
                raise BadRecord(f"{what}: {unplanned} (a sample of another run?)")
            if s["source"] < 0:  # a whole variant's failure, not a source's sample
                continue
            planned = self._planned.get(s["dataset"])
            if planned is None:
                continue
            key = (*CellKey.of(s), s.get("l2", "warm"), bool(s.get("prime")), s["source"])
            new[key] += 1
            times = planned[s["source"]]
            if self._held[key] + new[key] > times:
                listed = f"list it {times} time{'' if times == 1 else 's'}" if times else "do not list it"
                raise BadRecord(f"{what}: recorded {self._held[key] + new[key]} times, but {s['dataset']}'s "
                                f"sources {listed} (a sample recorded twice?)")
        return new

    def _unplanned(self, sample: dict) -> str | None:
        """None when the sample is of a variant the run plans, else which variant it is."""
        problem, strategy = sample.get("problem", DEFAULT_PROBLEM), sample["strategy"]
        knobs = sample.get("knobs") or {}
        key = (problem, strategy, knobs_key(knobs))
        if key in self._of_plan:
            return None
        mine = self.plan.get((problem, strategy), [])
        if self._exact:
            found = key in self._planned_keys
        else:
            found = any(all(k in knobs and knobs[k] == v for k, v in want.items()) for want in mine)
        if found:
            self._of_plan.add(key)
            return None
        if not mine:
            planned = sorted({s for p, s in self.plan if p == problem})
            return (f"{strategy} ({problem}) is no variant of the run's config (it plans "
                    f"{', '.join(planned) or f'no {problem} strategy'})")
        closest = min(mine, key=lambda want: len(_differing(knobs, want, self._exact)))
        keys = _differing(knobs, closest, self._exact)
        return (f"{strategy} with {_knobs_text(knobs, keys)} is no variant of the run's config (it plans "
                f"{strategy} with {_knobs_text(closest, keys)})")

    def results(self) -> dict:
        """The document with its summaries (each group's planned and measured sources)."""
        self.doc["summaries"] = summaries(self.doc["samples"], self.labels, self.doc["sources"])
        return self.doc


def _plan(header: dict) -> tuple[dict[tuple[str, str], list[dict]], bool]:
    """(problem, strategy) -> the knobs of each of its variants the run plans, and whether
    they are whole (the header's `plan`) or only those the config sets (a journal written
    before the header had a plan). BadRecord when neither is a list of variants."""
    exact = "plan" in header
    if not exact and not isinstance(header["config"], dict):
        raise BadRecord("config: expected an object")
    variants = header["plan"] if exact else header["config"].get("variants", [])
    if not isinstance(variants, list) or not all(
            isinstance(v, dict) and isinstance(v.get("strategy"), str) and isinstance(v.get("knobs", {}), dict)
            for v in variants):
        raise BadRecord(f"{'plan' if exact else 'config.variants'}: expected a list of variants "
                        "(each a strategy and its knobs)")
    plan: dict[tuple[str, str], list[dict]] = {}
    for v in variants:
        plan.setdefault((v.get("problem", DEFAULT_PROBLEM), v["strategy"]), []).append(v.get("knobs") or {})
    return plan, exact


_ABSENT = object()


def _differing(knobs: dict, want: dict, whole: bool) -> list[str]:
    """The knobs whose values differ from a planned variant's (`whole`: its every knob;
    else only those it sets)."""
    keys = sorted(set(want) | set(knobs)) if whole else sorted(want)
    return [k for k in keys if knobs.get(k, _ABSENT) != want.get(k, _ABSENT)]


def _knobs_text(knobs: dict, keys: list[str]) -> str:
    return ", ".join(f"{k}={json.dumps(knobs[k])}" if k in knobs else f"no {k}" for k in keys) or "its knobs"


def _parse(data: bytes, path: Path) -> tuple[Replay, int]:
    """The journal's replay and the length of its whole lines (a cut last line is not one)."""
    good = data.rfind(b"\n") + 1
    lines = data[:good].split(b"\n")[:-1]
    replay = None
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, a number or nesting too large
            if number == len(lines):  # the last line: garbage a crash left
                good -= len(line) + 1
                break
            raise UserError(f"{path}:{number}: not a journal record ({exc}); only the last line may be "
                            "damaged by a crash, this one was changed since it was written") from None
        if not isinstance(record, dict) or record.get("kind") not in KINDS:
            raise UserError(f"{path}:{number}: not a journal record (expected an object with a kind)")
        if replay is None:
            if record["kind"] != "header" or record.get("journal") != JOURNAL_VERSION:
                raise UserError(f"{path}: not a gpubfs journal (no header line of version {JOURNAL_VERSION})")
            try:
                replay = Replay(record)
            except KeyError as exc:
                raise UserError(f"{path}:1: the header lacks {exc}") from None
            except BadRecord as exc:
                raise UserError(f"{path}:1: the header's {exc}") from None
            continue
        try:
            replay.apply(record)
        except BadRecord as exc:
            raise UserError(f"{path}:{number}: {exc}") from None
        except (KeyError, TypeError, AttributeError) as exc:
            raise UserError(f"{path}:{number}: a {record['kind']} record without {exc}") from None
    if replay is None:
        raise UserError(f"{path}: {EMPTY}")
    return replay, good


def read_journal(path: str | Path) -> Replay:
    """A journal's replay. Read as bytes: a cut last line may hold anything, even bytes
    that are not UTF-8, and is passed over here as on resume."""
    path = Path(path)
    return _parse(read_file_bytes(path, "journal"), path)[0]


def is_empty(path: str | Path) -> bool:
    """A journal without one whole line: its run wrote nothing (a full disk, a kill at
    its first write), so nothing is lost by replacing it."""
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 16):
                if b"\n" in chunk:
                    return False
    except OSError:
        return False
    return True


def is_journal(path: str | Path) -> bool:
    """A journal by its name, or by a first line that is a journal header."""
    path = Path(path)
    if path.name.endswith(SUFFIX):
        return True
    try:
        with open(path, "rb") as f:
            return f.read(len(HEADER_START)) == HEADER_START
    except OSError:
        return False


def load_run(path: str | Path) -> dict:
    """A results document from a results file or a journal (a run's, finished or not)."""
    if is_journal(path):
        return read_journal(path).results()
    return load_results(path)


