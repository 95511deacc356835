"""How long a reproduction should take on this machine: a stated model, fed by measured
runs (workflows/history.py says which, and in what order).

What one graph of a run config costs, in the runner's order:
  graph     cached: its measured load time (else m / LOAD_RATE); not cached: plus its
            measured generate/parse/build time and the cache write (else m / BUILD_RATE);
            a download from the network: its size over the median rate of the downloads
            this cache recorded, or counted as a download of unknown time (said so).
            GPU variants: its upload
  baseline  validate: all: each source's baseline traversal (cpu.sequential, cpu.dijkstra),
            the sources spread over this machine's cores (ideal speed-up assumed)
  variant   per variant and option: its prepare time, the warm-up (at least `warmup_ms`),
            then one call per source: the traversal, plus the host's copy-back, check and
            measures, CALL_MS + CHECK_NS_PER_VERTEX x n (+ PARENTS_NS_PER_VERTEX x n when
            predecessors are checked)
A quick reproduction (`--quick`) is estimated from its own config (reproduce.Mode.apply):
fewer sources scale the baselines and calls, the warm-up and prepare stay per variant.
A first run on a fresh machine also compiles each kernel configuration once (about 30 s
each on the shipped H100, seen in merrill-cta-rounds' prepares); that is not counted.

The overhead constants come from the shipped files. Their wall time less samples,
warm-ups, loads, uploads, prepares and baselines leaves, in the 2026-11-24 H100 files
(today's checks), 3.6 to 13 ns per vertex checked (median 8; a least-squares fit says
4.5 ms per call + 4 ns per vertex); merrill-pred's H200 file, 82 ns per vertex with
predecessors, of which about 19 went to per-level counters on the host that the
`counters` knob now leaves off (merrill's 2026-11-23 files spent those too, so a merrill
run today should take less than they did). With these constants the estimate of each
shipped run of a reproduce config, graphs cached, is 0.57x (merrill, H100) to 1.8x (luo)
its own wall time (finished - created), bfs4k-ablation aside (2.2x of a 10 s run).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.workflows.history import UNKNOWN, Machine, kind_of

CHECK_NS_PER_VERTEX = 8.0  # copy-back, check and measures of one answer, per vertex
CALL_MS = 2.0  # the same, per call (synchronisation, clocks, progress)
PARENTS_NS_PER_VERTEX = 60.0  # more with predecessors: every parent's depth checked (merrill-pred)
LOAD_RATE = 5e4  # edges per ms to load a cached graph (no measured load)
BUILD_RATE = 2e4  # edges per ms to build and cache a graph (no measured build)
WRITE_RATE = 1e5  # edges per ms to write a built graph into the cache
UPLOAD_RATE = 2e5  # edges per ms to put a graph on the GPU (no measured upload)


def human_seconds(s: float) -> str:
    if s < 1:
        return "under 1 s"
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.0f} min" if s >= 600 else f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


@dataclass
class Estimate:
    """Seconds of what could be estimated, and how many estimates each source made."""

    seconds: float = 0.0
    how: Counter = field(default_factory=Counter)
    downloads: int = 0  # downloads of unknown time (no rate measured here), not in seconds

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(self.seconds + other.seconds, self.how + other.how, self.downloads + other.downloads)

    @property
    def unknown(self) -> int:
        return self.how[UNKNOWN]

    def text(self) -> str:
        if not self.how:
            return "nothing to run"
        if self.unknown and not self.seconds:
            text = "time unknown"
        elif self.unknown:
            text = f"at least {human_seconds(self.seconds)} ({self.unknown} unknown)"
        else:
            text = "under 1 s" if self.seconds < 1 else f"about {human_seconds(self.seconds)}"
        if self.downloads:
            text += f", plus {self.downloads} download(s) of unknown time"
        return text

    def derivation(self) -> str:
        return ", ".join(f"{label}: {count}" for label, count in self.how.most_common())

    def summary(self, after: str = "") -> str:
        """'about 3 min{after} (from shipped H100: 12)': the time and how many estimates
        (cells, and baselines of validation) each source made."""
        return f"{self.text()}{after} (from {self.derivation()})" if self.how else self.text()


DOWNLOAD_MEASURED = "download rate measured here"


def download_estimate(graph, here) -> Estimate:
    """A network download's time (workflows/graphs.GraphPlan on this machine `here`)."""
    seconds = graph.download_seconds(here) if here is not None else None
    if seconds is None:
        return Estimate(downloads=1)
    return Estimate(seconds, Counter({DOWNLOAD_MEASURED: 1}))


def graph_estimate(machine: Machine, cfg, dataset: str, cached: bool, m: int, n: int,
                   variants: list) -> Estimate:
    """One graph of `cfg` with `variants` (bench Variant) still to run; knobs with defaults
    come from the variant's own `knobs` (see reproduce.variant_knobs)."""
    est = Estimate()
    per_graph = len(cfg.fixed_sources) or cfg.sources
    ms = 0.0
    if cfg.validate == "all":
        for problem in dict.fromkeys(v.problem for v, _ in variants):
            t, _, how = machine.traversal(problem, get_problem(problem).baseline, {}, False, dataset, m)
            est.how[how] += 1
            if t is not None:
                ms += per_graph * t / min(per_graph, machine.cores)
    for variant, knobs in variants:
        for mode in cfg.modes:
            t, prepare, how = machine.traversal(variant.problem, variant.strategy, knobs, mode, dataset, m)
            est.how[how] += 1
            if t is None:
                continue
            parents = mode and cfg.validate != "none"  # a parent tree is checked (by depths or a certificate)
            check_ns = CHECK_NS_PER_VERTEX + (PARENTS_NS_PER_VERTEX if parents else 0.0)
            calls = per_graph * (t + CALL_MS + check_ns * n * 1e-6)
            warm = max(cfg.warmup * t, cfg.warmup_ms) if cfg.warmup else 0.0
            ms += (prepare + warm) * max(1, min(cfg.rounds, per_graph)) + calls
    if est.unknown == sum(est.how.values()):
        return est  # nothing here is measured: no graph time either
    load = machine.load_s.get(dataset)
    ms += m / LOAD_RATE if load is None else 1000 * load
    if any(kind_of(v.problem, v.strategy) == "gpu" for v, _ in variants):
        upload = machine.upload_s.get(dataset)
        ms += m / UPLOAD_RATE if upload is None else 1000 * upload
    if not cached:
        build = machine.build_s.get(dataset)
        ms += m / BUILD_RATE if build is None else 1000 * build + m / WRITE_RATE
    est.seconds = ms / 1000.0
    return est


