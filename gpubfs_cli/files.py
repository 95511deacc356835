"""Writing files so that a partial one never sits under the final name.

Output paths a user names (`run --out`, `report --out`, `export PATH`) are checked before
any work (`check_output_path`): the file is written to a temporary name beside PATH and
renamed over it, so PATH must be a regular file or a new name. A device (/dev/null), a
FIFO, a symbolic link or a folder there is refused: the rename would replace it.
"""

from __future__ import annotations

import os
import stat
import tempfile
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


def check_output_path(path: str | Path, what: str = "output") -> Path:
    """Refuse, before a long run, a path the result could not be written to.

    PATH must be a regular file or absent, and its folder (or the nearest folder that
    exists above it, the rest being created at write time) must accept a new file: a
    probe file is created there and removed. Returns PATH as a Path.
    """
    path = Path(path)
    if not str(path) or path.name in ("", ".", ".."):
        raise UserError(f"'{path}': not a file name for the {what}")
    _refuse_non_regular(path, what)
    try:
        writable_ancestor(path.parent)
    except NotWritable as e:
        if e.reason is None:
            raise UserError(f"{path}: cannot write the {what} there ({e.folder} is not a folder)") from None
        raise UserError(f"{path}: cannot write the {what} in {e.folder} ({e.reason})") from None
    return path


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


def write_text_atomic(path: str | Path, text: str, what: str = "output") -> Path:
    """Write `text` to a temporary file beside `path`, then rename it into place.

    A folder that cannot be made or written, a full disk, or a path that is not a
    regular file (see check_output_path) is a UserError naming the path; the temporary
    file is removed whatever happens.
    """
    path = Path(path)
    _refuse_non_regular(path, what)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except (FileExistsError, NotADirectoryError):
        raise UserError(f"{path}: cannot write ({path.parent} is not a folder)") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot write ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            # mkstemp makes the file 0600; a results or report file gets the mode any
            # new file of the user's gets (0666 less the umask).
            os.fchmod(f.fileno(), 0o666 & ~current_umask())
            f.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        _unlink_quietly(tmp)
        raise UserError(f"{path}: cannot write ({exc.strerror or exc})") from None
    except BaseException:
        _unlink_quietly(tmp)
        raise
    return path


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


def read_text_file(path: str | Path, what: str) -> str:
    """The UTF-8 text of a file the user named, gzip-compressed or not (shipped results
    files are); anything else is one UserError line."""
    import gzip
    import zlib

    path = Path(path)
    try:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except FileNotFoundError:
        raise UserError(f"{path}: no such {what}") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, expected a {what}") from None
    except (OSError, EOFError, zlib.error) as exc:  # gzip: a bad header, a cut stream, bad blocks
        raise UserError(f"{path}: cannot read the {what} ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UserError(f"{path}:{line}: not a {what}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def parse_yaml(text: str, where: str):
    """yaml.safe_load(text); a syntax error is a UserError naming `where` and the line."""
    import yaml

    try:
        return yaml.safe_load(text)
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
