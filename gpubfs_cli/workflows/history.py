"""Where the time estimate's figures come from: results files, this machine's and shipped.

A traversal's time comes from the first of these sources that measured the strategy:
  local history   results files here (the results folder and the paper's folder) made on
                  this GPU (GPU strategies) or on this CPU model (CPU strategies)
  shipped MODEL   the shipped results files (docs/results/*/*.json.gz) made on this GPU
                  model (the same name): a shipped file stands for the machine that made
                  it, its CPU rows included
  shipped OTHER scaled F   the shipped GPU model nearest in memory bandwidth; its GPU
                  times are multiplied by F, the median ratio of this model's time to
                  that one's on the cells both measured (the H100 and H200 files share
                  merrill's Table 2 and bfs4k: F = 1.07 for an H100 from H200 figures,
                  where the bandwidth ratio would say 1.43), else the bandwidth ratio
                  (BFS streams the graph from memory; the pair above shows that this
                  overstates the difference); CPU rows as measured. A GPU missing
                  from BANDWIDTH_GBS has no nearest model
  unknown         nothing measured. A machine without a GPU has only its local history:
                  the shipped files say nothing about its CPU, so nothing is guessed
Within a source: the median time per source on the same graph (same option and knobs
first; the newest file first among equals), else on the graph nearest in edges, times
m / m_there. Graph load, build and upload times: medians over every file read.

The shipped files reach the estimate through the package's table
(gpubfs_cli/configs/estimates.yaml: `Shipped`), which scripts/build_estimate_table.py
builds from docs/results, so an installed wheel, which carries no docs/, estimates as a
checkout does. The table keeps what the choice above can use: each model's cells less
those a newer identical cell always wins over, the ratios F between the shipped models,
and every file's graph times.
"""

from __future__ import annotations

import functools
import math
import os
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from gpubfs_cli.configs import shipped as shipped_file
from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.core.strategy import canonical_name, registry
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import read_text_file
from gpubfs_cli.results.keys import CellKey
from gpubfs_cli.results.schema import Sample, load_results

UNKNOWN = "unknown"
LOCAL = "local history"

# Peak memory bandwidth (GB/s, vendor figures), matched as part of the GPU's name, longest first.
BANDWIDTH_GBS = {
    "B200": 8000, "H200": 4800, "GH200": 4000, "H100 NVL": 3900, "H100 PCIe": 2000, "H100": 3350,
    "A100-SXM4-80GB": 2039, "A100 80GB PCIe": 1935, "A100": 1555, "L40S": 864, "L40": 864,
    "RTX 4090": 1008, "A10": 600, "V100": 900, "L4": 300,
}


def shipped_dir() -> Path:
    """docs/results of this checkout: the shipped results files the table is built from."""
    return Path(__file__).resolve().parents[2] / "docs" / "results"


def short_name(gpu: str) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'H100'; the whole name when no model number shows."""
    found = re.search(r"\b([A-Z]{1,3}\d{2,4}[A-Z]?)\b", gpu)
    return found.group(1) if found else gpu


def bandwidth(gpu: str) -> float | None:
    for key in sorted(BANDWIDTH_GBS, key=len, reverse=True):
        if key in gpu:
            return float(BANDWIDTH_GBS[key])
    return None


@dataclass(frozen=True)
class Measured:
    """One strategy variant's median time per source on one graph, in one results file."""

    problem: str
    strategy: str
    knobs: tuple  # sorted (name, value) pairs
    predecessors: bool
    dataset: str
    m: int
    ms: float
    prepare_ms: float  # the median over the file's graphs (the first one's holds the compile)
    when: str = ""  # the file's `created` (ISO 8601 UTC: sorts as text); the newest wins a tie


def same_knobs(a: tuple, b: dict) -> bool:
    """Equal on every knob both name (older files lack knobs added since)."""
    have = dict(a)
    return all(have[k] == v for k, v in b.items() if k in have)


def measured_cells(doc: dict) -> list[Measured]:
    """The medians of a results document's ok samples, one per (variant, option, graph)."""
    times: dict[tuple, list[float]] = defaultdict(list)
    for raw in doc["samples"]:
        s = Sample.from_dict(raw)
        if s.status == "ok" and s.time_ms and s.dataset in doc["datasets"]:
            times[CellKey.of(s)].append(s.time_ms)
    knobs = {knobs_key(raw.get("knobs") or {}): tuple(sorted((raw.get("knobs") or {}).items()))
             for raw in doc["samples"]}
    prepares: dict[tuple, list[float]] = defaultdict(list)  # over every graph: a compile is one of them
    for p in doc.get("prepares") or []:
        if p.get("time_ms"):
            prepares[(canonical_name(p.get("strategy", "")), knobs_key(p.get("knobs") or {}))].append(p["time_ms"])
    out = []
    for (dataset, problem, strategy, key, pred), ms in times.items():
        prep = prepares.get((strategy, key))
        out.append(Measured(problem, strategy, knobs[key], pred, dataset, int(doc["datasets"][dataset].get("m") or 0),
                            statistics.median(ms), statistics.median(prep) if prep else 0.0, doc.get("created") or ""))
    return out


