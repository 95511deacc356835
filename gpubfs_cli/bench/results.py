"""The results file: one JSON document per `gpubfs run` (DESIGN.md, Results file).

Layout (schema_version 1):
  schema_version, tool_version, git_commit, created (ISO-8601 UTC), command_line,
  finished (ISO-8601 UTC), interrupted (true when Ctrl-C stopped the run early),
  environment {cpu, gpu, versions...}, config {the resolved run config},
  datasets {NAME: {status, n, m, directed, stats {...}, meta {...}, load_s,
                   sources_origin (random | explicit | fixed_source),
                   depth_avg, depth_max (the baseline's search depths over the sources),
                   upload_ms (graph upload to the GPU, once per graph)}
            | {status: error, reason} for a dataset that could not be loaded},
  sources {NAME: [int, ...]},                 # the list every strategy ran on NAME
  prepares [Prepare...],                      # prepare() time and memory, per graph+strategy
  samples [Sample...],                        # one per (dataset, strategy, knobs, source, mode)
  summaries [{dataset, strategy, variant, knobs, predecessors, status, reason, statuses,
              low_reach, and summarize()'s keys when status is ok}]
A failure of a whole variant on a graph (unavailable, prepare failed, warm-up failed)
is one Sample with source -1 and time_ms null. A traversal that fails (error,
out-of-memory, out-of-time) ends its variant on that graph: the sources after it have
no sample. Reports are made only from these files.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gpubfs_cli.errors import UserError
from gpubfs_cli.files import plain_json, write_text_atomic

SCHEMA_VERSION = 1
STATUSES = ("ok", "out-of-time", "out-of-memory", "unavailable", "wrong-answer", "error")


@dataclass
class Sample:
    dataset: str
    strategy: str
    knobs: dict[str, Any]
    source: int
    time_ms: float | None
    reached: int  # vertices reached, source included
    depth: int  # largest distance reached
    edges: int  # edges traversed: sum of out-degrees of reached vertices (TEPS numerator)
    valid: bool | None
    status: str = "ok"
    predecessors: bool = False
    reason: str | None = None
    low_reach: bool = False  # reached < 1% of the vertices: rates are meaningless
    edges_graph500: int | None = None  # undirected input edges in the reached component
    counters: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


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

    def to_dict(self) -> dict:
        return asdict(self)


def write_results(path: str | Path, doc: dict) -> Path:
    """Write atomically: a temporary file in the same folder, renamed when complete."""
    return write_text_atomic(path, json.dumps(plain_json(doc), indent=1) + "\n")


def load_results(path: str | Path) -> dict:
    """Read and check a results file; a bad one is a UserError naming it."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"{path}: no such results file") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
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
