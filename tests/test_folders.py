"""Where the dataset cache and the results go (gpubfs_cli/folders.py): a checkout keeps
./datasets and ./results of the working folder, an installed gpubfs the per-user folders of
its platform, and --dir / $GPUBFS_DATA_DIR / $GPUBFS_RESULTS_DIR win over both. A folder
that is a file, or that cannot be created, is one line naming what chose it and the path,
exit 2, before anything is read or written; `gpubfs info` says where each is and why.
Installed is played here by telling the rule that the package is no checkout."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli import folders
from gpubfs_cli.cli import app
from gpubfs_cli.errors import UserError

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
SMOKE = ("run", "smoke", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "2")


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line(result, text: str) -> None:
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert lines == [f"error: {text}"], result.stderr
    assert "Traceback" not in result.output


@pytest.fixture
def here(tmp_path, monkeypatch):
    """The test's own folder as the working folder, no folder variable set."""
    for name in (folders.DATA_ENV, folders.RESULTS_ENV, "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def installed(here, monkeypatch):
    """As an installed wheel: no checkout, per-user folders under the test's XDG_DATA_HOME."""
    monkeypatch.setattr(folders, "in_checkout", lambda: False)
    monkeypatch.setenv("XDG_DATA_HOME", str(here / "xdg"))
    return here / "xdg" / "gpubfs"


@pytest.fixture
def blocker(tmp_path):
    path = tmp_path / "a-file"
    path.write_text("x")
    return path


# ---- the rule --------------------------------------------------------------------------

def test_this_checkout_is_one_and_a_copy_of_the_package_alone_is_not(tmp_path):
    assert folders.in_checkout() and folders.is_checkout(ROOT / "gpubfs_cli")
    package = tmp_path / "site-packages" / "gpubfs_cli"
    package.mkdir(parents=True)
    assert not folders.is_checkout(package)
    (package.parent / "pyproject.toml").write_text('[project]\nname = "something-else"\n')
    assert not folders.is_checkout(package)
    (package.parent / "pyproject.toml").write_text('[project]\nname = "gpubfs"\nversion = "1"\n')
    assert folders.is_checkout(package)


def test_a_checkout_keeps_the_working_folders(here):
    assert folders.data_folder() == folders.Folder(Path("datasets"), folders.DATA_WHAT, folders.CHECKOUT)
    assert folders.results_folder() == folders.Folder(Path("results"), folders.RESULTS_WHAT, folders.CHECKOUT)
    assert folders.data_dir() == Path("datasets") and folders.results_dir() == Path("results")


def test_installed_goes_to_the_per_user_folders(installed):
    assert folders.data_dir() == installed / "datasets"
    assert folders.results_dir() == installed / "results"
    assert folders.data_folder().origin == folders.results_folder().origin == folders.PER_USER


def test_the_option_and_the_variables_win_over_either_default(installed, monkeypatch, tmp_path):
    monkeypatch.setenv(folders.DATA_ENV, str(tmp_path / "env-data"))
    monkeypatch.setenv(folders.RESULTS_ENV, str(tmp_path / "env-results"))
    assert folders.data_folder() == folders.Folder(tmp_path / "env-data", folders.DATA_WHAT, "$GPUBFS_DATA_DIR")
    assert folders.results_dir() == tmp_path / "env-results"
    assert folders.data_folder(tmp_path / "flag").origin == "--dir"
    monkeypatch.setenv(folders.DATA_ENV, "")  # empty counts as unset
    assert folders.data_folder().origin == folders.PER_USER


@pytest.mark.parametrize("platform, environ, want", [
    ("linux", {}, "/home/u/.local/share"),
    ("linux", {"XDG_DATA_HOME": "/xdg"}, "/xdg"),
    ("linux", {"XDG_DATA_HOME": "relative/xdg"}, "/home/u/.local/share"),  # the spec: ignored
    ("freebsd14", {"XDG_DATA_HOME": "/xdg"}, "/xdg"),
    ("darwin", {"XDG_DATA_HOME": "/xdg"}, "/home/u/Library/Application Support"),
    ("win32", {"LOCALAPPDATA": "/c/Users/u/AppData/Local"}, "/c/Users/u/AppData/Local"),
    ("win32", {}, "/home/u/AppData/Local"),
])
def test_per_user_base_of_each_platform(platform, environ, want):
    assert folders.per_user_base(platform, environ, Path("/home/u")) == Path(want)


def test_no_home_folder_is_one_line(monkeypatch):
    def nowhere():
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(nowhere))
    with pytest.raises(UserError, match=r"^cannot find the home folder .*; set \$GPUBFS_DATA_DIR and "
                                        r"\$GPUBFS_RESULTS_DIR$"):
        folders.per_user_base("linux", {})


