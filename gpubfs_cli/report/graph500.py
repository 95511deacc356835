"""`gpubfs report --graph500`: each graph's variants as the Graph 500 reference prints a
kernel's statistics (BFS: kernel 2, `bfs  ` lines; SSSP: kernel 3, `sssp ` lines).

One figure per source: its ok samples' median time (several rounds fold into one), its
`edges_graph500` as the edge count (undirected input edges of the traversed component).
Samples that are not ok (a failed check included) are left out and counted, as are
sources without that count (a directed graph, a problem that records none).
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np

from gpubfs_cli.errors import UserError
from gpubfs_cli.files import refuse_input
from gpubfs_cli.report.load import Results, latest_results, load_many
from gpubfs_cli.report.render import check_format
from gpubfs_cli.results.groups import group_key, status_of

KERNEL = {"bfs": 2, "sssp": 3}
PREFIX = {"bfs": "bfs  ", "sssp": "sssp "}  # the reference's column of kernel names
FORMATS = ("table", "md", "json")
STATS = ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")
NO_COUNT = "no edges_graph500"
MESSAGES = {"--metric": "--graph500 prints its own figures (times, edge counts, TEPS): leave out --metric",
            "--plot": "--graph500 prints text only: leave out --plot"}


def check_options(given: list[str]) -> None:
    """One line for the first option given that --graph500 does not take."""
    if given:
        raise UserError(MESSAGES.get(given[0], f"--graph500 and {given[0]} cannot be combined"))


def get_statistics(x) -> dict[str, float]:
    """The reference's get_statistics (graph500 src/main.c): mean = sum / n; std =
    sqrt(sum (x - mean)^2 / (n - 1)); on the sorted xx, first quartile =
    (xx[(n-1)/4] + xx[n/4]) / 2, median = (xx[(n-1)/2] + xx[n/2]) / 2, third quartile =
    (xx[n-1-(n-1)/4] + xx[n-1-n/4]) / 2, integer divisions: no numpy.quantile method
    picks these elements (n = 3: first quartile xx[0], "linear" gives (xx[0] + xx[1]) / 2).
    One value has no spread: std 0 (the reference divides 0 by 0)."""
    xx = np.sort(np.asarray(x, dtype=np.float64))
    n = len(xx)
    mean = float(np.sum(xx) / n)
    std = math.sqrt(float(np.sum((xx - mean) ** 2)) / (n - 1)) if n > 1 else 0.0
    return {"min": float(xx[0]), "firstquartile": _pair(xx, (n - 1) // 4, n // 4),
            "median": _pair(xx, (n - 1) // 2, n // 2),
            "thirdquartile": _pair(xx, n - 1 - (n - 1) // 4, n - 1 - n // 4), "max": float(xx[-1]),
            "mean": mean, "stddev": std}


def _pair(xx, i: int, j: int) -> float:
    return float((xx[i] + xx[j]) * 0.5)


def _divide(a: float, b: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):  # times of 0: inf or nan, as in C
        return float(np.float64(a) / np.float64(b))


def graph500_stats(times_s, nedges) -> dict[str, float]:
    """The reference's kernel figures from one time (s) and one edge count per source.
    TEPS come from secs_per_edge = time / nedge: min_TEPS = 1 / its max, first quartile
    = 1 / its third, median = 1 / its median, ..., harmonic_mean_TEPS = 1 / its mean,
    harmonic_stddev_TEPS = its std / (mean^2 sqrt(n - 1)) (Norris 1940, as the reference
    cites), 0 for one source."""
    times = get_statistics(times_s)
    edges = get_statistics(nedges)
    spe = get_statistics(np.asarray(times_s, dtype=np.float64) / np.asarray(nedges, dtype=np.float64))
    n = len(times_s)
    out = {f"{k}_time": times[k] for k in STATS} | {f"{k}_nedge": edges[k] for k in STATS}
    # the slowest source per edge is the lowest rate: quartiles swap
    for name, of in (("min", "max"), ("firstquartile", "thirdquartile"), ("median", "median"),
                     ("thirdquartile", "firstquartile"), ("max", "min")):
        out[f"{name}_TEPS"] = _divide(1.0, spe[of])
    out["harmonic_mean_TEPS"] = _divide(1.0, spe["mean"])
    out["harmonic_stddev_TEPS"] = _divide(spe["stddev"], spe["mean"] ** 2 * math.sqrt(n - 1)) if n > 1 else 0.0
    return out


def variants(results: Results) -> dict[str, list[dict]]:
    """dataset -> one entry per variant (problem, strategy, knobs, option, L2 mode, prime
    policy: what a report never pools), BFS first; each with its figures or why none."""
    groups: dict[tuple, list] = defaultdict(list)
    for s in results.samples:
        if s.problem in KERNEL:
            groups[group_key(s)].append(s)
    out: dict[str, list[dict]] = defaultdict(list)
    for samples in sorted(groups.values(), key=lambda g: g[0].problem != "bfs"):
        out[samples[0].dataset].append(_entry(samples))
    return {name: out[name] for name in results.datasets if name in out}


def _entry(samples: list) -> dict:
    first = samples[0]
    per_source: dict[int, list] = defaultdict(list)
    left_out: dict[str, int] = defaultdict(int)
    for s in samples:
        status = status_of(s)
        if status != "ok":
            left_out[status] += 1
        elif not isinstance(s.measures.get("edges_graph500"), (int, float)):
            left_out[NO_COUNT] += 1
        elif s.measures["edges_graph500"] <= 0:
            left_out["0 edges"] += 1
        else:
            per_source[s.source].append((float(s.time_ms) / 1000, float(s.measures["edges_graph500"])))
    figures = [np.median(np.asarray(v), axis=0) for v in per_source.values()]
    return {"problem": first.problem, "kernel": KERNEL[first.problem], "strategy": first.strategy,
            "knobs": dict(first.knobs), "predecessors": bool(first.predecessors), "l2": first.l2,
            "prime": bool(first.prime), "batch": max((s.batch or 1 for s in samples), default=1),
            "nbfs": len(figures), "left_out": dict(left_out),
            "stats": graph500_stats([f[0] for f in figures], [f[1] for f in figures]) if figures else None}


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in counts.items())


def _line(key: str, value) -> str:
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    text = f"{value:.12g}" if number else str(value)  # the reference's %.12g
    return f"{key + ':':<32}{text}"


def graph_lines(info: dict) -> list[str]:
    """A graph's header: SCALE and edgefactor for a Kronecker graph, its generation (and
    CSR build) time when its meta records them."""
    meta = info.get("meta") if isinstance(info.get("meta"), dict) else {}
    params = (meta.get("source") or {}).get("params") if isinstance(meta.get("source"), dict) else None
    lines = []
    if isinstance(params, dict) and "scale" in params and "edgefactor" in params:
        lines += [_line("SCALE", params["scale"]), _line("edgefactor", params["edgefactor"])]
    times = meta.get("times") if isinstance(meta.get("times"), dict) else {}
    spent = [times[k] for k in ("generate_s", "build_s") if isinstance(times.get(k), (int, float))]
    if spent:
        lines.append(_line("graph_generation", sum(spent)))
    return lines + [_line("num_mpi_processes", 1)]


def variant_lines(v: dict, option: str) -> list[str]:
    prefix = PREFIX[v["problem"]]
    lines = [_line("strategy", v["strategy"]), _line("knobs", json.dumps(v["knobs"], sort_keys=True))]
    lines += [_line(option, "true")] if v["predecessors"] else []
    lines += [_line("l2", v["l2"])] if v["l2"] != "warm" else []
    lines += [_line("prime", "true")] if v["prime"] else []
    lines += [_line("batch", f"{v['batch']} (time per source: the call's / its sources)")] if v["batch"] > 1 else []
    if v["stats"] is None:
        return lines + [f"{prefix}no ok sample with a Graph 500 edge count ({_counts(v['left_out'])})"]
    one = " (one source: every stddev printed as 0)" if v["nbfs"] == 1 else ""
    lines.append(_line("NBFS", f"{v['nbfs']}{one}"))
    if v["left_out"]:
        lines.append(_line("left_out", f"{sum(v['left_out'].values())} ({_counts(v['left_out'])})"))
    # as the reference prints them: times and TEPS under the kernel's name, edge counts bare
    return lines + [_line(("" if key.endswith("_nedge") else prefix) + key, value)
                    for key, value in v["stats"].items()]


def graph500_text(results: Results) -> str:
    blocks = [[f"results: {line}" for line in results.machine_lines()]]
    for name, entries in variants(results).items():
        blocks.append([_line("graph", name), *graph_lines(results.datasets[name])])
        blocks += [variant_lines(v, results.problem_info(v["problem"]).get("option") or "option") for v in entries]
    return "\n\n".join("\n".join(b) for b in blocks) + "\n"


def _finite(v):
    return v if v is None or math.isfinite(v) else None  # JSON has no inf


def graph500_json(results: Results) -> str:
    datasets = {name: [v | {"stats": v["stats"] and {k: _finite(x) for k, x in v["stats"].items()}}
                       for v in entries] for name, entries in variants(results).items()}
    return json.dumps({"files": results.files, "datasets": datasets}, indent=1) + "\n"


def graph500_report(files: list[Path], fmt: str, out: str | Path | None = None) -> str:
    """The report's text in `fmt` (table, md or json) from the results files (default:
    the newest); `out`, where it will be written, must not be one of them."""
    check_format(fmt)
    if fmt not in FORMATS:
        raise UserError("--graph500 prints table, md or json")
    paths = list(files) or [latest_results()]
    if out is not None:
        refuse_input(out, paths)
    results = load_many(paths)
    if fmt == "json":
        return graph500_json(results)
    text = graph500_text(results)
    return f"# Graph 500 statistics\n\n```text\n{text}```\n" if fmt == "md" else text