@dataclass
class Source:
    """Measurements of one origin: (problem, strategy) -> cells; GPU times times gpu_scale."""

    label: str
    cells: dict[tuple[str, str], list[Measured]] = field(default_factory=lambda: defaultdict(list))
    gpu_scale: float = 1.0

    def add(self, cells: list[Measured]) -> None:
        for c in cells:
            self.cells[(c.problem, c.strategy)].append(c)


def read_docs(paths: list[Path]) -> list[dict]:
    """The results documents among `paths`; unreadable files are passed."""
    docs = []
    for path in paths:
        try:
            docs.append(load_results(path))
        except UserError:
            continue
    return docs


def results_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted({*folder.glob("*.json"), *folder.glob("*.json.gz")})


def doc_gpu(doc: dict) -> str | None:
    return ((doc.get("environment") or {}).get("gpu") or {}).get("name")


def doc_cpu(doc: dict) -> str | None:
    return ((doc.get("environment") or {}).get("cpu") or {}).get("model")


def kind_of(problem: str, strategy: str) -> str | None:
    cls = registry().get(problem, {}).get(strategy)
    return None if cls is None else cls.device_kind


def made_here(doc: dict, cell: Measured, gpu: str | None, cpu: str) -> bool:
    """A local file's cell counts when made on this GPU (GPU strategies) or this CPU model."""
    if kind_of(cell.problem, cell.strategy) == "gpu":
        return gpu is not None and doc_gpu(doc) == gpu
    return doc_cpu(doc) == cpu


def model_ratio(here: list[Measured], other: list[Measured]) -> float | None:
    """Median of here's time over other's on the cells both measured (same graph, option
    and knobs where both name them); None when they share none."""
    index = defaultdict(list)
    for c in other:
        index[(c.problem, c.strategy, c.predecessors, c.dataset)].append(c)
    ratios = [c.ms / o.ms for c in here if kind_of(c.problem, c.strategy) == "gpu"
              for o in index.get((c.problem, c.strategy, c.predecessors, c.dataset), [])
              if o.ms > 0 and same_knobs(o.knobs, dict(c.knobs))]
    return statistics.median(ratios) if ratios else None


# ------------------------------------------------------------------ this machine
@dataclass
class Machine:
    """What the estimate knows of this machine: its sources, in order, and graph times."""

    gpu: str | None
    cpu: str
    cores: int
    sources: list[Source]
    load_s: dict[str, float] = field(default_factory=dict)  # dataset -> measured load of a cached graph
    build_s: dict[str, float] = field(default_factory=dict)  # dataset -> measured generate/parse/build
    upload_s: dict[str, float] = field(default_factory=dict)  # dataset -> measured upload to the GPU

    def describe(self) -> str:
        labels = [s.label for s in self.sources if s.cells]
        if self.gpu is None:
            mine = "its own earlier results" + ("" if labels else " (none yet)")
            return (f"estimates for this CPU ({self.cpu}), no GPU: {mine} only, the shipped results being of "
                    f"GPU machines; {UNKNOWN} where none measured the strategy")
        return (f"estimates for {self.gpu}: {', then '.join(labels) or 'nothing measured'}; "
                f"{UNKNOWN} where none measured the strategy")

    def traversal(self, problem: str, strategy: str, knobs: dict, predecessors: bool, dataset: str,
                  m: int) -> tuple[float | None, float, str]:
        """(ms per source, prepare ms, source label) of one variant on one graph; (None, 0, 'unknown')."""
        kind = kind_of(problem, strategy)
        for src in self.sources:
            cells = src.cells.get((problem, strategy))
            if not cells:
                continue
            newest = sorted(cells, key=lambda c: c.when, reverse=True)  # min() keeps the first of a tie
            best = min(newest, key=lambda c: (c.dataset != dataset, c.predecessors != predecessors,
                                              not same_knobs(c.knobs, knobs),
                                              abs(math.log(max(c.m, 1) / max(m, 1)))))
            ms = best.ms
            if best.dataset != dataset and best.m and m:
                ms *= m / best.m
            if kind == "gpu":
                ms *= src.gpu_scale
            return ms, best.prepare_ms, src.label
        return None, 0.0, UNKNOWN


