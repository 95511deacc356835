"""The results file: one JSON document per `gpubfs run`.

Layout (schema_version 1):
  schema_version, tool_version, git_commit, created (ISO-8601 UTC), command_line,
  finished (ISO-8601 UTC; null while the run goes on, or when it was killed),
  complete (true only when the run reached its end; absent in files from before it:
            complete unless interrupted or failed),
  interrupted (true when Ctrl-C, SIGTERM or SIGHUP stopped the run early), stopped_by
  (SIGINT | SIGTERM | SIGHUP), interrupted_during (what ran then: "the reference answers
  of NAME (bfs)"), failed (only when an error stopped the run: its one-line reason),
  resumed [{at, command_line, git_commit, source_tree}] (each `gpubfs run --resume` of the run),
  environment {cpu, gpu, versions...}, config {the resolved run config},
  reproduce (only in files of `gpubfs reproduce`): {paper, mode: full | quick; quick adds
            sources (a graph, as run), quick_sources (asked), cpu {STRATEGY: the one timed
            instead, or null: not timed}}; absent: a full run,
  datasets {NAME: {status, n, m, directed, stats {...}, meta {...}, load_s,
                   sources_origin (random | explicit | fixed_source),
                   depth_avg, depth_max (the baseline's search depths over the sources),
                   depth_probe (auto.bfs's depth feature and the SSSP default delta's
                                input: algorithms/bfs/probe.py),
                   upload_ms (graph upload to the GPU, once per graph)}
            | {status: error, reason} for a dataset that could not be loaded
            | {status: skipped, reason} when no strategy of the run could run here},
  sources {NAME: [int, ...]},                 # the list every strategy ran on NAME
  problems {KEY: Problem.describe()},         # title, option, baseline, rate of each problem run
  prepares [Prepare...],                      # prepare() time and memory, per graph+strategy
                                              # (reorder_ms: a reordered variant's cost of its vertex
                                              #  order and relabelled graph, apart from time_ms;
                                              #  setup: what prepare() timed inside its time_ms,
                                              #  e.g. a multi-GPU strategy's NCCL forming)
  samples [Sample...],                        # one per (dataset, problem, strategy, knobs, source, mode)
                                              # (batch: only a batch strategy's samples: the size of the
                                              #  batch a source was answered in; time_ms is the call's / batch)
  summaries [{dataset, problem, strategy, variant, knobs, predecessors, l2, status, reason,
              statuses, low_reach, sources_planned, sources_measured, partial (an ok group
              with fewer sources than planned), and summarize()'s keys when status is ok}]
  clocks [{dataset, problem, strategy, knobs, predecessors, l2, device,
           before, after: {sm_mhz, mem_mhz, temperature_c, via} | null,
           reason (why a reading is null, else null)}]
                                              # per GPU group of timed samples and device
  energy [{dataset, problem, strategy, knobs, predecessors, l2, prime, devices,
           energy_j, seconds, traversals, mean_w, edges, edges_graph500,
           reason (why nothing was measured, else null)}]
                                              # per variant, graph and mode of a run with energy_s:
                                              # its last turn's traversals replayed back to back,
                                              # its GPUs' energy read around them (bench/energy.py);
                                              # absent in files from before the key
The run's L2 mode is config.l2 and every sample's `l2` (warm | cold; absent: warm):
cold runs evict the GPU's L2 before each timed sample (gpu/l2.py), and samples of
the two modes never share a group. CPU strategies run the same either way. Likewise a
primed run (config.prime, bench/timing.prime) writes `prime: true` in every sample
(absent: the file's config.prime, else false), and primed and unprimed samples never
share a group.
A variant run on a relabelled graph (config `reorder`) carries its order in its knobs
(`reorder`: degree, rcm, hub; absent: none), so its samples group and report apart;
its answers were mapped back to the graph's own ids before they were checked.
A sample's `problem` is "bfs" where absent (files written before SSSP existed); its
problem-specific measures are top-level keys (BFS: depth, edges_graph500; SSSP:
max_distance, edges_graph500). Strategy names of earlier versions load under their current names
(core.strategy.ALIASES).
A failure of a whole variant on a graph (unavailable, prepare failed, warm-up failed)
is one Sample with source -1 and time_ms null. A traversal that fails (error,
out-of-memory, out-of-time) ends its variant on that graph: the sources after it have
no sample. Reports are made only from these files.
The run writes its journal first (results/journal.py); this document is what the journal
replays into.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import numbers
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gpubfs_cli.core.problem import DEFAULT_PROBLEM
from gpubfs_cli.core.strategy import canonical_name
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import plain_json, read_text_file, write_text_atomic

SCHEMA_VERSION = 1


@dataclass
class Sample:
    dataset: str
    strategy: str
    knobs: dict[str, Any]
    source: int
    time_ms: float | None
    reached: int  # vertices reached, source included
    edges: int  # the rate numerator: sum of out-degrees of reached vertices
    valid: bool | None
    status: str = "ok"
    predecessors: bool = False  # the problem's option (BFS predecessors, SSSP parents)
    reason: str | None = None
    low_reach: bool = False  # reached < 1% of the vertices: rates are meaningless
    problem: str = DEFAULT_PROBLEM
    measures: dict[str, Any] = field(default_factory=dict)  # depth, max_distance, ...
    counters: dict[str, Any] = field(default_factory=dict)
    timed_by: str | None = None  # a peer's name where the time and the check are the peer's own
    l2: str = "warm"  # the run's L2 mode (--l2): files from before it were warm runs
    prime: bool = False  # the run's prime policy (--prime): written only when true
    batch: int | None = None  # a batch strategy's: sources its timed call answered (time_ms: the call's / batch)

    @property
    def depth(self):
        return self.measures.get("depth")

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(d.pop("measures"))
        if d["timed_by"] is None:  # only a peer's samples carry the key
            del d["timed_by"]
        if d["batch"] is None:  # only a batch strategy's samples carry the key
            del d["batch"]
        if not d["prime"]:  # only a primed run's samples carry the key
            del d["prime"]
        return d

    @classmethod
    def from_dict(cls, raw: dict, run_prime: bool = False) -> Sample:
        """A sample from a results file: unknown keys are measures, old names canonical;
        without `prime`, the run's (`run_prime`: its config's, for files written before
        samples carried the key)."""
        fields = _sample_fields()
        kwargs = {k: v for k, v in raw.items() if k in fields}
        kwargs["measures"] = {k: v for k, v in raw.items() if k not in fields}
        kwargs["strategy"] = canonical_name(kwargs["strategy"])
        kwargs.setdefault("knobs", {})
        kwargs.setdefault("time_ms", None)
        kwargs.setdefault("reached", 0)
        kwargs.setdefault("edges", 0)
        kwargs.setdefault("valid", None)
        kwargs.setdefault("prime", run_prime)
        return cls(**kwargs)


@functools.cache
def _sample_fields() -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(Sample)) - {"measures"}


def is_time_ms(value: Any) -> bool:
    """A recorded time: a finite number of milliseconds >= 0 (not a bool), numpy's too."""
    return (isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
            and math.isfinite(value) and value >= 0)