def test_problems_are_found_without_creating_anything(tmp_path, blocker):
    new = folders.Folder(tmp_path / "new" / "deeper", folders.DATA_WHAT, "--dir")
    assert new.problem() is None and not (tmp_path / "new").exists()
    assert folders.Folder(blocker, folders.DATA_WHAT, "--dir").problem() == "a file, not a folder"
    assert (folders.Folder(blocker / "sub", folders.DATA_WHAT, "--dir").problem()
            == f"cannot be created: {blocker} is not a folder")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_folder_in_a_read_only_one_cannot_be_created(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        folder = folders.Folder(locked / "cache", folders.DATA_WHAT, "$GPUBFS_DATA_DIR")
        assert folder.problem() == f"cannot be created: {locked} is not writable"
    finally:
        locked.chmod(0o700)


# ---- installed, end to end ---------------------------------------------------------------

def test_an_installed_run_caches_and_writes_in_the_per_user_folders(installed, here):
    result = cli(*SMOKE)
    assert result.exit_code == 0, result.output
    (made,) = (installed / "results").glob("smoke-*.json")
    assert f"results: {made}" in result.stdout
    assert (installed / "datasets" / "smoke-grid" / "meta.json").is_file()
    assert not (here / "results").exists() and not (here / "datasets").exists()
    report = cli("report")  # the newest results file of the same folder
    assert report.exit_code == 0, report.output
    assert "smoke-grid" in report.stdout


def test_an_installed_reproduce_plans_in_the_per_user_results_folder(installed, here):
    result = cli("reproduce", "luo", "--dry-run")
    assert result.exit_code == 0, result.output
    assert f"results in {installed / 'results' / 'reproduce' / 'luo'}" in result.stdout
    quick = cli("reproduce", "luo", "--dry-run", "--quick")
    assert f"results in {installed / 'results' / 'reproduce-quick' / 'luo'}" in quick.stdout
    assert not (here / "results").exists()


def test_info_says_where_and_why(installed, here, monkeypatch, tmp_path):
    res = cli("info")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert (f"datasets: {installed / 'datasets'} (installed: the per-user folder; --dir DIR on a command or "
            "$GPUBFS_DATA_DIR sets it)") in lines
    assert any(line.startswith(f"results: {installed / 'results'} (installed: the per-user folder; "
                               "$GPUBFS_RESULTS_DIR sets it; gpubfs run writes NAME-TIME.json there")
               for line in lines), lines
    monkeypatch.setattr(folders, "in_checkout", lambda: True)
    monkeypatch.setenv(folders.RESULTS_ENV, str(tmp_path / "mine"))
    paths = json.loads(cli("info", "--json").stdout)["paths"]
    assert paths == {"data_dir": str(here / "datasets"), "data_dir_from": "checkout",
                     "results_dir": str(tmp_path / "mine"), "results_dir_from": "$GPUBFS_RESULTS_DIR"}
    assert (f"datasets: {here / 'datasets'} (a checkout: ./datasets of the working folder; "
            in cli("info").stdout)


# ---- a folder that cannot be used: one line ------------------------------------------------

@pytest.mark.parametrize("args", [("list", "datasets"), SMOKE, ("fetch-dataset", "smoke-grid"),
                                  ("reproduce", "luo", "--dry-run"), ("export", "smoke-grid", "g.mtx")])
def test_a_data_variable_naming_a_file(here, blocker, monkeypatch, args):
    monkeypatch.setenv(folders.DATA_ENV, str(blocker))
    one_line(cli(*args), f"{blocker}: cannot use as the dataset cache ($GPUBFS_DATA_DIR): a file, not a folder")
    assert blocker.read_text() == "x" and not (here / "results").exists()


@pytest.mark.parametrize("args", [("list", "datasets"), SMOKE, ("fetch-dataset", "smoke-grid")])
def test_a_dir_option_naming_a_file_or_below_one(here, blocker, args):
    one_line(cli(*args, "--dir", blocker),
             f"{blocker}: cannot use as the dataset cache (--dir): a file, not a folder")
    one_line(cli(*args, "--dir", blocker / "sub"),
             f"{blocker / 'sub'}: cannot use as the dataset cache (--dir): cannot be created: {blocker} is not a folder")
    assert not (here / "results").exists()


@pytest.mark.parametrize("args", [SMOKE, ("report",), ("reproduce", "luo", "--dry-run")])
def test_a_results_variable_naming_a_file_or_below_one(here, blocker, monkeypatch, args):
    monkeypatch.setenv(folders.RESULTS_ENV, str(blocker))
    one_line(cli(*args), f"{blocker}: cannot use as the results folder ($GPUBFS_RESULTS_DIR): a file, not a folder")
    monkeypatch.setenv(folders.RESULTS_ENV, str(blocker / "sub"))
    one_line(cli(*args), f"{blocker / 'sub'}: cannot use as the results folder ($GPUBFS_RESULTS_DIR): "
                         f"cannot be created: {blocker} is not a folder")
    assert not (here / "datasets").exists()


def test_named_outputs_need_no_results_folder(here, blocker, monkeypatch):
    """--out and --results name their outputs: a broken $GPUBFS_RESULTS_DIR stands aside."""
    monkeypatch.setenv(folders.RESULTS_ENV, str(blocker))
    result = cli(*SMOKE, "--out", here / "mine.json")
    assert result.exit_code == 0, result.output
    assert (here / "mine.json").is_file()
    result = cli("reproduce", "luo", "--dry-run", "--results", here / "papers")
    assert result.exit_code == 0, result.output


def test_a_per_user_folder_that_cannot_be_created(installed, here, blocker, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    where = blocker / "gpubfs"
    one_line(cli("list", "datasets"), f"{where / 'datasets'}: cannot use as the dataset cache (the per-user default): "
                                      f"cannot be created: {blocker} is not a folder; set $GPUBFS_DATA_DIR to another folder")
    one_line(cli("report"), f"{where / 'results'}: cannot use as the results folder (the per-user default): "
                            f"cannot be created: {blocker} is not a folder; set $GPUBFS_RESULTS_DIR to another folder")


def test_info_prints_everything_then_the_folder_that_cannot_be_used(here, blocker, monkeypatch):
    monkeypatch.setenv(folders.DATA_ENV, str(blocker))
    res = cli("info")
    assert res.exit_code == 2, res.output
    assert f"datasets: {blocker} (from $GPUBFS_DATA_DIR; --dir DIR on a command or $GPUBFS_DATA_DIR sets it)" \
        in res.stdout.splitlines()
    assert res.stderr.strip().splitlines() == [
        f"error: {blocker}: cannot use as the dataset cache ($GPUBFS_DATA_DIR): a file, not a folder"]
