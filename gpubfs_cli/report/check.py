"""`gpubfs report --check FILE...`: each results file (or run journal) checked against
itself, without the code, the graphs or the machine that made it.

A file passes when every rule holds; each broken rule is one line naming what broke:
  schema    every value the report reads has its type: report/load.py's checks, run on
            each sample, dataset and section apart, so that every bad one is named; a
            prepare's status is one of the rulebook's too
  statuses  every sample's status is one of the rulebook's (results/status.py), and every
            summary says what the rulebook makes of its samples again (results/groups.py:
            status, samples, sources measured and planned, partial)
  sources   every dataset that loaded has its source list; every sample names a dataset
            of the file; a sample's source is in its dataset's list, or is -1 (a whole
            variant's failure, which is never ok)
  plan      every (dataset, variant, mode) of the config holds one sample per listed
            source (rounds deal the sources out, they do not repeat them), on every
            dataset that loaded or was skipped; a group that ended in a failure (error,
            out-of-memory, out-of-time, unavailable) may hold fewer, and so may any group
            of a run that did not complete (interrupted, failed, unfinished); none holds
            more. Every group is one of the config's variants, and a complete run
            records every dataset its config lists.
  energy    every energy record (bench/energy.py) is of a variant, graph and mode the
            file holds samples of, in their L2 mode and prime policy
  copies    no two variants of one cell set (dataset, problem, strategy, L2 mode, prime)
            took the same time on every source, sample for sample: one of them holds
            the other's samples, not a measurement (report/copies.py; the report shows
            it as n/a)
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from gpubfs_cli.core.strategy import canonical_name
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import check_input_file
from gpubfs_cli.report.copies import identical_pairs, variant_text
from gpubfs_cli.report.energy import record_key
from gpubfs_cli.report.load import Results, _energy, _merge_dataset, _sample, add_doc
from gpubfs_cli.report.plans import matches
from gpubfs_cli.results.groups import group_samples, summaries
from gpubfs_cli.results.keys import NO_REORDER, CellKey
from gpubfs_cli.results.replay import load_run
from gpubfs_cli.results.schema import run_prime, run_state
from gpubfs_cli.results.status import ENDS_A_MODE, STATUSES

SUMMARY_KEYS = ("status", "samples", "sources_planned", "sources_measured", "partial")
SHOWN = 20  # problems printed per file; the rest are counted


def check_file(path: str | Path) -> list[str]:
    """Every problem found in one results file or journal ([] when it is consistent)."""
    path = str(path)
    try:
        check_input_file(path, "results file")
        doc = load_run(path)
    except UserError as exc:
        return [_own(path, exc)]
    problems, good = _schema(path, doc)
    sources = {name: list(srcs) for name, srcs in (doc.get("sources") or {}).items()
               if isinstance(srcs, list) and all(isinstance(v, int) for v in srcs)} \
        if isinstance(doc.get("sources"), dict) else {}
    problems += _sources(doc, good, sources)
    problems += _summaries(doc, good, sources)
    problems += _plan(doc, good, sources)
    problems += _energy_records(path, doc, good)
    problems += _copies(doc, good)
    return problems


def check_lines(path: str | Path, problems: list[str], shown: int = SHOWN) -> list[str]:
    """`PATH: OK`, or one `PATH: PROBLEM` line per problem (the first `shown`, then a count)."""
    if not problems:
        return [f"{path}: OK"]
    lines = [f"{path}: {p}" for p in problems[:shown]]
    if len(problems) > shown:
        lines.append(f"{path}: ... and {len(problems) - shown} more problems")
    return lines


def _own(path: str, exc: UserError) -> str:
    """The error's text without the file's name in front (the line already names it):
    `PATH: KEY: ...` -> `KEY: ...`, `PATH:12: ...` -> `line 12: ...`."""
    text = str(exc)
    if text.startswith(f"{path}: "):
        return text[len(path) + 2:]
    if text.startswith(f"{path}:") and text[len(path) + 1:len(path) + 2].isdigit():
        return "line " + text[len(path) + 1:]
    return text


# ---------------------------------------------------------------- schema
def _schema(path: str, doc: dict) -> tuple[list[str], list[dict]]:
    """The schema's problems, and the samples that pass it (the other rules read those)."""
    problems, good = [], []
    if not isinstance(doc["samples"], list):
        problems.append("samples: expected a list")
    else:
        prime = run_prime(doc)
        for i, raw in enumerate(doc["samples"]):
            try:
                _sample(path, i, raw, prime)
            except UserError as exc:
                problems.append(_own(path, exc))
            else:
                good.append(raw)
    if not isinstance(doc["datasets"], dict):
        problems.append("datasets: expected an object")
    else:
        for name, entry in doc["datasets"].items():
            try:
                _merge_dataset(Results(), path, name, entry)
            except UserError as exc:
                problems.append(_own(path, exc))
    try:  # the rest of the document: sources, prepares, problems, clocks, the config's l2
        known = add_doc(Results(), {**doc, "samples": [], "datasets": {}}, path)
    except UserError as exc:
        problems.append(_own(path, exc))
    else:
        from gpubfs_cli.core.problem import all_problems

        names = set(all_problems()) | set(known.problems)
        for i, raw in enumerate(doc["samples"] if isinstance(doc["samples"], list) else []):
            if isinstance(raw, dict) and isinstance(raw.get("problem", "bfs"), str) \
                    and raw.get("problem", "bfs") not in names:
                problems.append(f"samples[{i}].problem: {raw['problem']!r} is no problem this code knows "
                                "or the file describes")
    for i, p in enumerate(doc.get("prepares") if isinstance(doc.get("prepares"), list) else []):
        if isinstance(p, dict) and p.get("status") not in STATUSES:
            problems.append(f"prepares[{i}].status: expected one of {', '.join(STATUSES)}, got {p.get('status')!r}")
    if not isinstance(doc.get("summaries", []), list):
        problems.append("summaries: expected a list")
    return problems, good


