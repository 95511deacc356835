"""Read one or more results files into one pool of samples.

Files may come from different machines (a GPU run and a CPU run): samples are pooled, the
datasets sections merged. A dataset name that means different graphs in two files (other
n or m) is an error naming both files, since pairing their sources would be meaningless.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpubfs_cli.bench.results import Sample, load_results
from gpubfs_cli.errors import UserError

_SAMPLE_FIELDS = {f.name for f in dataclasses.fields(Sample)}
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
    kwargs = {k: v for k, v in raw.items() if k in _SAMPLE_FIELDS}
    kwargs.setdefault("knobs", {})
    kwargs.setdefault("time_ms", None)
    kwargs.setdefault("reached", 0)
    kwargs.setdefault("depth", 0)
    kwargs.setdefault("edges", 0)
    kwargs.setdefault("valid", None)
    if not isinstance(kwargs["knobs"], dict):
        raise UserError(f"{path}: samples[{i}].knobs: expected an object")
    t = kwargs["time_ms"]
    if t is not None and not isinstance(t, (int, float)):
        raise UserError(f"{path}: samples[{i}].time_ms: expected a number or null")
    return Sample(**kwargs)


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
        doc = load_results(p)
        path = str(p)
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
    return results


def latest_results(folder: str | Path = "results") -> Path:
    """The newest results file in `folder` (what `gpubfs report` uses with no arguments)."""
    folder = Path(folder)
    files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime) if folder.is_dir() else []
    if not files:
        raise UserError(f"no results files given and none in {folder}/ (run `gpubfs run` first)")
    return files[-1]
