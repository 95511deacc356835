"""Edge weights for SSSP: the file's own, or deterministic integers made by a rule.

DIMACS 9 road graphs (`weights: true` in the catalogue) and user files that carry
weights keep them (weights.npy, written with the graph). Every other graph gets
weights by the rule of its catalogue entry: `weight_range: [lo, hi]` and the graph's
seed (the entry's seed, or S for NAME@seed=S; 0 for downloads). The weight of an edge
is a pure function of its two endpoints:

  w(u, v) = lo + h(seed, min(u, v), max(u, v)) mod (hi - lo + 1)

with h two rounds of splitmix64 (graph/weights.py), so both directions of an
undirected edge get the same weight and nothing depends on how, where or in what
order the graph was built. The ranges (DATASETS.md 2.6, 2.7): GTgraph's R-MAT and
random graphs use GTgraph's MIN_WEIGHT 0 .. MAX_WEIGHT 100, Graph 500 Kronecker graphs
0 .. 255 (the specification's maxweight), all others 1 .. 100 (DEFAULT_RANGE).

Rule weights are made lazily, on a graph's first SSSP use (`ensure_weights`), and
cached as weights.npy beside the CSR arrays with the rule recorded in meta.json
(`weights`), so a graph cached before weights existed needs no rebuild and a changed
rule is noticed and recomputed. meta.json's `weights` record: {"rule": "file"} or
{"rule": "hash", "hash", "range", "seed"} (+ "file", "dtype" once computed).

A graph whose weights are its file's can be asked for with the rule's instead:
NAME@weights=rule (NAME@weights=file, its default, names the plain graph). The option
leaves the CSR as it is: the graph loads from NAME's cache under the option's name,
and its rule weights (the entry's weight_range, else DEFAULT_RANGE; seed 0 for a
download) are made lazily like any rule's, cached beside the file's as
weights-rule.npy with their record under `rule_weights`, never over weights.npy. On a
graph without weights of its own, @weights=rule is its normal rule and names the plain
graph, and @weights=file is an error.

NAME@weights=graph500 gives any graph the Graph 500 SSSP kernel's weights: uniform in
[0, 1) (the specification's float32 weights), made as the rule with range [0, 2^24 - 1]
and read in units of 2^-24. Every such weight is a float32 exactly (a 24-bit mantissa),
and distances summed in those integer units are exact, where float32 sums would round:
the integer SSSP strategies run them as they are, and the results record the unit
(`unit`: 2^-24). Cached as weights-graph500.npy, its record under `graph500_weights`.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from gpubfs_cli.datasets import store
from gpubfs_cli.datasets.console import warn
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.weights import WeightRule, rule_weights

DEFAULT_RANGE = (1, 100)
GTGRAPH_RANGE = (0, 100)
GRAPH500_RANGE = (0, 255)
WEIGHTS_FILE = "weights.npy"
RULE_FILE = "weights-rule.npy"  # a file-weighted graph's rule weights (NAME@weights=rule)
GRAPH500_FILE = "weights-graph500.npy"  # NAME@weights=graph500's
GRAPH500_BITS = 24  # float32's mantissa: k / 2^24 for k < 2^24 is a float32 in [0, 1)
OPTION = "@weights="
CHOICES = ("file", "rule", "graph500")


def split_option(name: str) -> tuple[str, str | None]:
    """NAME@weights=CHOICE -> (NAME, CHOICE), before or after an @seed=S; (name, None)
    without the option. A value other than file or rule is one UserError."""
    head, at, tail = name.partition(OPTION)
    if not at:
        return name, None
    value, more, rest = tail.partition("@")
    plain = head + more + rest
    if value not in CHOICES:
        raise UserError(f"dataset '{name}': {OPTION}{value} is not an option; expected {OPTION}file (the "
                        f"weights of the graph's file), {OPTION}rule (the catalogue's rule) or {OPTION}graph500 "
                        "(Graph 500's SSSP weights, uniform in [0, 1))")
    if OPTION in plain:
        raise UserError(f"dataset '{name}': {OPTION} is given twice")
    return plain, value


def file_weights(entry, data_dir: str | Path | None = None) -> bool:
    """Whether the graph's SSSP weights are its file's: a catalogue entry's `weights:
    true`; a user graph's cached record (its file had weights, or not)."""
    if entry.kind == "user":
        try:
            record = store.read_meta(entry.name, data_dir).get("weights") or {}
        except UserError:
            return False
        return record.get("rule") == "file"
    return bool(entry.weights) and not entry.multiplicity


def check_option(entry, choice: str | None, data_dir: str | Path | None = None) -> None:
    """UserError for @weights=file on a graph whose weights come from a rule."""
    if choice == "file" and not file_weights(entry, data_dir):
        raise UserError(f"dataset '{entry.name}' has no weights of its own (SSSP weights it by its rule): "
                        f"{OPTION}file does not apply; name it {entry.name} or {entry.name}{OPTION}rule")


def rule_apart(entry, choice: str | None, data_dir: str | Path | None = None) -> bool:
    """Whether the option names weights apart from the plain name's: Graph 500's, or the
    rule's on a graph whose weights are its file's (else the option names the plain graph)."""
    return choice == "graph500" or (choice == "rule" and file_weights(entry, data_dir))


def recorded_meta(name: str, data_dir: str | Path | None = None) -> dict:
    """A cached graph's meta.json as a run records it: NAME@weights=rule's is its plain
    name's with `weights` the rule's record, so results say which weights were used."""
    key, choice = split_option(name)
    meta = store.read_meta(key, data_dir)
    if choice == "rule":
        meta = {**meta, "weights": _option_rule(key, meta).to_dict()}
    elif choice == "graph500":
        meta = {**meta, "weights": {**graph500_rule(key, meta).to_dict(), "unit": 2.0**-GRAPH500_BITS}}
    return meta


def graph500_rule(key: str, meta: dict) -> WeightRule:
    """NAME@weights=graph500's rule: the option rule's seed, range [0, 2^24 - 1] (units of 2^-24)."""
    return dataclasses.replace(_option_rule(key, meta), lo=0, hi=2**GRAPH500_BITS - 1)


def entry_rule(entry, seed: int | None) -> WeightRule:
    """The rule of a catalogue (or user) entry for a graph built with `seed`."""
    lo, hi = entry.weight_range or DEFAULT_RANGE
    return WeightRule(int(lo), int(hi), int(seed or 0) if entry.kind == "generated" else 0)


def build_record(entry, seed: int | None, has_weights: bool) -> dict:
    """meta.json's `weights` record for a graph being cached: the file's weights, or
    the rule that ensure_weights will apply on first SSSP use."""
    if has_weights:
        return {"rule": "file"}
    return entry_rule(entry, seed).to_dict()


def _rule_for(key: str, meta: dict) -> WeightRule:
    """The rule a cached graph's weights follow now (the catalogue's, for catalogue
    graphs: a changed weight_range is picked up); UserError when there is none."""
    record = meta.get("weights") or {}
    entry = _catalogue_entry(key, meta)
    if entry is not None:
        if entry.weights and record.get("rule") != "hash":
            raise UserError(
                f"dataset '{key}' was cached without the weights of its file; rebuild it: "
                f"gpubfs fetch-dataset {entry.name} --force"
            )
        return entry_rule(entry, (meta.get("source") or {}).get("seed"))
    if record.get("rule") == "hash":
        lo, hi = record["range"]
        return WeightRule(int(lo), int(hi), int(record.get("seed", 0)))
    if record.get("rule") == "file":
        raise UserError(f"dataset '{key}': its weights.npy is missing; add the graph again with --force")
    raise UserError(
        f"dataset '{key}' has no edge weights and no rule to make them (cached before weights "
        f"were kept): add it again with gpubfs fetch-dataset {key} --file/--url ... --force"
    )


def _option_rule(key: str, meta: dict) -> WeightRule:
    """The rule of NAME@weights=rule (`key` is NAME): the catalogue entry's, as if it
    had no weights of its own; a user graph's, the default."""
    entry = _catalogue_entry(key, meta)
    if entry is None:
        return WeightRule(*DEFAULT_RANGE, 0)
    return entry_rule(entry, (meta.get("source") or {}).get("seed"))


def _catalogue_entry(key: str, meta: dict):
    """The catalogue entry of a cached graph (`key`, NAME or NAME@seed=S), None for a
    user graph."""
    from gpubfs_cli.datasets.catalogue import load_catalogue

    if meta.get("kind") == "user":
        return None
    catalogue = load_catalogue()
    name = catalogue.resolve(key.split("@seed=")[0])
    return None if name is None else catalogue.get(name)


def ensure_weights(graph: CSRGraph, data_dir: str | Path | None = None) -> CSRGraph:
    """The same graph with `weights` set: from the cache when its recorded rule is the
    current one, else made by the rule and cached (atomically) for the next run. A
    graph named NAME@weights=rule (or graph500) gets those weights from NAME's cache."""
    if graph.weights is not None:
        return graph
    key, choice = split_option(graph.name) if graph.name else (graph.name, None)
    if not key or not store.is_cached(key, data_dir):
        raise UserError(f"graph '{graph.name or '(unnamed)'}' has no edge weights and no rule to make them")
    meta = store.read_meta(key, data_dir)
    if choice == "graph500":
        return _cached_or_made(graph, key, graph500_rule(key, meta), GRAPH500_FILE, "graph500_weights", meta,
                               data_dir)
    if choice == "rule" and (meta.get("weights") or {}).get("rule") != "hash":
        return _cached_or_made(graph, key, _option_rule(key, meta), RULE_FILE, "rule_weights", meta, data_dir)
    return _cached_or_made(graph, key, _rule_for(key, meta), WEIGHTS_FILE, "weights", meta, data_dir)


def _cached_or_made(graph: CSRGraph, key: str, rule: WeightRule, fname: str, field: str, meta: dict,
                    data_dir: str | Path | None) -> CSRGraph:
    """`graph` with the rule's weights: KEY/FNAME when meta.json's FIELD records that rule,
    else made and cached there (atomically) for the next run."""
    path = store.data_dir(data_dir) / key / fname
    record = meta.get(field) or {}
    if path.is_file() and rule.matches(record) and record.get("file") == fname:
        try:
            w = np.load(path, mmap_mode="r")
        except (OSError, ValueError):
            w = None
        if w is not None and w.shape == (graph.m,):
            return dataclasses.replace(graph, weights=w)
    w = rule_weights(graph, rule)
    done = {**rule.to_dict(), "file": fname, "dtype": str(w.dtype)}
    try:
        store.add_array(key, fname, w, {field: done}, data_dir)
    except OSError as exc:  # a read-only cache: the weights still serve this run
        warn(f"{key}: could not cache {fname} ({exc.strerror or exc}); computed for this run only")
    return dataclasses.replace(graph, weights=w)
