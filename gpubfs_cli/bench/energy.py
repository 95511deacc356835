"""The energy a GPU variant draws, for Green Graph 500's GTEPS per watt: measured after a
variant's timed sources on a graph (its last turn there), outside every timed sample.

NVML's total-energy counter (gpu/energy.py) moves in coarse steps next to a
sub-millisecond traversal, so the energy of one traversal is never bracketed alone: the
variant's traversals are replayed back to back over the sources it was just timed on
(cycling; a batch strategy replays its batches) until at least the run's `energy_s`
seconds have passed, the counter of every GPU the variant uses read just before and just
after, its GPUs waited for before each reading. Answers stay where traverse() leaves
them (no copy to the host, no check: the timed calls checked them).

The record (results/schema.py `energy`, one per variant, graph and mode): energy_j (the
sum over its GPUs), seconds (host clock), traversals, mean_w (energy_j / seconds), edges
(the samples' edges of the replayed sources, summed over the replayed traversals) and
edges_graph500 (likewise), each null where it is not known; `reason` says why nothing
was measured: no NVML, a counter the GPU lacks, a strategy on no GPU (a CPU strategy, a
peer's binary), timed sources that ended early, a replay that failed. A run whose
energy_s is 0 (the default) records nothing.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from time import perf_counter

from gpubfs_cli.core.device import Device
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.gpu import backend
from gpubfs_cli.gpu.energy import EnergyReader, EnergyUnavailable, default_energy_reader
from gpubfs_cli.results.schema import Sample
from gpubfs_cli.results.status import classify

UNMEASURED = {"energy_j": None, "seconds": None, "traversals": None, "mean_w": None, "edges": None,
              "edges_graph500": None, "reason": None}


class EnergyMeter:
    """A run's energy measurements: its config (energy_s, l2, prime), its progress, and
    the counter's reader (None: NVML's, made on first use)."""

    def __init__(self, config, progress, read_energy: EnergyReader | None = None):
        self.config, self.progress, self.read_energy = config, progress, read_energy

    def measure(self, records, strategy: Strategy, mode: bool, samples: list[Sample] | None,
                asked: Callable[[int], int], dataset: str, problem: str, knobs: dict, label: str) -> None:
        """One mode's energy record to `records`, after its timed sources on `dataset`
        (`samples`: theirs; None: they ended early); nothing when energy_s is 0. `asked`:
        the id the strategy answers a source from (a reordered variant's new id)."""
        if not self.config.energy_s:
            return
        gpus = [d for d in strategy.devices if d.is_gpu]
        entry = {"dataset": dataset, "problem": problem, "strategy": strategy.name, "knobs": knobs,
                 "predecessors": bool(mode), "l2": self.config.l2, "prime": bool(self.config.prime),
                 "devices": [str(d) for d in gpus], **UNMEASURED}
        try:
            if not gpus:
                raise EnergyUnavailable(f"{strategy.name} runs on no GPU of its own (a CPU strategy, or a peer's "
                                        "binary): no GPU energy counter to read around its traversals")
            if not samples:
                raise EnergyUnavailable("its timed sources ended early (a failure or the time limit): "
                                        "nothing to replay")
            self.progress.describe(f"{dataset} · {label}: energy, {self.config.energy_s:g} s of traversals")
            entry.update(self._replay(strategy, gpus, mode, samples, asked))
        except EnergyUnavailable as exc:
            entry["reason"] = str(exc)
        records.energy(entry)

    def _read(self, gpus: Sequence[Device], wait: bool = True) -> list[int]:
        """Each GPU's counter (mJ), its work done first (`wait`); EnergyUnavailable says why not."""
        if self.read_energy is None:
            self.read_energy = default_energy_reader()
        try:
            if wait:
                backend.synchronize(gpus)
            return [int(self.read_energy(d)) for d in gpus]
        except EnergyUnavailable:
            raise
        except Exception as exc:
            raise EnergyUnavailable(f"{type(exc).__name__}: {exc}"[:300]) from None

    def _replay(self, strategy: Strategy, gpus: Sequence[Device], mode: bool, samples: list[Sample],
                asked: Callable[[int], int]) -> dict:
        """The replay's figures: its calls cycle over the timed calls (one source each, or
        a batch each) until energy_s has passed."""
        size = strategy.batch_size()
        calls = [samples[i:i + size] for i in range(0, len(samples), size)]  # as bench/schedule.batches dealt them
        ids = [[asked(s.source) for s in call] for call in calls]
        before = self._read(gpus)
        done, t0 = 0, perf_counter()
        try:
            while True:
                if size > 1:
                    strategy.traverse_batch(ids[done % len(ids)], mode)
                else:
                    strategy.traverse(ids[done % len(ids)][0], mode)
                done += 1
                if perf_counter() - t0 >= self.config.energy_s:
                    break
            backend.synchronize(gpus)
        except Exception as exc:
            raise EnergyUnavailable(f"replay: {classify(exc)[1]}") from None
        seconds = perf_counter() - t0
        after = self._read(gpus, wait=False)  # waited for above
        for device, a, b in zip(gpus, before, after, strict=True):
            if b < a:
                raise EnergyUnavailable(f"the energy counter of {device} went back from {a} to {b} mJ "
                                        "(the driver reloaded?)")
        energy_j = (sum(after) - sum(before)) / 1000.0
        times = [done // len(calls) + (k < done % len(calls)) for k in range(len(calls))]  # each call's replays
        return {"energy_j": energy_j, "seconds": seconds,
                "traversals": sum(n * len(c) for n, c in zip(times, calls, strict=True)),
                "mean_w": energy_j / seconds,  # seconds >= energy_s > 0
                "edges": _edges(calls, times, lambda s: s.edges),
                "edges_graph500": _edges(calls, times, lambda s: s.measures.get("edges_graph500"))}


def _edges(calls: list[list[Sample]], times: list[int], count: Callable[[Sample], object]) -> int | None:
    """The edges of the replayed traversals: each source's sample's count times its
    replays; None unless every replayed source has an ok sample with that count."""
    total = 0
    for call, n in zip(calls, times, strict=True):
        for s in call:
            value = count(s)
            if n and (s.status != "ok" or not isinstance(value, numbers.Integral) or isinstance(value, bool)):
                return None
            total += n * int(value) if n else 0
    return total
