"""Writing files so that a partial one never sits under the final name.

Output paths a user names (`run --out`, `report --out`, `export PATH`) are checked before
any work (`check_output_path`): the file is written to a temporary name beside PATH and
published under PATH in one step (`atomic_output`), so PATH must be a regular file or a
new name. A device (/dev/null), a FIFO, a symbolic link or a folder there is refused: the
rename would replace it. An existing file is replaced only when the user said so
(`--force`: `refuse_existing`), and never when it is one of the command's own inputs
(`refuse_input`). Without --force the check before the work is repeated exactly when the
file is published: a hard link, which fails when PATH exists, so of two commands racing
for one PATH one writes it and the other is refused.

Files the user names as input are read through `read_text_file`: a regular file only (a
FIFO would hang the read, /dev/zero would fill the memory), at most MAX_READ_BYTES on disk
and, gzip-compressed, at most that many once decompressed. YAML goes through
`parse_yaml`, which refuses a key given twice in one mapping.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gpubfs_cli.errors import UserError

_KINDS = (
    (stat.S_ISDIR, "a folder; give a file name"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def _refuse_non_regular(path: Path, what: str) -> None:
    """A UserError unless `path` is absent or a regular file (links are not followed)."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # absent (the folder is checked apart)
        return
    except OSError as exc:
        raise UserError(f"{path}: cannot write the {what} there ({exc.strerror or exc})") from None
    if stat.S_ISREG(mode):
        return
    kind = next((text for test, text in _KINDS if test(mode)), "not a regular file")
    if not kind.startswith("a folder"):
        kind += f"; the {what} goes to a regular file or a new path"
    raise UserError(f"{path}: is {kind}")


def check_output_path(path: str | Path, what: str = "output", *, force: bool = True,
                      option: str = "--out") -> Path:
    """Refuse, before a long run, a path the result could not be written to.

    PATH must be a regular file or absent, and its folder (or the nearest folder that
    exists above it, the rest being created at write time) must accept a new file: a
    probe file is created there and removed. Without `force` an existing PATH is refused
    too (`refuse_existing`; `option` names what to change instead). Returns PATH as a Path.
    """
    if str(path) == "":  # Path("") would be ".", the current folder
        raise UserError(f"{option}: an empty value; expected a file name for the {what}")
    path = Path(path)
    if path.name in ("", ".", ".."):
        raise UserError(f"'{path}': not a file name for the {what}")
    _refuse_non_regular(path, what)
    if not force:
        refuse_existing(path, option)
    try:
        writable_ancestor(path.parent)
    except NotWritable as e:
        if e.reason is None:
            raise UserError(f"{path}: cannot write the {what} there ({e.folder} is not a folder)") from None
        raise UserError(f"{path}: cannot write the {what} in {e.folder} ({e.reason})") from None
    return path


def refuse_existing(path: str | Path, option: str = "--out") -> None:
    """The one rule of every output a user names (`run --out`, `report --out`, `export
    PATH`): an existing file is replaced only with --force."""
    if os.path.lexists(path):
        raise _exists(path, option)


def _exists(path: str | Path, option: str) -> UserError:
    return UserError(f"{path}: already exists; give --force to replace it, or another {option}")


def refuse_input(out: str | Path, inputs, what: str = "report") -> None:
    """Refuse writing `out` over one of the command's own input files (--force or not):
    the output would destroy what it was made from. Links and hard links count as the
    same file."""
    for given in inputs:
        try:
            same = os.path.samefile(out, given)
        except OSError:  # `out` absent (a new file), or an input that is not there
            same = False
        if same:
            raise UserError(f"{out}: is {given}, one of this {what}'s own inputs; write the {what} to another file")


class NotWritable(Exception):
    """`folder` (the nearest that exists) is not a folder (`reason` None) or refused a new file."""

    def __init__(self, folder: Path, reason: str | None = None):
        super().__init__(str(folder))
        self.folder, self.reason = folder, reason


