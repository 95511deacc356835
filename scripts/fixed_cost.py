"""The fixed cost of one traversal, per GPU strategy: every
registered GPU strategy (BFS and SSSP), default knobs, on a small grid plus one disjoint
edge (gpubfs_cli/graph/samples.py's grid_and_pair), traversed from one end of that edge: one
vertex reached in one level, so the time is what a traversal costs whatever the graph
(launches, status reads, host bookkeeping). Timed through the runner's one timing path
(bench/timing.timed_traverse: CUDA events around traverse(), the copy-back after them),
WARMUP untimed traversals first, then the median of SAMPLES; every strategy is prepared
first and they take turns in blocks of BLOCK traversals (take_turns). The target: 30 us.

    python scripts/fixed_cost.py [--samples 50] [--json PATH] [--only NAME ...] [--floor]
                                 [--knobs KEY=VALUE ...]

--knobs sets knobs on the strategies that have them, beside their defaults: each such
strategy gets a second row (e.g. `--knobs small_frontier=512`: merrill.*'s persistent
kernel running a 2-vertex traversal in CTA 0, which its paper configs keep off).

--floor adds what bounds the figures before any BFS work (scripts/launch_floor.cu, same
launch path and timing): an empty one-argument launch, an empty cooperative launch of
do_bfs's signature (its 192-byte parameter struct by value, the source, a source pointer)
and grid with one grid barrier, the same with 2 arguments (what the struct costs), the
struct launch followed by a pinned read-back of one word (what a strategy that checks its
status per traversal pays), and the struct launch captured once as a CUDA graph and
launched as one (what do.bfs's `launch: graph` starts from: the arguments are fixed in the
graph, none marshalled per launch; do.bfs's graph also holds a 4-byte copy of the source,
not in this probe).

Prints one row per strategy (median, fastest, slowest sample in microseconds, and
whether the median meets the target) and a summary line; exit status 1 when a traversal
gave a wrong answer or a strategy failed, 0 otherwise (a strategy over the target is
reported, not an error: the target is for strategies whose algorithm allows it).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_US = 30.0
WARMUP = 5
BLOCK = 10  # timed traversals of one case in a row (take_turns)
STRUCT_BYTES = 192  # do_bfs's parameter struct (DO_PARAMS_BYTES)


def gpu_strategies(only: list[str]) -> list[tuple[str, str]]:
    """(problem, name) of every registered GPU strategy, or of those named in `only`."""
    from gpubfs_cli.core.strategy import registry
    from gpubfs_cli.gpu.base import GpuStrategy

    out = [(p, n) for p, names in registry().items() for n, cls in names.items() if issubclass(cls, GpuStrategy)]
    return [(p, n) for p, n in out if not only or n in only]


def parse_knobs(pairs: list[str]) -> dict:
    """{'small_frontier': 512} from ['small_frontier=512'] (values as YAML reads them)."""
    import yaml

    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"--knobs: {pair!r} is not KEY=VALUE")
        out[key] = yaml.safe_load(value)
    return out


def knobs_for(problem: str, name: str, knobs: dict) -> dict:
    """The part of `knobs` that the strategy's Knobs has ({} when none)."""
    import dataclasses

    from gpubfs_cli.core.strategy import all_strategies

    fields = {f.name for f in dataclasses.fields(all_strategies(problem)[name].Knobs)}
    return {k: v for k, v in knobs.items() if k in fields}


class Case:
    """One strategy (with knobs) or floor probe: `sample()` times one traversal (us).
    A case that cannot run holds its `result` ({'unavailable': why} or {'error': why})."""

    def __init__(self, key: str, result: dict | None = None):
        self.key, self.result, self.us = key, result, []

    def sample(self) -> float:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def outcome(self) -> dict:
        return self.result or {"us": self.us}


def case_key(problem: str, name: str, knobs: dict) -> str:
    return f"{problem}/{name}" + "".join(f" {k}={v}" for k, v in knobs.items())


