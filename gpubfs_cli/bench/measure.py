"""Measuring one variant on one graph: upload and prepare (timed apart), the warm-up, then
one timed call per source (or per batch of sources), each answer checked and measured.

The calls run back to back; their answers are checked afterwards (bench/unchecked.py).

The timer is the one the strategy declares (bench/timing.py: events, host or self); this
room never asks what kind of strategy it holds. A strategy whose batch_size() is above 1
gets its sources in batches, a timed call each. Each answer is checked and measured by
bench/verdict.py (by the problem, or by its maker where it carries no distances).

Outside every timed region: with `prime` a GPU strategy makes one untimed call just
before each timed one, from the sources of the call before it (bench/timing.prime); with
`l2: cold` the GPU's L2 is evicted after that, just before the timed call (gpu/l2.py);
each GPU's SM and memory clocks and temperature are read before the first and after the
last timed call of every group (gpu/clocks.py); with `energy_s`, the traversals of a
mode's last turn on a graph are replayed for its GPUs' energy (bench/energy.py).

Failure is a table cell: a strategy that cannot run is `unavailable`, a traversal over
the time limit is `out-of-time` (the rest of that variant on that graph is skipped),
memory exhaustion is `out-of-memory`, an answer that differs from the baseline is
`wrong-answer` (its time is kept, never reported as a number), any other exception is
`error`. A failure that concerns a whole variant on a graph is one sample with source -1.

Reordering: a variant with a vertex order (bench/variants.py, graph/reorder.py) uploads,
prepares and traverses the relabelled graph, from its sources' new ids; each answer is
mapped back to the graph's own ids with its check, so the check and the measures are
those of every other variant. Computing the order and the relabelled graph (once
per graph and order, bench/inputs.Reorders) is the prepare record's `reorder_ms`, never
in a traversal's time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from gpubfs_cli.bench.energy import EnergyMeter
from gpubfs_cli.bench.inputs import ProblemInput
from gpubfs_cli.bench.schedule import Indexed, batches, warm_up_runs
from gpubfs_cli.bench.timing import prime, primes, timed_batch, timed_call, timed_traverse, warm_up
from gpubfs_cli.bench.unchecked import Unchecked
from gpubfs_cli.bench.verdict import call_samples, failed_call
from gpubfs_cli.core.device import Device
from gpubfs_cli.core.strategy import Strategy, knobs_dict
from gpubfs_cli.gpu.clocks import clock_entries, default_reader, readings
from gpubfs_cli.graph.csr import CSRGraph
from gpubfs_cli.graph.reorder import Reordered
from gpubfs_cli.results.schema import Prepare, Sample
from gpubfs_cli.results.status import classify

L2Flush = Callable[[Sequence[Device]], None]


class Records(Protocol):
    """Where measurements go (the runner's results document)."""

    def sample(self, sample: Sample) -> None: ...

    def prepare(self, prepare: Prepare) -> None: ...

    def clocks(self, entry: dict) -> None: ...

    def energy(self, entry: dict) -> None: ...


class Measure:
    """Measures variants for a run: its config, progress, records, and the machine hooks."""

    def __init__(self, config, progress, records: Records, flush_l2: L2Flush | None, read_clocks, read_energy=None):
        self.config, self.progress, self.records, self.flush_l2 = config, progress, records, flush_l2
        self.read_clocks = read_clocks  # None: the default reader, made on first use
        self.energy = EnergyMeter(config, progress, read_energy)

    def variant(self, name: str, pi: ProblemInput, indexed: Indexed, cls: type[Strategy], knobs,
                label: str, info: dict, modes: list[bool], later: int = 0, *, kd: dict | None = None,
                reorder: Callable[[], Reordered] | None = None) -> tuple[CSRGraph | None, set[bool]]:
        """The given modes of one variant on one graph over `indexed` (`later` more sources
        come in later rounds): the graph it put on a GPU (None: none), and the modes that
        ended here (failed, out of time). `kd`: the knobs its records carry (default: its
        strategy's); `reorder`: the relabelled graph it runs on (None: the graph itself)."""
        kd = knobs_dict(knobs) if kd is None else kd
        key = pi.problem.key
        sources = [s for _, s in indexed]
        stopped: set[bool] = set()

        def whole(status: str, reason: str, mode: bool | None = None) -> None:
            for m in modes if mode is None else [mode]:
                self.records.sample(Sample(name, cls.name, kd, -1, None, 0, 0, None, status, m, reason, problem=key))
                stopped.add(m)
            self.progress.advance_by(len(sources) * (len(modes) if mode is None else 1))

        def prepared(status: str, reason: str | None = None, **kw) -> None:
            self.records.prepare(Prepare(name, cls.name, kd, kw.pop("ms", None), status=status, reason=reason,
                                         problem=key, devices=[str(d) for d in cls.devices_for(knobs)], **kw))

        reason = pi.failure or cls.unavailable_reason()
        if reason is not None:
            self.unavailable(name, key, cls, knobs, modes, reason, len(sources),
                             "error" if pi.failure else "unavailable", kd=kd)
            return None, set(modes)

        strategy = cls(knobs)
        strategy.plan_predecessors(any(modes))
        uploaded = strategy.device.is_gpu
        graph, view = pi.graph, None
        self.progress.describe(f"{name} · {label}: " + ("reorder, " if reorder else "") + "upload and prepare")
        try:
            step = "reorder: "
            try:
                if reorder is not None:
                    view = reorder()
                    graph = view.graph
                step = "upload: "
                upload_ms, _ = timed_call(lambda: strategy.upload(graph), strategy.devices)
                if uploaded and view is None:  # the first upload of a graph moves it; later ones find it there
                    info["upload_ms"] = upload_ms if info.get("upload_ms") is None else info["upload_ms"]
                step = ""
                ms, _ = timed_call(lambda: strategy.prepare(graph), strategy.devices)
            except Exception as exc:
                status, why = classify(exc)
                went = uploaded and step != "reorder: "
                own_upload = info["upload_ms"] if view is None else upload_ms
                prepared(status, step + why, upload_ms=own_upload if uploaded and not step else None,
                         reorder_ms=view.ms if view else None)
                whole(status, step + why)
                return graph if went else None, stopped
            prepared("ok", ms=ms, bytes=int(strategy.prepared_bytes()), setup=strategy.prepare_details() or None,
                     upload_ms=(info["upload_ms"] if view is None else upload_ms) if uploaded else None,
                     reorder_ms=view.ms if view else None, device_bytes=strategy.device_bytes())
            new_id = (lambda v: v) if view is None else view.source
            try:  # a peer runs its whole batch here (core/strategy.py plan_sources)
                if pi.references is not None and pi.references.reaches is not None:
                    strategy.plan_reaches({new_id(s): r for s, r in zip(pi.references.sources, pi.references.reaches,
                                                                         strict=True)})
                strategy.plan_sources([new_id(s) for s in sources])
            except Exception as exc:
                whole(*classify(exc))
                return graph if uploaded else None, stopped
            for mode in modes:
                if mode and not cls.supports_predecessors:
                    whole("unavailable", cls.no_predecessors_reason or f"{cls.name} has no {pi.problem.option} output",
                          mode)
                    continue
                failure = warm_up(strategy, new_id(sources[0]), mode, warm_up_runs(self.config.warmup,
                                  self.config.warmup_ms), self.config.time_limit_s)
                if failure is not None:
                    whole(*failure, mode)
                    continue
                before = self._read_clocks(strategy.devices)
                mode_label = label + (f" {pi.problem.option_label}" if mode else "")
                samples = self._sources(name, pi, indexed, strategy, kd, mode, mode_label, later, view)
                if samples is None:
                    stopped.add(mode)
                self._clocks(name, key, cls.name, kd, mode, before, self._read_clocks(strategy.devices))
                if not later:  # the variant's last turn on this graph
                    self.energy.measure(self.records, strategy, mode, samples, new_id, name, key, kd, mode_label)
        finally:
            strategy.release()
        return graph if uploaded else None, stopped

    def unavailable(self, name: str, problem: str, cls: type[Strategy], knobs, modes: list[bool], reason: str,
                    sources: int, status: str = "unavailable", *, kd: dict | None = None) -> None:
        """A variant that cannot run here (or on this input): its prepare record and one
        sample with source -1 per mode; nothing of the graph's is needed."""
        kd = knobs_dict(knobs) if kd is None else kd
        self.records.prepare(Prepare(name, cls.name, kd, None, status=status, reason=reason, problem=problem,
                                     devices=[str(d) for d in cls.devices_for(knobs)]))
        for m in modes:
            self.records.sample(Sample(name, cls.name, kd, -1, None, 0, 0, None, status, m, reason, problem=problem))
        self.progress.advance_by(sources * len(modes))

    def _sources(self, name: str, pi: ProblemInput, indexed: Indexed, strategy: Strategy, kd: dict,
                 mode: bool, label: str, later: int = 0, view: Reordered | None = None) -> list[Sample] | None:
        """Time and check one mode of a prepared variant from each (index, source) of
        `indexed`, a call per source or per batch: its samples, or None if it stopped
        early (the rest, `later` ones included, skipped). With `view`, the strategy answers
        from the sources' new ids and the answers are mapped back after the timer stops."""
        cfg = self.config
        limit_ms = cfg.time_limit_s * 1000.0
        size = strategy.batch_size()
        n, done, kept = len(indexed), 0, []
        groups = list(batches(indexed, size))
        before = groups[-1] if cfg.prime and primes(strategy) else None  # the prime call's sources

        def asked_of(group) -> list[int]:  # the ids the strategy answers from
            return [s if view is None else view.source(s) for _, s in group]

        def check(group, answers, ms, left) -> None:  # one call's samples checked and recorded
            if view is not None:  # the answers in the graph's own ids
                answers = [view.answer(a) for a in answers]
            for sample in call_samples(name, pi, strategy.name, kd, group, answers, ms, mode,
                                       cfg.time_limit_s, left, batched=size > 1):
                self.records.sample(sample)
                kept.append(sample)

        unchecked = Unchecked(check)

        try:
            for group in groups:
                self.progress.describe(f"{name} · {label} · source {done + 1}/{n}"
                                       + (f" (a batch of {len(group)})" if size > 1 else ""))
                left = n - done - len(group) + later  # sources after this call
                stage = "prime: "  # a failed prime call or flush is the sample's failure, named as such
                try:
                    if before is not None:
                        prime(strategy, asked_of(before), mode)
                        before = group
                    stage = "L2 flush: "
                    if self.flush_l2 is not None:
                        self.flush_l2(strategy.devices)
                    stage = ""
                    asked = asked_of(group)
                    if size > 1:
                        ms, answers = timed_batch(strategy, asked, mode)
                    else:
                        ms, answer = timed_traverse(strategy, asked[0], mode)
                        answers = [answer]
                except Exception as exc:
                    unchecked.settle()
                    self.records.sample(failed_call(name, pi, strategy.name, kd, group, mode, exc, stage, left))
                    self.progress.advance_by(n - done)
                    return None
                unchecked.add(group, answers, ms, left)
                done += len(group)
                if ms / len(group) > limit_ms:  # call_samples marks them out-of-time
                    self.progress.advance_by(n - done + len(group))
                    return None
                self.progress.advance_by(len(group))
            return kept
        finally:  # every way out (the end, the time limit, an interrupt) checks what was timed
            unchecked.settle()

    # ------------------------------------------------------------------ the machine
    def _read_clocks(self, devices: Sequence[Device]) -> dict:
        if self.read_clocks is None and any(d.is_gpu for d in devices):
            self.read_clocks = default_reader()
        return readings(self.read_clocks, devices)  # nothing for CPU devices

    def _clocks(self, name, problem, strategy, kd, mode, before, after) -> None:
        for entry in clock_entries(before, after):
            self.records.clocks({"dataset": name, "problem": problem, "strategy": strategy, "knobs": kd,
                                 "predecessors": bool(mode), "l2": self.config.l2, **entry})
