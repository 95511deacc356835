"""The run's journal: what a run measures, appended to disk as it goes, so that a crash,
a kill (SIGKILL, the out-of-memory killer), a lost terminal or a full disk loses at most
the group in flight.

One JSON object per line, beside the results file (results/NAME-TIME.journal.jsonl for
results/NAME-TIME.json). Each line is written whole, then flushed and fsync'ed before the
run goes on. Records, by `kind`:
  header    the first line: journal (format version), results (the results file),
            created, environment, config, plan (each variant's problem, strategy and
            knobs as its samples record them), problems, equivalent_teps
  dataset   name, spec (the config's name, `NAME@seed=S` with a seed), info (the results
            file's datasets entry), sources (once chosen); a later record of the same
            name replaces the entry (its depths, upload time...)
  measured  variant (its name in the run config), samples, prepares, clocks, energy: one
            turn of one variant on one graph (bench/schedule.py), or the part of it
            measured when the run stopped or FLUSH_EVERY_S had passed
  end       finished, complete, interrupted, stopped_by, interrupted_during, failed
  resume    at, command_line, git_commit, source_tree: `gpubfs run --resume` went on
            from here
A run's results name is claimed by creating its journal exclusively (`claim`, `open_named`).
The results document is what these records replay into (`Replay`, results/replay.py): the runner applies
each record as it writes it, so the document it writes and the journal never differ. A
last line cut short (the disk filled, the machine died mid-write) is passed over when
read, and cut off before a resume appends; a damaged line anywhere else, a negative time
or a sample recorded more often than its source was planned is one error naming the
line (a crash explains only the last line; the rest was edited or rotted), and so is a
sample of a variant the header's plan does not hold (results/replay.py). A journal
without its header (the disk was full when the run began) holds nothing to resume: the
same command run again replaces it.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path

from gpubfs_cli.errors import UserError
from gpubfs_cli.files import current_umask, plain_json, refuse_existing
from gpubfs_cli.results.replay import JOURNAL_VERSION, SUFFIX, Replay, _parse, is_empty

FLUSH_EVERY_S = 30.0  # a long turn is written in parts at least this often


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


def claim(results: Path, header: dict) -> tuple[Path, Journal]:
    """The first of NAME.json, NAME-2.json, ... that no other run holds, and its journal:
    created with O_EXCL, which claims the name (two runs of one second never share it)."""
    for i in itertools.count(1):
        path = results.parent / (f"{results.stem}.json" if i == 1 else f"{results.stem}-{i}.json")
        try:
            journal = Journal.create(journal_path(path), dict(header, results=str(path)), exclusive=True)
        except FileExistsError:
            continue
        except OSError as exc:
            raise UserError(f"{journal_path(path)}: cannot write the journal ({exc.strerror or exc})") from None
        if path.exists() or path.is_symlink():  # a finished run's file: its journal is gone
            journal.remove()
            continue
        return path, journal
    raise AssertionError("unreachable")


def open_named(path: Path, header: dict, replace: bool) -> Journal:
    """The journal of a named results file (--out, out:). Without `replace`, an existing
    results file or an unfinished run's journal is refused; a journal that holds no line
    (its run wrote nothing) is replaced as if absent; one a run writes now, always."""
    jpath = journal_path(path)
    empty = jpath.exists() and is_empty(jpath)
    refuse_in_use(jpath)  # a run starting at the same moment: never "resume it" while it writes
    if not replace:
        refuse_existing(path, "--out")
        if jpath.exists() and not empty:
            raise UserError(f"{jpath}: the journal of an unfinished run is there: resume it (gpubfs run "
                            f"--resume {jpath}) or give --force to start over")
    try:
        return Journal.create(jpath, header, exclusive=not (replace or empty))
    except FileExistsError:
        raise UserError(f"{jpath}: another run has just begun writing it") from None
    except OSError as exc:
        raise UserError(f"{jpath}: cannot write the journal ({exc.strerror or exc})") from None


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
