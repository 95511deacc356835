"""A wheel carries every kernel, header and data file the package reads at run time:
pyproject's package-data patterns, applied the way setuptools applies them (globs
relative to the package's folder), cover each of them."""

from __future__ import annotations

from pathlib import Path

import pytest

import gpubfs_cli
from gpubfs_cli.gpu.modules import INCLUDE_DIR, kernel_files

tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(gpubfs_cli.__file__).resolve().parent


def packaged() -> set[Path]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    out: set[Path] = set()
    for package, patterns in data.items():
        folder = ROOT / package.replace(".", "/")
        for pattern in patterns:
            out |= {p.resolve() for p in folder.glob(pattern) if p.is_file()}
    return out


def test_every_kernel_header_and_data_file_is_package_data():
    files = {p.resolve() for ext in ("*.cu", "*.cuh", "*.yaml") for p in PACKAGE.rglob(ext)}
    files |= {Path(p).resolve() for p in kernel_files()} | {p.resolve() for p in INCLUDE_DIR.glob("*.cuh")}
    assert files and PACKAGE / "gpu" / "include" / "persistent.cuh" in files
    missing = sorted(str(p.relative_to(PACKAGE)) for p in files - packaged())
    assert not missing, f"not in any package-data pattern: {missing}"
