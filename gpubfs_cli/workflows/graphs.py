"""The graphs a reproduction needs, each planned once: where it comes from (the cache, a
mirror folder, the network, a generator), what it costs (datasets/footprint.py: the
download, the converted size, the conversion's host memory, a BFS's GPU memory), whether
it fits here, how long its download should take, and the command that fetches it.

A graph that cannot fit this host or this GPU is said to be so before anything is
downloaded, and its cells stay missing; so do the graphs quick mode leaves out (downloads
over QUICK_MAX_DOWNLOAD). The download rate is the median of the downloads recorded in
this cache (bytes over seconds); with none, the time is said to be unknown.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

from gpubfs_cli.datasets.catalogue import DatasetEntry
from gpubfs_cli.datasets.footprint import Footprint, download_of, footprint, human, planned_counts
from gpubfs_cli.workflows.estimate import human_seconds

QUICK_MAX_DOWNLOAD = 100 * 10**6  # bytes: quick mode leaves out larger downloads
GPU_SHARE = 0.9  # of the GPU's memory a graph may plan on (the rest: CUDA context, pools)


@dataclass(frozen=True)
class Here:
    """This machine's limits as a plan sees them."""

    host_bytes: int | None  # memory available to the conversion
    gpu_bytes: int | None  # the GPU's memory; None: no usable GPU
    gpu_name: str | None
    download_rate: float | None  # bytes per second of the downloads recorded here
    mirror: Path | None = None


def this_host(data_dir: str | None, mirror: str | Path | None) -> Here:
    from gpubfs_cli.datasets.acquire import mirror_dir
    from gpubfs_cli.gpu import backend
    from gpubfs_cli.graph.memory import available_memory

    gpu_bytes = gpu_name = None
    if backend.unavailable_reason() is None:
        props = backend.device_properties()
        gpu_bytes, gpu_name = props.get("memory_bytes"), props.get("name")
    return Here(available_memory(), gpu_bytes, gpu_name, download_rate(data_dir), mirror_dir(mirror))


def download_rate(data_dir: str | None) -> float | None:
    """Median bytes per second of the network downloads this cache recorded."""
    from gpubfs_cli.datasets import store
    from gpubfs_cli.errors import UserError

    rates = []
    for key in store.cached_keys(data_dir):
        try:
            meta = store.read_meta(key, data_dir)
        except UserError:
            continue
        source, took = meta.get("source") or {}, (meta.get("times") or {}).get("download_s")
        size = source.get("bytes")
        if source.get("origin", "url") == "url" and isinstance(size, int) and size > 0 and took:
            rates.append(size / took)
    return statistics.median(rates) if rates else None


