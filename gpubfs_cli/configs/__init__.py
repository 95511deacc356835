"""The data the package ships: the dataset catalogue (datasets.yaml), the papers' published
numbers and layouts (papers/KEY.yaml) and the run configs (experiments/NAME.yaml).

They are read in place through importlib.resources, so a wheel and a checkout read the
same files; a user's own file, given by path, is read instead.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from gpubfs_cli.errors import UserError, unknown_name


def shipped(*parts: str) -> Path:
    """A shipped file or folder. pip installs packages unpacked, so it is a real path (the
    kernels' compiler and the cache's stat calls need one)."""
    found = resources.files(__name__).joinpath(*parts)
    if not isinstance(found, Path):
        raise UserError(f"{found}: gpubfs is installed zipped; install it unpacked (pip install gpubfs)")
    return found


def catalogue_path() -> Path:
    return shipped("datasets.yaml")


def papers_dir() -> Path:
    return shipped("papers")


def experiments_dir() -> Path:
    return shipped("experiments")


def run_config_names() -> list[str]:
    return sorted(p.stem for p in experiments_dir().glob("*.yaml"))


def run_config_path(arg: str | Path) -> Path:
    """`gpubfs run ARG`'s file. A path that exists is read as it is. Otherwise a bare name
    (`default`, `default.yaml`) or the checkout's old spelling
    (`configs/experiments/default.yaml`) names a shipped run config; any other missing
    path is returned for the reader to report."""
    path = Path(arg)
    if path.exists():
        return path
    bare = len(path.parts) == 1
    old = path.parent.parts[-2:] == ("configs", "experiments")
    if not (bare or old):
        return path
    stem = path.name.removesuffix(".yaml")
    found = experiments_dir() / f"{stem}.yaml"
    if found.is_file():
        return found
    raise UserError(f"{arg}: no such file; {unknown_name('run config', stem, run_config_names())}")