def run_prime(doc: dict) -> bool:
    """A results document's prime policy (config.prime; absent: false)."""
    config = doc.get("config")
    return bool(isinstance(config, dict) and config.get("prime"))


def doc_samples(doc: dict) -> list[Sample]:
    """A results document's samples, with its run's prime policy where a sample lacks it."""
    prime = run_prime(doc)
    return [Sample.from_dict(raw, prime) for raw in doc["samples"]]


@dataclass
class Prepare:
    dataset: str
    strategy: str
    knobs: dict[str, Any]
    time_ms: float | None
    bytes: int = 0
    upload_ms: float | None = None
    status: str = "ok"
    reason: str | None = None
    problem: str = DEFAULT_PROBLEM
    devices: list[str] = field(default_factory=list)
    reorder_ms: float | None = None  # the vertex order and relabelled graph, before upload
    setup: dict[str, float] | None = None  # Strategy.prepare_details(): parts of time_ms, named
    device_bytes: list[int] | None = None  # Strategy.device_bytes(): what it holds on each device

    def to_dict(self) -> dict:
        d = asdict(self)
        for key in ("reorder_ms", "setup", "device_bytes"):  # only the prepares that have one carry the key
            if d[key] is None:
                del d[key]
        return d


def new_results(environment: dict, config: dict, problems: dict, equivalent_teps: list[str], created: str) -> dict:
    """The document of a run that has just begun: no dataset, sample or summary yet."""
    import gpubfs_cli

    return {
        "schema_version": SCHEMA_VERSION,
        "tool_version": gpubfs_cli.__version__,
        "git_commit": environment.get("git_commit"),
        "created": created,
        "finished": None,
        "complete": False,
        "interrupted": False,
        "command_line": environment.get("command_line"),
        "environment": environment,
        "config": config,
        "datasets": {},
        "sources": {},
        "problems": problems,
        "equivalent_teps": equivalent_teps,
        "prepares": [],
        "samples": [],
        "summaries": [],
        "clocks": [],
        "energy": [],
    }


def run_state(doc: dict) -> str | None:
    """How a run ended, when not complete: `interrupted by SIGINT during ...`, `failed:
    ...`, or `unfinished` (no end recorded: killed, or still running); None when complete."""
    if doc.get("failed"):
        return f"failed ({doc['failed']})"
    if doc.get("interrupted"):
        by = f" by {doc['stopped_by']}" if doc.get("stopped_by") else ""
        during = f" during {doc['interrupted_during']}" if doc.get("interrupted_during") else ""
        return f"interrupted{by}{during}"
    if doc.get("complete") is False:
        return "unfinished (no end recorded: the run was killed, or is still running)"
    return None


def write_results(path: str | Path, doc: dict) -> Path:
    """Write atomically: a temporary file in the same folder, renamed when complete."""
    return write_text_atomic(path, json.dumps(plain_json(doc), indent=1) + "\n", "results file")


def load_results(path: str | Path) -> dict:
    """Read and check a results file; a bad one (missing, a folder, binary, not JSON, not
    ours) is a UserError naming it."""
    path = Path(path)
    text = read_text_file(path, "results file")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except RecursionError:
        raise UserError(f"{path}: not valid JSON (nested too deeply)") from None
    except ValueError as exc:  # a number too long to convert, say
        raise UserError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or "schema_version" not in doc:
        raise UserError(f"{path}: not a gpubfs results file (no schema_version)")
    if doc["schema_version"] != SCHEMA_VERSION:
        raise UserError(
            f"{path}: schema_version {doc['schema_version']}, expected {SCHEMA_VERSION}"
        )
    for key in ("samples", "datasets", "sources"):
        if key not in doc:
            raise UserError(f"{path}: missing key '{key}'")
    return doc
