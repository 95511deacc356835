"""Every registered GPU strategy (BFS and SSSP) once on each small nasty graph under
compute-sanitizer's memcheck (out-of-bounds and misaligned device accesses, invalid
frees). `make test-gpu-sanitize` runs it on a GPU machine.

    python scripts/sanitize.py [--jobs N] N compute-sanitizer processes (default 4) at
                                          once, each running this script's --inner
                                          driver over one shard of the cases
    python scripts/sanitize.py --list     the cases, one per line (no GPU needed)
    python scripts/sanitize.py --inner    the driver alone (what the sanitizer runs)
    --shard I/N (with --list or --inner)  only shard I of N (strategies dealt in turn)

Each case is (problem, strategy, graph): the strategy's default knobs, uploaded and
prepared on the graph, then traversed from the graph's first picked source, with
predecessors (parents) where the strategy has them and without; every answer is
checked against the problem's CPU reference. A shard holds whole strategies, so each
kernel is compiled by one process; a process per strategy would pay CUDA and CuPy
start-up each time. The processes' lines are printed as they come (a run cut short
still shows how far it got). Exit status 0 only when every sanitizer process reports no
error and every case ran and matched; otherwise a summary of what went wrong.

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
import threading
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
    from gpubfs_cli.graph import samples

    return dict(samples.NASTY_SSSP) if problem == "sssp" else dict(samples.NASTY_BFS)


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


def shard_cases(shard: tuple[int, int] | None) -> list[tuple[str, str, str]]:
    """The cases of shard (i, k): the strategies are dealt to the k shards in turn."""
    every = cases()
    if shard is None:
        return every
    i, k = shard
    order = list(dict.fromkeys((p, s) for p, s, _ in every))
    mine = set(order[i::k])
    return [c for c in every if (c[0], c[1]) in mine]


def parse_shard(text: str) -> tuple[int, int]:
    try:
        i, k = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--shard takes I/N (e.g. 0/4), not {text!r}") from None
    if not 0 <= i < k:
        raise argparse.ArgumentTypeError(f"--shard {text}: I must be in [0, N)")
    return i, k


def run_case(problem: str, name: str, gname: str, graph) -> str | None:
    """None when every traversal matched the reference, else why not; an unavailable
    strategy (too few GPUs, graph too big) is reported as such, not as a failure."""
    from gpubfs_cli.core.problem import get_problem
    from gpubfs_cli.core.strategy import StrategyUnavailable, all_strategies, make_knobs
    from gpubfs_cli.graph.samples import pick_sources

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


def inner(shard: tuple[int, int] | None = None) -> int:
    """Run the shard's cases in this process; one line per case; 1 if any failed."""
    import cupy

    # CuPy's memory pool carves arrays out of larger blocks, so an access past an array's
    # end stays inside memory the sanitizer counts as allocated (seen on an H100: a write
    # 8 ints past a 32-int array went unreported). Plain cudaMalloc per array instead.
    cupy.cuda.set_allocator(None)
    failed = 0
    built: dict = {}
    for problem, name, gname in shard_cases(shard):
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


# Records compute-sanitizer prints that are not gpubfs's: NCCL's communicator set-up asks
# for the attributes of each of its kernels and skips those built for other GPUs, then
# clears the error (cudaFuncGetAttributes, then cudaGetLastError, both returning
# cudaErrorNoKernelImageForDevice inside ncclInitKernelsForDevice). memcheck reports each
# one as an API error; an API error anywhere else, or any memory error, still counts.
_NCCL_PROBE = re.compile(r"Program hit cudaErrorNoKernelImageForDevice .* on CUDA API call to "
                         r"(cudaFuncGetAttributes|cudaGetLastError)\.")


def sanitizer_records(output: str) -> list[list[str]]:
    """The error records in one sanitizer process's output: each a record's first line
    ("========= Invalid ...", "========= Program hit ...") and its indented lines."""
    records: list[list[str]] = []
    for line in output.splitlines():
        body = line[len("========= "):] if line.startswith("========= ") else None
        if body is None or not body.strip():
            continue
        if not body.startswith(" "):
            if body.startswith(("ERROR SUMMARY", "COMPUTE-SANITIZER")):
                continue
            records.append([body])
        elif records:
            records[-1].append(body.strip())
    return records