def writable_ancestor(folder: str | Path) -> Path:
    """The nearest folder at or above `folder` that exists (the rest is created at write
    time), once a probe file has been created and removed there; else NotWritable."""
    here = Path(folder)
    while not os.path.lexists(here) and here != here.parent:
        here = here.parent
    if not here.is_dir():
        raise NotWritable(here)
    try:
        fd, probe = tempfile.mkstemp(prefix=".gpubfs-probe-", dir=here)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise NotWritable(here, exc.strerror or str(exc)) from None
    return here


def write_text_atomic(path: str | Path, text: str, what: str = "output", *, force: bool = True,
                      option: str = "--out") -> Path:
    """Write `text` to a temporary file beside `path`, then publish it there whole
    (`atomic_output`: without `force`, an existing `path` is refused, even one that
    appeared while the text was written)."""
    with atomic_output(path, what, force=force, option=option) as f:
        f.write(text)
    return Path(path)


@contextmanager
def atomic_output(path: str | Path, what: str = "output", *, force: bool = True, option: str = "--out",
                  binary: bool = False) -> Iterator:
    """A file open for writing on a temporary name beside `path`, published under `path`
    when the block ends without an error: with `force` renamed over it, else hard-linked
    to it (refused, as `refuse_existing` says, when `path` exists by then). The temporary
    name is removed whatever happens, so `path` holds a whole file or what it held before.

    A folder that cannot be made or written, a full disk, or a path that is not a
    regular file (see check_output_path) is a UserError naming the path.
    """
    path = Path(path)
    _refuse_non_regular(path, what)
    if not force:
        refuse_existing(path, option)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except (FileExistsError, NotADirectoryError):
        raise UserError(f"{path}: cannot write the {what} ({path.parent} is not a folder)") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            # mkstemp makes the file 0600; a results or report file gets the mode any
            # new file of the user's gets (0666 less the umask).
            os.fchmod(f.fileno(), 0o666 & ~current_umask())
            yield f
        _publish(tmp, path, force, option)
    except OSError as exc:
        _unlink_quietly(tmp)
        raise UserError(f"{path}: cannot write the {what} ({exc.strerror or exc})") from None
    except BaseException:
        _unlink_quietly(tmp)
        raise


# A file system that has no hard links answers os.link with one of these.
_NO_HARD_LINKS = {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV, errno.ENOSYS}


def _publish(tmp: str, path: Path, force: bool, option: str) -> None:
    """Put the complete file `tmp` under `path`: renamed over it with `force`; else
    linked, which fails when `path` exists (the check and the write are one step)."""
    if force:
        os.replace(tmp, path)
        return
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise _exists(path, option) from None
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        # No hard links here: claim the name exclusively (an empty file, for an instant),
        # then rename the whole file over the claim.
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            raise _exists(path, option) from None
        try:
            os.replace(tmp, path)
        except BaseException:
            _unlink_quietly(str(path))  # the claim, never another's file
            raise
        return
    _unlink_quietly(tmp)


def current_umask() -> int:
    """The process umask (reading it means setting it: set it straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


# A results file, journal or config is read whole: none a run writes comes near this.
MAX_READ_BYTES = 2 << 30


def check_input_file(path: str | Path, what: str) -> Path:
    """PATH if it is a regular file (links followed); else one UserError line. Opening a
    FIFO for reading would wait for a writer, and a device never ends."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise UserError(f"{path}: no such {what}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    _refuse_input_mode(path, mode, what)
    return path


def _refuse_input_mode(path: Path, mode: int, what: str) -> None:
    """One UserError line unless `mode` is a regular file's."""
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise UserError(f"{path}: is a folder, expected a {what}")
    kind = next((text for test, text in _KINDS if test(mode)), "not a regular file")
    raise UserError(f"{path}: is {kind}, expected a {what} (a regular file)")


def _too_large(path: Path, what: str, packed: bool) -> UserError:
    size = f"{MAX_READ_BYTES / (1 << 30):g} GiB" if MAX_READ_BYTES >= 1 << 30 else f"{MAX_READ_BYTES:,} bytes"
    how = "once decompressed" if packed else "on disk"
    return UserError(f"{path}: larger than {size} {how}; not a {what} this tool writes (it reads them whole)")


