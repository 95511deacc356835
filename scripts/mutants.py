"""Mutation testing of the core modules: plant one small bug at a time, run the tests
that should notice it, and list the bugs nobody noticed (the survivors).

Usage: python scripts/mutants.py [--max-per-module N] [--jobs J] [--report PATH]
                                 [--only MODULE:LINE[:EDIT] | MODULE#SITE ...] [MODULE ...]

Each mutant is one AST edit of one module, of gpubfs_cli/ or a script of scripts/ (see
MUTATORS: a comparison made strict or loose, == and != swapped, + and - swapped,
`and`/`or` swapped, an integer constant off by one, a returned value dropped, a `not`
removed, a tuple of names reversed). It runs in a temporary copy of the tree (the
worktree is never edited): the module is written mutated, its mapped tests run with -x
and a time limit, and the original is put back.
A mutant is `killed` when the tests fail, `timeout` when they run past the limit (an
infinite loop counts as noticed), `survived` when they pass. Sites are sampled evenly
and deterministically, at most N per module (0: every site), so a run takes minutes,
not hours. `--only` runs just the named sites (every edit on that line, the one edit
named, or site number SITE as the report prints it), to check that a new test kills a
survivor.

The report (markdown, default build/mutants.md) is rewritten after every mutant, so a run
stopped part way keeps what it found; it lists every survivor with its module, line and
edit, and docs/testing.md says for each one why it is equivalent or which test now kills it.
SIGTERM or Ctrl-C stops the run: the tests under way are killed (their mutants are not
counted), the temporary trees are removed, and the exit status is 130.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# module (a file of the package or a script) -> the fast tests that should notice a bug in
# it: test files, or FILE::TEST to take only some tests of a slow file
TARGETS: dict[str, list[str]] = {
    "gpubfs_cli/algorithms/bfs/validate.py": [
        "tests/algorithms/bfs/test_validate_bounds.py", "tests/algorithms/bfs/test_validate.py"],
    "gpubfs_cli/algorithms/sssp/validate.py": [
        "tests/algorithms/sssp/test_validate_bounds.py", "tests/algorithms/sssp/test_validate.py"],
    "gpubfs_cli/core/checks.py": [
        "tests/algorithms/bfs/test_validate_bounds.py", "tests/algorithms/sssp/test_validate_bounds.py",
        "tests/algorithms/bfs/test_validate.py", "tests/core/test_tree_depths.py"],
    "gpubfs_cli/bench/references.py": ["tests/bench/test_runner_answers.py"],
    "gpubfs_cli/results/status.py": ["tests/bench/test_runner_answers.py", "tests/report/test_aggregate.py"],
    "gpubfs_cli/results/statistics.py": ["tests/results/test_statistics.py"],
    "gpubfs_cli/graph/build.py": [
        "tests/graph/test_build.py", "tests/datasets/test_symmetrize.py", "tests/datasets/test_prepare.py"],
    "gpubfs_cli/graph/io/snap.py": ["tests/graph/test_io_formats.py", "tests/graph/test_io_errors.py"],
    "gpubfs_cli/graph/io/mtx.py": ["tests/graph/test_io_formats.py", "tests/graph/test_io_errors.py"],
    "gpubfs_cli/results/journal.py": ["tests/results/test_journal.py", "tests/bench/test_resume.py"],
    "gpubfs_cli/bench/resume.py": ["tests/bench/test_resume.py", "tests/results/test_journal.py"],
    "gpubfs_cli/results/groups.py": [
        "tests/report/test_aggregate.py", "tests/report/test_partial.py", "tests/bench/test_batches.py"],
    "gpubfs_cli/report/compare.py": [
        "tests/report/test_compare.py", "tests/report/test_partial.py", "tests/test_cli_report.py"],
    "gpubfs_cli/datasets/integrity.py": ["tests/datasets/test_integrity.py", "tests/datasets/test_checksum.py"],
    # the CPU-side tests of the partition only: the rest of the file runs the emulated kernels (a minute)
    "gpubfs_cli/algorithms/bfs/gpu/mgpu/partition.py": [
        f"tests/algorithms/bfs/gpu/test_mgpu_emulated.py::{name}" for name in (
            "test_bounds_cut_whole_words_and_balance_edges", "test_bounds_split_edges_evenly_on_a_large_uniform_graph",
            "test_bounds_balance_the_edges_of_a_skewed_graph", "test_each_rank_reads_its_rows_and_in_rows",
            "test_a_cached_graph_is_read_in_place", "test_in_rows_reads_at_most_a_chunk_of_edges_at_a_time")],
    "gpubfs_cli/gpu/ranks/group.py": ["tests/gpu/test_ranks.py"],
    "gpubfs_cli/gpu/ranks/channels.py": ["tests/gpu/test_ranks.py"],
    "gpubfs_cli/gpu/ranks/nccl.py": ["tests/gpu/test_nccl_guard.py"],
    "scripts/level_shape.py": ["tests/test_level_shape_script.py"],
    "gpubfs_cli/algorithms/bfs/gpu/msbfs/replay.py": ["tests/test_msbfs_directions_script.py"],
    "scripts/msbfs_directions.py": ["tests/test_msbfs_directions_script.py"],
    "scripts/sssp_rounds.py": ["tests/test_sssp_rounds_script.py"],
    "scripts/sssp_hops.py": ["tests/test_sssp_hops_script.py"],
    "scripts/device/ab_summary.py": ["tests/test_ab_summary_script.py"],
}

SWAP_COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
                ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
                ast.In: ast.NotIn, ast.NotIn: ast.In}
SWAP_BINOP = {ast.Add: ast.Sub, ast.Sub: ast.Add}
SWAP_BOOL = {ast.And: ast.Or, ast.Or: ast.And}

# The test runs under way, so that a stop can end them (they would outlive the script).
RUNNING: set[subprocess.Popen] = set()
STOP = threading.Event()


@dataclass
class Site:
    module: str
    index: int  # the n-th mutable node in ast.walk order
    line: int
    edit: str


@dataclass
class Outcome:
    site: Site
    status: str  # killed (tests failed, or the mutant does not import) | survived | timeout
    seconds: float


def _is_docstring(node: ast.AST, parents: dict) -> bool:
    parent = parents.get(node)
    return isinstance(parent, ast.Expr)


def mutations(node: ast.AST, parents: dict) -> list[tuple[str, callable]]:
    """The edits possible at `node`: (description, function that applies it in place)."""
    out = []
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in SWAP_COMPARE:
        new = SWAP_COMPARE[type(node.ops[0])]
        out.append((f"{type(node.ops[0]).__name__} -> {new.__name__}",
                    lambda n=node, new=new: n.ops.__setitem__(0, new())))
    elif isinstance(node, ast.BinOp) and type(node.op) in SWAP_BINOP:
        new = SWAP_BINOP[type(node.op)]
        out.append((f"{type(node.op).__name__} -> {new.__name__}", lambda n=node, new=new: setattr(n, "op", new())))
    elif isinstance(node, ast.BoolOp):
        new = SWAP_BOOL[type(node.op)]
        out.append((f"{type(node.op).__name__} -> {new.__name__}", lambda n=node, new=new: setattr(n, "op", new())))
    elif (isinstance(node, ast.Constant) and type(node.value) is int and not _is_docstring(node, parents)
          and abs(node.value) < 1 << 20):
        out.append((f"{node.value} -> {node.value + 1}", lambda n=node: setattr(n, "value", n.value + 1)))
    elif isinstance(node, ast.Return) and node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None):
        out.append(("return X -> return None", lambda n=node: setattr(n, "value", ast.Constant(None))))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        parent = parents.get(node)
        for field, value in ast.iter_fields(parent):
            if value is node:
                out.append(("not X -> X", lambda p=parent, f=field, n=node: setattr(p, f, n.operand)))
    elif (isinstance(node, ast.Tuple) and len(node.elts) >= 2
          and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)):
        out.append(("tuple of names reversed", lambda n=node: n.elts.reverse()))
    return out


def _walk(tree: ast.AST) -> tuple[list[ast.AST], dict]:
    parents = {}
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
    nodes = [n for n in ast.walk(tree) if not _in_docstring_or_annotation(n, parents)]
    return nodes, parents


def _in_docstring_or_annotation(node, parents) -> bool:
    while node in parents:
        parent = parents[node]
        if isinstance(parent, (ast.AnnAssign, ast.arg)) and getattr(parent, "annotation", None) is node:
            return True
        if isinstance(parent, ast.FunctionDef) and parent.returns is node:
            return True
        node = parent
    return False


def sites(module: str) -> list[Site]:
    tree = ast.parse((ROOT / module).read_text())
    nodes, parents = _walk(tree)
    out = []
    for i, node in enumerate(nodes):
        for edit, _ in mutations(node, parents):
            out.append(Site(module, i, getattr(node, "lineno", 0), edit))
    return out


def mutated_source(site: Site) -> str:
    tree = ast.parse((ROOT / site.module).read_text())
    nodes, parents = _walk(tree)
    for edit, apply in mutations(nodes[site.index], parents):
        if edit == site.edit:
            apply()
            break
    else:
        raise RuntimeError(f"site vanished: {site}")
    return ast.unparse(ast.fix_missing_locations(tree))


def sample(all_sites: list[Site], cap: int) -> list[Site]:
    """At most `cap` sites (0: all), spread evenly over the module (the same ones every run)."""
    if cap <= 0 or len(all_sites) <= cap:
        return all_sites
    step = len(all_sites) / cap
    return [all_sites[int(i * step)] for i in range(cap)]


def pick(spec: str) -> list[Site]:
    """The sites that `MODULE:LINE`, `MODULE:LINE:EDIT` or `MODULE#SITE` names (a line can
    hold two sites with the same edit: `0 -> 1` of either constant); ValueError when none."""
    if "#" in spec:
        module, _, number = spec.partition("#")
        line, edit = "0", ""
    else:
        module, _, rest = spec.partition(":")
        line, _, edit = rest.partition(":")
        number = "0"
    if module not in TARGETS or not line.isdigit() or not number.isdigit():
        raise ValueError(f"{spec}: expected MODULE:LINE[:EDIT] or MODULE#SITE with MODULE one of the targets")
    if "#" in spec:
        found = [s for s in sites(module) if s.index == int(number)]
    else:
        found = [s for s in sites(module) if s.line == int(line) and (not edit or s.edit == edit)]
    if not found:
        raise ValueError(f"{spec}: no mutable site there")
    return found


def copy_tree(dest: Path) -> None:
    # Only the named folders are copied (not the dataset cache, results or build/); scripts/
    # since a script can be a target, and tests import scripts from there.
    ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache")
    for name in ("gpubfs_cli", "scripts", "tests", "docs", "pyproject.toml"):
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=ignore)
        elif src.exists():
            shutil.copy2(src, dest / name)


def run_tests(tree: Path, tests: list[str], timeout: float) -> tuple[str, float, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tree / ".numba"), PYTHONDONTWRITEBYTECODE="1",
               CI="true", HYPOTHESIS_PROFILE=os.environ.get("HYPOTHESIS_PROFILE", "default"))
    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not gpu", *tests]
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    RUNNING.add(proc)
    if STOP.is_set():  # the stop came while this one was starting
        proc.kill()
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return "timeout", time.perf_counter() - t0, ""
    finally:
        RUNNING.discard(proc)
    # Any non-zero exit is noticed: failed tests, or a mutant that no longer imports.
    tail = out.decode(errors="replace")[-2000:]
    return ("passed" if proc.returncode == 0 else "failed"), time.perf_counter() - t0, tail


def _stop(signum, frame) -> None:
    STOP.set()
    for proc in list(RUNNING):
        proc.kill()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="*", help="modules to mutate (default: every one in TARGETS)")
    ap.add_argument("--max-per-module", type=int, default=10, help="0: every site")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--report", default=str(ROOT / "build" / "mutants.md"))
    ap.add_argument("--only", action="append", default=[], metavar="MODULE:LINE[:EDIT]",
                    help="run just these sites (repeatable)")
    args = ap.parse_args(argv)
    modules = args.modules or list(TARGETS)
    for m in modules:
        if m not in TARGETS:
            print(f"mutants: {m}: not a target (one of: {', '.join(TARGETS)})", file=sys.stderr)
            return 2
    if args.only:
        try:
            chosen = [s for spec in args.only for s in pick(spec)]
        except ValueError as e:
            print(f"mutants: --only {e}", file=sys.stderr)
            return 2
        modules = list(dict.fromkeys(s.module for s in chosen))
    else:
        chosen = [s for m in modules for s in sample(sites(m), args.max_per_module)]
    generated = {m: len(sites(m)) for m in modules}
    work = Path(tempfile.mkdtemp(prefix="gpubfs-mutants-"))
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stop)
    try:
        trees = []
        for j in range(max(1, args.jobs)):
            tree = work / f"tree{j}"
            copy_tree(tree)
            trees.append(tree)
        # The unmutated tests must pass first; their time sets each mutant's limit.
        limits = {}
        for m in modules:
            status, took, tail = run_tests(trees[0], TARGETS[m], timeout=900)
            if STOP.is_set():
                return 130
            if status != "passed":
                print(f"{tail}\nmutants: the tests of {m} fail without any mutant ({status}): fix them first",
                      file=sys.stderr)
                return 1
            limits[m] = 3 * took + 30
            print(f"baseline {m}: {took:.1f} s", flush=True)
        free = list(trees)
        outcomes: list[Outcome] = []
        done = threading.Lock()

        def one(site: Site) -> None:
            if STOP.is_set():
                return
            tree = free.pop()
            path = tree / site.module
            original = path.read_text()
            try:
                path.write_text(mutated_source(site))
                status, took, _ = run_tests(tree, TARGETS[site.module], limits[site.module])
            finally:
                path.write_text(original)
                free.append(tree)
            if STOP.is_set():  # killed by the stop, not by the mutant
                return
            verdict = {"passed": "survived", "failed": "killed", "timeout": "timeout"}[status]
            print(f"{verdict:9s} {site.module}:{site.line}:{site.edit} #{site.index} ({took:.0f} s)", flush=True)
            with done:  # the report on disk always holds every mutant finished so far
                outcomes.append(Outcome(site, verdict, took))
                write_report(Path(args.report), outcomes, generated, len(chosen))

        with ThreadPoolExecutor(max_workers=len(trees)) as pool:
            list(pool.map(one, chosen))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if STOP.is_set():
        print(f"mutants: stopped after {len(outcomes)} of {len(chosen)} mutants; report: {args.report}",
              file=sys.stderr)
        return 130
    count = {s: sum(o.status == s for o in outcomes) for s in ("killed", "timeout", "survived")}
    print(f"{sum(generated.values())} sites, {len(outcomes)} mutants run: {count['killed']} killed, "
          f"{count['timeout']} timed out, {count['survived']} survived; report: {args.report}")
    return 0


def write_report(path: Path, outcomes: list[Outcome], generated: dict[str, int], planned: int) -> None:
    """Counts per module (sites that could be mutated, mutants run and their verdicts) and
    the survivors, in the order of the modules and lines."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# Mutation testing report (scripts/mutants.py)", "",
             f"{len(outcomes)} of {planned} planned mutants finished "
             f"({sum(generated.values())} sites in the modules).", "",
             "| module | sites | run | killed | timeout | survived |", "|---|---:|---:|---:|---:|---:|"]
    for m, n in generated.items():
        mine = [o for o in outcomes if o.site.module == m]
        count = {s: sum(o.status == s for o in mine) for s in ("killed", "timeout", "survived")}
        lines.append(f"| {m} | {n} | {len(mine)} | {count['killed']} | {count['timeout']} | {count['survived']} |")
    lines += ["", "## Survivors", ""]
    survivors = sorted((o for o in outcomes if o.status == "survived"),
                       key=lambda o: (list(generated).index(o.site.module), o.site.line, o.site.index))
    lines += [f"- {o.site.module}:{o.site.line}:{o.site.edit} #{o.site.index}" for o in survivors] or ["none"]
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