def nccl_probe(record: list[str]) -> bool:
    """Whether a record is NCCL's kernel-image probe (see _NCCL_PROBE)."""
    return bool(_NCCL_PROBE.match(record[0])) and any(
        "ncclInitKernelsForDevice" in ln and "libnccl" in ln for ln in record[1:])


def summarize(results: list[tuple[int, str]]) -> tuple[bool, list[str]]:
    """(clean, summary lines) from each sanitizer process's (exit status, output); each
    must print its ERROR SUMMARY, and every error it counts must be NCCL's probe."""
    lines = [ln for _, out in results for ln in out.splitlines()]
    failed = [ln for ln in lines if ln.startswith(CASE_FAIL)]
    ran = sum(ln.startswith((CASE_OK, CASE_FAIL)) for ln in lines)
    summary = [f"{ran} of {len(cases())} cases ran, {len(failed)} failed"]
    summary += [f"  {ln}" for ln in failed]
    clean = not failed and ran == len(cases())
    silent = excused = 0
    for rc, out in results:
        counts = [int(m.group(1)) for m in map(_ERRORS.search, out.splitlines()) if m]
        records = sanitizer_records(out)
        real = [r for r in records if not nccl_probe(r)]
        probes = len(records) - len(real)
        excused += probes
        if not counts:
            silent += 1
            clean = False
            continue
        if sum(counts) != probes or real:
            clean = False
            summary.append(f"compute-sanitizer reported {sum(counts)} error(s)"
                           + (f" ({probes} of them NCCL's kernel-image probe)" if probes else "") + "; first ones:")
            summary += [f"  {r[0]}" for r in real[:20]]
        # --error-exitcode 1 turns the probe's records into status 1 as well
        if rc != 0 and not (rc == 1 and probes and sum(counts) == probes):
            clean = False
            summary.append(f"compute-sanitizer exit status {rc}")
    if silent:
        summary.append(f"no ERROR SUMMARY line from {silent} of {len(results)} "
                       "compute-sanitizer processes (did each run the driver?)")
    if excused:
        summary.append(f"not counted: {excused} CUDA API errors of NCCL's kernel-image probe "
                       "(ncclInitKernelsForDevice, handled by NCCL)")
    return clean, summary


def outer(jobs: int) -> int:
    sanitizer = find_sanitizer()
    if sanitizer is None:
        print("sanitize: compute-sanitizer not found (set COMPUTE_SANITIZER or CUDA_HOME)", file=sys.stderr)
        return 2
    cmd = [sanitizer, "--tool", "memcheck", "--error-exitcode", "1",
           sys.executable, str(Path(__file__).resolve()), "--inner"]
    print(f"sanitize: {jobs} x", " ".join(cmd), "--shard I/N", flush=True)
    procs = [subprocess.Popen(cmd + ["--shard", f"{i}/{jobs}"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, cwd=ROOT) for i in range(jobs)]
    outputs: list[list[str]] = [[] for _ in procs]
    lock = threading.Lock()

    def pump(proc, out: list[str]) -> None:  # each process's lines, whole, as they come
        for line in proc.stdout:
            out.append(line)
            with lock:
                sys.stdout.write(line)
                sys.stdout.flush()

    readers = [threading.Thread(target=pump, args=(p, o)) for p, o in zip(procs, outputs, strict=True)]
    for t in readers:
        t.start()
    for t in readers:
        t.join()
    clean, summary = summarize([(p.wait(), "".join(o)) for p, o in zip(procs, outputs, strict=True)])
    print(("sanitize: clean. " if clean else "sanitize: FAILED. ") + summary[0])
    for line in summary[1:]:
        print(line)
    return 0 if clean else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--list", action="store_true", help="print the cases and exit")
    group.add_argument("--inner", action="store_true", help="run the cases in this process")
    parser.add_argument("--shard", type=parse_shard, help="I/N: only shard I of N (with --list or --inner)")
    parser.add_argument("--jobs", type=int, default=4, help="sanitizer processes at once (default 4)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.shard is not None and not (args.list or args.inner):
        parser.error("--shard goes with --list or --inner")
    if args.list:
        for case in shard_cases(args.shard):
            print(*case)
        return 0
    return inner(args.shard) if args.inner else outer(args.jobs)


if __name__ == "__main__":
    sys.exit(main())
