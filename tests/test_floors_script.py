"""scripts/floors.py: the pins `make test-floors` installs are pyproject.toml's floors, read
from the file, and a requirement without one floor is one line naming it. The install and
the smoke themselves run in `make test-floors`."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later; so is the script

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("floors", ROOT / "scripts" / "floors.py")
floors = importlib.util.module_from_spec(spec)
spec.loader.exec_module(floors)

PYPROJECT = """\
[project]
name = "x"
dependencies = ["typer>=0.15.4", "numpy >= 1.26.0, <3", "pyyaml[libyaml]>=6.0.1; python_version >= '3.10'"]

[project.optional-dependencies]
plots = ["matplotlib>=3.8.0"]
"""


def test_every_declared_dependency_is_pinned_at_its_floor():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = floors.constraints(extras=["plots"])
    assert len(pins) == len(project["dependencies"]) + len(project["optional-dependencies"]["plots"])
    for req, pin in zip(project["dependencies"] + project["optional-dependencies"]["plots"], pins, strict=True):
        name, floor = req.split(">=")
        assert pin == f"{name}=={floor}"
    assert "typer==0.15.4" in pins and "matplotlib==3.8.0" in pins


def test_pins_keep_markers_and_drop_extras_and_ceilings(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT)
    assert floors.constraints(path) == ["typer==0.15.4", "numpy==1.26.0",
                                        "pyyaml==6.0.1 ; python_version >= '3.10'"]
    assert floors.constraints(path, ["plots"])[-1] == "matplotlib==3.8.0"


@pytest.mark.parametrize("requirement", ["rich", "rich<15", "rich==13.0", "rich>=12,>=13", "rich>="])
def test_a_requirement_without_one_floor_is_one_line(tmp_path, requirement):
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT.replace('"typer>=0.15.4"', f'"{requirement}"'))
    with pytest.raises(floors.FloorError, match=r"pyproject.toml \[project\]: .* declares no single floor"):
        floors.constraints(path)


def test_an_unknown_extra_is_one_line_with_the_script_exit(tmp_path):
    done = subprocess.run([sys.executable, ROOT / "scripts" / "floors.py", "constraints", "--extra", "nope"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: {ROOT / 'pyproject.toml'}: no extra 'nope' in [project.optional-dependencies]")
    assert "plots" in line  # the extras there are named


def test_the_smoke_draws_figures_only_when_matplotlib_is_pinned(tmp_path):
    plain = floors.smoke_commands(tmp_path, figures=False)
    assert ["--version"] in plain and ["list", "strategies"] in plain
    assert not [c for c in plain if "--plot" in c]
    assert floors.smoke_commands(tmp_path, figures=True)[-1][-2:] == ["--plot", str(tmp_path / "figures")]
