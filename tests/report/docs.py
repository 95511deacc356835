"""Hand-made results documents for the report tests, built with the runner's dataclasses.

Times are chosen so every summary is known in advance: see the constants below.
"""

from __future__ import annotations

from pathlib import Path

from gpubfs_cli.results.schema import SCHEMA_VERSION, Prepare, Sample, write_results

SOURCES = [0, 1, 2, 3]
# per-source times (ms) on graph "g1" (n=1000, m=8000, every source reaches everything)
SEQ_MS = [10.0, 12.0, 14.0, 16.0]  # cpu.sequential: median 13, sum 52
HYBRID_MS = [1.0, 1.0, 2.0, 4.0]  # merrill.hybrid: median 1.5, sum 8 -> speedup 6.5
VWARP_MS = {1: [5.0, 5.0, 5.0, 5.0], 4: [2.0, 2.0, 2.0, 2.0], 32: [3.0, 3.0, 3.0, 3.0]}
EDGES = 8000


def sample(dataset, strategy, source, time_ms, *, knobs=None, edges=EDGES, status="ok",
           reason=None, valid=True, low_reach=False, predecessors=False, depth=5,
           reached=1000, counters=None) -> Sample:
    return Sample(
        dataset=dataset, strategy=strategy, knobs=knobs or {}, source=source,
        time_ms=time_ms, reached=reached, edges=edges, valid=valid,
        status=status, predecessors=predecessors, reason=reason, low_reach=low_reach,
        measures={"depth": depth}, counters=counters or {},
    )


def dataset_entry(n, m, *, avg_depth=None, max_depth=None, std=1.5, max_degree=20, directed=False):
    entry = {
        "n": n, "m": m, "directed": directed,
        "stats": {"n": n, "m": m, "avg_degree": m / n, "std_degree": std,
                  "max_degree": max_degree, "mode_degree": 8, "isolated": 0},
        "meta": {"generator": "test"},
    }
    if avg_depth is not None:  # the runner's keys
        entry["depth_avg"] = avg_depth
        entry["depth_max"] = max_depth
    return entry


def document(samples: list[Sample], datasets: dict, *, gpu="NVIDIA H100 80GB HBM3",
             prepares: list[Prepare] | None = None) -> dict:
    sources = {name: list(SOURCES) for name in datasets}
    return {
        "schema_version": SCHEMA_VERSION,
        "tool_version": "0.1.0",
        "git_commit": None,
        "created": "2025-01-01T00:00:00Z",
        "command_line": "gpubfs run test",
        "environment": {"cpu": {"model": "Test CPU", "cores": 2},
                        "gpu": {"available": True, "name": gpu} if gpu
                        else {"available": False, "reason": "CuPy is not installed"}},
        "config": {},
        "datasets": datasets,
        "sources": sources,
        "prepares": [p.to_dict() for p in prepares or []],
        "samples": [s.to_dict() for s in samples],
    }


def main_doc() -> dict:
    """g1: baseline, hybrid (distances and predecessors), a vwarp sweep; g2: failures."""
    s = []
    for src, t in zip(SOURCES, SEQ_MS, strict=True):
        s.append(sample("g1", "cpu.sequential", src, t))
    for src, t in zip(SOURCES, HYBRID_MS, strict=True):
        s.append(sample("g1", "merrill.hybrid", src, t, knobs={"gather": "scan_warp_cta", "culling": "history"}))
        s.append(sample("g1", "merrill.hybrid", src, 2 * t, predecessors=True,
                        knobs={"gather": "scan_warp_cta", "culling": "history"}))
    for w, times in VWARP_MS.items():
        for src, t in zip(SOURCES, times, strict=True):
            s.append(sample("g1", "classic.vwarp", src, t, knobs={"W": w}))
    # g2: baseline fine; harish times out on source 2; classic.edge_coo answers wrong once;
    # luo.hierarchical unavailable; merrill.hybrid fine but low reach from one source.
    for src in SOURCES:
        s.append(sample("g2", "cpu.sequential", src, 20.0, edges=100))
        s.append(sample("g2", "merrill.hybrid", src, 2.0, edges=100, low_reach=(src == 3)))
        s.append(sample("g2", "luo.hierarchical", src, None, status="unavailable",
                        reason="no usable GPU: CuPy is not installed", valid=None))
    s.append(sample("g2", "classic.harish", 0, 3.0, edges=100))
    s.append(sample("g2", "classic.harish", 1, 3.0, edges=100))
    s.append(sample("g2", "classic.harish", 2, None, status="out-of-time", reason="over 10 s", valid=None))
    s.append(sample("g2", "classic.edge_coo", 0, 4.0, edges=100))
    s.append(sample("g2", "classic.edge_coo", 1, 4.0, edges=100, status="wrong-answer", valid=False,
                    reason="12 distances differ, first at vertex 7"))
    datasets = {
        "g1": dataset_entry(1000, 8000, avg_depth=5.0, max_depth=7),
        "g2": dataset_entry(500, 1000),
    }
    return document(s, datasets)


def write(tmp_path: Path, name: str, doc: dict) -> Path:
    return write_results(tmp_path / name, doc)
