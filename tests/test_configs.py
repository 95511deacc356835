"""The shipped data files and how `gpubfs run NAME` finds a run config: a path that
exists wins; a bare name or the checkout's old spelling names a shipped one. The studies
(studies/ in the checkout) are not shipped, run by path, and `gpubfs list configs` shows
the shipped configs only."""

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


# ---------------------------------------------------------------- shipped configs and studies
ROOT = PACKAGE.parent
STUDIES = ROOT / "studies"


def study_names() -> list[str]:
    return sorted(p.stem for p in STUDIES.glob("*.yaml"))


def first_line(path: Path) -> str:
    return path.read_text(encoding="utf-8").splitlines()[0]


@pytest.mark.parametrize("path", [configs.experiments_dir() / f"{n}.yaml" for n in configs.run_config_names()]
                         + [STUDIES / f"{n}.yaml" for n in study_names()], ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_run_config_opens_with_its_purpose(path):
    line = first_line(path)
    assert line.startswith("# purpose: ") and len(line) > len("# purpose: ") + 20, line
    assert configs.purpose(path) == line.removeprefix("# purpose: ")


def test_the_purpose_falls_back_to_the_first_comment(tmp_path):
    (tmp_path / "a.yaml").write_text("#\n# Plain words first.\n# More.\nname: a\n")
    (tmp_path / "b.yaml").write_text("name: b  # no comment before the keys\n")
    assert configs.purpose(tmp_path / "a.yaml") == "Plain words first."
    assert configs.purpose(tmp_path / "b.yaml") == ""


def test_studies_are_not_shipped_and_every_paper_config_is():
    studies, shipped = set(study_names()), set(configs.run_config_names())
    assert len(studies) >= 20 and not studies & shipped
    assert not list((PACKAGE / "configs").rglob("studies"))
    import yaml

    for layout in configs.papers_dir().glob("*.yaml"):
        named = yaml.safe_load(layout.read_text())["configs"]
        assert set(named) <= shipped, f"{layout.name}: {sorted(set(named) - shipped)} not shipped"


def test_the_studies_readme_lists_each_study_once():
    lines = (STUDIES / "README.md").read_text().splitlines()
    listed = [ln.split("`")[1].removesuffix(".yaml") for ln in lines if ln.startswith("- `")]
    assert listed == study_names()


@pytest.mark.parametrize("name", study_names())
def test_every_study_runs_by_its_path(name, monkeypatch):
    """`gpubfs run studies/NAME.yaml` from the checkout: the path is read as it is, and it
    loads against the real catalogue and registry; its bare name says where it is."""
    from gpubfs_cli.bench.config import load_config

    monkeypatch.chdir(ROOT)
    path = configs.run_config_path(f"studies/{name}.yaml")
    assert path == Path("studies") / f"{name}.yaml"
    cfg = load_config(path)
    assert cfg.name == name and cfg.datasets and cfg.variants
    with pytest.raises(UserError, match=rf"^{name}: not a shipped run config; a study of this checkout: "
                                        rf"gpubfs run studies/{name}\.yaml$"):
        configs.run_config_path(name)


def test_list_configs_shows_the_shipped_ones_and_no_study():
    import json

    from typer.testing import CliRunner

    from gpubfs_cli.bench.config import load_config
    from gpubfs_cli.cli import app

    runner = CliRunner()
    table = runner.invoke(app, ["list", "configs"], env={"COLUMNS": "160"})
    assert table.exit_code == 0, table.output
    rows = {line.split("│")[1].strip(): line for line in table.output.splitlines() if line.startswith("│")}
    named = {n for n in rows if n}
    assert named == set(configs.run_config_names())
    smoke = load_config(configs.experiments_dir() / "smoke.yaml")
    assert "tiny generated graphs" in rows["smoke"]  # the purpose may wrap: the width is the console's
    assert f"{len(smoke.datasets)} x {len(smoke.variants)}" in rows["smoke"]
    assert "studies/" in table.output.splitlines()[-1]
    assert not named & set(study_names())

    listed = runner.invoke(app, ["list", "configs", "--json"])
    assert listed.exit_code == 0, listed.output
    got = {r["name"]: r for r in json.loads(listed.output)}
    assert sorted(got) == configs.run_config_names()
    for name in ("default", "peers", "sssp-smoke", "bfs4k-ablation"):
        cfg = load_config(configs.experiments_dir() / f"{name}.yaml")
        assert (got[name]["datasets"], got[name]["variants"]) == (len(cfg.datasets), len(cfg.variants))
    assert got["sssp-smoke"]["problem"] == ["sssp"] and got["raval"]["problem"] == ["bfs", "sssp"]
    assert got["smoke"]["purpose"] == configs.purpose(configs.experiments_dir() / "smoke.yaml")
