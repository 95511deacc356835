"""The shipped data files and how `gpubfs run NAME` finds a run config: a path that
exists wins; a bare name or the checkout's old spelling names a shipped one."""

from __future__ import annotations

from pathlib import Path

import pytest

import gpubfs_cli
from gpubfs_cli import configs
from gpubfs_cli.errors import UserError

PACKAGE = Path(gpubfs_cli.__file__).resolve().parent


def test_the_data_lives_in_the_package():
    assert configs.catalogue_path().resolve() == PACKAGE / "configs" / "datasets.yaml"
    assert (configs.papers_dir() / "luo.yaml").is_file()
    assert {"default", "smoke", "luo"} <= set(configs.run_config_names())


@pytest.mark.parametrize("arg", ["default", "default.yaml", "configs/experiments/default.yaml",
                                 "./configs/experiments/default.yaml"])
def test_names_and_the_old_spelling_resolve_to_the_shipped_config(arg, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert configs.run_config_path(arg) == configs.experiments_dir() / "default.yaml"


def test_a_file_that_exists_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    own = tmp_path / "configs" / "experiments" / "default.yaml"
    own.parent.mkdir(parents=True)
    own.write_text("datasets: [smoke-grid]\n")
    assert configs.run_config_path("configs/experiments/default.yaml") == Path("configs/experiments/default.yaml")
    (tmp_path / "smoke").write_text("datasets: [smoke-grid]\n")
    assert configs.run_config_path("smoke") == Path("smoke")


def test_an_unknown_name_is_one_line_with_close_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError, match=r"^defualt: no such file; unknown run config 'defualt' \(did you mean: default"):
        configs.run_config_path("defualt")
    with pytest.raises(UserError, match=r"configs/experiments/nope.yaml: no such file; unknown run config 'nope'"):
        configs.run_config_path("configs/experiments/nope.yaml")


def test_any_other_missing_path_is_left_to_the_reader(tmp_path):
    missing = tmp_path / "mine" / "default.yaml"
    assert configs.run_config_path(missing) == missing


@pytest.mark.parametrize("name", sorted(configs.run_config_names()))
def test_every_shipped_run_config_loads(name):
    """Against the real catalogue and strategy registry: every dataset, strategy and knob
    a shipped config names exists (a knob renamed or a pattern matching a strategy that
    lacks the knob fails here, not on the GPU machine)."""
    from gpubfs_cli.bench.config import load_config

    cfg = load_config(configs.run_config_path(name))
    assert cfg.name == name and cfg.datasets and cfg.variants
