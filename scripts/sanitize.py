"""Every registered GPU strategy (BFS and SSSP) once on each small nasty graph under
compute-sanitizer's memcheck (out-of-bounds and misaligned device accesses, invalid
frees). `make test-gpu-sanitize` runs it on a GPU machine.

    python scripts/sanitize.py            one compute-sanitizer process running this
                                          script's --inner driver over every case
    python scripts/sanitize.py --list     the cases, one per line (no GPU needed)
    python scripts/sanitize.py --inner    the driver alone (what the sanitizer runs)

Each case is (problem, strategy, graph): the strategy's default knobs, uploaded and
prepared on the graph, then traversed from the graph's first picked source, with
predecessors (parents) where the strategy has them and without; every answer is
checked against the problem's CPU reference. One sanitizer process for all cases: a
process per strategy would pay CUDA and CuPy start-up (and kernel compilation) each
time. Exit status 0 only when the sanitizer reports no error and every case ran and
matched; otherwise a summary of what went wrong.

The sanitizer is COMPUTE_SANITIZER if set, else compute-sanitizer on PATH or in
$CUDA_HOME/bin (default /usr/local/cuda/bin).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CASE_OK = "SANITIZE-CASE ok"
CASE_FAIL = "SANITIZE-CASE FAIL"
_ERRORS = re.compile(r"ERROR SUMMARY: (\d+) error")


def graphs(problem: str) -> dict:
    """The small nasty graphs of the emulated tests: BFS's, and SSSP's weighted ones."""
    from tests.algorithms.bfs.gpu import emulated_bfs
    from tests.algorithms.sssp.gpu import weighted_graphs

    return dict(weighted_graphs.NASTY) if problem == "sssp" else dict(emulated_bfs.GRAPHS)


def cases() -> list[tuple[str, str, str]]:
    """(problem, strategy, graph) for every registered GPU strategy and nasty graph."""
    from gpubfs_cli.core.strategy import registry
    from gpubfs_cli.gpu.base import GpuStrategy

    out = []
    for problem, strategies in registry().items():
        names = graphs(problem)
        for name, cls in strategies.items():
            if issubclass(cls, GpuStrategy):
                out += [(problem, name, g) for g in names]
    return out


def run_case(problem: str, name: str, gname: str, graph) -> str | None:
    """None when every traversal matched the reference, else why not; an unavailable
    strategy (too few GPUs, graph too big) is reported as such, not as a failure."""
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.core.strategy import StrategyUnavailable, all_strategies, make_knobs
    from tests.algorithms.sssp.gpu.weighted_graphs import pick_sources

    cls = all_strategies(problem)[name]
    reason = cls.unavailable_reason()
    if reason is not None:
        return f"unavailable: {reason}"
    spec = get_problem(problem)
    strategy = cls(make_knobs(cls, {}))
    source = pick_sources(graph, k=1)[0]
    try:
        strategy.upload(graph)
        strategy.prepare(graph)
        for pred in ((False, True) if cls.supports_predecessors else (False,)):
            ref = spec.reference(graph, source, pred)
            answer = strategy.traverse(source, pred).to_host()
            why = spec.check(graph, source, answer, ref.distances, pred)
            if why is not None:
                return f"wrong answer ({spec.option if pred else 'distances'}): {why}"
    except StrategyUnavailable as e:
        return f"unavailable: {e}"
    finally:
        strategy.release()
    return None


def inner() -> int:
    """Run every case in this process; one line per case; 1 if any failed."""
    import cupy

    # CuPy's memory pool carves arrays out of larger blocks, so an access past an array's
    # end stays inside memory the sanitizer counts as allocated (seen on an H100: a write
    # 8 ints past a 32-int array went unreported). Plain cudaMalloc per array instead.
    cupy.cuda.set_allocator(None)
    failed = 0
    built: dict = {}
    for problem, name, gname in cases():
        key = (problem, gname)
        if key not in built:
            built[key] = graphs(problem)[gname]()
        t = time.perf_counter()
        try:
            why = run_case(problem, name, gname, built[key])
        except Exception as e:  # a crash in one strategy must not hide the others
            why = f"{type(e).__name__}: {e}"
        line = f"{problem} {name} {gname} ({time.perf_counter() - t:.1f} s)"
        if why is None or why.startswith("unavailable"):
            print(f"{CASE_OK} {line}{'' if why is None else ' ' + why}", flush=True)
        else:
            failed += 1
            print(f"{CASE_FAIL} {line}: {why}", flush=True)
    return 1 if failed else 0


def find_sanitizer() -> str | None:
    env = os.environ.get("COMPUTE_SANITIZER")
    if env:
        return env
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    candidate = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "compute-sanitizer"
    return str(candidate) if candidate.is_file() else None


def summarize(rc: int, output: str) -> tuple[bool, list[str]]:
    """(clean, summary lines) from the sanitizer's exit status and output."""
    lines = output.splitlines()
    failed = [ln for ln in lines if ln.startswith(CASE_FAIL)]
    ran = sum(ln.startswith((CASE_OK, CASE_FAIL)) for ln in lines)
    errors = [int(m.group(1)) for m in map(_ERRORS.search, lines) if m]
    reported = [ln for ln in lines if ln.startswith("========= ") and "ERROR SUMMARY" not in ln
                and ("Invalid" in ln or "Error" in ln or "error" in ln or "leak" in ln.lower())]
    summary = [f"{ran} of {len(cases())} cases ran, {len(failed)} failed"]
    summary += [f"  {ln}" for ln in failed]
    if not errors:
        summary.append("no ERROR SUMMARY line from compute-sanitizer (did it run the driver?)")
    elif sum(errors):
        summary.append(f"compute-sanitizer reported {sum(errors)} error(s); first ones:")
        summary += [f"  {ln}" for ln in reported[:20]]
    if rc != 0:
        summary.append(f"compute-sanitizer exit status {rc}")
    clean = rc == 0 and not failed and bool(errors) and sum(errors) == 0 and ran == len(cases())
    return clean, summary


def outer() -> int:
    sanitizer = find_sanitizer()
    if sanitizer is None:
        print("sanitize: compute-sanitizer not found (set COMPUTE_SANITIZER or CUDA_HOME)", file=sys.stderr)
        return 2
    cmd = [sanitizer, "--tool", "memcheck", "--error-exitcode", "1",
           sys.executable, str(Path(__file__).resolve()), "--inner"]
    print("sanitize:", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    sys.stdout.write(proc.stdout)
    clean, summary = summarize(proc.returncode, proc.stdout)
    print(("sanitize: clean. " if clean else "sanitize: FAILED. ") + summary[0])
    for line in summary[1:]:
        print(line)
    return 0 if clean else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--list", action="store_true", help="print the cases and exit")
    group.add_argument("--inner", action="store_true", help="run the cases in this process")
    args = parser.parse_args(argv)
    if args.list:
        for case in cases():
            print(*case)
        return 0
    return inner() if args.inner else outer()


if __name__ == "__main__":
    sys.exit(main())
