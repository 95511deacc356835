"""Read one or more results files (or run journals) into one pool of samples.

Files may come from different machines (a GPU run and a CPU run): samples are pooled, the
datasets sections merged. A dataset name that means different graphs in two files (other
n or m) is an error naming both files, since pairing their sources would be meaningless.
Every value the report reads is type-checked here (a file from elsewhere may be broken or
hostile): a wrong one is one UserError naming the file and the key. A journal
(results/journal.py) reads as the results document it replays into; a run that did not
complete (interrupted, failed, or a journal without its end) says so in the header.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gpubfs_cli.core.strategy import canonical_name
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.files import check_input_file
from gpubfs_cli.folders import results_dir
from gpubfs_cli.report.conditions import conditions_text, file_conditions, mixed_conditions_note
from gpubfs_cli.results.keys import L2_MODES
from gpubfs_cli.results.replay import load_run
from gpubfs_cli.results.schema import Sample, is_time_ms, run_state
from gpubfs_cli.results.status import STATUSES

_REQUIRED = ("dataset", "strategy", "source", "status")
_SAMPLE_FIELDS = {"dataset", "strategy", "knobs", "source", "time_ms", "reached", "edges", "valid",
                  "status", "predecessors", "reason", "low_reach", "problem", "counters", "l2", "timed_by",
                  "batch", "prime"}


@dataclass
class Results:
    files: list[str] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    sample_file: list[int] = field(default_factory=list)  # index into files, per sample
    datasets: dict[str, dict] = field(default_factory=dict)
    sources: dict[str, list[int]] = field(default_factory=dict)
    prepares: list[dict] = field(default_factory=list)
    environments: list[dict] = field(default_factory=list)  # per file
    problems: dict[str, dict] = field(default_factory=dict)  # key -> Problem.describe()
    conditions: list[dict] = field(default_factory=list)  # per file: L2 mode, clocks
    energy: list[dict] = field(default_factory=list)  # every file's energy records (report/energy.py reads them)
    equivalent_teps: set[str] = field(default_factory=set)  # strategies whose GTEPS are equivalent
    file_sources: list[dict[str, list[int]]] = field(default_factory=list)  # per file: its runs' sources
    states: list[str | None] = field(default_factory=list)  # per file: how its run ended, None if complete
    configs: list[dict] = field(default_factory=list)  # per file: its run config (report/plans.py reads its plan)
    modes: list[dict | None] = field(default_factory=list)  # per file: `gpubfs reproduce --quick`'s record, else None
    # problem -> its groups: every table of a report reads them (grouping is most of a big
    # pool's cost); keyed with the sample count, so a pool grown since regroups
    _groups: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def grouped(self, problem: str, make: Callable[[], list]) -> list:
        """The problem's groups, made by `make` the first time they are asked for."""
        key = (problem, len(self.samples))
        if key not in self._groups:
            self._groups[key] = make()
        return self._groups[key]

    def problem_info(self, key: str) -> dict:
        """What the files say about a problem (baseline, option label...); files from
        before problems were recorded are BFS runs, described by the BFS problem."""
        if key in self.problems:
            return self.problems[key]
        from gpubfs_cli.core.problem import get_problem

        return get_problem(key).describe()

    def problem_keys(self) -> list[str]:
        """The problems with samples, BFS first."""
        return sorted({s.problem for s in self.samples}, key=lambda p: (p != "bfs", p))

    def machine_lines(self) -> list[str]:
        """One line per file: path, GPU and CPU as the runner recorded them, the L2 mode
        and the clocks; then a warning when the files mix L2 modes."""
        lines = []
        for path, env, cond, state in zip(self.files, self.environments, self.conditions, self.states, strict=True):
            lines.append(f"{path}: {describe_environment(env)}; {conditions_text(cond)}")
            if state:
                lines.append(f"{path}: the run did not complete: {state}; a cell with fewer sources than "
                             "planned shows how many it holds, (measured/planned)")
        note = mixed_conditions_note(self.conditions)
        return lines + ([note] if note else [])

    def archive_lines(self) -> list[str]:
        """One line per graph whose archive was used although its sha256 differed from the
        catalogue's pin (`--accept-checksum`, recorded in the cache's meta.json)."""
        lines = []
        for name, info in self.datasets.items():
            source = ((info.get("meta") or {}).get("source") or {}) if isinstance(info.get("meta"), dict) else {}
            if not isinstance(source, dict) or source.get("checksum") != "accepted-mismatch":
                continue
            header = {True: "its header matched the catalogue's n and m", False: "its header did not match"}.get(
                source.get("header_match"), "its header was not compared")
            lines.append(f"{name}: archive sha256 {str(source.get('sha256'))[:16]}... differs from the catalogue's "
                         f"pin {str(source.get('pinned_sha256'))[:16]}...; used with --accept-checksum ({header})")
        return lines

    def mode_lines(self) -> list[str]:
        """Nothing when no file is of a quick reproduction; else one line per quick setting
        (`quick mode: 5 sources a graph, ...`), and the files of each mode when they mix."""
        quick: dict[str, list[str]] = {}
        for path, mode in zip(self.files, self.modes, strict=True):
            if mode is not None:
                quick.setdefault(quick_text(mode), []).append(path)
        if not quick:
            return []
        full = [p for p, m in zip(self.files, self.modes, strict=True) if m is None]
        if len(quick) == 1 and not full:
            return [next(iter(quick))]
        lines = [f"{text}: {', '.join(paths)}" for text, paths in quick.items()]
        if full:
            lines.append(f"full mode: {', '.join(full)}")
            lines.append("mixed modes: a cell may pool samples of quick and full files (see the files above)")
        return lines

    def l2_modes(self) -> dict[str, str]:
        """file -> the L2 mode its samples were measured with (warm | cold)."""
        return {path: c["l2"] for path, c in zip(self.files, self.conditions, strict=True)}