# ---------------------------------------------------------------- sources
def _sources(doc: dict, samples: list[dict], sources: dict[str, list[int]]) -> list[str]:
    problems = []
    datasets = doc["datasets"] if isinstance(doc["datasets"], dict) else {}
    for name, info in datasets.items():
        if isinstance(info, dict) and info.get("status") == "ok" and not sources.get(name):
            problems.append(f"datasets.{name}: loaded, but sources.{name} lists no source")
    unknown: Counter = Counter()
    outside: dict[tuple[str, int], int] = {}
    for i, s in enumerate(samples):
        name, source = s["dataset"], s["source"]
        if name not in datasets:
            unknown[name] += 1
        elif source < 0:
            if s["status"] == "ok":
                problems.append(f"samples[{i}]: source {source} (a whole variant's failure) with status ok")
        elif name in sources and source not in sources[name]:
            outside.setdefault((name, source), i)
    problems += [f"{n} sample(s) of dataset {name!r}, which datasets does not record" for name, n in unknown.items()]
    problems += [f"samples[{i}]: source {source} is not among the {len(sources[name])} sources of {name}"
                 for (name, source), i in outside.items()]
    return problems


# ---------------------------------------------------------------- summaries
def _key(entry: dict, prime: bool) -> tuple:
    """A summary's group; without `prime` (files from before summaries carried it), the run's."""
    return (*CellKey.make(entry.get("dataset"), entry.get("problem", "bfs"), canonical_name(str(entry.get("strategy"))),
                          entry.get("knobs") or {}, entry.get("predecessors")),
            entry.get("l2", "warm"), bool(entry.get("prime", prime)))


def _label(entry: dict) -> str:
    knobs = entry.get("knobs") or {}
    shown = f"[{', '.join(f'{k}={v}' for k, v in sorted(knobs.items()))}]" if knobs else ""
    mode = ", predecessors" if entry.get("predecessors") else ""
    problem = entry.get("problem", "bfs")
    return f"{entry.get('dataset')}: {canonical_name(str(entry.get('strategy')))}{shown}" + (
        f" ({problem}{mode})" if problem != "bfs" or mode else "")


def _summaries(doc: dict, samples: list[dict], sources: dict[str, list[int]]) -> list[str]:
    written = doc.get("summaries")
    if not isinstance(written, list) or not written:
        return []  # a journal's document has none until it is replayed whole
    prime = run_prime(doc)
    again = {_key(e, prime): e for e in summaries([{"prime": prime, **s} for s in samples], None, sources)}
    problems, seen = [], set()
    for i, entry in enumerate(written):
        if not isinstance(entry, dict):
            problems.append(f"summaries[{i}]: expected an object")
            continue
        key = _key(entry, prime)
        seen.add(key)
        now = again.get(key)
        if now is None:
            problems.append(f"summaries[{i}] ({_label(entry)}): no sample of its group")
            continue
        for k in SUMMARY_KEYS:
            if k in entry and k in now and entry[k] != now[k]:
                problems.append(f"summaries[{i}] ({_label(entry)}): {k} {entry[k]!r}, its samples make it "
                                f"{now[k]!r}")
    problems += [f"{_label(e)}: samples without a summary" for k, e in again.items() if k not in seen]
    return problems


# ---------------------------------------------------------------- energy
def _energy_records(path: str, doc: dict, samples: list[dict]) -> list[str]:
    """An energy record of no variant, graph and mode with samples; records the schema
    refused are named there, not here."""
    records = doc.get("energy")
    if not isinstance(records, list):
        return []
    prime = run_prime(doc)
    held = {record_key({**s, "strategy": canonical_name(s["strategy"])}, prime) for s in samples}
    problems = []
    for i, raw in enumerate(records):
        try:
            e = _energy(path, i, raw, prime)
        except UserError:
            continue
        if record_key(e) not in held:
            problems.append(f"energy[{i}] ({_label(e)}): no sample of its variant on that graph in that mode "
                            "(an energy record of another run?)")
    return problems


