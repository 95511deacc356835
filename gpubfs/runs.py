"""gpubfs.run and gpubfs.read_results: a run config run as `gpubfs run` runs it (its
config built by the same code, bench/config_cli.py, the same Runner, journal and results
file), and results files read as `gpubfs report` reads them, one row per sample."""

from __future__ import annotations

import functools
import inspect
import os
from pathlib import Path
from typing import Any

# config_from_cli's keywords that are no `gpubfs run` option
_INTERNAL = {"path", "dataset_check", "registry", "base", "base_where"}
_LISTS = ("datasets", "strategies", "reorder", "fixed_sources")  # repeatable options: one value or a list
_NAMES = ("datasets", "strategies", "reorder")


class RunDocument(dict):
    """The results document of a run (the JSON object of its results file), with `path`,
    the results file, and `journal`, the journal kept when the run did not complete
    (gpubfs.run(resume=...) goes on with it), else None."""

    path: Path
    journal: Path | None

    def __init__(self, doc: dict, path: Path, journal: Path | None = None):
        super().__init__(doc)
        self.path, self.journal = Path(path), journal


@functools.cache
def run_options() -> tuple[str, ...]:
    """The keywords gpubfs.run takes besides the config: `gpubfs run`'s options, named as
    bench/config_cli.config_from_cli names them, and resume and force."""
    from gpubfs_cli.bench.config_cli import config_from_cli

    names = [p for p in inspect.signature(config_from_cli).parameters if p not in _INTERNAL]
    return (*names, "resume", "force")


def run(config: str | os.PathLike | dict | None = None, **options: Any) -> RunDocument:
    """Run a run config exactly as `gpubfs run CONFIG [options]` does and return its
    results document; the results file and the journal are written as the command
    writes them (default: NAME-<UTC time>.json in the results folder, `gpubfs info`).

    `config`: a shipped config's name (`gpubfs list configs`), a YAML file, a mapping
    of the same keys (docs: bench/config.py), or None (then `datasets` is needed).
    `options` are the command's options on top of it: datasets, strategies, sources,
    seed, fixed_sources (--source), out, data_dir (--dir), warmup, warmup_ms, rounds,
    time_limit_s, predecessors, validate, require_gpu, problem, l2, prime, gpus,
    reorder, and resume (a stopped run's journal) and force. A repeatable option takes
    one value or a list.

    A run that measured nothing is a UserError (no file written). Cells that failed do
    not raise: the document's samples and summaries say so (`gpubfs run` exits 1 then).
    A run stopped by Ctrl-C returns what it measured, `interrupted` true."""
    from gpubfs_cli.bench.config_cli import config_from_cli
    from gpubfs_cli.bench.resume import journal_config
    from gpubfs_cli.bench.runner import Runner
    from gpubfs_cli.datasets.store import sweep_stale
    from gpubfs_cli.errors import UserError, unknown_name
    from gpubfs_cli.folders import results_dir

    for key in options:
        if key not in run_options():
            raise unknown_name("gpubfs.run option", key, run_options())
    resume, force = options.pop("resume", None), bool(options.pop("force", False))
    for key in ("out", "data_dir"):
        if isinstance(options.get(key), os.PathLike):
            options[key] = os.fspath(options[key])
    for key in _LISTS:
        value = options.get(key)
        if value is not None and not isinstance(value, (list, tuple)):
            options[key] = [value]
        if key in _NAMES and any(not isinstance(v, str) for v in options.get(key) or []):
            raise UserError(f"gpubfs.run: {key}: expected names (a string or a list of strings); "
                            "entries with settings go in the config")
    if resume is not None and options.get("out") is not None:
        raise UserError("gpubfs.run: resume writes the results file beside its journal; give no out")
    path, base, where = None, None, "command line"
    if isinstance(config, dict):
        if resume is not None:
            raise UserError("gpubfs.run: resume goes on with the journal's config; give it no config mapping")
        base, where = config, "gpubfs.run's config mapping"
    elif isinstance(config, (str, os.PathLike)):
        path = os.fspath(config)
    elif config is not None:
        raise UserError(f"gpubfs.run: config: expected a config name, a file or a mapping, got {type(config).__name__}")
    if config is None and resume is None and not options.get("datasets"):
        raise UserError("gpubfs.run: give a config (a shipped name such as smoke, a YAML file or a mapping) "
                        "or datasets=[NAME, ...]")
    if resume is not None:
        resume = os.fspath(resume)
        base, where = journal_config(resume), resume
    cfg = config_from_cli(path, base=base, base_where=where, **options)
    if resume is None and cfg.out is None:  # the results folder: one line when it cannot be used
        results_dir()
    runner = Runner(cfg, resume=resume, replace=force)  # no bar: notes go to the `gpubfs` logger
    sweep_stale(cfg.data_dir)
    outcome = runner.run()
    if outcome.nothing is not None:
        raise UserError(f"nothing was measured: {outcome.nothing}; no results file written")
    if not outcome.written:
        if outcome.interrupted:
            raise KeyboardInterrupt
        failed = [f"{n}: {i.get('reason')}" for n, i in outcome.doc["datasets"].items()
                  if i.get("status") not in ("ok", "skipped")]
        raise UserError("nothing ran, no results file written" + (f" ({'; '.join(failed)})" if failed else ""))
    return RunDocument(outcome.doc, outcome.path, outcome.journal)


