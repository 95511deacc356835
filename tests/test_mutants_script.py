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
        assert tests and all((ROOT / t).is_file() for t in tests), tests


def test_each_mutant_changes_the_module_and_still_parses():
    sites = mutants.sites("gpubfs_cli/bench/status.py")
    edits = {s.edit for s in sites}
    assert "tuple of names reversed" in edits and "return X -> return None" in edits
    original = ast.unparse(ast.parse((ROOT / "gpubfs_cli/bench/status.py").read_text()))
    for s in sites:
        changed = mutants.mutated_source(s)
        assert changed != original
        ast.parse(changed)


def test_the_severity_order_reversal_is_one_of_the_mutants():
    sites = mutants.sites("gpubfs_cli/bench/status.py")
    site = next(s for s in sites if s.edit == "tuple of names reversed" and s.line == 18)
    src = mutants.mutated_source(site)
    assert "FAILURES = ('out-of-time', 'out-of-memory', 'error', 'wrong-answer')" in src


def test_sampling_is_even_and_capped():
    sites = list(range(20))
    assert mutants.sample(sites, 5) == [0, 4, 8, 12, 16]
    assert mutants.sample(sites[:3], 5) == [0, 1, 2]
