"""Compiler runs (nvcc for the compile checks, g++ for the CUDA emulator) kept on disk,
keyed by a hash of the command, the compiler and every source file the build may read.
Each build runs once per test run even under pytest-xdist (a lock per key: a second
worker waits for the first), and a later run reuses it: one of another clone of the
project too, as paths inside the checkout enter the key relative to its root. The
cache lives in $GPUBFS_TEST_CACHE, else $XDG_CACHE_HOME/gpubfs/test-builds (by default
~/.cache/gpubfs/test-builds), else, where that cannot be made, build/test-cache in the
checkout. A result is written to a temporary name and renamed into place, so a reader
never sees half of one. Entries unused for a week are removed (a key changes with
every edit of a kernel or header). Delete the folder to rebuild everything.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cache_dir() -> Path:
    """Where builds are kept (the module docstring says the order)."""
    if os.environ.get("GPUBFS_TEST_CACHE"):
        return Path(os.environ["GPUBFS_TEST_CACHE"])
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    user = Path(home) / "gpubfs" / "test-builds"
    try:
        user.mkdir(parents=True, exist_ok=True)
        if os.access(user, os.W_OK):
            return user
    except OSError:
        pass
    return ROOT / "build" / "test-cache"


CACHE_DIR = cache_dir()
SOURCE_SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp"}
OUT = "{out}"  # where a command names its output file
KEEP_DAYS = 7
_pruned = False


@dataclass(frozen=True)
class Built:
    returncode: int
    stdout: str
    stderr: str
    product: Path | None  # the output file, kept when the build succeeded and asked for it


def sources_in(*folders: Path) -> list[Path]:
    """The C++/CUDA sources and headers directly inside the folders: everything a build
    that includes from them may read."""
    return sorted({p.resolve() for d in folders for p in Path(d).iterdir()
                   if p.suffix in SOURCE_SUFFIXES and p.is_file()})


def _portable(text: str) -> str:
    """A path or argument with this checkout's root spelled the same in every clone."""
    return text.replace(str(ROOT), "<root>")


def key(cmd: list[str], sources: list[Path]) -> str:
    h = hashlib.sha256()
    tool = shutil.which(cmd[0]) or cmd[0]
    st = os.stat(tool)
    h.update(json.dumps([os.path.realpath(tool), st.st_size, st.st_mtime_ns,
                         [_portable(a) for a in cmd[1:]]]).encode())
    for p in sorted(set(sources)):
        h.update(_portable(str(p)).encode() + b"\0" + Path(p).read_bytes() + b"\0")
    return h.hexdigest()[:32]


def _write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


@contextlib.contextmanager
def _locked(path: Path):
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _load(record: Path, product: Path) -> Built | None:
    try:
        r = json.loads(record.read_text())
    except (FileNotFoundError, ValueError):
        return None
    if r["product"] and not product.is_file():
        return None
    with contextlib.suppress(OSError):
        os.utime(record)  # still in use: kept by _prune
    return Built(r["returncode"], r["stdout"], r["stderr"], product if r["product"] else None)


def _prune() -> None:
    """Once a process: drops the entries not used for KEEP_DAYS days."""
    global _pruned
    if _pruned:
        return
    _pruned = True
    old = time.time() - KEEP_DAYS * 86400
    for record in CACHE_DIR.glob("*.json"):
        with contextlib.suppress(OSError):
            if record.stat().st_mtime < old:
                for p in CACHE_DIR.glob(record.stem + ".*"):
                    p.unlink()


def build(cmd: list[str], sources: list[Path], *, keep: str | None = None) -> Built:
    """Runs `cmd` once for its key and returns what it gave. An argument "{out}" is the
    output file's path: with `keep` (its suffix, e.g. ".so") it is kept in the cache as
    Built.product, otherwise it goes to a temporary folder and is dropped. A run killed
    by a signal is not kept."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    _prune()
    k = key(cmd, sources)
    record, product = CACHE_DIR / f"{k}.json", CACHE_DIR / f"{k}{keep or '.out'}"
    found = _load(record, product)
    if found is not None:
        return found
    with _locked(CACHE_DIR / f"{k}.lock"):
        found = _load(record, product)  # another worker may have built it meanwhile
        if found is not None:
            return found
        with tempfile.TemporaryDirectory(dir=CACHE_DIR) as tmp:
            out = Path(tmp) / f"out{keep or '.out'}"
            proc = subprocess.run([str(out) if a == OUT else a for a in cmd], capture_output=True, text=True)
            kept = bool(keep) and proc.returncode == 0 and out.is_file()
            if kept:
                os.replace(out, product)
        built = Built(proc.returncode, proc.stdout, proc.stderr, product if kept else None)
        if proc.returncode >= 0:
            _write(record, json.dumps({"returncode": proc.returncode, "stdout": proc.stdout,
                                       "stderr": proc.stderr, "product": kept}).encode())
    return built
