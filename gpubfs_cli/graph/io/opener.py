"""Open a graph file as a binary stream: plain, gzip, bzip2, or one member of a tar archive.

Compression is recognised from the first bytes, not the name; an archive from its name
(.tar, .tar.gz, .tgz, .tar.bz2, .tbz2) or because a member was asked for. Archives are read
as a stream ("r|*"), so picking a member never decompresses the archive twice.
Decompression failures (truncated or corrupt data) become InputFormatError naming the file.
"""

from __future__ import annotations

import bz2
import gzip
import os
import tarfile
import zlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import BinaryIO

from gpubfs_cli.errors import InputFormatError

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar")
_GZIP_MAGIC = b"\x1f\x8b"
_BZIP2_MAGIC = b"BZh"
# What a broken compressed stream raises, depending on where the damage is (tarfile's
# stream reader raises TypeError on a gzip header cut short, ValueError on some damage).
_DECOMPRESS_ERRORS = (EOFError, OSError, zlib.error, tarfile.TarError, TypeError, ValueError)


@dataclass
class OpenedFile:
    """A readable stream plus what progress and error messages need.

    `name` is what messages show: the path, or `archive[member]`. `raw` is the file on disk
    (its position drives the progress bar); `total_bytes` is its size.
    """

    name: str
    stream: BinaryIO
    raw: BinaryIO
    total_bytes: int
    compression: str

    def readinto(self, view: memoryview) -> int:
        """Fill `view` as far as the data goes; 0 only at the end of the data."""
        done = 0
        size = len(view)
        try:
            while done < size:
                got = self.stream.readinto(view[done:])
                if not got:
                    break
                done += got
        except _DECOMPRESS_ERRORS as exc:
            raise InputFormatError(
                self.name, None, f"truncated or corrupt {self.compression} data ({exc})"
            ) from None
        return done

    def raw_position(self) -> int:
        try:
            return min(self.raw.tell(), self.total_bytes)
        except (OSError, ValueError):
            return 0


def archive_stem(path: str) -> str | None:
    """'x/NAME.tar.gz' -> 'NAME'; None when the name is not an archive's."""
    base = os.path.basename(path)
    for suffix in ARCHIVE_SUFFIXES:
        if base.lower().endswith(suffix):
            return base[: -len(suffix)]
    return None


def _sniff(raw: BinaryIO) -> str:
    head = raw.read(4)
    raw.seek(0)
    if head.startswith(_GZIP_MAGIC):
        return "gzip"
    if head.startswith(_BZIP2_MAGIC):
        return "bzip2"
    return "plain"


def _open_raw(path: str) -> BinaryIO:
    try:
        return open(path, "rb", buffering=0)  # noqa: SIM115 (closed by the caller's ExitStack)
    except FileNotFoundError:
        raise InputFormatError(path, None, "file not found") from None
    except IsADirectoryError:
        raise InputFormatError(path, None, "is a directory, expected a graph file") from None
    except OSError as exc:
        raise InputFormatError(path, None, f"cannot open ({exc.strerror or exc})") from None


def _default_member(stem: str, name: str, suffixes: tuple[str, ...]) -> bool:
    name = name[2:] if name.startswith("./") else name
    return any(name in (f"{stem}/{stem}{s}", f"{stem}{s}") for s in suffixes)


@contextmanager
def open_graph_file(
    path: str | os.PathLike, member: str | None = None, suffixes: tuple[str, ...] = (".mtx",)
) -> Iterator[OpenedFile]:
    """Open `path` (or `member` of the archive at `path`) for reading bytes.

    With member=None an archive must hold `<stem>/<stem><suffix>` or `<stem><suffix>`
    (SuiteSparse: NAME.tar.gz holds NAME/NAME.mtx); otherwise the error lists the members.
    """
    path = os.fspath(path)
    with ExitStack() as stack:
        raw = stack.enter_context(_open_raw(path))
        total = os.fstat(raw.fileno()).st_size
        compression = _sniff(raw)
        stem = archive_stem(path)
        if stem is None and member is None:
            if compression == "gzip":
                stream = stack.enter_context(gzip.GzipFile(fileobj=raw, mode="rb"))
            elif compression == "bzip2":
                stream = stack.enter_context(bz2.BZ2File(raw, mode="rb"))
            else:
                stream = raw
            yield OpenedFile(path, stream, raw, total, compression)
            return
        kind = "tar" if compression == "plain" else f"tar ({compression})"
        try:
            archive = stack.enter_context(tarfile.open(fileobj=raw, mode="r|*"))
        except _DECOMPRESS_ERRORS as exc:
            raise InputFormatError(path, None, f"not a readable tar archive ({exc})") from None
        seen: list[str] = []
        want = member[2:] if member and member.startswith("./") else member
        found = None
        try:
            for info in archive:
                if not info.isfile():
                    continue
                name = info.name[2:] if info.name.startswith("./") else info.name
                seen.append(name)
                if name == want if want is not None else _default_member(stem or "", name, suffixes):
                    found = (name, archive.extractfile(info))
                    break
        except _DECOMPRESS_ERRORS as exc:
            raise InputFormatError(path, None, f"truncated or corrupt {kind} data ({exc})") from None
        if found is not None:
            yield OpenedFile(f"{path}[{found[0]}]", found[1], raw, total, kind)
            return
        listing = ", ".join(seen[:20]) + (", ..." if len(seen) > 20 else "")
        if want is not None:
            expected = f"archive has no member '{want}' (members: {listing or 'none'})"
        else:
            wanted = " or ".join(f"{stem}/{stem}{s}" for s in suffixes)
            expected = f"archive holds no {wanted}; name one with member= (members: {listing or 'none'})"
        raise InputFormatError(path, None, expected)
