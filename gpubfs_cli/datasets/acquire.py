"""Where a graph's archive comes from, and the one check every archive passes.

Origins, tried in this order:

    file    an archive the user names (`fetch-dataset NAME --file ARCHIVE`)
    mirror  a folder (`--mirror DIR`, else $GPUBFS_MIRROR) holding archives under their
            upstream file names (the basename of each of the entry's URLs); read in
            place, never copied or deleted
    url     the entry's URLs in order (fetch.download: resume, retries), into
            DATA_DIR/.downloads/NAME/, which the build removes afterwards (--keep-download
            keeps it); a URL that fails hands over to the next one

`check_archive` then takes the archive's sha256 and size, whatever its origin. It is
compared with the catalogue's pin, else with the hash an earlier fetch of the same URL or
file recorded (a user's own local file is not: it may be edited between fetches). On a
mismatch the archive's header is peeked at (header.py) and compared with the catalogue's
n and m, and the archive is refused in one line naming both hashes and what still
matched, unless `accept_checksum`, which uses it and records the decision. A refused
download is deleted; a mirror's or the user's file is left where it is. A mismatch is
final for that archive: the next URL is not tried.

`fill_mirror` downloads an entry's archive into a mirror folder, for GPU nodes without a
network, checked the same way and converted to nothing.

`Archive.source()` is meta.json's `source` record (the runner copies meta.json into each
results file): origin; url (url origin) or path and, where a URL's basename matched,
upstream_url (mirror, file); sha256; bytes; checksum ("verified": equal to a pinned or
recorded hash, "recorded": nothing to compare with, "accepted-mismatch": with
pinned_sha256 or recorded_sha256, header_match true | false | null (null: the header
gives no counts or cannot be read) and header, the words); sha256_verified, for older
readers; download_s and download_bytes_per_s where it was downloaded just now.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from gpubfs_cli.datasets import store
from gpubfs_cli.datasets.catalogue import DatasetEntry, load_catalogue
from gpubfs_cli.datasets.console import say, warn
from gpubfs_cli.datasets.fetch import ChecksumMismatch, download, sha256_file
from gpubfs_cli.datasets.header import HeaderCheck, check_header
from gpubfs_cli.errors import UserError

MIRROR_ENV = "GPUBFS_MIRROR"
ORIGINS = ("url", "mirror", "file")
CHECKSUMS = ("verified", "recorded", "accepted-mismatch")


def upstream_name(url: str) -> str:
    """The file name an archive has upstream: the basename of its URL."""
    name = unquote(urlparse(url).path.rsplit("/", 1)[-1])
    return name or "download"


def _mirror_setting(explicit: str | Path | None) -> tuple[Path, str] | None:
    if explicit is not None and str(explicit):
        return Path(explicit), "--mirror"
    env = os.environ.get(MIRROR_ENV)
    return (Path(env), f"${MIRROR_ENV}") if env else None


def mirror_dir(explicit: str | Path | None = None, *, create: bool = False) -> Path | None:
    """The mirror folder: `explicit`, else $GPUBFS_MIRROR, else None (no mirror).

    A UserError naming the setting when it is not a folder; with `create` (filling a
    mirror) it is made when missing and must take new files."""
    setting = _mirror_setting(explicit)
    if setting is None:
        return None
    path, where = setting
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
            if path.is_dir():
                fd, probe = tempfile.mkstemp(prefix=".probe-", dir=path)
                os.close(fd)
                os.unlink(probe)
        except FileExistsError:
            pass  # a file: said below
        except OSError as exc:
            raise UserError(f"{path}: cannot fill as the mirror folder ({where}): {exc.strerror or exc}") from None
    if not path.exists():
        raise UserError(f"{path}: no such mirror folder ({where})")
    if not path.is_dir():
        raise UserError(f"{path}: cannot use as the mirror folder ({where}): a file, not a folder")
    return path


def find_in_mirror(entry: DatasetEntry, mirror: str | Path | None) -> tuple[Path, str] | None:
    """(the archive, the URL whose basename it has) for `entry` in the folder `mirror`
    (as mirror_dir gives it; None: no mirror), trying the URLs in order; None when absent."""
    if mirror is None or entry.kind != "download":
        return None
    for url in entry.urls:
        candidate = Path(mirror) / upstream_name(url)
        if candidate.is_file():
            return candidate, url
    return None


@dataclass
class Archive:
    """An archive obtained and checked: where it lies, where it came from, what it is."""

    path: Path
    origin: str  # one of ORIGINS
    url: str | None  # url: where it was downloaded; mirror, file: the upstream URL its name matched
    sha256: str
    bytes: int
    checksum: str  # one of CHECKSUMS
    compared_with: str | None = None  # the hash a mismatch was against
    pinned: bool = False  # compared_with is the catalogue's (else an earlier fetch's)
    header: HeaderCheck | None = None  # looked at on a mismatch only
    download_s: float | None = None  # downloaded just now, in this many seconds

    def source(self) -> dict:
        """meta.json's `source` record (the module docstring lists its keys)."""
        out: dict = {"origin": self.origin}
        if self.origin == "url":
            out["url"] = self.url
        else:
            out["path"] = str(self.path)
            if self.url:
                out["upstream_url"] = self.url
        out.update(sha256=self.sha256, bytes=self.bytes, checksum=self.checksum,
                   sha256_verified=self.checksum == "verified")
        if self.checksum == "accepted-mismatch":
            out["pinned_sha256" if self.pinned else "recorded_sha256"] = self.compared_with
            out["header_match"] = self.header.match if self.header else None
            out["header"] = self.header.detail if self.header else None
        if self.download_s is not None:
            out["download_s"] = round(self.download_s, 3)
            out["download_bytes_per_s"] = round(self.bytes / self.download_s) if self.download_s > 0 else None
        return out