def quick_text(mode: dict) -> str:
    """`quick mode: 5 sources a graph, CPU column from cpu.parallel_do (not cpu.sequential)`."""
    n = mode["sources"]
    text = f"quick mode: {n} source{'' if n == 1 else 's'} a graph"
    for old, new in (mode.get("cpu") or {}).items():
        text += f", CPU column from {new} (not {old})" if new else f", {old} not timed"
    return text


def file_mode(path: str, doc: dict) -> dict | None:
    """The `reproduce` record of a quick reproduction's file (checked), else None."""
    meta = doc.get("reproduce")
    if meta is None:
        return None
    _check(isinstance(meta, dict) and meta.get("mode") in ("full", "quick"), path, "reproduce",
           "an object with mode full or quick", meta)
    if meta["mode"] == "full":
        return None
    _check(_integer(meta.get("sources")) and meta["sources"] >= 1, path, "reproduce.sources",
           "a whole number >= 1", meta.get("sources"))
    cpu = meta.get("cpu") or {}
    _check(isinstance(cpu, dict) and all(isinstance(k, str) and (v is None or isinstance(v, str))
                                         for k, v in cpu.items()),
           path, "reproduce.cpu", "an object of strategy names (or null)", cpu)
    return meta


def describe_environment(env: Any) -> str:
    """`GPU NVIDIA H200, CPU ...`; a file that records its provenance (the `code` key,
    bench/environment.py) adds the GPUs' short UUIDs, the driver, CUDA and its code:
    `GPU NVIDIA H200 (GPU-5f1c2a9e), driver 570.124.06, CUDA 12.8, CPU ..., code
    285e477c+dirty (tree 1016b037)`. Files without it read as they always did."""
    if not isinstance(env, dict):
        return "environment not recorded"
    provenance = isinstance(env.get("code"), dict)
    parts = []
    gpu = env.get("gpu")
    if isinstance(gpu, dict):
        if gpu.get("name"):
            parts.append(f"GPU {gpu['name']}" + (_gpu_provenance(env, gpu) if provenance else ""))
        elif gpu.get("reason"):
            parts.append(f"no GPU ({gpu['reason']})")
    elif gpu:
        parts.append(f"GPU {gpu}")
    cpu = env.get("cpu")
    if isinstance(cpu, dict):
        cpu = cpu.get("model") or cpu.get("name")
    if cpu:
        parts.append(f"CPU {cpu}")
    if provenance:
        parts.append(code_text(env["code"]))
    return ", ".join(str(p) for p in parts) or "environment not recorded"


