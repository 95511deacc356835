"""Read one or more results files into one pool of samples.

Files may come from different machines (a GPU run and a CPU run): samples are pooled, the
datasets sections merged. A dataset name that means different graphs in two files (other
n or m) is an error naming both files, since pairing their sources would be meaningless.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpubfs_cli.bench.results import Sample, load_results
from gpubfs_cli.bench.status import STATUSES
from gpubfs_cli.errors import UserError

_REQUIRED = ("dataset", "strategy", "source", "status")


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
        """One line per file: path, GPU and CPU as the runner recorded them."""
        lines = []
        for path, env in zip(self.files, self.environments, strict=True):
            lines.append(f"{path}: {describe_environment(env)}")
        return lines


def describe_environment(env: Any) -> str:
    if not isinstance(env, dict):
        return "environment not recorded"
    parts = []
    gpu = env.get("gpu")
    if isinstance(gpu, dict):
        if gpu.get("name"):
            parts.append(f"GPU {gpu['name']}")
        elif gpu.get("reason"):
            parts.append(f"no GPU ({gpu['reason']})")
    elif gpu:
        parts.append(f"GPU {gpu}")
    cpu = env.get("cpu")
    if isinstance(cpu, dict):
        cpu = cpu.get("model") or cpu.get("name")
    if cpu:
        parts.append(f"CPU {cpu}")
    return ", ".join(str(p) for p in parts) or "environment not recorded"


def _sample(path: str, i: int, raw: Any) -> Sample:
    if not isinstance(raw, dict):
        raise UserError(f"{path}: samples[{i}]: expected an object")
    for key in _REQUIRED:
        if key not in raw:
            raise UserError(f"{path}: samples[{i}]: missing key '{key}'")
    if not isinstance(raw.get("knobs", {}), dict):
        raise UserError(f"{path}: samples[{i}].knobs: expected an object")
    if raw["status"] not in STATUSES:
        raise UserError(f"{path}: samples[{i}].status: expected one of {', '.join(STATUSES)}, got {raw['status']!r}")
    t = raw.get("time_ms")
    if t is not None and not isinstance(t, (int, float)):
        raise UserError(f"{path}: samples[{i}].time_ms: expected a number or null")
    try:
        return Sample.from_dict(raw)
    except TypeError as exc:
        raise UserError(f"{path}: samples[{i}]: {exc}") from None


def _merge_dataset(results: Results, path: str, name: str, entry: Any) -> None:
    if not isinstance(entry, dict):
        raise UserError(f"{path}: datasets.{name}: expected an object")
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
        add_doc(results, load_results(p), str(p))
    return results


def results_from_doc(doc: dict, path: str = "this run") -> Results:
    """A pool of one in-memory results document (the runner's end-of-run table)."""
    return add_doc(Results(), doc, path)


def add_doc(results: Results, doc: dict, path: str) -> Results:
    """Pool one results document into `results`."""
    results.files.append(path)
    results.environments.append(doc.get("environment") or {})
    fi = len(results.files) - 1
    if not isinstance(doc["samples"], list):
        raise UserError(f"{path}: samples: expected a list")
    if not isinstance(doc["datasets"], dict):
        raise UserError(f"{path}: datasets: expected an object")
    for i, raw in enumerate(doc["samples"]):
        results.samples.append(_sample(path, i, raw))
        results.sample_file.append(fi)
    for name, entry in doc["datasets"].items():
        _merge_dataset(results, path, name, entry)
    for name, srcs in (doc.get("sources") or {}).items():
        results.sources.setdefault(name, list(srcs))
    results.prepares.extend(p for p in doc.get("prepares") or [] if isinstance(p, dict))
    for key, info in (doc.get("problems") or {}).items():
        if isinstance(info, dict):
            results.problems.setdefault(key, info)
    return results


def latest_results(folder: str | Path = "results") -> Path:
    """The newest results file in `folder` (what `gpubfs report` uses with no arguments)."""
    folder = Path(folder)
    files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime) if folder.is_dir() else []
    if not files:
        raise UserError(f"no results files given and none in {folder}/ (run `gpubfs run` first)")
    return files[-1]
