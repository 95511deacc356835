"""HTTP(S) download with resume, bounded retries, a stall timeout and SHA-256 checks.

The bytes go to DEST.part; only a complete download whose checksum matches (when one
is known) is renamed to DEST. A cut connection is resumed with an HTTP Range request
on the next try (a server that ignores Range sends the whole file again, and the
part file restarts). Every failure a user can meet (offline, 404, stall, checksum
mismatch) ends in one UserError line naming the URL.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path

from gpubfs_cli.errors import UserError

CHUNK = 1 << 20
USER_AGENT = "gpubfs-fetch/1 (+urllib)"


class ChecksumMismatch(UserError):
    pass


class _Retryable(Exception):
    """A failure worth another try (cut connection, stall, 5xx)."""


def sha256_file(path: str | Path, chunk: int = 8 * CHUNK) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def download(
    url: str,
    dest: str | Path,
    *,
    expected_sha256: str | None = None,
    progress: bool = True,
    retries: int = 4,
    stall_timeout: float = 60.0,
    backoff: float = 1.0,
    max_backoff: float = 30.0,
) -> str:
    """Download `url` to `dest`; returns the SHA-256 (hex) of the complete file.

    Tries 1 + `retries` times, sleeping backoff * 2**k (at most `max_backoff`) between
    tries; no byte for `stall_timeout` seconds counts as a failed try. A complete file
    already at `dest` is verified and kept instead of downloading it again.
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    if dest.is_file():
        got = sha256_file(dest)
        if expected_sha256 is None or got == expected_sha256.lower():
            return got
        dest.unlink()  # a stale or foreign file: fetch again
    last: Exception | None = None
    for attempt in range(retries + 1):
        if attempt:
            time.sleep(min(max_backoff, backoff * 2 ** (attempt - 1)))
        try:
            _fetch_once(url, part, progress=progress, stall_timeout=stall_timeout)
            break
        except _Retryable as exc:
            last = exc
    else:
        raise UserError(f"cannot download {url}: {last} (gave up after {retries + 1} tries)")
    got = sha256_file(part)
    if expected_sha256 is not None and got != expected_sha256.lower():
        part.unlink(missing_ok=True)
        raise ChecksumMismatch(
            f"checksum mismatch for {url}: expected sha256 {expected_sha256.lower()}, got {got}"
        )
    os.replace(part, dest)
    return got


def _fetch_once(url: str, part: Path, *, progress: bool, stall_timeout: float) -> None:
    have = part.stat().st_size if part.is_file() else 0
    req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    if have:
        req.add_header("Range", f"bytes={have}-")
    try:
        resp = urllib.request.urlopen(req, timeout=stall_timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:
            part.unlink()  # our part is longer than the file: start over
            raise _Retryable("server refused the resume range; restarting") from None
        if exc.code >= 500 or exc.code in (408, 429):
            raise _Retryable(f"HTTP {exc.code} {exc.reason}") from None
        raise UserError(f"cannot download {url}: HTTP {exc.code} {exc.reason}") from None
    except TimeoutError:
        raise _Retryable(f"no answer within {stall_timeout:g} s") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise _Retryable(f"no answer within {stall_timeout:g} s") from None
        if isinstance(reason, (ConnectionResetError, ConnectionAbortedError)):
            raise _Retryable(str(reason)) from None
        raise UserError(f"cannot download {url}: {_reason(reason)}") from None
    except (ConnectionError, http.client.HTTPException) as exc:
        raise _Retryable(str(exc) or type(exc).__name__) from None

    with resp:
        status = getattr(resp, "status", 200)
        if have and status != 206:
            have = 0  # Range ignored: the whole file comes again
        length = resp.headers.get("Content-Length")
        total = have + int(length) if length and length.isdigit() else None
        mode = "ab" if have else "wb"
        done = have
        bar = _Bar(url, total, done) if progress and _stderr_is_terminal() else None
        # read1 returns what has arrived, so bytes before a stall are kept for the resume.
        read = getattr(resp, "read1", resp.read)
        try:
            with open(part, mode) as out:
                while True:
                    try:
                        block = read(CHUNK)
                    except TimeoutError:
                        raise _Retryable(f"stalled: no data for {stall_timeout:g} s") from None
                    except http.client.IncompleteRead as exc:
                        out.write(exc.partial)
                        raise _Retryable(f"connection cut after {done + len(exc.partial)} bytes") from None
                    except (ConnectionError, http.client.HTTPException, OSError) as exc:
                        raise _Retryable(f"connection lost after {done} bytes ({exc})") from None
                    if not block:
                        break
                    out.write(block)
                    done += len(block)
                    if bar:
                        bar.update(done)
        finally:
            if bar:
                bar.close()
        if total is not None and done < total:
            raise _Retryable(f"connection cut after {done} of {total} bytes")


def _reason(reason) -> str:
    if isinstance(reason, socket.gaierror):
        return f"host not found ({reason.strerror or reason})"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return str(reason)


def _stderr_is_terminal() -> bool:
    from rich.console import Console

    return Console(stderr=True).is_terminal


class _Bar:
    """A rich progress bar on stderr for one download."""

    def __init__(self, url: str, total: int | None, done: int):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        self._progress.start()
        self._task = self._progress.add_task(url.rsplit("/", 1)[-1], total=total, completed=done)

    def update(self, done: int) -> None:
        self._progress.update(self._task, completed=done)

    def close(self) -> None:
        self._progress.stop()
