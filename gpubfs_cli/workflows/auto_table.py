"""Build a decision table of auto.bfs or auto.sssp from results files, and check auto
against the fastest strategy there (scripts/build_auto_table.py).

It reads results files, so it sits above bench and beside report; auto.* itself only
reads the finished table (algorithms/bfs/gpu/auto/table.py). A table is one problem's:
the samples of that problem are its candidates.

Pool of candidates: the problem's samples without predecessors, warm L2, on a GPU (the results
file's prepares say where each strategy ran), neither auto.* itself nor a peer timed by
its own clock nor a batch strategy (auto answers one source per call); only groups whose status is ok (no wrong answer, no time-out). Where
several files measured the same graph, strategy and knobs, the newest file (`created`)
counts. An older file may name fewer knobs (those added since); its cell is the same
variant where each knob it names has the newer value and each it lacks is at its default
(same_variant). All files must come from one GPU model: a table is per machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gpubfs_cli.algorithms.bfs.gpu.auto.features import (
    DISTANCE_FEATURES,
    Features,
    recorded_features,
)
from gpubfs_cli.algorithms.bfs.gpu.auto.table import TABLE_VERSION, Table
from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.errors import UserError
from gpubfs_cli.results.groups import group_samples
from gpubfs_cli.results.schema import doc_samples, load_results

TOLERANCE = 0.10  # auto may trail the fastest by this share and still count as right
# A rule names the candidate of least median, unless one within NEAR_FASTEST of that median
# takes more than TOLERANCE less mean time a source: the median alone ignores a graph's few
# heavy sources (Gen-ForestFire: on the one source that reaches far, do.bfs's bottom-up
# levels cost twice do.top_down's top-down ones, and its mean is 1.41 times do.top_down's).
NEAR_FASTEST = 0.05
AUTO_PREFIX = "auto."


# ------------------------------------------------------------------ results files
@dataclass
class Measured:
    """What a set of results files says: per graph, its features and every candidate
    group (strategy, knobs, median ms, file); auto's own groups apart."""

    paths: list[str]
    gpu: str
    l2_bytes: int
    problem: str = "bfs"
    features: dict[str, Features] = field(default_factory=dict)
    candidates: dict[str, dict[str, dict]] = field(default_factory=dict)  # graph -> key -> entry
    auto: dict[str, dict] = field(default_factory=dict)  # graph -> entry of its auto.* group

    def ranked(self, graph: str) -> list[dict]:
        return sorted(self.candidates.get(graph, {}).values(), key=lambda e: e["ms"])


def _key(strategy: str, knobs: dict) -> str:
    return f"{strategy} {knobs_key(knobs)}"


def knob_defaults(strategy: str, problem: str) -> dict | None:
    """The strategy's knobs at their defaults; None where it is not registered here."""
    from gpubfs_cli.core.strategy import get_strategy, knobs_dict, make_knobs

    try:
        return knobs_dict(make_knobs(get_strategy(strategy, problem), {}))
    except UserError:
        return None


def same_variant(older: dict, knobs: dict, defaults: dict | None) -> bool:
    """Whether knobs recorded by an older file (`older`) name the variant `knobs` does:
    every knob it names at the same value, every knob it lacks (one added since) at its
    default (`defaults`: the strategy's; None: no knob may be missing)."""
    older = older or {}
    return (all(k in knobs and knobs[k] == v for k, v in older.items())
            and all(k in older or (defaults is not None and k in defaults and v == defaults[k])
                    for k, v in knobs.items()))


def _variant_entry(entries: dict[str, dict], strategy: str, knobs: dict, problem: str) -> dict | None:
    """The entry of `strategy` at `knobs` among a graph's entries: its exact key, else
    one an older file recorded with fewer knobs (same_variant)."""
    exact = entries.get(_key(strategy, knobs))
    if exact is not None:
        return exact
    defaults = knob_defaults(strategy, problem)
    return next((e for e in entries.values()
                 if e["strategy"] == strategy and same_variant(e["knobs"], knobs, defaults)), None)


def _gpu_strategies(doc: dict) -> set[tuple[str, str]]:
    """(dataset, strategy) pairs the file's prepares place on a GPU."""
    from gpubfs_cli.core.strategy import canonical_name

    return {(p.get("dataset"), canonical_name(p.get("strategy", ""))) for p in doc.get("prepares", [])
            if any(str(d).startswith("gpu") for d in p.get("devices") or [])}