@dataclass
class GraphPlan:
    """One graph of a paper's configs: how it is had, its costs, and why it cannot be."""

    name: str  # as the config names it
    entry: DatasetEntry
    action: str  # cached | generate | fetch | mirror (fetch from the mirror folder)
    n: int | None
    m: int | None
    costs: Footprint
    blocked: str | None = None  # why it cannot be had here (said before any download)

    @property
    def downloads(self) -> bool:
        return self.action == "fetch"

    def download_seconds(self, here: Here) -> float | None:
        if not self.downloads or self.costs.download.bytes is None or not here.download_rate:
            return None
        return self.costs.download.bytes / here.download_rate

    def fetch_command(self) -> str:
        return f"gpubfs fetch-dataset {self.entry.name}"

    def line(self, here: Here) -> str:
        """One line: where it comes from, its sizes, its fit, its download time."""
        c = self.costs
        if self.action == "generate" and (self.n is None or self.m is None):
            return (f"{self.name}: generated here; its sizes are not known before generating (its catalogue "
                    f"entry gives no n and m, and its generator {self.entry.generator} no bound)")
        parts = [{"cached": f"cached ({human(c.disk_bytes)} on disk)",
                  "generate": f"generated here, {human(c.disk_bytes)} converted",
                  "mirror": f"from the mirror: {c.download.text()}, {human(c.disk_bytes)} converted",
                  "fetch": f"download {c.download.text()}, {human(c.disk_bytes)} converted"}[self.action]]
        if self.action == "generate":  # the build takes the GPU, or parts that fit the host
            parts.append(f"up to {human(c.host_bytes)} of host memory if built on the CPU in one part")
        elif self.action != "cached":
            host = f" ({human(here.host_bytes)} available)" if here.host_bytes else ""
            parts.append(f"conversion needs {human(c.host_bytes)} of host memory{host}")
        parts.append(f"a BFS needs {human(c.gpu_bytes)} of GPU memory ({self.gpu_fit(here)})")
        if self.downloads:
            secs = self.download_seconds(here)
            parts.append(f"download about {human_seconds(secs)} at {human(here.download_rate)}/s measured here"
                         if secs is not None else "download time unknown (no download measured here)")
        text = f"{self.name}: " + ", ".join(parts)
        return text + (f"; not run here: {self.blocked}" if self.blocked else "")

    def gpu_fit(self, here: Here) -> str:
        if here.gpu_bytes is None:
            return "no GPU here"
        verdict = "fits" if self.costs.gpu_bytes <= GPU_SHARE * here.gpu_bytes else "does not fit"
        return f"{verdict} the {here.gpu_name}'s {human(here.gpu_bytes)}"

    def missing_line(self, paper: str, why: str) -> str:
        """What a user reads when the graph's cells stay missing, and how to fill them."""
        size = f" ({self.costs.download.size()} to download)" if self.entry.kind == "download" else ""
        then = f", then gpubfs reproduce {paper}" if paper else ""  # no paper: a plain run's graph
        return f"{self.name}: its cells stay missing: {why}; to fill them: {self.fetch_command()}{size}{then}"


def plan_graph(name: str, seed: int | None, data_dir: str | None, here: Here, quick: bool = False) -> GraphPlan:
    """The plan of one config dataset name (an alias, NAME@seed=S, NAME@weights=...: the
    plain graph's cache)."""
    from gpubfs_cli.datasets import store
    from gpubfs_cli.datasets.acquire import find_in_mirror
    from gpubfs_cli.datasets.prepare import resolve_name

    entry = resolve_name(name, data_dir)
    key = entry.name
    if entry.kind == "generated":
        key = store.cache_key(entry.name, seed, entry.seed if entry.seed is not None else 0)
    if store.is_cached(key, data_dir):
        meta = store.read_meta(key, data_dir)
        n, m = meta.get("n"), meta.get("m")
        archive = (meta.get("source") or {}).get("bytes")
        costs = footprint(entry, n or 0, m or 0, download_of(entry, m, measured=archive))
        costs = Footprint(costs.download, store.cache_size_bytes(key, data_dir), costs.host_bytes, costs.gpu_bytes)
        return GraphPlan(name, entry, "cached", n, m, costs)
    n, m = planned_counts(entry)
    found = find_in_mirror(entry, here.mirror) if entry.kind == "download" and here.mirror else None
    download = download_of(entry, m, mirror_file=found[0] if found else None)
    action = "generate" if entry.kind == "generated" else "mirror" if found else "fetch"
    plan = GraphPlan(name, entry, action, n, m, footprint(entry, n or 0, m or 0, download))
    plan.blocked = blocked(plan, here, quick)
    return plan


def blocked(plan: GraphPlan, here: Here, quick: bool) -> str | None:
    """Why a graph not yet cached cannot be had here, or None."""
    c = plan.costs
    # A generated graph is built on the GPU, or on the CPU in parts sized to the free
    # memory (graph/build.py): its host figure bounds one part, never blocks.
    if plan.action != "generate" and here.host_bytes is not None and c.host_bytes > here.host_bytes:
        return (f"its conversion needs {human(c.host_bytes)} of host memory, "
                f"{human(here.host_bytes)} is available")
    if here.gpu_bytes is not None and c.gpu_bytes > GPU_SHARE * here.gpu_bytes:
        return f"a BFS on it needs {human(c.gpu_bytes)} of GPU memory, the {here.gpu_name} has {human(here.gpu_bytes)}"
    if quick and plan.downloads and (c.download.bytes or 0) > QUICK_MAX_DOWNLOAD:
        return f"quick mode leaves out downloads over {human(QUICK_MAX_DOWNLOAD)}"
    return None

