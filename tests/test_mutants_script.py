"""scripts/mutants.py: its edits are real one-site changes of the modules it targets, and
every target maps to test files that exist."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("mutants", ROOT / "scripts" / "mutants.py")
mutants = importlib.util.module_from_spec(spec)
sys.modules.setdefault("mutants", mutants)  # dataclasses look their module up there
spec.loader.exec_module(mutants)


def test_every_target_and_its_tests_exist():
    for module, tests in mutants.TARGETS.items():
        assert (ROOT / module).is_file(), module
        assert tests, module
        for t in tests:  # a file, or FILE::TEST naming one test of it
            path, _, name = t.partition("::")
            assert (ROOT / path).is_file(), t
            assert not name or f"def {name}(" in (ROOT / path).read_text(), t


def test_a_script_is_mutated_in_the_copy_its_tests_import(tmp_path):
    """scripts/level_shape.py is a target: the temporary tree holds scripts/ (its tests
    import it from there), and its mutants change it and still parse."""
    mutants.copy_tree(tmp_path)
    assert (tmp_path / "scripts" / "level_shape.py").read_text() == (ROOT / "scripts" / "level_shape.py").read_text()
    assert (tmp_path / "tests" / "test_level_shape_script.py").is_file()
    sites = mutants.sites("scripts/level_shape.py")
    assert sites and all(s.module == "scripts/level_shape.py" for s in sites)
    original = ast.unparse(ast.parse((ROOT / "scripts" / "level_shape.py").read_text()))
    changed = mutants.mutated_source(sites[0])
    assert changed != original
    ast.parse(changed)


def test_each_mutant_changes_the_module_and_still_parses():
    sites = mutants.sites("gpubfs_cli/results/status.py")
    edits = {s.edit for s in sites}
    assert "tuple of names reversed" in edits and "return X -> return None" in edits
    original = ast.unparse(ast.parse((ROOT / "gpubfs_cli/results/status.py").read_text()))
    for s in sites:
        changed = mutants.mutated_source(s)
        assert changed != original
        ast.parse(changed)


# The line of status.py's FAILURES tuple (the severity order), found rather than fixed.
FAILURES_LINE = next(i for i, text in enumerate((ROOT / "gpubfs_cli/results/status.py").read_text().splitlines(), 1)
                     if text.startswith("FAILURES = ("))


def test_the_severity_order_reversal_is_one_of_the_mutants():
    sites = mutants.sites("gpubfs_cli/results/status.py")
    site = next(s for s in sites if s.edit == "tuple of names reversed" and s.line == FAILURES_LINE)
    src = mutants.mutated_source(site)
    assert "FAILURES = ('out-of-time', 'out-of-memory', 'error', 'wrong-answer')" in src


def test_sampling_is_even_and_capped():
    sites = list(range(20))
    assert mutants.sample(sites, 5) == [0, 4, 8, 12, 16]
    assert mutants.sample(sites[:3], 5) == [0, 1, 2]


def test_a_cap_of_zero_runs_every_site():
    assert mutants.sample(list(range(20)), 0) == list(range(20))


def test_only_picks_the_sites_of_one_line_or_one_edit():
    status = "gpubfs_cli/results/status.py"
    whole_line = mutants.pick(f"{status}:{FAILURES_LINE}")
    assert whole_line and {s.line for s in whole_line} == {FAILURES_LINE}
    one = mutants.pick(f"{status}:{FAILURES_LINE}:tuple of names reversed")
    assert [s.edit for s in one] == ["tuple of names reversed"]
    assert mutants.pick(f"{status}#{one[0].index}") == one
    for bad in (f"{status}:99999", "gpubfs_cli/cli.py:1", f"{status}:x", f"{status}:{FAILURES_LINE}:no such edit",
                f"{status}#99999", f"{status}#x"):
        try:
            mutants.pick(bad)
        except ValueError as e:
            assert bad in str(e)
        else:
            raise AssertionError(f"{bad} picked a site")


def test_only_with_a_bad_site_is_one_line_and_exit_2(capsys):
    assert mutants.main(["--only", "gpubfs_cli/results/status.py:99999"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no mutable site" in err[0]


def test_the_report_counts_sites_run_and_verdicts_and_lists_survivors(tmp_path):
    status, checks = "gpubfs_cli/results/status.py", "gpubfs_cli/core/checks.py"
    a, b, c = (mutants.Site(status, 3, 30, "Eq -> NotEq"), mutants.Site(status, 1, 10, "0 -> 1"),
               mutants.Site(checks, 5, 7, "Add -> Sub"))
    outcomes = [mutants.Outcome(a, "survived", 1.0), mutants.Outcome(c, "timeout", 9.0),
                mutants.Outcome(b, "survived", 1.0)]
    report = tmp_path / "r.md"
    # A run stopped after 3 of 5 planned mutants: the report says so.
    mutants.write_report(report, outcomes, {status: 19, checks: 45}, planned=5)
    text = report.read_text()
    assert "3 of 5 planned mutants finished (64 sites in the modules)" in text
    assert f"| {status} | 19 | 2 | 0 | 0 | 2 |" in text
    assert f"| {checks} | 45 | 1 | 0 | 1 | 0 |" in text
    survivors = text.split("## Survivors")[1].split()
    assert survivors.index(f"{status}:10:0") < survivors.index(f"{status}:30:Eq")
    assert f"- {status}:10:0 -> 1 #1" in text


def test_sigterm_stops_the_run_and_leaves_no_tests_or_trees_behind(tmp_path):
    import os
    import signal
    import subprocess
    import time

    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "mutants.py"), "--jobs", "1",
                             "--report", str(tmp_path / "r.md"), "--only", f"gpubfs_cli/results/status.py:{FAILURES_LINE}"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def tests_running():  # processes working in one of the script's trees
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if os.readlink(f"/proc/{pid}/cwd").startswith(str(tmp_path)):
                    found.append(int(pid))
            except OSError:
                pass
        return found

    deadline = time.monotonic() + 60
    while not tests_running() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert tests_running(), "the baseline tests never started"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    time.sleep(0.5)
    assert tests_running() == []
    assert list(tmp_path.glob("gpubfs-mutants-*")) == []