def measured(paths: list[str | Path], problem: str = "bfs") -> Measured:
    """Read results files (a bad one is a UserError naming it) into a Measured of `problem`."""
    if not paths:
        raise UserError("give at least one results file")
    docs = [(str(p), load_results(p)) for p in paths]
    gpus = {path: ((doc.get("environment") or {}).get("gpu") or {}) for path, doc in docs}
    first = docs[0][0]
    for path, gpu in gpus.items():
        if not gpu.get("l2_bytes"):
            raise UserError(f"{path}: environment.gpu has no l2_bytes (not a GPU run)")
        if gpu.get("name") != gpus[first].get("name"):
            raise UserError(f"{path}: measured on {gpu.get('name')}, {first} on {gpus[first].get('name')}: "
                            "a table is built from one GPU model's runs")
    out = Measured([p for p, _ in docs], str(gpus[first].get("name")), int(gpus[first]["l2_bytes"]), problem)
    for path, doc in sorted(docs, key=lambda pd: str(pd[1].get("created") or "")):  # newer files win
        on_gpu = _gpu_strategies(doc)
        for name, info in (doc.get("datasets") or {}).items():
            feats = recorded_features(info, out.l2_bytes)
            if feats is not None:
                out.features[name] = feats
        samples = [s for s in doc_samples(doc) if s.problem == problem and not s.predecessors and s.l2 == "warm" and not s.prime
                   and s.timed_by is None and s.batch is None and (s.dataset, s.strategy) in on_gpu
                   and "reorder" not in (s.knobs or {})]  # auto runs graphs in their own order
        for g in group_samples(samples):
            entry = {"strategy": g.strategy, "knobs": g.knobs, "ms": g.summary.get("median_ms"),
                     "source_mean_ms": float(np.mean(list(g.times.values()))) if g.times else None,
                     "status": g.status, "reason": g.reason, "file": path,
                     "choice": _auto_choice(g)}
            if g.strategy.startswith(AUTO_PREFIX):
                out.auto[g.dataset] = entry
            elif g.status == "ok":
                cells = out.candidates.setdefault(g.dataset, {})
                defaults = knob_defaults(g.strategy, problem)
                for key in [k for k, e in cells.items() if e["file"] != path and e["strategy"] == g.strategy
                            and same_variant(e["knobs"], g.knobs, defaults)]:
                    del cells[key]  # an older file's cell of the same variant
                cells[_key(g.strategy, g.knobs)] = entry
    return out


def _auto_choice(group) -> str | None:
    """What an auto.* group delegated to, from its samples' counters."""
    for s in group.samples:
        if "auto.choice" in s.counters:
            return f"{s.counters['auto.choice']} {s.counters.get('auto.knobs', '')}".strip()
    return None


# ------------------------------------------------------------------ building
def _round(value):
    return float(f"{value:.4g}") if isinstance(value, float) else value


def winner(m: Measured, graph: str) -> dict:
    """The candidate a graph's rule names: the least median, unless a candidate within
    NEAR_FASTEST of it has a mean time a source more than TOLERANCE below its mean (then
    the least mean of those). A file without per-source times reads as its median."""
    ranked = m.ranked(graph)

    def mean(e: dict) -> float:
        return e["ms"] if e.get("source_mean_ms") is None else e["source_mean_ms"]

    first = ranked[0]
    lighter = [e for e in ranked if e["ms"] <= first["ms"] * (1 + NEAR_FASTEST)
               and mean(first) > mean(e) * (1 + TOLERANCE)]
    return min(lighter, key=mean) if lighter else first


def _shared_winners(m: Measured, graphs: list[str]) -> dict[str, str]:
    """graph -> the key of the candidate its rule names (winner). Graphs at the same point
    of the distance space (two catalogue names for one graph, e.g. default-grid and
    luo-grid-1M) get one winner, or the lookup would give one of them the other's: the
    candidate measured on all of them whose worst ratio to each graph's fastest is lowest."""
    at: dict[tuple, list[str]] = {}
    for graph in graphs:
        at.setdefault(tuple(m.features[graph].vector().round(9)), []).append(graph)
    fastest = {g: m.ranked(g)[0] for g in graphs}
    wins = {g: winner(m, g) for g in graphs}
    chosen = {g: _key(e["strategy"], e["knobs"]) for g, e in wins.items()}
    for group in at.values():
        common = set.intersection(*(set(m.candidates[g]) for g in group))
        if len(group) > 1 and common:
            win = min(sorted(common), key=lambda k: max(m.candidates[g][k]["ms"] / fastest[g]["ms"] for g in group))
            chosen.update({g: win for g in group})
    return chosen