class StrategyCase(Case):
    def __init__(self, problem: str, name: str, knobs: dict):
        from gpubfs_cli.core.strategy import StrategyUnavailable, all_strategies, make_knobs
        from gpubfs_cli.graph.samples import PAIR_SOURCE, grid_and_pair

        super().__init__(case_key(problem, name, knobs))
        self.strategy = None
        cls = all_strategies(problem)[name]
        reason = cls.unavailable_reason()
        if reason is not None:
            self.result = {"unavailable": reason}
            return
        graph = grid_and_pair(weighted=problem == "sssp")
        self.strategy = cls(make_knobs(cls, knobs))
        try:
            self.strategy.upload(graph)
            self.strategy.prepare(graph)
            for _ in range(WARMUP):
                self.strategy.traverse(PAIR_SOURCE).to_host()
        except StrategyUnavailable as exc:
            self.result = {"unavailable": str(exc)}
        except Exception as exc:  # noqa: BLE001 - one strategy's failure is its row, not the run's end
            self.result = {"error": f"{type(exc).__name__}: {exc}"}

    def sample(self) -> float:
        from gpubfs_cli.bench.timing import timed_traverse
        from gpubfs_cli.graph.samples import PAIR_SOURCE

        ms, answer = timed_traverse(self.strategy, PAIR_SOURCE)
        dist = np.asarray(answer.distances)
        reached = np.flatnonzero(dist >= 0).tolist()
        if reached != [PAIR_SOURCE, PAIR_SOURCE + 1] or dist[PAIR_SOURCE] != 0:
            raise RuntimeError(f"wrong answer from {PAIR_SOURCE}: reached {reached[:8]}")
        return ms * 1000.0

    def close(self) -> None:
        if self.strategy is not None:
            self.strategy.release()


class FloorCase(Case):
    def __init__(self, label: str, fn):
        super().__init__(f"floor/{label}")
        self.fn = fn
        for _ in range(WARMUP):
            fn()

    def sample(self) -> float:
        from gpubfs_cli.bench.timing import timed_call
        from gpubfs_cli.core.device import gpu

        return timed_call(self.fn, [gpu(0)])[0] * 1000.0


