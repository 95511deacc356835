"""The runtime dependencies at the lowest versions pyproject.toml declares: `make
test-floors` installs them into a throwaway venv and runs the command line's smoke there.

    python scripts/floors.py constraints [--extra NAME]...   the pins, one a line
    python scripts/floors.py check [--extra NAME]...         venv, install, smoke

The pins are read from pyproject.toml's [project] dependencies (and the extras named), each
`name>=X` becoming `name==X`, so a floor is tested as declared and never copied by hand.
`check` builds the venv in a temporary folder outside the checkout (pip fetches the pinned
wheels, so it needs the package index), makes the checkout importable through a .pth line
and runs each smoke command from another temporary folder; the first failure is one line
and a non-zero exit. Dependencies of the dependencies are left to pip's resolver.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
SMOKE_TIMEOUT_S = 300

# name, [extras], version specifiers, ;marker
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;]*?)\s*(;.*)?$")


class FloorError(Exception):
    """One line saying which requirement of which file is wrong."""


def read_requirements(pyproject: Path, extras: list[str]) -> list[str]:
    try:
        import tomllib
    except ImportError:  # Python 3.10
        raise FloorError("scripts/floors.py needs Python 3.11 or later (tomllib)") from None
    try:
        project = tomllib.loads(pyproject.read_text())["project"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as exc:
        raise FloorError(f"{pyproject}: cannot read [project] ({exc})") from None
    out = list(project.get("dependencies", []))
    declared = project.get("optional-dependencies", {})
    for extra in extras:
        if extra not in declared:
            raise FloorError(f"{pyproject}: no extra {extra!r} in [project.optional-dependencies] "
                             f"(there: {', '.join(sorted(declared)) or 'none'})")
        out += declared[extra]
    return out


def floor_pin(requirement: str, where: str) -> str:
    """`numpy>=1.26 ; python_version < '3.13'` -> `numpy==1.26 ; python_version < '3.13'`."""
    m = REQUIREMENT.match(requirement)
    if m is None:
        raise FloorError(f"{where}: {requirement!r} is not a requirement this script reads")
    name, _, specifiers, marker = m.groups()
    floors = [s.strip()[2:].strip() for s in specifiers.split(",") if s.strip().startswith(">=")]
    if len(floors) != 1 or not floors[0]:
        raise FloorError(f"{where}: {requirement!r} declares no single floor (expected one 'name>=X')")
    return f"{name}=={floors[0]}" + (f" {marker}" if marker else "")


def constraints(pyproject: Path = PYPROJECT, extras: list[str] = ()) -> list[str]:
    where = f"{pyproject.name} [project]"
    return [floor_pin(r, where) for r in read_requirements(pyproject, list(extras))]


def smoke_commands(work: Path, figures: bool) -> list[list[str]]:
    """The command line's smoke: every command parses and prints, and a tiny CPU run of the
    strategies that use numba, scipy and networkx, then its report (and its figures, when
    matplotlib is pinned)."""
    out = work / "smoke.json"
    return [
        ["--version"],
        ["-h"],
        ["run", "-h"],
        ["list", "strategies"],
        ["list", "configs"],
        ["run", "smoke", "-d", "smoke-grid", "-s", "cpu.sequential", "-s", "cpu.scipy",
         "-s", "cpu.networkx", "--sources", "2", "--out", str(out)],
        ["report", str(out)],
    ] + ([["report", str(out), "--plot", str(work / "figures")]] if figures else [])


def _run(cmd: list, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)


def _last_line(done: subprocess.CompletedProcess) -> str:
    lines = (done.stderr.strip() or done.stdout.strip()).splitlines()
    return lines[-1] if lines else "(nothing said)"


def check(extras: list[str], python: str) -> None:
    pins = constraints(extras=extras)
    declared = read_requirements(PYPROJECT, extras)  # installed as declared, under the pins
    with tempfile.TemporaryDirectory(prefix="gpubfs-floors-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        venv = tmp / "venv"
        done = _run([python, "-m", "venv", venv])
        if done.returncode:
            raise FloorError(f"{python} -m venv failed: {_last_line(done)}")
        vpython = venv / "bin" / "python"
        (tmp / "floors.txt").write_text("".join(p + "\n" for p in pins))
        done = _run([vpython, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                     "-c", tmp / "floors.txt", *declared])
        if done.returncode:
            raise FloorError(f"pip could not install the floors ({'; '.join(pins)}): {_last_line(done)}")
        installed = time.perf_counter() - t0
        purelib = _run([vpython, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       check=True).stdout.strip()
        Path(purelib, "gpubfs-checkout.pth").write_text(f"{ROOT}\n")
        work = tmp / "work"
        work.mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUBFS_") and k != "PYTHONPATH"}
        env.update(GPUBFS_DATA_DIR=str(tmp / "data"), NUMBA_CACHE_DIR=str(tmp / "numba"), COLUMNS="120")
        commands = smoke_commands(work, figures=any(p.startswith("matplotlib==") for p in pins))
        for args in commands:
            try:
                done = _run([vpython, "-m", "gpubfs_cli", *args], cwd=work, env=env, timeout=SMOKE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                raise FloorError(f"at the floors, `gpubfs {' '.join(args)}` ran past {SMOKE_TIMEOUT_S} s") from None
            if done.returncode:
                raise FloorError(f"at the floors, `gpubfs {' '.join(args)}` exited {done.returncode}: "
                                 f"{_last_line(done)}")
        print(f"floors: {'; '.join(pins)}: installed in {installed:.0f} s, "
              f"{len(commands)} smoke commands passed in {time.perf_counter() - t0 - installed:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("constraints", "check"))
    parser.add_argument("--extra", action="append", default=[], help="also pin this extra's requirements")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter the throwaway venv is made from (default: this one)")
    args = parser.parse_args(argv)
    try:
        if args.what == "constraints":
            print("\n".join(constraints(extras=args.extra)))
        else:
            check(args.extra, args.python)
    except FloorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