def this_machine(gpu: str | None, cpu: str, local: list[Path], shipped: Shipped | None = None,
                 cores: int | None = None) -> Machine:
    """The sources of the module docstring for this GPU (None: no GPU) and CPU model;
    `shipped`: the shipped figures (default: the package's table)."""
    cores = cores or os.cpu_count() or 1  # what the baseline's thread pool takes (core/solve.py)
    local_docs = read_docs(sorted({p for f in local for p in results_files(f)}))
    mine = Source(LOCAL)
    for doc in local_docs:
        mine.add([c for c in measured_cells(doc) if made_here(doc, c, gpu, cpu)])
    machine = Machine(gpu, cpu, cores, [mine])
    times = GraphTimes.of(local_docs)
    if gpu is None:
        times.set(machine)
        return machine
    shipped = shipped if shipped is not None else load_shipped()
    times.extend(shipped.times)
    times.set(machine)
    by_model = shipped.by_model
    if gpu in by_model:
        same = Source(f"shipped {short_name(gpu)}")
        same.add(by_model[gpu])
        machine.sources.append(same)
    near = nearest_model(gpu, [g for g in by_model if g != gpu])
    if near is not None:
        ratio = shipped.ratios.get((gpu, near))
        if ratio is None:
            ratio = bandwidth(near) / bandwidth(gpu)
        other = Source(f"shipped {short_name(near)} scaled {ratio:.2f}x", gpu_scale=ratio)
        other.add(by_model[near])
        machine.sources.append(other)
    return machine


@dataclass
class GraphTimes:
    """Each graph's load, build and upload seconds, one value per results file that loaded it."""

    load_s: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    build_s: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    upload_s: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    KINDS = ("load_s", "build_s", "upload_s")

    @classmethod
    def of(cls, docs: list[dict]) -> GraphTimes:
        out = cls()
        for doc in docs:
            for name, info in doc["datasets"].items():
                if info.get("status") != "ok":
                    continue
                if info.get("load_s") is not None:
                    out.load_s[name].append(float(info["load_s"]))
                if info.get("upload_ms") is not None:
                    out.upload_s[name].append(info["upload_ms"] / 1000.0)
                times = (info.get("meta") or {}).get("times") or {}
                if times:
                    out.build_s[name].append(float(sum(times.values())))
        return out

    def extend(self, other: GraphTimes) -> None:
        for kind in self.KINDS:
            mine = getattr(self, kind)
            for name, values in getattr(other, kind).items():
                mine[name].extend(values)

    def set(self, machine: Machine) -> None:
        """The machine's graph times: the median of each graph's values."""
        for kind in self.KINDS:
            setattr(machine, kind, {k: statistics.median(v) for k, v in getattr(self, kind).items() if v})


# ------------------------------------------------------------------ the shipped table
TABLE = "estimates.yaml"
TABLE_FORMAT = 1
TABLE_HEADER = """\
# The shipped results files as `gpubfs reproduce` estimates from them
# (gpubfs_cli/workflows/history.py). Built from docs/results by
# scripts/build_estimate_table.py; never edit by hand: tests/workflows/test_estimate_table.py
# rebuilds it and fails when it differs.
#   variants  [problem, strategy, knobs]; graphs  [dataset, m]
#   models    per GPU model, in the order the files first name it: ratios (this model's
#             GPU time over the other's, the median on the cells both measured) and runs,
#             newest first, each cell [variant, predecessors, graph, ms per source
#             (median), prepare ms (median)]
#   times     per graph, one value per file that loaded it: load_s, build_s, upload_s
"""


