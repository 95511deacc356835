"""A wheel carries every kernel, header and data file the package reads at run time, the
licence and the citation, and works installed outside the checkout; the sdist holds the
checkout's source tree (what `make test` needs) and nothing else.

The pattern test applies pyproject's package-data globs the way setuptools does (no
build); the others build the sdist, then the wheel from it (`python -m build`, as `make
wheel` does), from a copy of the sources with caches and outputs planted in it, read their
file lists, and install the wheel in a fresh venv whose other packages come from the
test's own interpreter. Without matplotlib (the plots extra) only the figures are refused."""

from __future__ import annotations

import email.parser
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
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


# Outside a git checkout (an unpacked sdist), the source files are every file but these
# folders' (caches, venvs, build outputs) and what setuptools writes into an sdist.
NOT_SOURCE_DIRS = {".git", ".venv", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache",
                   "build", "dist"}
SDIST_MADE = {"PKG-INFO", "setup.cfg"}
# Planted in the copy that is built: caches, a dataset, results, a stale build output and a
# venv, none of which an sdist or a wheel may carry.
PLANTED = ("gpubfs_cli/__pycache__/cli.cpython-311.pyc", "gpubfs_cli/graph/__pycache__/csr.f-1.py311.nbi",
           "tests/__pycache__/test_x.cpython-311.pyc", "datasets/planted-graph/graph.npz",
           "results/planted-run.json", "build/lib/gpubfs_cli/stale_module.py", ".venv/bin/python3",
           ".pytest_cache/v/cache/lastfailed", "dist/gpubfs-0.0.1-py3-none-any.whl")


def source_files() -> tuple[set[str], set[str]]:
    """(the files an sdist must hold, those it may hold): git's tracked files, and beside
    them the new ones it does not ignore, which a working checkout's stray file is too
    (datasets/* and results/* are ignored but for their READMEs). Outside a git checkout,
    every file but caches and outputs, both."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        def listed(*options: str) -> set[str]:
            out = subprocess.run(["git", "ls-files", *options, "-z"], cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout.split("\0")
            return {f for f in out if f and (ROOT / f).is_file()}

        return listed(), listed("-co", "--exclude-standard")
    out = set()
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if (not path.is_file() or NOT_SOURCE_DIRS & set(rel.parts[:-1]) or rel.as_posix() in SDIST_MADE
                or rel.parts[0].endswith(".egg-info") or rel.suffix in (".pyc", ".nbi", ".nbc")
                or (rel.parts[0] in ("datasets", "results") and rel.name != "README.md")):
            continue
        out.add(rel.as_posix())
    return out, out


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> tuple[Path, Path]:
    """(sdist, wheel) of a copy of the sources with junk planted in it, the wheel built from
    the sdist (the build leaves the checkout as it was)."""
    pytest.importorskip("build", reason="the dev extra's build package builds the sdist")
    src = tmp_path_factory.mktemp("src")
    for name in sorted(source_files()[1]):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    for name in PLANTED:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text("planted\n")
    out = tmp_path_factory.mktemp("dist")
    # Else build fetches setuptools (pyproject's build requirement) into an isolated env.
    isolation = ["--no-isolation", "--skip-dependency-check"] if _builds_offline() else []
    done = subprocess.run([sys.executable, "-m", "build", *isolation, "--outdir", str(out), str(src)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (sdist,) = out.glob("gpubfs-*.tar.gz")
    (built,) = out.glob("gpubfs-*.whl")
    return sdist, built


@pytest.fixture(scope="module")
def wheel(dists) -> Path:
    return dists[1]


def sdist_names(sdist: Path) -> set[str]:
    """The sdist's files, relative to its top folder."""
    with tarfile.open(sdist) as tar:
        return {m.name.split("/", 1)[1] for m in tar.getmembers() if m.isfile() and "/" in m.name}


def test_the_sdist_holds_the_source_tree_and_no_cache_or_output(dists):
    sdist, _ = dists
    names = sdist_names(sdist)
    made = {n for n in names if n in SDIST_MADE or n.split("/")[0].endswith(".egg-info")}
    must, may = source_files()
    assert {"Makefile", "tests/conftest.py", ".ci/run"} <= must
    assert {"LICENSE", "CITATION.cff", "MANIFEST.in", "pyproject.toml", "README.md"} <= names
    assert not sorted(must - names), f"not in {sdist.name}: {sorted(must - names)}"
    assert not sorted(names - may - made), f"in {sdist.name}, not a source file: {sorted(names - may - made)}"
    assert not set(PLANTED) & names