def _short(value: Any, n: int = 8) -> str:
    return str(value)[:n]


def _gpu_provenance(env: dict, gpu: dict) -> str:
    """` (GPU-5f1c2a9e, GPU-0b4d...), driver 570.124.06, CUDA 12.8`: what of it is recorded."""
    gpus = [g for g in env.get("gpus") or [] if isinstance(g, dict)] or [gpu]
    uuids = [str(g["uuid"]) for g in gpus if g.get("uuid")]
    text = f" ({', '.join(u[:12] if u.startswith('GPU-') else _short(u) for u in uuids)})" if uuids else ""
    if gpu.get("driver"):
        text += f", driver {gpu['driver']}"
    runtime = gpu.get("runtime_version")
    if _integer(runtime) and runtime > 0:
        text += f", CUDA {runtime // 1000}.{runtime % 1000 // 10}"
    return text


def code_text(code: dict) -> str:
    """`code 285e477c+dirty (tree 1016b037)`; `code unknown` outside a git checkout."""
    commit, tree = code.get("commit"), code.get("tree")
    if not commit and not tree:
        return "code unknown (not a git checkout)"
    text = f"code {_short(commit) if commit else 'uncommitted'}" + ("+dirty" if code.get("dirty") else "")
    return text + (f" (tree {_short(tree)})" if tree else "")


# ---------------------------------------------------------------- value checks
# numbers.Real/Integral: the runner's own document (the end-of-run table) may hold numpy
# scalars; a file read back holds plain ones, tested by their exact type first (the ABC
# checks cost most of a big file's load). Booleans are not numbers here.
def _number(v: Any) -> bool:
    t = type(v)
    if t is float or t is int:
        return True
    return t is not bool and isinstance(v, numbers.Real) and not isinstance(v, np.bool_)


def _integer(v: Any) -> bool:
    t = type(v)
    if t is int:
        return True
    return t is not bool and isinstance(v, numbers.Integral) and not isinstance(v, np.bool_)


def _bool(v: Any) -> bool:
    return type(v) is bool or isinstance(v, np.bool_)


def _scalar(v: Any) -> bool:
    return v is None or type(v) in _PLAIN_SCALARS or isinstance(v, (str, np.bool_)) or _number(v)


_PLAIN_SCALARS = frozenset((str, bool, int, float))


def _numbers(v: Any) -> bool:
    return isinstance(v, list) and all(x is None or _number(x) for x in v)


def _check(ok: bool, path: str, where: str, expected: str, value: Any) -> None:
    if not ok:
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise UserError(f"{path}: {where}: expected {expected}, got {shown}")


def _check_keys(path: str, where: str, raw: dict, spec: dict, plain: dict | None = None) -> None:
    """spec: key -> (test, expected words); absent keys pass. plain: key -> the exact
    types that pass the test whatever their value (what a file read back holds), checked
    first: a big file's samples pass without calling the tests."""
    for key, (test, expected) in spec.items():
        if key in raw:
            value = raw[key]
            if plain is not None and type(value) in plain.get(key, ()):
                continue
            _check(test(value), path, f"{where}.{key}", expected, value)


def _knobs_ok(v: Any) -> bool:
    return isinstance(v, dict) and all(
        _scalar(x) or (isinstance(x, list) and all(_scalar(y) for y in x)) for x in v.values()
    )


