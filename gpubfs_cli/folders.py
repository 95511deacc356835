"""Where gpubfs keeps its dataset cache and its results files: the one rule every command asks.

  datasets  --dir DIR (or a run config's data_dir), else $GPUBFS_DATA_DIR, else the default
  results   $GPUBFS_RESULTS_DIR, else the default (`run --out FILE` and `reproduce --results
            DIR` name single outputs elsewhere)
  default   in a checkout, ./datasets and ./results of the working folder; installed, the
            per-user folders:
              Linux and others  $XDG_DATA_HOME/gpubfs/ (default ~/.local/share/gpubfs/)
              macOS             ~/Library/Application Support/gpubfs/
              Windows           %LOCALAPPDATA%\\gpubfs\\ (default ~\\AppData\\Local\\gpubfs\\)
            holding datasets/ and results/.

A checkout is a package imported from a source tree whose pyproject.toml, beside the
package, names the gpubfs project (an editable install included): developers and CI run
there, from the working folder they choose. A wheel's package sits in site-packages with
no such file, so an installed gpubfs writes to the same folders wherever it is started.

A folder that names a file, or that does not exist and cannot be created (a file or a
read-only folder in its way), is one UserError line naming the option or variable that
chose it and the path, before anything reads or writes there.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from gpubfs_cli.errors import UserError

DATA_ENV = "GPUBFS_DATA_DIR"
RESULTS_ENV = "GPUBFS_RESULTS_DIR"
APP = "gpubfs"
CHECKOUT = "checkout"
PER_USER = "per-user"
DATA_WHAT = "dataset cache"
RESULTS_WHAT = "results folder"


@dataclass(frozen=True)
class Folder:
    """A folder, what it is for, and what chose it: an option ('--dir'), a variable
    ('$GPUBFS_DATA_DIR'), CHECKOUT or PER_USER."""

    path: Path
    what: str  # DATA_WHAT | RESULTS_WHAT
    origin: str

    def chooser(self) -> str:
        """What chose the folder, as a message names it."""
        if self.origin == CHECKOUT:
            return "a checkout's default"
        if self.origin == PER_USER:
            return "the per-user default"
        return self.origin

    def why(self) -> str:
        """What chose it, in words (`gpubfs info`)."""
        if self.origin == CHECKOUT:
            return f"a checkout: ./{self.path} of the working folder"
        if self.origin == PER_USER:
            return "installed: the per-user folder"
        return f"from {self.origin}"

    def problem(self) -> str | None:
        """Why the folder cannot be used, or None."""
        if os.path.exists(self.path):
            if self.path.is_dir():
                return None
            return "a file, not a folder" if self.path.is_file() else "not a folder"
        here = self.path
        while not os.path.lexists(here) and here != here.parent:
            here = here.parent
        if not here.is_dir():
            return f"cannot be created: {here} is not a folder"
        if not os.access(here, os.W_OK | os.X_OK):
            return f"cannot be created: {here} is not writable"
        return None

    def checked(self) -> Path:
        """The path, once `problem` finds nothing; else one UserError line."""
        problem = self.problem()
        if problem is None:
            return self.path
        hint = ""
        if self.origin in (CHECKOUT, PER_USER):
            hint = f"; set ${DATA_ENV if self.what == DATA_WHAT else RESULTS_ENV} to another folder"
        raise UserError(f"{self.path}: cannot use as the {self.what} ({self.chooser()}): {problem}{hint}")


def data_folder(option: str | Path | None = None, option_name: str = "--dir") -> Folder:
    """The dataset cache: `option` (a command's --dir, a run config's data_dir), else
    $GPUBFS_DATA_DIR, else the default (module docstring). Not checked: see `data_dir`."""
    if option is not None:
        if str(option) == "":  # Path("") would be ".", the current folder
            raise UserError(f"{option_name}: an empty value; expected a path")
        return Folder(Path(option), DATA_WHAT, option_name)
    return _default("datasets", DATA_ENV, DATA_WHAT)


def results_folder() -> Folder:
    """Where results files go: $GPUBFS_RESULTS_DIR, else the default. Not checked: see
    `results_dir`."""
    return _default("results", RESULTS_ENV, RESULTS_WHAT)


def data_dir(option: str | Path | None = None, option_name: str = "--dir") -> Path:
    """The dataset cache folder, checked (one UserError line when it cannot be used)."""
    return data_folder(option, option_name).checked()


def results_dir() -> Path:
    """The results folder, checked (one UserError line when it cannot be used)."""
    return results_folder().checked()


def _default(name: str, env: str, what: str) -> Folder:
    value = os.environ.get(env)
    if value:  # an empty variable counts as unset
        return Folder(Path(value), what, f"${env}")
    if in_checkout():
        return Folder(Path(name), what, CHECKOUT)
    return Folder(per_user_base() / APP / name, what, PER_USER)


@functools.lru_cache(maxsize=1)
def in_checkout() -> bool:
    """This package is imported from a checkout (module docstring)."""
    return is_checkout(Path(__file__).resolve().parent)


def is_checkout(package: Path) -> bool:
    """`package` (a folder) sits beside a pyproject.toml that names the gpubfs project."""
    project = package.parent / "pyproject.toml"
    try:
        text = project.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return re.search(r'(?m)^\s*name\s*=\s*["\']gpubfs["\']', text) is not None


def per_user_base(platform: str | None = None, environ: dict | None = None, home: Path | None = None) -> Path:
    """The per-user data folder of this platform (the gpubfs folder goes inside it).
    `platform`, `environ` and `home` stand in for sys.platform, os.environ and the home
    folder (tests)."""
    platform = sys.platform if platform is None else platform
    environ = os.environ if environ is None else environ
    if platform == "win32":
        local = environ.get("LOCALAPPDATA")
        if local:
            return Path(local)
        return _home(home) / "AppData" / "Local"
    if platform == "darwin":
        return _home(home) / "Library" / "Application Support"
    xdg = environ.get("XDG_DATA_HOME")
    if xdg and os.path.isabs(xdg):  # the XDG spec: a relative value is to be ignored
        return Path(xdg)
    return _home(home) / ".local" / "share"


def _home(home: Path | None) -> Path:
    if home is not None:
        return home
    try:
        return Path.home()
    except RuntimeError:  # no HOME and no password entry
        raise UserError(f"cannot find the home folder for gpubfs's per-user folders; "
                        f"set ${DATA_ENV} and ${RESULTS_ENV}") from None