# ---------------------------------------------------------------- copies
def _copies(doc: dict, samples: list[dict]) -> list[str]:
    """One line per pair of variants with the same samples; the one with the option (the
    costlier run) is named first as the copy where the other has none."""
    from gpubfs_cli.results.schema import Sample

    prime = run_prime(doc)
    groups = group_samples([Sample.from_dict({"prime": prime, **s}) for s in samples])
    problems = []
    for a, b in identical_pairs(groups):
        copy, twin = (a, b) if a.predecessors and not b.predecessors else (b, a)
        problems.append(f"{_label(copy.to_dict())}: suspect: the same times as {variant_text(twin, copy)}, "
                        f"source for source ({len(copy.ok_samples())} samples): a copy of its samples, "
                        "not a measurement")
    return problems


# ---------------------------------------------------------------- the plan
def _matches(variant: dict, group: dict, config: dict) -> bool:
    """Whether a group's samples are of a config variant (report/plans.py: the report's
    rule for a partial knob sweep too)."""
    return matches(variant, config, group["problem"], group["strategy"], group["knobs"])


def _variant_label(variant: dict) -> str:
    knobs = variant.get("knobs") or {}
    shown = f"[{', '.join(f'{k}={v}' for k, v in sorted(knobs.items()))}]" if knobs else ""
    order = f" reorder {variant['reorder']}" if variant.get("reorder", NO_REORDER) != NO_REORDER else ""
    return f"{variant.get('strategy')}{shown}{order}"


def _plan(doc: dict, samples: list[dict], sources: dict[str, list[int]]) -> list[str]:
    config = doc.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("variants"), list) \
            or not all(isinstance(v, dict) for v in config["variants"]):
        return ["config.variants: expected a list of variants (the plan cannot be checked)"]
    variants = config["variants"]
    modes = {"false": [False], "true": [True], "both": [False, True]}.get(str(config.get("predecessors", "false")))
    if modes is None:
        return [f"config.predecessors: expected false, true or both, got {config.get('predecessors')!r}"]
    complete = run_state(doc) is None
    datasets = doc["datasets"] if isinstance(doc["datasets"], dict) else {}
    problems = []
    listed = config.get("datasets")
    if complete and isinstance(listed, list) and len(datasets) < len(listed):
        problems.append(f"the config lists {len(listed)} datasets, the file records {len(datasets)}")
    groups: dict[tuple, dict] = {}
    for s in samples:
        key = CellKey.make(s["dataset"], s.get("problem", "bfs"), canonical_name(s["strategy"]), s.get("knobs") or {},
                           s.get("predecessors"))
        g = groups.setdefault(key, {"dataset": s["dataset"], "problem": key.problem, "strategy": key.strategy,
                                    "knobs": s.get("knobs") or {}, "predecessors": key.predecessors, "samples": []})
        g["samples"].append(s)
    for g in groups.values():
        if not any(_matches(v, g, config) for v in variants):
            problems.append(f"{_label(g)}: samples of no variant of the config")
    for name, info in datasets.items():
        if not isinstance(info, dict) or info.get("status") not in ("ok", "skipped"):
            continue  # a graph that could not be loaded has no samples
        planned = Counter(sources.get(name) or [])
        mine = [g for g in groups.values() if g["dataset"] == name]
        for variant in variants:
            for mode in modes:
                found = [g for g in mine if g["predecessors"] == mode and _matches(variant, g, config)]
                if not found:
                    if complete:
                        problems.append(f"{name}: no sample of {_variant_label(variant)}"
                                        + (" with predecessors" if mode else ""))
                    continue
                for g in found:
                    problems += _counts(g, planned, complete)
    return problems


def _counts(group: dict, planned: Counter, complete: bool) -> list[str]:
    """A group's samples against its dataset's sources: never more of a source than
    listed; every listed one unless the group ended or the run did not complete."""
    got = Counter(s["source"] for s in group["samples"] if s["source"] >= 0)
    problems = []
    if extra := got - planned:
        problems.append(f"{_label(group)}: more samples than its dataset lists sources (extra: "
                        f"{_sources_text(extra)})")
    ended = any(s["status"] in ENDS_A_MODE for s in group["samples"])
    if (missing := planned - got) and complete and not ended:
        problems.append(f"{_label(group)}: {sum((got & planned).values())} of {sum(planned.values())} planned "
                        f"samples (missing: {_sources_text(missing)}), in a complete run with no failure")
    return problems


def _sources_text(counts: Counter, shown: int = 3) -> str:
    """`source 6`, `sources 3, 9 x2, 12 and 4 more` (x2: twice)."""
    items = sorted(counts.items())
    text = ", ".join(f"{s}" + (f" x{n}" if n > 1 else "") for s, n in items[:shown])
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return f"source{'s' if len(items) > 1 else ''} {text}{more}"
