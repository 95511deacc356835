"""The data the package ships: the dataset catalogue (datasets.yaml), the papers' published
numbers and layouts (papers/KEY.yaml) and the run configs (experiments/NAME.yaml: the
papers' and the user-facing ones, each opening with a `# purpose:` line).

They are read in place through importlib.resources, so a wheel and a checkout read the
same files; a user's own file, given by path, is read instead. The tuning and profiling
studies are run configs too, but not shipped: they live in the repository's studies/
folder and run by path (`gpubfs run studies/NAME.yaml`).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from gpubfs_cli.errors import UserError, unknown_name

STUDIES = "studies"  # a checkout's study configs, beside the package (not in the wheel)
STUDIES_NOTE = ("Tuning and profiling studies are not shipped: a checkout keeps them in studies/ "
                "(gpubfs run studies/NAME.yaml).")


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
    (`configs/experiments/default.yaml`) names a shipped run config (a bare name of one of
    the checkout's studies says to run it by path); any other missing path is returned
    for the reader to report."""
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
    study = Path(STUDIES) / f"{stem}.yaml"
    if bare and study.is_file():
        raise UserError(f"{arg}: not a shipped run config; a study of this checkout: gpubfs run {study}")
    raise UserError(f"{arg}: no such file; {unknown_name('run config', stem, run_config_names())}")


def purpose(path: Path) -> str:
    """A run config's one-line purpose: its opening `# purpose:` line, else the text of
    its first comment line ('' when it opens with no comment)."""
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text.startswith("#"):
            return ""
        text = text.lstrip("#").strip()
        if text:
            return text.removeprefix("purpose:").strip()
    return ""


def run_config_listing(load: Callable[[Path], Any]) -> list[dict]:
    """`gpubfs list configs`: one row per shipped run config, its name, its purpose, and
    what it runs. `load` is the caller's config reader (bench.config.load_config): a
    config's datasets and variants (strategies x knob values x vertex orders) are counted
    as a run would expand them."""
    rows = []
    for name in run_config_names():
        path = experiments_dir() / f"{name}.yaml"
        cfg = load(path)
        rows.append({"name": name, "purpose": purpose(path), "problem": sorted({v.problem for v in cfg.variants}),
                     "datasets": len(cfg.datasets), "variants": len(cfg.variants)})
    return rows
