"""A wheel carries every kernel, header and data file the package reads at run time, and
works installed outside the checkout.

The pattern test applies pyproject's package-data globs the way setuptools does (no
build); the others build the wheel from a copy of the sources, read its file list, and
install it in a fresh venv whose other packages come from the test's own interpreter."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
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


def data_files() -> set[Path]:
    """Every kernel and header the strategies load, and every shipped YAML file."""
    files = {p.resolve() for ext in ("*.cu", "*.cuh", "*.yaml") for p in PACKAGE.rglob(ext)}
    return files | {Path(p).resolve() for p in kernel_files()} | {p.resolve() for p in INCLUDE_DIR.glob("*.cuh")}


def test_every_kernel_header_and_data_file_is_package_data():
    files = data_files()
    assert PACKAGE / "gpu" / "include" / "persistent.cuh" in files
    assert PACKAGE / "configs" / "experiments" / "default.yaml" in files
    missing = sorted(str(p.relative_to(PACKAGE)) for p in files - packaged())
    assert not missing, f"not in any package-data pattern: {missing}"


def test_the_package_data_holds_the_shipped_configs_and_no_study():
    """The run configs a wheel carries are configs/experiments/, which `gpubfs list configs`
    lists; the studies sit outside the package, so no package-data pattern reaches them."""
    from gpubfs_cli.configs import run_config_names

    experiments = PACKAGE / "configs" / "experiments"
    carried = sorted(p.stem for p in packaged() if p.parent == experiments)
    assert carried == run_config_names()
    studies = {p.stem for p in (ROOT / "studies").glob("*.yaml")}
    assert studies and not studies & set(carried)
    assert not [p for p in packaged() if not p.is_relative_to(PACKAGE)]


def _builds_offline() -> bool:
    """This interpreter has a setuptools that builds wheels by itself (>= 70.1, or >= 68
    with the wheel package): no download of the build requirements."""
    try:
        import setuptools
    except ImportError:
        return False
    version = tuple(int(x) for x in setuptools.__version__.split(".")[:2] if x.isdigit())
    if version >= (70, 1):
        return True
    try:
        import wheel  # noqa: F401
    except ImportError:
        return False
    return version >= (68, 0)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """pip's wheel of a copy of the sources (the build leaves the checkout as it was)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "gpubfs_cli", src / "gpubfs_cli", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("wheel")
    isolation = ["--no-build-isolation"] if _builds_offline() else []  # else pip fetches setuptools
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", *isolation,
                           "-w", str(out), str(src)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob("gpubfs-*.whl")
    return built


def test_the_wheel_carries_every_kernel_header_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    want = {p.relative_to(PACKAGE.parent).as_posix() for p in data_files()}
    assert "gpubfs_cli/configs/datasets.yaml" in want and "gpubfs_cli/configs/papers/luo.yaml" in want
    missing = sorted(want - names)
    assert not missing, f"not in {wheel.name}: {missing}"
    from gpubfs_cli.configs import run_config_names

    configs = sorted(n.removeprefix("gpubfs_cli/configs/experiments/").removesuffix(".yaml")
                     for n in names if n.startswith("gpubfs_cli/configs/experiments/"))
    assert configs == run_config_names()  # the shipped run configs, no study
    assert not [n for n in names if n.startswith("studies/") or "/studies/" in n]


def test_the_installed_wheel_lists_runs_and_plans_outside_the_checkout(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The dependencies are this interpreter's: a .pth line adds its site-packages after the
    # venv's own (whose gpubfs_cli is the wheel's; .pth files there are not run, so an
    # editable install of the checkout stays out).
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "test-deps.pth").write_text("".join(f"{p}\n" for p in sorted(ours)))
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                           "--no-index", "--quiet", str(wheel)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr

    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUBFS_") and k != "PYTHONPATH"}
    env.update(GPUBFS_DATA_DIR=str(tmp_path / "data"), NUMBA_CACHE_DIR=str(tmp_path / "numba"), COLUMNS="200")

    def gpubfs(*args: str) -> str:
        got = subprocess.run([venv / "bin" / "gpubfs", *args], cwd=work, env=env, capture_output=True,
                             text=True, timeout=120)
        assert got.returncode == 0, f"gpubfs {' '.join(args)}:\n{got.stdout}{got.stderr}"
        return got.stdout + got.stderr

    where = subprocess.run([python, "-c", "import gpubfs_cli; print(gpubfs_cli.__file__)"], cwd=work, env=env,
                           check=True, capture_output=True, text=True).stdout.strip()
    assert Path(where).is_relative_to(venv), where
    assert "smoke-grid" in gpubfs("list", "datasets")
    listed = gpubfs("list", "configs")
    assert "peers-catalogue" in listed and "sssp-smoke" in listed and "do-defaults" not in listed
    out = work / "smoke.json"
    gpubfs("run", "smoke", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "2", "--out", str(out))
    assert out.is_file()
    assert "luo-grid-1M" in gpubfs("reproduce", "luo", "--dry-run")