def read_text_file(path: str | Path, what: str) -> str:
    """The UTF-8 text of a file the user named, gzip-compressed or not (shipped results
    files are); anything else is one UserError line (read_file_bytes says what is read)."""
    data = read_file_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UserError(f"{path}:{line}: not a {what}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def read_file_bytes(path: str | Path, what: str) -> bytes:
    """The bytes of a file the user named, gunzipped where they are gzip: a regular file
    only, and at most MAX_READ_BYTES of it, before and after decompression; anything else
    is one UserError line."""
    import gzip
    import zlib

    path = Path(path)
    try:
        # O_NONBLOCK: a FIFO opens at once (and is refused below) instead of waiting
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UserError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, expected a {what}") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read the {what} ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        _refuse_input_mode(path, st.st_mode, what)
        if st.st_size > MAX_READ_BYTES:
            raise _too_large(path, what, False)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as f:
            fd = -1
            packed = f.read(2) == b"\x1f\x8b"
            f.seek(0)
            # read at most one byte past the bound: a file growing as it is read stays bounded
            data = (gzip.GzipFile(fileobj=f) if packed else f).read(MAX_READ_BYTES + 1)
            if len(data) > MAX_READ_BYTES:
                raise _too_large(path, what, packed)
    except (OSError, EOFError, zlib.error) as exc:  # gzip: a bad header, a cut stream, bad blocks
        raise UserError(f"{path}: cannot read the {what} ({getattr(exc, 'strerror', None) or exc})") from None
    finally:
        if fd >= 0:
            os.close(fd)
    return data


class _DuplicateKey(Exception):
    def __init__(self, key, line: int, first: int):
        super().__init__(key)
        self.key, self.line, self.first = key, line, first


def _unique_key_loader():
    """A SafeLoader whose mappings refuse a key given twice (PyYAML keeps the last one
    silently). Keys a merge (`<<: *anchor`) brings in may be overridden: only the
    mapping's own keys are compared."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen: dict = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    line = key_node.start_mark.line + 1
                    try:
                        if key in seen:
                            raise _DuplicateKey(key, line, seen[key])
                        seen[key] = line
                    except TypeError:  # an unhashable key: the base class says so
                        continue
            return super().construct_mapping(node, deep)

    return UniqueKeyLoader


def parse_yaml(text: str, where: str):
    """yaml.safe_load(text); a syntax error or a key given twice in one mapping is a
    UserError naming `where` and the line."""
    import yaml

    try:
        return yaml.load(text, Loader=_unique_key_loader())  # noqa: S506 (a SafeLoader)
    except _DuplicateKey as exc:
        raise UserError(f"{where}:{exc.line}: key '{exc.key}' given twice in one mapping (first at line "
                        f"{exc.first}); keep one") from None
    except yaml.reader.ReaderError as exc:  # a control character, e.g. in a binary file
        line = text.count("\n", 0, exc.position) + 1
        raise UserError(f"{where}:{line}: not valid YAML (unacceptable character #x{exc.character:04x})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = " ".join(str(getattr(exc, "problem", None) or "syntax error").split())
        raise UserError(f"{where}{line}: not valid YAML ({problem})") from None
    except RecursionError:
        raise UserError(f"{where}: not valid YAML (nested too deeply)") from None


def plain_json(obj, array_limit: int | None = None):
    """`obj` with numpy scalars and arrays turned into plain JSON values.

    Arrays longer than `array_limit` become a short 'array(shape)' note (meta.json
    keeps small facts, not data); with no limit every array is written out.
    """
    import numpy as np

    if isinstance(obj, dict):
        return {str(k): plain_json(v, array_limit) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain_json(v, array_limit) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        if array_limit is not None and obj.size > array_limit:
            return f"array{obj.shape}"
        return obj.tolist()
    return obj