def floor_cases() -> list[Case]:
    """The launch-floor probes (see the module docstring)."""
    import cupy as cp

    from gpubfs_cli.gpu.launch import blocks_per_sm, captured, i32, sm_count
    from gpubfs_cli.gpu.modules import load_module

    module = load_module(ROOT / "scripts" / "launch_floor.cu", cooperative=True)
    one, coop, two = (module.get_function(k) for k in ("empty_1", "empty_struct", "sync_2"))
    grid = min(blocks_per_sm(coop, 256), 4) * sm_count()  # do.bfs: 4 CTAs of 256 per SM
    buf = cp.zeros(64, dtype=cp.uint64)
    host = cp.cuda.alloc_pinned_memory(8)
    pinned = np.frombuffer(host, dtype=np.uint64, count=1)
    words = np.zeros(STRUCT_BYTES // 8, dtype=np.uint64)
    words[:2] = buf.data.ptr, 2  # ctl, n
    args = (words.view(np.dtype((np.void, STRUCT_BYTES))), i32(0), None)  # passed as do_bfs's struct is
    probes = {
        "empty launch, 1 argument": lambda: one((1,), (32,), (buf.view(cp.int32),)),
        f"cooperative launch, do_bfs's 192-byte struct, {grid} CTAs, 1 grid barrier":
            lambda: coop((grid,), (256,), args),
        f"cooperative launch, 2 arguments, {grid} CTAs, 1 grid barrier": lambda: two((grid,), (256,), (buf, i32(0))),
        "the same + pinned read-back of 1 word": lambda: (coop((grid,), (256,), args), buf[:1].get(out=pinned)),
    }
    cases: list[Case] = [FloorCase(label, fn) for label, fn in probes.items()]
    label = f"the struct launch captured as a CUDA graph, {grid} CTAs"
    try:
        graph = captured(cp.cuda.Stream(non_blocking=True), lambda: coop((grid,), (256,), args))
        cases.append(FloorCase(label, graph.launch))  # on the current stream, the timing events'
    except Exception as exc:  # noqa: BLE001 - a capture the driver refuses is this probe's row
        cases.append(Case(f"floor/{label}", {"error": f"{type(exc).__name__}: {exc}"}))
    return cases


def take_turns(cases: list[Case], samples: int, block: int = BLOCK) -> None:
    """`samples` traversals per case in rounds: in each round every live case runs one
    untimed traversal, then `block` timed ones back to back (as a run's sources are),
    and round r starts from case r (mod the count), so that a drift over the run (on an
    H100, one do.bfs build measured 43.6 us early in a list run one after another and
    26.8 late) falls on every case alike. One sample each, switching every traversal,
    measured every case 1.2-1.8x slower: not what a run of sources pays."""
    live = [c for c in cases if c.result is None]
    for r in range(-(-samples // block)):
        start = r % max(1, len(live))
        for case in live[start:] + live[:start]:
            if case.result is not None:
                continue
            try:
                case.sample()
                for _ in range(min(block, samples - len(case.us))):
                    case.us.append(case.sample())
            except Exception as exc:  # noqa: BLE001 - one strategy's failure is its row
                case.result = {"error": f"{type(exc).__name__}: {exc}"}


def row(problem: str, name: str, result: dict, target: bool = True) -> str:
    label = f"{problem:<5} {name:<48}"
    if "us" not in result:
        kind = "unavailable" if "unavailable" in result else "ERROR"
        return f"{label} {kind}: {result.get('unavailable') or result.get('error')}"
    us = result["us"]
    med = statistics.median(us)
    verdict = ("ok" if med <= TARGET_US else f"over ({med / TARGET_US:.1f}x)") if target else ""
    return f"{label} {med:>9.1f} {min(us):>9.1f} {max(us):>9.1f}   {verdict}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=50, help="timed traversals per strategy (median)")
    ap.add_argument("--json", type=Path, help="also write the samples here")
    ap.add_argument("--only", nargs="*", default=[], help="strategy names to measure (default: all)")
    ap.add_argument("--floor", action="store_true", help="also time the launch-floor probes")
    ap.add_argument("--knobs", nargs="*", default=[], metavar="KEY=VALUE",
                    help="a second row for every strategy that has these knobs")
    args = ap.parse_args(argv)
    if args.samples < 1:
        print("--samples must be >= 1", file=sys.stderr)
        return 2
    cases = gpu_strategies(args.only)
    if not cases:
        print(f"no GPU strategy named {', '.join(args.only)}", file=sys.stderr)
        return 2
    print(f"fixed cost per traversal from a 2-vertex component, median of {args.samples} "
          f"(us; target {TARGET_US:g} us)")
    print(f"{'':<5} {'strategy':<48} {'median':>9} {'fastest':>9} {'slowest':>9}")
    failed, met, timed = 0, 0, 0
    extra = parse_knobs(args.knobs)
    runs = [(p, n, {}) for p, n in cases]
    runs += [(p, n, k) for p, n in cases if (k := knobs_for(p, n, extra))]
    # The multi-GPU strategies' rank processes would share the host with the others:
    # they take turns among themselves, after the others are released.
    from gpubfs_cli.core.strategy import all_strategies

    multi = [hasattr(all_strategies(p)[n].Knobs, "gpus") for p, n, _ in runs]
    floors = floor_cases() if args.floor else []
    measured: list[Case] = []
    for group in (False, True):
        turns = [StrategyCase(p, n, k) for (p, n, k), m in zip(runs, multi, strict=True) if m == group]
        measured += turns
        try:
            take_turns(turns + (floors if not group else []), args.samples)
        finally:
            for case in turns:
                case.close()
    by_key = {case.key: case for case in measured}
    results = {}
    for problem, name, knobs in runs:
        case = by_key[case_key(problem, name, knobs)]
        result = results[case.key] = case.outcome()
        print(row(problem, case.key.split("/", 1)[1], result), flush=True)
        if "error" in result:
            failed += 1
        elif "us" in result and not knobs:
            timed += 1
            met += statistics.median(result["us"]) <= TARGET_US
    print(f"{met} of {timed} timed strategies within {TARGET_US:g} us at their defaults; {failed} failed")
    if floors:
        print("launch floor (no BFS work), taking turns with the strategies:")
        for case in floors:
            results[case.key] = case.outcome()
            print(row("floor", case.key.split("/", 1)[1], results[case.key], target=False))  # a bound
    if args.json:
        args.json.write_text(json.dumps({"target_us": TARGET_US, "results": results}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
