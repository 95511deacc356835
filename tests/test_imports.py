"""The rooms of gpubfs_cli import one way: each room only from the rooms listed for it
below, and no module imports itself back through others. Every import statement counts,
those inside functions (lazy imports) included: a lazy import is an edge all the same,
only a later one. docs/architecture.md describes the rooms."""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

import gpubfs_cli

PACKAGE = "gpubfs_cli"
ROOT = Path(gpubfs_cli.__file__).resolve().parent

ANYTHING = None
# room -> the rooms it may import from, besides itself and gpubfs_cli/__init__.py (the
# version alone, which any room may read); errors and files are the base; folders says
# where the dataset cache and the results go; logs sets the command line's logging up;
# configs locates the shipped data files
ALLOWED: dict[str, set[str] | None] = {
    "errors": set(),
    "files": {"errors"},
    "folders": {"errors"},
    "streams": set(),
    "logs": {"errors"},
    "configs": {"errors"},
    "core": {"errors", "files"},
    "graph": {"core", "errors", "files"},
    "datasets": {"graph", "core", "configs", "errors", "files", "folders"},
    "gpu": {"core", "graph", "errors", "files"},
    "algorithms": {"core", "graph", "gpu", "errors", "files"},
    "results": {"core", "errors", "files"},
    "bench": {"results", "core", "graph", "datasets", "gpu", "configs", "errors", "files", "folders"},
    "report": {"results", "core", "configs", "errors", "files", "folders"},
    "workflows": {"report", "bench", "results", "datasets", "gpu", "algorithms", "core", "graph", "configs", "errors",
                  "files", "folders"},
    "cli": ANYTHING,
    "__main__": ANYTHING,
}
# The public Python API, a package of its own beside gpubfs_cli (gpubfs/, docs/api.md): it
# may import any room of gpubfs_cli; no room imports it.
FACADE = "gpubfs"


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else PACKAGE


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[tuple[str, int]]:
    """(imported gpubfs_cli module, line) for every import statement in the file, at any
    depth. `from P import name` imports P.name when that is a module, else P."""
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against this module's package
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.append((child if child in modules else base, node.lineno))
    return [(name, line) for name, line in found if name == PACKAGE or name.startswith(PACKAGE + ".")]


def import_graph() -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """Module -> the package's modules it imports, and every (module, imported, line)."""
    modules = module_files()
    edges: dict[str, set[str]] = {m: set() for m in modules}
    every = []
    for module, path in modules.items():
        for target, line in imports_of(module, path, modules):
            every.append((module, target, line))
            if target != module:
                edges[module].add(target)
    return edges, every


def test_every_module_is_in_a_room_of_the_table():
    rooms = {room(m) for m in module_files()} - {PACKAGE}
    assert not rooms - set(ALLOWED), f"rooms missing from ALLOWED: {sorted(rooms - set(ALLOWED))}"


def test_every_import_goes_to_a_room_allowed_for_it():
    _, every = import_graph()
    bad = []
    for module, target, line in every:
        mine, theirs = room(module), room(target)
        allowed = ALLOWED.get(mine, set())
        if allowed is ANYTHING or theirs in (mine, PACKAGE) or theirs in allowed:
            continue
        bad.append(f"{module} -> {target}  (line {line}: {mine} may not import {theirs})")
    bad = sorted(set(bad))
    assert not bad, "imports against the rooms:\n" + "\n".join(bad)


def absolute_imports(path: Path) -> list[tuple[str, int]]:
    """(module, line) of every absolute import statement in the file, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.append((node.module, node.lineno))
    return found


def test_no_room_imports_the_public_api_and_it_imports_only_the_package():
    facade = ROOT.parent / FACADE
    assert (facade / "__init__.py").is_file()
    bad = [f"{module} -> {name}  (line {line})" for module, path in module_files().items()
           for name, line in absolute_imports(path) if name == FACADE or name.startswith(FACADE + ".")]
    assert not bad, "rooms importing the public API:\n" + "\n".join(bad)
    theirs = {name.split(".")[0] for path in facade.glob("*.py") for name, _ in absolute_imports(path)}
    assert theirs - {FACADE, PACKAGE} <= {"__future__", "functools", "inspect", "os", "pathlib", "typing"}


def _cycle_through(start: str, edges: dict[str, set[str]], members: set[str]) -> list[str]:
    """A shortest cycle from `start` back to itself inside one strongly connected set."""
    before = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in sorted(edges[node] & members):
            if nxt == start:
                path = [node]
                while before[path[-1]] is not None:
                    path.append(before[path[-1]])
                return [*reversed(path), start]
            if nxt not in before:
                before[nxt] = node
                queue.append(nxt)
    return [start]


def strongly_connected(edges: dict[str, set[str]]) -> list[set[str]]:
    """Sets of modules that reach each other (Tarjan, iterative), those of two or more."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    members.add(top)
                    if top == node:
                        break
                if len(members) > 1:
                    out.append(members)
    return out


def test_no_module_imports_itself_back():
    edges, _ = import_graph()
    cycles = []
    for members in strongly_connected(edges):
        cycle = _cycle_through(min(members), edges, members)
        cycles.append(" -> ".join(cycle) + (f"  (and {len(members)} modules in all)" if len(members) > len(cycle) - 1 else ""))
    assert not cycles, "import cycles:\n" + "\n".join(sorted(cycles))


def test_the_checker_sees_lazy_relative_and_from_package_imports(tmp_path):
    """The parser finds imports inside functions, resolves relative ones and `from
    package import module`, and the cycle finder spells a cycle out."""
    src = tmp_path / "m.py"
    src.write_text("def f():\n    from gpubfs_cli.gpu import backend\n    from . import sources\n"
                   "    from .csr import CSRGraph\n", encoding="utf-8")
    modules = {"gpubfs_cli.gpu.backend": src, "gpubfs_cli.graph.sources": src, "gpubfs_cli.graph.csr": src}
    got = imports_of("gpubfs_cli.graph.m", src, modules)
    assert got == [("gpubfs_cli.gpu.backend", 2), ("gpubfs_cli.graph.sources", 3), ("gpubfs_cli.graph.csr", 4)]
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    (members,) = strongly_connected(edges)
    assert members == {"a", "b", "c"} and _cycle_through("a", edges, members) == ["a", "b", "c", "a"]


def test_the_harness_stays_small():
    """The runner only runs: every module of bench/ at most 250 lines, and one graph's
    part of a run (Runner._run_dataset) under 50; what grows past them has a room of its
    own (results/, streams.py, bench's smaller modules)."""
    bench = Path(__file__).resolve().parents[1] / "gpubfs_cli" / "bench"
    long = {p.name: n for p in bench.glob("*.py") if (n := len(p.read_text().splitlines())) > 250}
    assert not long, f"bench/ modules over 250 lines: {long}"
    tree = ast.parse((bench / "runner.py").read_text())
    (method,) = [f for c in tree.body if isinstance(c, ast.ClassDef) and c.name == "Runner"
                 for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "_run_dataset"]
    assert method.end_lineno - method.lineno + 1 < 50