def test_the_wheel_holds_the_package_the_licence_and_the_citation_only(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    dist_info = f"gpubfs-{gpubfs_cli.__version__}.dist-info"
    tops = {n.split("/")[0] for n in names}
    assert tops == {"gpubfs_cli", "gpubfs", dist_info, f"gpubfs-{gpubfs_cli.__version__}.data"}, tops
    assert not [n for n in names if "stale_module" in n or "__pycache__" in n or n.endswith(".pyc")]
    # setuptools 77 and later put licence files in .dist-info/licenses/, earlier ones beside METADATA
    (licence,) = [n for n in names if n in (f"{dist_info}/LICENSE", f"{dist_info}/licenses/LICENSE")]
    citation = f"gpubfs-{gpubfs_cli.__version__}.data/data/share/doc/gpubfs/CITATION.cff"
    with zipfile.ZipFile(wheel) as z:
        assert z.read(licence) == (ROOT / "LICENSE").read_bytes()
        assert z.read(citation) == (ROOT / "CITATION.cff").read_bytes()


def test_the_licence_is_declared_in_a_form_every_setuptools_from_61_builds(wheel):
    """The PEP 639 string (`license = "BSD-3-Clause"`) is an error before setuptools 77 and
    the table form is deprecated from 77 with a removal date: the classifier and the
    LICENSE file (setuptools' default licence-file pattern) say it on every version."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "license" not in project and "license-files" not in project
    bsd = "License :: OSI Approved :: BSD License"
    assert bsd in project["classifiers"]
    with zipfile.ZipFile(wheel) as z:
        meta = email.parser.Parser().parsestr(z.read(f"gpubfs-{gpubfs_cli.__version__}.dist-info/METADATA").decode())
    assert bsd in meta.get_all("Classifier") and meta.get_all("License-File") == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().split()[:3] == ["BSD", "3-Clause", "License"]
    assert yaml_load(ROOT / "CITATION.cff")["license"] == "BSD-3-Clause"
    licence = (ROOT / "README.md").read_text().split("\n## Licence\n", 1)[1]
    assert "BSD-3-Clause" in licence and "Apache" not in licence


def yaml_load(path: Path):
    import yaml

    return yaml.safe_load(path.read_text())


def paper_citations() -> dict[str, tuple[str, str | None]]:
    """Each reproduced paper's title and DOI (None where none was recorded) as its layout
    file gives them: the title key, the DOI in the header comment."""
    out = {}
    for path in sorted((PACKAGE / "configs" / "papers").glob("*.yaml")):
        text = path.read_text()
        header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
        doi = re.search(r"doi:(10\.\S+?)[;,]?\s", header)
        out[path.stem] = (yaml_load(path)["title"], doi.group(1) if doi else None)
    return out


def test_the_citation_names_the_tool_and_each_reproduced_paper_as_recorded():
    cff = yaml_load(ROOT / "CITATION.cff")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == project["version"] == gpubfs_cli.__version__
    papers = paper_citations()
    assert len(papers) == 5 and sum(doi is not None for _, doi in papers.values()) == 4
    refs = {r["title"].casefold(): r.get("doi") for r in cff["references"]}
    assert refs == {title.casefold(): doi for title, doi in papers.values()}
    citing = (ROOT / "README.md").read_text().split("\n## Citing\n", 1)[1].split("\n## ", 1)[0]
    citing = " ".join(citing.split())  # as read, line breaks aside
    for title, doi in papers.values():
        assert title.casefold() in citing.casefold(), title
        assert doi is None or f"doi:{doi}" in citing or f"doi.org/{doi}" in citing, doi
    assert "CITATION.cff" in citing


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
    api = subprocess.run([python, "-c", "import gpubfs; print(gpubfs.__file__, gpubfs.__version__)"], cwd=work, env=env,
                         check=True, capture_output=True, text=True).stdout.split()
    assert Path(api[0]).is_relative_to(venv) and api[1] == gpubfs_cli.__version__, api  # the Python API (docs/api.md)
    assert gpubfs("--version").splitlines()[0] == f"gpubfs {gpubfs_cli.__version__}"
    assert "cpu.sequential" in gpubfs("list", "strategies")
    # the wheel's data file lands under the venv's prefix
    assert (venv / "share" / "doc" / "gpubfs" / "CITATION.cff").read_bytes() == (ROOT / "CITATION.cff").read_bytes()
    assert "smoke-grid" in gpubfs("list", "datasets")
    listed = gpubfs("list", "configs")
    assert "peers-catalogue" in listed and "sssp-smoke" in listed and "do-defaults" not in listed
    out = work / "smoke.json"
    gpubfs("run", "smoke", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "2", "--out", str(out))
    assert out.is_file()
    assert "luo-grid-1M" in gpubfs("reproduce", "luo", "--dry-run")

    # installed, nothing set: the per-user folders, wherever it starts
    del env["GPUBFS_DATA_DIR"]
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    mine = tmp_path / "xdg" / "gpubfs"
    paths = json.loads(gpubfs("info", "--json"))["paths"]
    assert paths == {"data_dir": str(mine / "datasets"), "data_dir_from": "per-user",
                     "results_dir": str(mine / "results"), "results_dir_from": "per-user"}
    gpubfs("run", "smoke", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "2")
    assert len(list((mine / "results").glob("smoke-*.json"))) == 1 and (mine / "datasets" / "smoke-grid").is_dir()
    assert sorted(p.name for p in work.iterdir()) == ["smoke.json"]
    # the estimate reads the shipped figures from the package (the wheel has no docs/)
    estimate = ("from gpubfs_cli.workflows import history; "
                "print(history.this_machine('NVIDIA H100 80GB HBM3', 'any', [], cores=16).describe())")
    said = subprocess.run([python, "-c", estimate], cwd=work, env=env, check=True, capture_output=True,
                          text=True).stdout
    from gpubfs_cli.workflows import history  # the checkout's own reading of the same figures

    here = history.this_machine("NVIDIA H100 80GB HBM3", "any", [], cores=16).describe()
    assert re.match(r"estimates for NVIDIA H100 80GB HBM3: shipped H100, then shipped H200 scaled [\d.]+x", said)
    assert said.strip() == here.strip(), (said, here)


# Run in a fresh interpreter where importing matplotlib fails as when it is not installed:
# no module imported before the block can hide a top-level import of it.
WITHOUT_MATPLOTLIB = """
import json, sys
sys.modules["matplotlib"] = None
from typer.testing import CliRunner
from gpubfs_cli.cli import app
answers = {}
for name, args in json.loads(sys.argv[1]).items():
    got = CliRunner().invoke(app, args)
    answers[name] = [got.exit_code, got.stdout, got.stderr, repr(got.exception)]
print(json.dumps(answers))
"""


def test_without_the_plots_extra_only_figures_are_refused_in_one_line(tmp_path):
    from tests.report.docs import main_doc, write

    results = str(write(tmp_path, "main.json", main_doc()))
    figures, page, run = tmp_path / "figures", tmp_path / "report.html", tmp_path / "run.json"
    commands = {
        "plot": ["report", results, "--plot", str(figures)],
        "html": ["report", results, "--format", "html", "--out", str(page)],
        "table": ["report", results],
        "md": ["report", results, "--format", "md", "--metric", "speedup"],
        "strategies": ["list", "strategies"],
        "papers": ["list", "papers"],
        "run": ["run", "smoke", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "2", "--out", str(run)],
    }
    env = dict(os.environ, GPUBFS_DATA_DIR=str(tmp_path / "data"), NUMBA_CACHE_DIR=str(tmp_path / "numba"),
               COLUMNS="200", PYTHONPATH=str(ROOT))  # this checkout's package, run from elsewhere
    done = subprocess.run([sys.executable, "-c", WITHOUT_MATPLOTLIB, json.dumps(commands)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    answers = json.loads(done.stdout.splitlines()[-1])
    for name in ("plot", "html"):
        code, _, err, exc = answers[name]
        assert (code, err) == (2, "error: figures need matplotlib: pip install 'gpubfs[plots]'\n"), (name, exc)
    assert not figures.exists() and not page.exists()
    for name in ("table", "md", "strategies", "papers", "run"):
        code, out, err, exc = answers[name]
        assert code == 0, (name, out, err, exc)
    assert "median time per BFS (ms)" in answers["table"][1] and "merrill.hybrid" in answers["md"][1]
    assert run.is_file()
