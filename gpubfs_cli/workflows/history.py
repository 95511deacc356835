"""Where the time estimate's figures come from: results files, this machine's and shipped.

A traversal's time comes from the first of these sources that measured the strategy:
  local history   results files here (results/ and the paper's folder) made on this GPU
                  (GPU strategies) or on this CPU model (CPU strategies)
  shipped MODEL   docs/results/*/*.json.gz made on this GPU model (the same name): a
                  shipped file stands for the machine that made it, its CPU rows included
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
"""

from __future__ import annotations

import math
import os
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.core.strategy import canonical_name, registry
from gpubfs_cli.errors import UserError
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
    """docs/results of this checkout, else of the working directory."""
    repo = Path(__file__).resolve().parents[2] / "docs" / "results"
    return repo if repo.is_dir() else Path.cwd() / "docs" / "results"


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


def this_machine(gpu: str | None, cpu: str, local: list[Path], shipped: Path | None = None,
                 cores: int | None = None) -> Machine:
    """The sources of the module docstring for this GPU (None: no GPU) and CPU model."""
    cores = cores or os.cpu_count() or 1  # what the baseline's thread pool takes (core/solve.py)
    local_docs = read_docs(sorted({p for f in local for p in results_files(f)}))
    mine = Source(LOCAL)
    for doc in local_docs:
        mine.add([c for c in measured_cells(doc) if made_here(doc, c, gpu, cpu)])
    machine = Machine(gpu, cpu, cores, [mine])
    shipped_docs = [] if gpu is None else read_docs(results_files_below(shipped or shipped_dir()))
    graph_times(machine, [*local_docs, *shipped_docs])
    if gpu is None:
        return machine
    by_model: dict[str, list[Measured]] = defaultdict(list)
    for doc in shipped_docs:
        if doc_gpu(doc):
            by_model[doc_gpu(doc)].extend(measured_cells(doc))
    if gpu in by_model:
        same = Source(f"shipped {short_name(gpu)}")
        same.add(by_model[gpu])
        machine.sources.append(same)
    near = nearest_model(gpu, [g for g in by_model if g != gpu])
    if near is not None:
        ratio = model_ratio(by_model[gpu], by_model[near]) if gpu in by_model else None
        if ratio is None:
            ratio = bandwidth(near) / bandwidth(gpu)
        other = Source(f"shipped {short_name(near)} scaled {ratio:.2f}x", gpu_scale=ratio)
        other.add(by_model[near])
        machine.sources.append(other)
    return machine


def graph_times(machine: Machine, docs: list[dict]) -> None:
    """Each graph's median load, build and upload times over the documents that loaded it."""
    load, build, upload = defaultdict(list), defaultdict(list), defaultdict(list)
    for doc in docs:
        for name, info in doc["datasets"].items():
            if info.get("status") != "ok":
                continue
            if info.get("load_s") is not None:
                load[name].append(float(info["load_s"]))
            if info.get("upload_ms") is not None:
                upload[name].append(info["upload_ms"] / 1000.0)
            times = (info.get("meta") or {}).get("times") or {}
            if times:
                build[name].append(float(sum(times.values())))
    machine.load_s = {k: statistics.median(v) for k, v in load.items()}
    machine.build_s = {k: statistics.median(v) for k, v in build.items()}
    machine.upload_s = {k: statistics.median(v) for k, v in upload.items()}


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