_OPT_NUMBER = (lambda v: v is None or _number(v), "a number or null")
# what the journal refuses too: a time is finite and >= 0, a count >= 0
_OPT_TIME = (lambda v: v is None or is_time_ms(v), "a time >= 0 (ms) or null")
_COUNT = (lambda v: _number(v) and 0 <= v < math.inf, "a count >= 0")
_OPT_STRING = (lambda v: v is None or isinstance(v, str), "a string or null")
_STRING = (lambda v: isinstance(v, str), "a string")
_SAMPLE_SPEC = {
    "dataset": _STRING,
    "strategy": _STRING,
    "problem": _STRING,
    "source": (_integer, "a vertex id"),
    "knobs": (_knobs_ok, "an object of plain values"),
    "time_ms": _OPT_TIME,
    "reached": _COUNT,
    "edges": _COUNT,
    "valid": (lambda v: v is None or _bool(v), "true, false or null"),
    "predecessors": (_bool, "true or false"),
    "low_reach": (_bool, "true or false"),
    "reason": _OPT_STRING,
    "counters": (lambda v: isinstance(v, dict), "an object"),
    "timed_by": _OPT_STRING,
    "l2": (lambda v: v in L2_MODES, " or ".join(L2_MODES)),
    "prime": (_bool, "true or false"),
    "batch": (lambda v: v is None or (_integer(v) and v >= 1), "a whole number >= 1"),
}
_NONE = type(None)
_SAMPLE_PLAIN = {
    "dataset": (str,), "strategy": (str,), "problem": (str,), "source": (int,),
    "time_ms": (_NONE,), "valid": (bool, _NONE), "predecessors": (bool,), "low_reach": (bool,), "reason": (str, _NONE),
    "counters": (dict,), "timed_by": (str, _NONE), "prime": (bool,),
}
_DATASET_SPEC = {
    "n": (_integer, "a whole number"),
    "m": (_integer, "a whole number"),
    "directed": (_bool, "true or false"),
    "status": _STRING,
    "reason": _OPT_STRING,
    "stats": (lambda v: isinstance(v, dict), "an object"),
    # null where the run's problem has no frontier (SSSP) or validated nothing
    "frontier": (lambda v: v is None or (isinstance(v, dict) and _numbers(v.get("vertices", []))
                                         and _numbers(v.get("edges", []))),
                 "null or an object with lists of numbers"),
}
_STRINGS = (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings")
_PREPARE_SPEC = {
    "dataset": _STRING, "strategy": _STRING, "problem": _STRING, "status": _STRING, "reason": _OPT_STRING,
    "knobs": (_knobs_ok, "an object of plain values"), "time_ms": _OPT_NUMBER, "upload_ms": _OPT_NUMBER,
    "bytes": _OPT_NUMBER, "devices": _STRINGS,
    "setup": (lambda v: isinstance(v, dict) and all(_number(x) for x in v.values()), "an object of numbers (ms)"),
    "device_bytes": (lambda v: isinstance(v, list) and all(_integer(x) and x >= 0 for x in v),
                     "a list of whole numbers >= 0"),
}

_OPT_AMOUNT = (lambda v: v is None or (_number(v) and 0 <= v < math.inf), "a number >= 0 or null")
_OPT_COUNT = (lambda v: v is None or (_integer(v) and v >= 0), "a whole number >= 0 or null")
_ENERGY_SPEC = {
    "dataset": _STRING, "strategy": _STRING, "problem": _STRING, "reason": _OPT_STRING,
    "knobs": (_knobs_ok, "an object of plain values"), "predecessors": (_bool, "true or false"),
    "l2": (lambda v: v in L2_MODES, " or ".join(L2_MODES)), "prime": (_bool, "true or false"),
    "devices": _STRINGS,
    "energy_j": _OPT_AMOUNT, "seconds": _OPT_AMOUNT, "mean_w": _OPT_AMOUNT, "traversals": _OPT_COUNT,
    "edges": _OPT_COUNT, "edges_graph500": _OPT_COUNT,
}


def _energy(path: str, i: int, raw: Any, run_prime: bool) -> dict:
    """One energy record (bench/energy.py), checked: a measured one has its energy and a
    length of time > 0, an unmeasured one its reason; the strategy's current name, and
    the run's prime policy where the record lacks it."""
    where = f"energy[{i}]"
    _check(isinstance(raw, dict), path, where, "an object", raw)
    for key in ("dataset", "strategy"):
        if key not in raw:
            raise UserError(f"{path}: {where}: missing key '{key}'")
    _check_keys(path, where, raw, _ENERGY_SPEC)
    if raw.get("energy_j") is None:
        _check(isinstance(raw.get("reason"), str), path, f"{where}.reason",
               "why nothing was measured (a record without energy_j)", raw.get("reason"))
    else:
        _check(_number(raw.get("seconds")) and raw["seconds"] > 0, path, f"{where}.seconds",
               "a number > 0 (a record with energy_j)", raw.get("seconds"))
    return {**raw, "strategy": canonical_name(raw["strategy"]), "prime": raw.get("prime", run_prime)}


def _sample(path: str, i: int, raw: Any, run_prime: bool) -> Sample:
    if not isinstance(raw, dict):
        raise UserError(f"{path}: samples[{i}]: expected an object")
    for key in _REQUIRED:
        if key not in raw:
            raise UserError(f"{path}: samples[{i}]: missing key '{key}'")
    _check_keys(path, f"samples[{i}]", raw, _SAMPLE_SPEC, _SAMPLE_PLAIN)
    if raw["status"] not in STATUSES:
        raise UserError(f"{path}: samples[{i}].status: expected one of {', '.join(STATUSES)}, got {raw['status']!r}")
    if raw["status"] == "ok":
        _check(_number(raw.get("time_ms")), path, f"samples[{i}].time_ms", "a number (status ok)", raw.get("time_ms"))
    for key, value in raw.items():  # the problem's measures (depth, max_distance, ...)
        if key not in _SAMPLE_FIELDS:
            _check(value is None or _number(value) or _numbers(value), path, f"samples[{i}].{key}",
                   "a number, null or a list of numbers", value)
    try:
        return Sample.from_dict(raw, run_prime)
    except TypeError as exc:
        raise UserError(f"{path}: samples[{i}]: {exc}") from None


def _merge_dataset(results: Results, path: str, name: str, entry: Any) -> None:
    if not isinstance(entry, dict):
        raise UserError(f"{path}: datasets.{name}: expected an object")
    _check_keys(path, f"datasets.{name}", entry, _DATASET_SPEC)
    for key in ("depth_avg", "depth_max", "depth_probe", "upload_ms", "load_s"):
        if key in entry:
            _check(entry[key] is None or _number(entry[key]), path, f"datasets.{name}.{key}", "a number or null", entry[key])
    old = results.datasets.get(name)
    if old is None:
        results.datasets[name] = dict(entry, _file=path)
        return
    for key in ("n", "m"):
        if key in old and key in entry and old[key] != entry[key]:
            raise UserError(
                f"{path}: datasets.{name}.{key} = {entry[key]} but {old['_file']} has "
                f"{old[key]}: not the same graph"
            )
    for key, value in entry.items():  # keep what the first file lacks (e.g. depths)
        old.setdefault(key, value)


def load_many(paths: list[str | Path]) -> Results:
    if not paths:
        raise UserError("no results files given")
    results = Results()
    for p in paths:
        check_input_file(p, "results file")  # before anything opens it: a FIFO would hang
        doc = load_run(p)
        if not doc["samples"]:
            why = f": the run failed ({doc['failed']})" if doc.get("failed") else " (an empty or failed run)"
            raise UserError(f"{p}: holds no samples{why}")
        add_doc(results, doc, str(p))
    return results


def usable(path: Path) -> bool:
    """A results file a bare `gpubfs report` may pick: readable, with samples, not
    marked failed, and with something measured (a run where nothing could run here, every
    cell unavailable, would hide the last real results)."""
    try:
        doc = load_run(path)
    except UserError:
        return False
    return bool(doc.get("samples")) and not doc.get("failed") and not nothing_ran(doc)


def nothing_ran(doc: dict) -> bool:
    """Every sample of a results document is `unavailable`: nothing could run where it ran."""
    samples = doc.get("samples")
    return isinstance(samples, list) and all(isinstance(s, dict) and s.get("status") == "unavailable"
                                             for s in samples)


def results_from_doc(doc: dict, path: str = "this run") -> Results:
    """A pool of one in-memory results document (the runner's end-of-run table)."""
    return add_doc(Results(), doc, path)


def shown_path(path: str | Path) -> str:
    """A results file as reports print it: relative to the working directory when under
    it, else its name alone (a shared report must not show the sharer's folders)."""
    text = str(path)
    try:
        here = os.getcwd()
        absolute = os.path.abspath(text)
        if os.path.commonpath([absolute, here]) == here and absolute != here:
            return os.path.relpath(absolute, here)
    except (OSError, ValueError):  # a working directory gone, another drive
        pass
    return os.path.basename(text.rstrip("/")) or text


def add_doc(results: Results, doc: dict, path: str) -> Results:
    """Pool one results document into `results` (listed as shown_path(path); errors name
    the path as given)."""
    results.files.append(shown_path(path))
    results.environments.append(doc.get("environment") or {})
    results.conditions.append(file_conditions(path, doc))
    results.states.append(run_state(doc))
    results.configs.append(doc["config"] if isinstance(doc.get("config"), dict) else {})
    results.modes.append(file_mode(path, doc))
    fi = len(results.files) - 1
    if not isinstance(doc["samples"], list):
        raise UserError(f"{path}: samples: expected a list")
    if not isinstance(doc["datasets"], dict):
        raise UserError(f"{path}: datasets: expected an object")
    for i, raw in enumerate(doc["samples"]):
        results.samples.append(_sample(path, i, raw, results.conditions[fi]["prime"]))
        results.sample_file.append(fi)
    for name, entry in doc["datasets"].items():
        _merge_dataset(results, path, name, entry)
    sources = doc.get("sources") or {}
    _check(isinstance(sources, dict), path, "sources", "an object", sources)
    for name, srcs in sources.items():
        _check(isinstance(srcs, list) and all(_integer(v) for v in srcs), path, f"sources.{name}", "a list of vertex ids", srcs)
        results.sources.setdefault(name, list(srcs))
    results.file_sources.append({name: list(srcs) for name, srcs in sources.items()})
    prepares = doc.get("prepares") or []
    _check(isinstance(prepares, list), path, "prepares", "a list", prepares)
    for i, p in enumerate(prepares):
        if isinstance(p, dict):
            _check_keys(path, f"prepares[{i}]", p, _PREPARE_SPEC)
            results.prepares.append(p)
    problems = doc.get("problems") or {}
    _check(isinstance(problems, dict), path, "problems", "an object", problems)
    for key, info in problems.items():
        if isinstance(info, dict):
            for k, v in info.items():
                _check(v is None or isinstance(v, str), path, f"problems.{key}.{k}", "a string", v)
            results.problems.setdefault(key, info)
    equivalent = doc.get("equivalent_teps") or []
    _check(isinstance(equivalent, list) and all(isinstance(x, str) for x in equivalent), path,
           "equivalent_teps", "a list of strategy names", equivalent)
    results.equivalent_teps.update(canonical_name(x) for x in equivalent)
    energy = doc.get("energy") or []
    _check(isinstance(energy, list), path, "energy", "a list", energy)
    results.energy += [_energy(path, i, e, results.conditions[fi]["prime"]) for i, e in enumerate(energy)]
    _check_sample_problems(results, path, len(results.samples) - len(doc["samples"]), doc["datasets"])
    return results


def _check_sample_problems(results: Results, path: str, first: int, datasets: dict) -> None:
    """Each sample's problem is one this code registers or the file describes, and its
    dataset one the file records."""
    from gpubfs_cli.core.problem import all_problems

    known = set(all_problems()) | set(results.problems)
    for i, s in enumerate(results.samples[first:]):
        if s.problem not in known:
            raise UserError(f"{path}: samples[{i}].problem: {unknown_name('problem', s.problem, known)}")
        if s.dataset not in datasets:
            raise UserError(f"{path}: samples[{i}].dataset: {s.dataset!r} is not among the file's datasets")


def latest_results(folder: str | Path | None = None) -> Path:
    """The newest usable results file in `folder` (default: the results folder,
    gpubfs_cli/folders.py; what `gpubfs report` uses with no arguments): files of failed or
    empty runs, of runs where every cell was unavailable, and unreadable ones, are passed over."""
    folder = results_dir() if folder is None else Path(folder)
    files = []
    if folder.is_dir():
        for p in folder.glob("*.json"):
            try:
                if p.is_file():
                    files.append((p.stat().st_mtime, p))
            except OSError:
                continue
    if not files:
        raise UserError(f"no results files given and none in {folder}/ (run `gpubfs run` first)")
    files.sort(key=lambda t: t[0], reverse=True)
    for _, p in files:
        if usable(p):
            return p
    raise UserError(
        f"no results files given, and none of the {len(files)} in {folder}/ is usable "
        "(failed, empty or unreadable runs, or runs where nothing could run); name one, or run `gpubfs run`"
    )
