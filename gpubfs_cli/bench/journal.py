"""The run's journal: what a run measures, appended to disk as it goes, so that a crash,
a kill (SIGKILL, the out-of-memory killer), a lost terminal or a full disk loses at most
the group in flight.

One JSON object per line, beside the results file (results/NAME-TIME.journal.jsonl for
results/NAME-TIME.json). Each line is written whole, then flushed and fsync'ed before the
run goes on. Records, by `kind`:
  header    the first line: journal (format version), results (the results file),
            created, environment, config, problems, equivalent_teps
  dataset   name, spec (the config's name, `NAME@seed=S` with a seed), info (the results
            file's datasets entry), sources (once chosen); a later record of the same
            name replaces the entry (its depths, upload time...)
  measured  variant (its name in the run config), samples, prepares, clocks: one turn of
            one variant on one graph (bench/schedule.py), or the part of it measured
            when the run stopped or FLUSH_EVERY_S had passed
  end       finished, complete, interrupted, stopped_by, interrupted_during, failed
  resume    at, command_line, git_commit, source_tree: `gpubfs run --resume` went on
            from here
The results document is what these records replay into (`Replay`): the runner applies
each record as it writes it, so the document it writes and the journal never differ. A
last line cut short (the disk filled, the machine died mid-write) is passed over when
read, and cut off before a resume appends; a damaged line anywhere else, a negative time
or a sample recorded more often than its source was planned is one error naming the
line (a crash explains only the last line; the rest was edited or rotted). A journal
without its header (the disk was full when the run began) holds nothing to resume: the
same command run again replaces it.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from gpubfs_cli.bench.groups import label_key, summaries
from gpubfs_cli.bench.results import is_time_ms, load_results, new_results
from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import current_umask, plain_json, read_file_bytes

JOURNAL_VERSION = 1
SUFFIX = ".journal.jsonl"
FLUSH_EVERY_S = 30.0  # a long turn is written in parts at least this often
KINDS = ("header", "dataset", "measured", "end", "resume")
HEADER_START = b'{"kind":"header"'  # how the writer begins every journal


def journal_path(results: str | Path) -> Path:
    """results/x.json -> results/x.journal.jsonl."""
    results = Path(results)
    stem = results.name[:-5] if results.name.endswith(".json") else results.name
    return results.with_name(stem + SUFFIX)


def results_path(journal: str | Path) -> Path:
    """results/x.journal.jsonl -> results/x.json."""
    journal = Path(journal)
    if not journal.name.endswith(SUFFIX):
        raise UserError(f"{journal}: not a journal (a journal's name ends in {SUFFIX})")
    return journal.with_name(journal.name[: -len(SUFFIX)] + ".json")


def spec_label(name: str, seed: int | None) -> str:
    return name if seed is None else f"{name}@seed={seed}"


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
        """BadRecord when a measured record holds a negative time, or a source more
        samples than the run's sources list it (a line copied); else its samples by
        (group, source). Changes nothing."""
        if record["kind"] != "measured":
            return Counter()
        for p in record["prepares"]:
            for key in ("time_ms", "upload_ms", "reorder_ms"):
                _check_time(p.get(key), f"a prepare of {p['strategy']} on {p['dataset']}: {key}")
        new: Counter = Counter()
        for s in record["samples"]:
            what = f"a sample of {s['strategy']} on {s['dataset']}, source {s['source']}"
            _check_time(s.get("time_ms"), f"{what}: time_ms")
            if s["dataset"] not in self.doc["datasets"]:
                raise BadRecord(f"{what}: no dataset record of the journal names {s['dataset']!r} "
                                "(a sample of another run?)")
            if s["source"] < 0:  # a whole variant's failure, not a source's sample
                continue
            planned = self._planned.get(s["dataset"])
            if planned is None:
                continue
            key = (s["dataset"], s.get("problem", "bfs"), s["strategy"], knobs_key(s.get("knobs") or {}),
                   bool(s.get("predecessors")), s.get("l2", "warm"), bool(s.get("prime")), s["source"])
            new[key] += 1
            times = planned[s["source"]]
            if self._held[key] + new[key] > times:
                listed = f"list it {times} time{'' if times == 1 else 's'}" if times else "do not list it"
                raise BadRecord(f"{what}: recorded {self._held[key] + new[key]} times, but {s['dataset']}'s "
                                f"sources {listed} (a sample recorded twice?)")
        return new

    def results(self) -> dict:
        """The document with its summaries (each group's planned and measured sources)."""
        self.doc["summaries"] = summaries(self.doc["samples"], self.labels, self.doc["sources"])
        return self.doc


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


class Journal:
    """A journal open for appending; holds an exclusive lock while the run writes it."""

    def __init__(self, path: Path, fd: int, replay: Replay | None, size: int):
        self.path = path
        self._fd = fd
        self.replay = replay
        self._size = size
        self._made: list[Path] = []  # folders made for it, deepest first

    @classmethod
    def create(cls, path: str | Path, header: dict, *, exclusive: bool) -> Journal:
        """A new journal (FileExistsError when `exclusive` and one is there)."""
        path = Path(path)
        made = [f for f in (path.parent, *path.parent.parents) if not f.exists()]
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else 0), 0o666 & ~current_umask())
        try:
            _lock(fd, path)
            os.ftruncate(fd, 0)
            journal = cls(path, fd, None, 0)
            journal._made = made
        except BaseException:
            os.close(fd)
            raise
        try:
            journal.write({"kind": "header", "journal": JOURNAL_VERSION, **header})
            _sync_folder(path.parent)
        except BaseException:
            if journal._size == 0:  # nothing in it to resume: no empty journal left to trip on
                journal.remove()
            journal.close()
            raise
        return journal

    @classmethod
    def reopen(cls, path: str | Path) -> Journal:
        """An existing journal, to go on appending (a cut last line is cut off first)."""
        path = Path(path)
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError as exc:
            raise UserError(f"{path}: cannot open the journal ({exc.strerror or exc})") from None
        try:
            _lock(fd, path)
            data = b""
            while chunk := os.read(fd, 1 << 24):
                data += chunk
            replay, good = _parse(data, path)
            os.ftruncate(fd, good)
            os.lseek(fd, good, os.SEEK_SET)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, replay, good)

    def write(self, record: dict) -> None:
        """Append one record, on disk before this returns, and apply it to the replay."""
        line = (json.dumps(plain_json(record), separators=(",", ":")) + "\n").encode("utf-8")
        record = json.loads(line)  # the replay holds what the file holds, not live objects
        # a record the reader would refuse never reaches the file
        checked = self.replay.check(record) if self.replay is not None else None
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(self._fd, view):]
            os.fsync(self._fd)
        except OSError as exc:
            try:  # no cut line left behind for the resume to meet
                os.ftruncate(self._fd, self._size)
                os.lseek(self._fd, self._size, os.SEEK_SET)
            except OSError:
                pass
            why = exc.strerror or exc
            if self._size == 0:  # the header: nothing to resume, and the file goes
                raise UserError(f"{self.path}: cannot write the journal ({why}); nothing was measured: run the "
                                "same command again once there is room") from None
            raise UserError(f"{self.path}: cannot write the journal ({why}); it keeps "
                            f"everything written before: gpubfs run --resume {self.path}") from None
        self._size += len(line)
        if self.replay is None:
            self.replay = Replay(record)
        else:
            self.replay.apply(record, checked)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def remove(self) -> None:
        """Delete the journal (its run is complete, or measured nothing), and the folders
        made for it while they are empty."""
        try:
            os.unlink(self.path)
        except OSError:
            pass
        self.close()
        for folder in self._made:
            try:
                folder.rmdir()
            except OSError:
                break


def _lock(fd: int, path: Path) -> None:
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise UserError(f"{path}: another gpubfs run is writing this journal") from None


def refuse_in_use(path: str | Path) -> None:
    """The one line of `_lock` when a run holds the journal at `path` now; nothing when
    none does or there is none."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        _lock(fd, Path(path))
    finally:
        os.close(fd)  # and with it the lock taken to look


def _sync_folder(folder: Path) -> None:
    """The new file's name on disk too (a crash right after must not lose the file)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