def build_table(m: Measured) -> dict:
    """The decision table (a YAML-ready mapping): one rule per graph with features and at
    least one candidate, graphs in name order (graphs at one point share a winner,
    _shared_winners). An empty result is a UserError."""
    rules = []
    graphs = [g for g in sorted(m.candidates) if g in m.features and m.ranked(g)]
    chosen = _shared_winners(m, graphs)
    for graph in graphs:
        ranked = m.ranked(graph)
        win = m.candidates[graph][chosen[graph]]
        others = [e for e in ranked if e is not win]
        runner = others[0] if others else None
        rules.append({
            "graph": graph,
            "features": {k: _round(v) for k, v in m.features[graph].to_dict().items()},
            "strategy": win["strategy"],
            "knobs": win["knobs"],
            "ms": round(win["ms"], 4),
            "runner_up": None if runner is None else {
                "strategy": runner["strategy"], "knobs": runner["knobs"], "ms": round(runner["ms"], 4)},
            "candidates": len(ranked),
            "from": win["file"],
        })
    if not rules:
        raise UserError(f"{', '.join(m.paths)}: no graph with features (a validated run) and an ok GPU strategy")
    return {
        "version": TABLE_VERSION,
        "problem": m.problem,
        "machine": {"gpu": m.gpu, "l2_bytes": m.l2_bytes},
        "built_from": m.paths,
        "distance": list(DISTANCE_FEATURES),
        "rules": rules,
    }


HEADER = """\
# auto.{problem}'s decision table. Written by scripts/build_auto_table.py: do not edit by hand.
# One rule per measured graph: its features (gpubfs_cli/algorithms/bfs/gpu/auto/features.py),
# the GPU strategy and knobs that won there (the least median ms over the run's sources,
# or one within 5% of it whose mean is over 10% lower) and the runner-up. auto.{problem}
# measures a graph the same way and runs the winner of the rule nearest to it in
# `distance` (each feature as log2(1 + value), directed as 0 or 1).
"""


def table_text(table: dict) -> str:
    import yaml

    return HEADER.format(problem=table["problem"]) + yaml.safe_dump(table, sort_keys=False, default_flow_style=None,
                                                                    width=110)


# ------------------------------------------------------------------ contenders
@dataclass
class Contender:
    strategy: str
    knobs: dict
    ratio: float  # its lowest median over the fastest's, over the graphs that ran it
    graph: str  # where that was
    graphs: int  # how many graphs ran it


def closest_ratios(m: Measured) -> list[Contender]:
    """Each candidate's closest approach to the fastest, closest first: which candidates a
    rebuilt table could still name (one that trailed everywhere can win only if its code
    changed)."""
    best: dict[str, Contender] = {}
    for graph in sorted(m.candidates):
        ranked = m.ranked(graph)
        for e in ranked:
            key = _key(e["strategy"], e["knobs"])
            ratio = e["ms"] / ranked[0]["ms"]
            seen = best.get(key)
            if seen is None or ratio < seen.ratio:
                best[key] = Contender(e["strategy"], e["knobs"], ratio, graph, 0 if seen is None else seen.graphs)
            best[key].graphs += 1
    return sorted(best.values(), key=lambda c: (c.ratio, c.strategy, knobs_key(c.knobs)))


# ------------------------------------------------------------------ checking
@dataclass
class Verdict:
    graph: str
    how: str  # "auto run": auto's own samples; "table": the table's choice measured in the files
    choice: str
    fastest: str
    ratio: float | None
    ok: bool
    note: str = ""
    # With an auto run: the chosen strategy's own group in the same files over the
    # fastest (the same code as auto's run, measured apart: the gap between the two
    # ratios is measurement noise, not auto's doing). None where it was not measured.
    choice_ratio: float | None = None


def check(m: Measured, table: Table, tolerance: float = TOLERANCE) -> list[Verdict]:
    """Per graph with candidates: auto's time (its own run where the files have one, else
    the table's choice as measured there) against the fastest candidate."""
    verdicts = []
    for graph in sorted(m.candidates):
        best = m.ranked(graph)[0]
        fastest = f"{best['strategy']} {best['ms']:.4g} ms"
        run = m.auto.get(graph)
        if run is not None:
            if run["status"] != "ok":
                verdicts.append(Verdict(graph, "auto run", run["choice"] or "-", fastest, None, False,
                                        f"auto.{m.problem} {run['status']}: {run['reason']}"))
                continue
            ratio = run["ms"] / best["ms"]
            chosen = m.candidates[graph].get(run["choice"] or "")
            verdicts.append(Verdict(graph, "auto run", run["choice"] or "-", fastest, ratio,
                                    ratio <= 1 + tolerance,
                                    choice_ratio=None if chosen is None else chosen["ms"] / best["ms"]))
            continue
        feats = m.features.get(graph)
        if feats is None:
            verdicts.append(Verdict(graph, "table", "-", fastest, None, False,
                                    "no features recorded (a run without validation)"))
            continue
        rule, _ = table.nearest(feats)
        entry = _variant_entry(m.candidates[graph], rule.strategy, rule.knobs, m.problem)
        choice = f"{rule.strategy} (as on {rule.graph})"
        if entry is None:
            verdicts.append(Verdict(graph, "table", choice, fastest, None, False,
                                    "the choice was not measured on this graph"))
            continue
        ratio = entry["ms"] / best["ms"]
        verdicts.append(Verdict(graph, "table", choice, fastest, ratio, ratio <= 1 + tolerance))
    return verdicts