def read_results(results: str | os.PathLike | dict | list) -> list[dict[str, Any]]:
    """The samples of results files as a table: one dict per sample (one source's
    traversal; a variant that failed on a whole graph is one row with source -1), every
    value a plain scalar, so `pandas.DataFrame(gpubfs.read_results(path))` is the table.

    `results`: a results file (.json or .json.gz), a stopped run's journal, a list of
    them (pooled, as `gpubfs report A B` pools them), or the document gpubfs.run
    returned. Each file is checked as the report checks it (a bad one is a UserError).

    Columns: file (as reports show it), dataset, problem, strategy, variant (its knobs as one key), knob.NAME
    for each knob, predecessors (the problem's option), l2, prime, batch, source,
    status (a sample that failed its check reads wrong-answer), valid, reason, time_ms,
    gteps (edges / time; None where not ok or under 1% of the vertices reached),
    reached, edges, low_reach, timed_by, the problem's measures (BFS: depth,
    edges_graph500; SSSP: max_distance) and counter.NAME for each scalar counter."""
    from gpubfs_cli.core.knobs import knobs_key
    from gpubfs_cli.errors import UserError
    from gpubfs_cli.report.load import load_many, results_from_doc
    from gpubfs_cli.results.groups import status_of

    if isinstance(results, dict):
        if not isinstance(results.get("samples"), list):
            raise UserError("read_results: the mapping is no results document (no samples)")
        pool = results_from_doc(results, str(getattr(results, "path", "the results document")))
    elif isinstance(results, (str, os.PathLike)):
        pool = load_many([os.fspath(results)])
    elif isinstance(results, (list, tuple)) and all(isinstance(r, (str, os.PathLike)) for r in results):
        pool = load_many([os.fspath(r) for r in results])
    else:
        raise UserError(f"read_results: expected a results file, a list of them or a results document, "
                        f"got {type(results).__name__}")
    rows = []
    for s, fi in zip(pool.samples, pool.sample_file, strict=True):
        status = status_of(s)
        rated = status == "ok" and not s.low_reach and s.time_ms
        row = {"file": pool.files[fi], "dataset": s.dataset, "problem": s.problem, "strategy": s.strategy,
               "variant": knobs_key(s.knobs)}
        row.update({f"knob.{k}": _plain(v) for k, v in s.knobs.items()})
        row.update({"predecessors": s.predecessors, "l2": s.l2, "prime": s.prime, "batch": s.batch,
                    "source": s.source, "status": status, "valid": s.valid, "reason": s.reason,
                    "time_ms": s.time_ms, "gteps": s.edges / s.time_ms / 1e6 if rated else None,
                    "reached": s.reached, "edges": s.edges, "low_reach": s.low_reach, "timed_by": s.timed_by})
        row.update({k: _scalar(v) for k, v in s.measures.items() if _scalar(v) is not _SERIES})
        row.update({f"counter.{k}": _scalar(v) for k, v in s.counters.items() if _scalar(v) is not _SERIES})
        rows.append(row)
    return rows


_SERIES = object()  # a per-level series or any other value that is no one cell


def _scalar(value: Any) -> Any:
    """A measure's or counter's value as one cell (numpy's scalars as Python's), or _SERIES."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    item = getattr(value, "item", None)  # a numpy scalar (a run's own document may hold them)
    if callable(item) and getattr(value, "ndim", None) == 0:
        return item()
    return _SERIES


def _plain(value: Any) -> Any:
    """A knob's value as one cell: a list of values (a sweep's) as its text."""
    return ", ".join(map(str, value)) if isinstance(value, list) else value
