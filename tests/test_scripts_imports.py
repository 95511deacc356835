"""scripts/ import nothing from tests/: the sanitizer and the probes run where the tests
are not installed, so what they share with the tests lives in the package."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imports_from_tests(source: str) -> list[str]:
    """The imported module names of `source` that are tests or inside it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [n for n in names if n == "tests" or n.startswith("tests.")]
    return found


def test_the_check_sees_every_form_of_import():
    src = ("import tests\nimport os, tests.tools as t\nfrom tests.gpu import fixed_cost\n"
           "def f():\n    from tests import conftest\n")
    assert imports_from_tests(src) == ["tests", "tests.tools", "tests.gpu", "tests"]
    assert imports_from_tests("import testsuite\nfrom gpubfs_cli import tests_helper\nfrom . import tests\n") == []


def test_no_script_imports_from_tests():
    scripts = sorted((ROOT / "scripts").rglob("*.py"))
    assert scripts, "no scripts found"
    bad = {str(p.relative_to(ROOT)): found for p in scripts if (found := imports_from_tests(p.read_text()))}
    assert bad == {}, f"scripts importing from tests/: {bad}"