def _where(origin: str, url: str | None) -> str:
    return {"mirror": "mirror", "file": "given with --file"}.get(origin) or f"downloaded from {url}"


def check_archive(
    entry: DatasetEntry,
    key: str,
    path: str | Path,
    origin: str,
    *,
    url: str | None = None,
    known: str | None = None,
    sha256: str | None = None,
    accept_checksum: bool = False,
    download_s: float | None = None,
) -> Archive:
    """The one check of an archive from any origin (see the module docstring).

    `known`: a hash an earlier fetch recorded (the catalogue's pin wins over it);
    `sha256`: the archive's, when the download already took it. Raises ChecksumMismatch
    (a UserError) on a mismatch without `accept_checksum`, deleting a download."""
    path = Path(path)
    expected = entry.sha256 or known
    where = _where(origin, url)
    try:
        size = path.stat().st_size
        got = sha256 or sha256_file(path)
    except OSError as exc:
        raise UserError(f"{key}: cannot read {path} ({where}): {exc.strerror or exc}") from None
    archive = Archive(path, origin, url, got, size, "recorded" if expected is None else "verified",
                      download_s=download_s)
    if expected is None or got == expected:
        return archive
    header = check_header(path, entry)
    archive.checksum, archive.compared_with, archive.header = "accepted-mismatch", expected, header
    archive.pinned = entry.sha256 is not None
    whose = "the catalogue pins" if archive.pinned else "an earlier fetch recorded"
    if accept_checksum:
        against = f"the catalogue's {expected}" if archive.pinned else f"the {expected} an earlier fetch recorded"
        warn(f"{key}: using {path} ({where}) although its sha256 {got} is not {against}; "
             f"{header.sentence()} (--accept-checksum: recorded in meta.json and the results)")
        return archive
    text = f"{key}: sha256 of {path} ({where}) is {got}, {whose} {expected}; {header.sentence()}"
    if header.match is True:
        text += (", so it may be a re-compressed copy of the same graph: check it, then add "
                 "--accept-checksum to use it (recorded in the results)")
    elif header.match is False:
        text += (", so it is another graph or a damaged file: --accept-checksum would use it "
                 "all the same (recorded in the results)")
    else:
        text += ": check it, then add --accept-checksum to use it (recorded in the results)"
    if origin == "url":
        path.unlink(missing_ok=True)
        text += "; the download was deleted"
    raise ChecksumMismatch(text)


def _recorded(previous: dict | None, entry: DatasetEntry, url: str | None, path: Path | None) -> str | None:
    """The sha256 an earlier build of this graph recorded for the same URL or file."""
    src = (previous or {}).get("source") or {}
    sha = src.get("sha256")
    if not isinstance(sha, str):
        return None
    if url is not None and url in (src.get("url"), src.get("upstream_url")):
        return sha
    if path is not None and entry.kind != "user" and src.get("path") == str(path):
        return sha
    return None