@dataclass
class Shipped:
    """The shipped figures: each GPU model's cells (in the order a Source adds them), the
    ratios F between models ((here, other) -> F, where they share cells), graph times."""

    by_model: dict[str, list[Measured]]
    ratios: dict[tuple[str, str], float]
    times: GraphTimes
    files: int = 0

    @classmethod
    def of_docs(cls, docs: list[dict]) -> Shipped:
        """From the results documents themselves (what the table is built from)."""
        by_model: dict[str, list[Measured]] = defaultdict(list)
        for doc in docs:
            if doc_gpu(doc):
                by_model[doc_gpu(doc)].extend(measured_cells(doc))
        ratios = {}
        for here in by_model:
            for other in by_model:
                if other != here and (r := model_ratio(by_model[here], by_model[other])) is not None:
                    ratios[(here, other)] = r
        return cls(dict(by_model), ratios, GraphTimes.of(docs), len(docs))

    def table(self) -> dict:
        """The table (TABLE_HEADER says its fields). Of identical cells (variant, option,
        graph, m) only the first in `traversal`'s order (newest file first) is kept: the
        others can never be chosen."""
        variants: dict[tuple, int] = {}
        graphs: dict[tuple, int] = {}
        models = {}
        for model, cells in self.by_model.items():
            seen = set()
            runs: dict[str, list] = {}
            for c in sorted(cells, key=lambda c: c.when, reverse=True):  # stable: as traversal sorts
                v = variants.setdefault((c.problem, c.strategy, c.knobs), len(variants))
                g = graphs.setdefault((c.dataset, c.m), len(graphs))
                if (v, c.predecessors, g) in seen:
                    continue
                seen.add((v, c.predecessors, g))
                runs.setdefault(c.when, []).append([v, c.predecessors, g, c.ms, c.prepare_ms])
            models[model] = {
                "ratios": {other: r for (here, other), r in self.ratios.items() if here == model},
                "runs": [{"created": when, "cells": rows} for when, rows in runs.items()],
            }
        return {
            "format": TABLE_FORMAT,
            "files": self.files,
            "variants": [[p, s, dict(k)] for p, s, k in variants],
            "graphs": [[d, m] for d, m in graphs],
            "models": models,
            "times": {name: {kind: sorted(getattr(self.times, kind).get(name, [])) for kind in GraphTimes.KINDS}
                      for name in sorted({n for kind in GraphTimes.KINDS for n in getattr(self.times, kind)})},
        }

    @classmethod
    def of_table(cls, doc: dict, where: str) -> Shipped:
        """From the table; a table this code cannot read is one UserError line."""
        if not isinstance(doc, dict) or doc.get("format") != TABLE_FORMAT:
            raise UserError(f"{where}: not an estimate table of format {TABLE_FORMAT}; rebuild it with "
                            "scripts/build_estimate_table.py")
        try:
            variants = [(p, s, tuple(sorted(k.items()))) for p, s, k in doc["variants"]]
            graphs = [(d, int(m)) for d, m in doc["graphs"]]
            by_model, ratios = {}, {}
            for model, entry in doc["models"].items():
                by_model[model] = [
                    Measured(*variants[v], bool(pred), *graphs[g], ms, prepare, run["created"])
                    for run in entry["runs"] for v, pred, g, ms, prepare in run["cells"]]
                ratios.update({(model, other): r for other, r in entry["ratios"].items()})
            times = GraphTimes()
            for name, kinds in doc["times"].items():
                for kind in GraphTimes.KINDS:
                    getattr(times, kind)[name].extend(kinds[kind])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            raise UserError(f"{where}: not a readable estimate table ({type(exc).__name__}: {exc}); rebuild it "
                            "with scripts/build_estimate_table.py") from None
        return cls(by_model, ratios, times, int(doc.get("files") or 0))


def table_text(doc: dict) -> str:
    return TABLE_HEADER + yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=100)


def table_path() -> Path:
    return shipped_file(TABLE)


@functools.lru_cache(maxsize=4)
def load_shipped(path: Path | None = None) -> Shipped:
    """The shipped figures from the table (default: the package's)."""
    path = path or table_path()
    text = read_text_file(path, "estimate table")
    try:
        doc = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise UserError(f"{path}: not an estimate table ({exc.__class__.__name__})") from None
    return Shipped.of_table(doc, str(path))


def results_files_below(root: Path) -> list[Path]:
    """The results files one folder down (docs/results/MACHINE-DATE/*.json.gz)."""
    return sorted(p for d in sorted(root.iterdir()) if d.is_dir() for p in results_files(d)) if root.is_dir() else []


def nearest_model(gpu: str, models: list[str]) -> str | None:
    """The model nearest `gpu` in memory bandwidth (both known), else None."""
    mine = bandwidth(gpu)
    known = [g for g in models if bandwidth(g)]
    if mine is None or not known:
        return None
    return min(known, key=lambda g: abs(math.log(bandwidth(g) / mine)))


def device_label() -> tuple[str | None, str]:
    """(this GPU's name or None, this CPU's model): what measured runs must match."""
    from gpubfs_cli.bench.environment import cpu_model
    from gpubfs_cli.gpu import backend

    gpu = None if backend.unavailable_reason() is not None else backend.device_properties().get("name")
    return gpu, cpu_model()
