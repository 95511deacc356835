"""One build of a dataset at a time: a lock file per cache key (fcntl.flock).

Two processes fetching the same name would each build the graph and rename their copy
into place, the later replacing the earlier, and both say they cached it. With the lock
the second waits (and says so), then finds the graph the first one cached.

The lock file is DIR/.lock-KEY. Its holder removes it on release, while still holding
it; a waiter that then gets the lock of a removed file opens the new one and waits
again, so two holders never overlap. A killed holder's lock is released by the kernel;
its empty file is reused by the next fetch and removed then.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from gpubfs_cli.datasets import store
from gpubfs_cli.errors import UserError

PREFIX = ".lock-"


def lock_path(key: str, directory: str | Path | None = None) -> Path:
    return store.graph_dir(key, directory).parent / f"{PREFIX}{key}"


@contextmanager
def build_lock(key: str, directory: str | Path | None = None,
               waiting: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold KEY's lock for the block; `waiting` hears one line when another process holds it."""
    store.check_cache_dir(directory)
    path = lock_path(key, directory)
    fd = _acquire(path, waiting)
    try:
        yield
    finally:
        try:
            path.unlink(missing_ok=True)  # before the unlock: a waiter sees the file is gone
        finally:
            os.close(fd)


def _acquire(path: Path, waiting: Callable[[str], None] | None) -> int:
    said = False
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise UserError(f"{path}: cannot take the dataset's lock ({exc.strerror or exc})") from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if waiting is not None and not said:
                    waiting(f"waiting for another gpubfs process that is building it (lock {path})")
                    said = True
                fcntl.flock(fd, fcntl.LOCK_EX)  # Ctrl-C interrupts the wait
            if _same_file(fd, path):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # the holder removed it on release: lock the current file


def _same_file(fd: int, path: Path) -> bool:
    mine = os.fstat(fd)
    try:
        now = os.stat(path)
    except FileNotFoundError:
        return False
    return (mine.st_dev, mine.st_ino) == (now.st_dev, now.st_ino)