def download_archive(
    entry: DatasetEntry,
    key: str,
    folder: Path,
    *,
    known_for: Callable[[str], str | None] = lambda url: None,
    accept_checksum: bool = False,
    progress: bool = True,
    tidy: bool = True,
    elsewhere: str = "",
) -> Archive:
    """The entry's archive downloaded into `folder` under its upstream name, URL after URL
    until one works, then checked. A complete file already there is checked instead of
    downloaded again (one that fails a known hash is fetched afresh). `tidy` removes the
    folder and its parent when the tries leave them empty (never a mirror); `elsewhere`
    ends the error when every URL failed (where else it was looked for)."""
    errors: list[str] = []
    try:
        for url in entry.urls:
            dest = folder / upstream_name(url)
            known = entry.sha256 or known_for(url)
            got = None
            if dest.is_file():
                got = sha256_file(dest)
                if known is not None and got != known:
                    dest.unlink()  # a stale copy: fetch it again
                    got = None
            seconds = None
            if got is None:
                say(progress, f"{key}: downloading {url}")
                t0 = time.perf_counter()
                try:
                    got = download(url, dest, progress=progress)
                except UserError as exc:
                    errors.append(str(exc))
                    if url != entry.urls[-1]:
                        say(progress, f"{key}: {exc}; trying the next URL")
                    continue
                seconds = time.perf_counter() - t0
            return check_archive(entry, key, dest, "url", url=url, known=known, sha256=got,
                                 accept_checksum=accept_checksum, download_s=seconds)
    except ChecksumMismatch:
        _tidy(folder, tidy)
        raise
    _tidy(folder, tidy)
    if not errors:
        raise UserError(f"dataset '{key}' lists no URL to download it from{elsewhere}")
    if len(errors) == 1:
        raise UserError(errors[0] + elsewhere)
    raise UserError(f"dataset '{key}': every URL failed: " + "; ".join(errors) + elsewhere)


def _tidy(folder: Path, tidy: bool) -> None:
    if not tidy:
        return
    for empty in (folder, folder.parent):  # what the tries made and left empty (a .part stays)
        try:
            empty.rmdir()
        except OSError:
            pass


def _given_file(archive: str | Path, key: str) -> Path:
    path = Path(archive)
    if path.is_dir():
        raise UserError(f"{archive}: a folder, not an archive (dataset '{key}')")
    if not path.is_file():
        raise UserError(f"{archive}: no such file (dataset '{key}')")
    return path.resolve()


def acquire(
    entry: DatasetEntry,
    key: str,
    data_dir: str | Path | None = None,
    previous: dict | None = None,
    *,
    mirror: str | Path | None = None,
    archive: str | Path | None = None,
    accept_checksum: bool = False,
    progress: bool = True,
) -> Archive:
    """The archive of `entry`, from `archive`, else the mirror, else its URLs, checked.

    `previous`: the meta.json of the graph being replaced (its recorded sha256);
    `mirror`: the folder, else $GPUBFS_MIRROR (user graphs use none). A download lies in
    DATA_DIR/.downloads/NAME/ (Archive.origin == "url"): the caller removes it."""
    if archive is not None:
        path = _given_file(archive, key)
        upstream = next((u for u in entry.urls if upstream_name(u) == path.name), None)
        say(progress, f"{key}: reading {path}")
        known = _recorded(previous, entry, upstream, path)
        return check_archive(entry, key, path, "file", url=upstream, known=known, accept_checksum=accept_checksum)
    folder = mirror_dir(mirror) if entry.kind == "download" else None
    found = find_in_mirror(entry, folder)
    if found is not None:
        path, url = found
        say(progress, f"{key}: reading {path} from the mirror")
        return check_archive(entry, key, path, "mirror", url=url, known=_recorded(previous, entry, url, path),
                             accept_checksum=accept_checksum)
    elsewhere = ""
    if folder is not None:
        names = ", ".join(dict.fromkeys(upstream_name(u) for u in entry.urls))
        say(progress, f"{key}: not in the mirror {folder} (looked for {names}); downloading")
        elsewhere = f" (and the mirror {folder} holds no {names})"
    return download_archive(
        entry, key, store.data_dir(data_dir) / store.DOWNLOADS / entry.name,
        known_for=lambda url: _recorded(previous, entry, url, None),
        accept_checksum=accept_checksum, progress=progress, elsewhere=elsewhere,
    )


@dataclass
class Filled:
    """One catalogue entry's turn in fill_mirror: its archive, or why it was skipped."""

    name: str
    archive: Archive | None
    downloaded: bool = False
    skipped: str | None = None


def fill_mirror(name: str, mirror: str | Path, *, accept_checksum: bool = False, progress: bool = True) -> Filled:
    """The archive of catalogue dataset `name` in the folder `mirror`, under its upstream
    name: checked where it is already there, else downloaded there and checked (a
    download that fails the check is deleted). Nothing is converted; a generated graph
    is skipped (it is made on the node)."""
    entry = load_catalogue().get(name)
    if entry.kind != "download":
        return Filled(entry.name, None, skipped="generated on the node, nothing to download")
    folder = Path(mirror)
    found = find_in_mirror(entry, folder)
    if found is not None:
        path, url = found
        say(progress, f"{entry.name}: {path.name} is in the mirror: checking it")
        return Filled(entry.name, check_archive(entry, entry.name, path, "mirror", url=url,
                                                accept_checksum=accept_checksum))
    got = download_archive(entry, entry.name, folder, accept_checksum=accept_checksum, progress=progress, tidy=False)
    return Filled(entry.name, got, downloaded=True)
