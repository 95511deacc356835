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
    from gpubfs_cli.datasets.catalogue import load_catalogue

    record = meta.get("weights") or {}
    catalogue = load_catalogue()
    name = catalogue.resolve(key.split("@seed=")[0]) if meta.get("kind") != "user" else None
    if name is not None:
        entry = catalogue.get(name)
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


def ensure_weights(graph: CSRGraph, data_dir: str | Path | None = None) -> CSRGraph:
    """The same graph with `weights` set: from the cache when its recorded rule is the
    current one, else made by the rule and cached (atomically) for the next run."""
    if graph.weights is not None:
        return graph
    key = graph.name
    if not key or not store.is_cached(key, data_dir):
        raise UserError(f"graph '{key or '(unnamed)'}' has no edge weights and no rule to make them")
    meta = store.read_meta(key, data_dir)
    rule = _rule_for(key, meta)
    path = store.data_dir(data_dir) / key / WEIGHTS_FILE
    record = meta.get("weights") or {}
    if path.is_file() and rule.matches(record) and record.get("file") == WEIGHTS_FILE:
        try:
            w = np.load(path, mmap_mode="r")
        except (OSError, ValueError):
            w = None
        if w is not None and w.shape == (graph.m,):
            return dataclasses.replace(graph, weights=w)
    w = rule_weights(graph, rule)
    done = {**rule.to_dict(), "file": WEIGHTS_FILE, "dtype": str(w.dtype)}
    try:
        store.add_array(key, WEIGHTS_FILE, w, {"weights": done}, data_dir)
    except OSError as exc:  # a read-only cache: the weights still serve this run
        warn(f"{key}: could not cache {WEIGHTS_FILE} ({exc.strerror or exc}); computed for this run only")
    return dataclasses.replace(graph, weights=w)
