"""Where a run's measurements go: its journal (results/journal.py), turn by turn.

Measure hands each sample, prepare, clock reading and energy record here
(bench/measure.Records); they wait in memory until the runner ends the turn, or
FLUSH_EVERY_S passes in a long one, and then go to disk in one record, with the graph's
facts first whenever those changed (its depths, its upload time). Every write holds off
Ctrl-C and signals until it is whole (bench/stop.py). The results document is the
journal's replay, so what the run writes and what the journal holds never differ.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path

from gpubfs_cli.bench.environment import apply_end, run_end
from gpubfs_cli.bench.resume import check_same_run
from gpubfs_cli.bench.stop import Stop
from gpubfs_cli.bench.variants import equivalent_teps
from gpubfs_cli.core.knobs import knobs_key
from gpubfs_cli.core.problem import get_problem
from gpubfs_cli.errors import UserError
from gpubfs_cli.files import plain_json
from gpubfs_cli.results.journal import FLUSH_EVERY_S, Journal, claim, open_named
from gpubfs_cli.results.schema import Prepare, Sample, write_results
from gpubfs_cli.results.status import nothing_measured


class RunRecords:
    def __init__(self, journal: Journal, stop: Stop, l2: str, prime: bool):
        self.journal = journal
        self.stop = stop
        self.l2, self.prime = l2, prime  # stamped on every sample: the run's modes
        self.variant = ""  # the label of the variant whose records are pending
        self._pending: dict[str, list] = _nothing_pending()
        self._flushed = time.monotonic()
        self._graph: tuple[str, str, dict] | None = None  # (name, spec label, info) of the graph in hand
        self._journaled = {k: _text(v) for k, v in self.doc["datasets"].items()}  # name -> its info as journaled

    @classmethod
    def new(cls, out: Path, named: bool, config, environment: dict, stop: Stop, replace: bool,
            variants: list[tuple]) -> RunRecords:
        """A new run's journal: its header (machine, config, problems, and the plan: each
        variant's knobs as its samples record them, so a sample of any other is refused),
        under `out` when `named`, else under the first free name of `out`
        (results/journal.claim). `variants`: bench/variants.made_variants of the config."""
        header = {"results": str(out), "created": utc_now(), "environment": environment, "config": config.to_dict(),
                  "plan": [{"problem": v.problem, "strategy": c.name, "knobs": kd} for v, c, _, kd in variants],
                  "problems": {p: get_problem(p).describe() for p in dict.fromkeys(v.problem for v in config.variants)},
                  "equivalent_teps": equivalent_teps(config.variants)}
        journal = open_named(out, header, replace) if named else claim(out, header)[1]
        return cls(journal, stop, config.l2, config.prime)

    @classmethod
    def resume(cls, path: Path, config, environment: dict, stop: Stop) -> RunRecords:
        """A stopped run's journal, reopened once its config, machine and code are found
        the same (bench/resume.check_same_run), with a record that the run goes on."""
        journal = Journal.reopen(path)
        try:
            check_same_run(path, journal.replay.header, config.to_dict(), environment)
            journal.write({"kind": "resume", "at": utc_now(), "command_line": environment.get("command_line"),
                           "git_commit": environment.get("git_commit"), "source_tree": environment.get("source_tree")})
        except BaseException:
            journal.close()
            raise
        return cls(journal, stop, config.l2, config.prime)

    @property
    def doc(self) -> dict:
        return self.journal.replay.doc

    def write(self, record: dict) -> None:
        with self.stop.held():
            self.journal.write(record)

    def graph(self, name: str, label: str, info: dict, sources: list[int] | None = None) -> None:
        """The graph in hand (`info` is its results entry, updated in place as the run learns
        more); with its `sources`, journaled now, else at the next flush."""
        self._graph = (name, label, info)
        if sources is not None:
            self._journal_graph(sources)

    def sample(self, sample: Sample) -> None:
        sample.l2 = self.l2
        sample.prime = self.prime
        self._pending["samples"].append(sample.to_dict())
        if time.monotonic() - self._flushed > FLUSH_EVERY_S:  # a long turn goes to disk in parts
            self.flush()

    def prepare(self, prepare: Prepare) -> None:
        self._pending["prepares"].append(prepare.to_dict())

    def clocks(self, entry: dict) -> None:
        self._pending["clocks"].append(entry)

    def energy(self, entry: dict) -> None:
        self._pending["energy"].append(entry)

    def flush(self) -> None:
        """The graph's facts (when they changed) and the pending records to the journal."""
        with self.stop.held():
            self._journal_graph()
            if any(self._pending.values()):
                self.journal.write({"kind": "measured", "variant": self.variant, **self._pending})
                self._pending = _nothing_pending()
            self._flushed = time.monotonic()

    def end(self, *, interrupted: bool, stopped_by: str | None, during: str | None, error: BaseException | None,
            variants: list[tuple], read_clocks) -> None:
        """The run's end record, with the machine as the run leaves it (environment_end)
        and the error that stopped it in one line (`failed`)."""
        end = self._environment_end(variants, read_clocks)
        failed = None
        if error is not None:
            text = " ".join(str(error).split())
            failed = text if isinstance(error, UserError) else f"{type(error).__name__}: {text}"[:300]
        self.write({"kind": "end", "finished": utc_now(), "complete": not interrupted and failed is None,
                    "interrupted": interrupted, "stopped_by": stopped_by, "interrupted_during": during,
                    "failed": failed, "environment_end": end})
        apply_end(self.doc["environment"], end)  # the journal's replay leaves it to the runner

    def _environment_end(self, variants: list[tuple], read_clocks) -> dict:
        """bench/environment.run_end: the GPUs' clocks and state, NCCL's version where a
        multi-GPU strategy ran, the peer binaries prepared. Never fails the run: what goes
        wrong is its `reason`."""
        try:
            prepared = [p for p in self.doc["prepares"] if p.get("status") == "ok"]
            ran = {(p.get("problem", "bfs"), p.get("strategy"), knobs_key(p.get("knobs") or {})) for p in prepared}
            peers = [(cls.name, v.problem, list(cls.peer_binaries(knobs))) for v, cls, knobs, kd in variants
                     if callable(getattr(cls, "peer_binaries", None)) and (v.problem, cls.name, knobs_key(kd)) in ran]
            # several devices in one process, or ranks that formed an NCCL communicator
            # (under mpiexec each process names its own GPU alone)
            multi = any(len(p.get("devices") or []) > 1 or "nccl_form_ms" in (p.get("setup") or {})
                        for p in prepared)
            return run_end(self.doc["environment"], read_clocks=read_clocks, peers=peers, multi_gpu=multi)
        except Exception as exc:
            return {"reason": f"{type(exc).__name__}: {exc}"[:300]}

    def write_results(self, path: Path) -> bool:
        """The results file from the journal's replay, written atomically; False (nothing
        written) while nothing was measured (no sample, or only unavailable ones)."""
        doc = self.journal.replay.results()
        if nothing_measured(doc["samples"]):
            return False
        try:
            write_results(path, doc)
        except UserError as exc:  # a full disk, a folder gone: what was measured is in the journal
            raise UserError(f"{exc}; the journal keeps every sample measured: once the file can be written, "
                            f"gpubfs run --resume {self.journal.path}") from None
        return True

    def _journal_graph(self, sources: list[int] | None = None) -> None:
        if self._graph is None:
            return
        name, label, info = self._graph
        text = _text(info)
        if sources is None and self._journaled.get(name) == text:
            return
        record = {"kind": "dataset", "name": name, "spec": label, "info": info}
        if sources is not None:
            record["sources"] = [int(s) for s in sources]
        self.write(record)
        self._journaled[name] = text


def _nothing_pending() -> dict[str, list]:
    return {"samples": [], "prepares": [], "clocks": [], "energy": []}


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _text(info: dict) -> str:
    return json.dumps(plain_json(info), sort_keys=True)
