"""The energy a GPU variant draws (bench/energy.py, gpu/energy.py): after its timed sources
on a graph, its traversals replayed back to back until `energy_s` has passed, its GPUs'
counters read around them; the record's figures, why nothing was measured (no NVML, a
counter the GPU lacks, a CPU strategy, timed sources that ended early), nothing at all
with energy_s 0, the key in run configs, and the journal that keeps the records. No GPU
here: NVML's counter, the host clock and the GPU's synchronization are stand-ins."""

from __future__ import annotations

import json

import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.bench import energy as energy_module
from gpubfs_cli.bench import measure as measure_module
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.core.device import gpu
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.errors import UserError
from gpubfs_cli.gpu import backend, clocks
from gpubfs_cli.gpu import energy as gpu_energy
from gpubfs_cli.graph.samples import grid
from gpubfs_cli.results.journal import journal_path
from gpubfs_cli.results.replay import read_journal
from gpubfs_cli.results.schema import load_results
from tests.bench.host_timers import logged_timers

LOG: list = []
CLOCK = [0.0]  # the host clock the replay reads: a quarter of a second a call
JOULES_A_CALL = 100  # what each GPU's stand-in counter gains a traversal call


class FakeGpu(Strategy):
    """A CPU traversal that says it runs on GPU 0, logging each call."""

    name = "fake.gpu"
    paper = "test"
    section = "test"
    device_kind = "gpu"
    stop_on: str | None = None  # Ctrl-C at the first call on this graph

    def traverse(self, source, predecessors=False):
        if self.graph.name == FakeGpu.stop_on:
            raise KeyboardInterrupt
        LOG.append(("traverse", source))
        CLOCK[0] += 0.25
        return sequential_bfs(self.graph, source, predecessors)


class FakeBatch(FakeGpu):
    name = "fake.batch"

    def batch_size(self):
        return 2

    def traverse_batch(self, sources, predecessors=False):
        LOG.append(("batch", tuple(sources)))
        CLOCK[0] += 0.25
        return [sequential_bfs(self.graph, s, predecessors) for s in sources]


class TwoGpus(FakeGpu):
    name = "fake.two"

    @classmethod
    def devices_for(cls, knobs):
        return (gpu(0), gpu(1))


class FailsSecond(FakeGpu):
    name = "fake.fails"

    def traverse(self, source, predecessors=False):
        if sum(1 for e in LOG if e[0] == "traverse") == 1:
            raise RuntimeError("device lost")
        return super().traverse(source, predecessors)


REGISTRY = {"bfs": {c.name: c for c in (SequentialBfs, FakeGpu, FakeBatch, TwoGpus, FailsSecond)}}


@pytest.fixture(autouse=True)
def stand_ins(monkeypatch):
    """The timers on the host clock (logged), the GPUs' synchronization logged, and the
    replay's clock the stand-in one."""

    timed, traverse, batch = logged_timers(LOG)

    LOG.clear()
    CLOCK[0] = 0.0
    FakeGpu.stop_on = None
    monkeypatch.setattr(measure_module, "timed_call", timed)
    monkeypatch.setattr(measure_module, "timed_traverse", traverse)
    monkeypatch.setattr(measure_module, "timed_batch", batch)
    monkeypatch.setattr(backend, "synchronize", lambda devices: LOG.append(("sync", tuple(map(str, devices)))))
    monkeypatch.setattr(energy_module, "perf_counter", lambda: CLOCK[0])


def counter(device) -> int:
    """Each GPU's total energy (mJ): JOULES_A_CALL a traversal call logged so far."""
    LOG.append(("energy", str(device)))
    calls = sum(1 for e in LOG if e[0] in ("traverse", "batch"))
    return 7_000_000 * (device.index + 1) + 1000 * JOULES_A_CALL * calls


def clock_reader(device):
    return clocks.ClockReading(sm_mhz=1980, mem_mhz=2619, temperature_c=40, via="fake")


def runner(tmp_path, strategies, *, read_energy=counter, out="out.json", graphs=("grid6",), resume=None, **raw):
    made = {name: grid(6, 6, name=name) for name in graphs}
    raw = {"name": "t", "datasets": list(graphs), "strategies": strategies, "sources": 3, "warmup": 0,
           "energy_s": 1.0, **raw}
    cfg = build_config(raw, dataset_check=lambda name: None, registry=REGISTRY)
    return Runner(cfg, load_graph=lambda spec, d, p: (made[spec.name], {}), out_path=tmp_path / out,
                  environment={"git_commit": None, "command_line": "test"}, registry=REGISTRY,
                  read_clocks=clock_reader, read_energy=read_energy, resume=resume)


def run(tmp_path, strategies, **kw) -> dict:
    return load_results(runner(tmp_path, strategies, **kw).run().path)


def after_timed(kinds=("sync", "energy", "traverse", "batch")) -> list:
    """What the log holds after the last timed call: the replay and its readings."""
    last = max(i for i, e in enumerate(LOG) if e == ("/timed",))
    return [e for e in LOG[last + 1:] if e[0] in kinds]


def edges(doc, key="edges") -> dict[int, int]:
    return {s["source"]: s[key] for s in doc["samples"]}


# ------------------------------------------------------------------ the replay
def test_the_replay_cycles_the_sources_until_energy_s_and_records_its_figures(tmp_path):
    doc = run(tmp_path, ["fake.gpu"])
    a, b, c = doc["sources"]["grid6"]
    # after the last timed call, outside every timer: the GPU waited for, its counter
    # read, the sources in turn until a second has passed (4 calls of 0.25 s), waited
    # for again, read again; no answer checked, nothing timed
    assert after_timed() == [("sync", ("gpu:0",)), ("energy", "gpu:0"), ("traverse", a), ("traverse", b),
                             ("traverse", c), ("traverse", a), ("sync", ("gpu:0",)), ("energy", "gpu:0")]
    e, g500 = edges(doc), edges(doc, "edges_graph500")
    assert doc["energy"] == [{
        "dataset": "grid6", "problem": "bfs", "strategy": "fake.gpu", "knobs": {}, "predecessors": False,
        "l2": "warm", "prime": False, "devices": ["gpu:0"], "energy_j": 400.0, "seconds": 1.0, "traversals": 4,
        "mean_w": 400.0, "edges": 2 * e[a] + e[b] + e[c], "edges_graph500": 2 * g500[a] + g500[b] + g500[c],
        "reason": None}]
    assert doc["config"]["energy_s"] == 1.0
    assert [s["status"] for s in doc["samples"]] == ["ok"] * 3


def test_a_batch_strategy_replays_its_batches(tmp_path):
    doc = run(tmp_path, ["fake.batch"])
    a, b, c = doc["sources"]["grid6"]
    assert after_timed(("batch",)) == [("batch", (a, b)), ("batch", (c,))] * 2
    (e,) = doc["energy"]
    assert (e["traversals"], e["energy_j"], e["seconds"]) == (6, 400.0, 1.0)
    n = edges(doc)
    assert e["edges"] == 2 * (n[a] + n[b] + n[c])


def test_every_gpu_of_a_variant_is_read_and_summed(tmp_path):
    doc = run(tmp_path, ["fake.two"])
    (e,) = doc["energy"]
    assert e["devices"] == ["gpu:0", "gpu:1"] and (e["energy_j"], e["mean_w"]) == (800.0, 800.0)
    assert after_timed(("energy",)) == [("energy", "gpu:0"), ("energy", "gpu:1")] * 2


def test_a_reordered_variant_replays_from_the_ids_it_was_timed_from(tmp_path):
    doc = run(tmp_path, ["fake.gpu"], reorder="degree", energy_s=0.5)
    timed = [LOG[i + 1][1] for i, e in enumerate(LOG) if e == ("timed",) and LOG[i + 1][0] == "traverse"]
    assert after_timed(("traverse",)) == [("traverse", s) for s in timed[:2]]
    assert doc["energy"][0]["knobs"] == {"reorder": "degree"} and doc["energy"][0]["traversals"] == 2


def test_one_record_per_mode_after_the_last_turn(tmp_path):
    """With rounds, the replay comes after a variant's last turn on the graph, over its
    sources; each mode has its own."""
    doc = run(tmp_path, ["fake.gpu"], rounds=3, predecessors="both", energy_s=0.5)
    c = doc["sources"]["grid6"][2]
    assert [(e["predecessors"], e["traversals"]) for e in doc["energy"]] == [(False, 2), (True, 2)]
    assert after_timed(("traverse",)) == [("traverse", c)] * 2
    assert doc["energy"][0]["edges"] == 2 * edges(doc)[c]


# ------------------------------------------------------------------ nothing measured
def test_without_pynvml_the_record_says_why_and_nothing_is_replayed(tmp_path, monkeypatch):
    monkeypatch.setattr(clocks, "_pynvml_importable", lambda: False)
    doc = run(tmp_path, ["fake.gpu"], read_energy=None)
    (e,) = doc["energy"]
    assert e["reason"] == "no pynvml (nvidia-ml-py): NVML's energy counter cannot be read"
    assert [e[k] for k in ("energy_j", "seconds", "traversals", "mean_w", "edges")] == [None] * 5
    assert after_timed(("traverse",)) == []
    assert [s["status"] for s in doc["samples"]] == ["ok"] * 3  # energy never fails a run


class NotSupported(Exception):
    pass


NotSupported.__name__ = "NVMLError_NotSupported"


class FakeNvml:
    """pynvml's calls the energy reader makes; GPU 1 lacks the counter."""

    def nvmlDeviceGetHandleByPciBusId(self, bus):
        return int(bus[-1])

    def nvmlDeviceGetTotalEnergyConsumption(self, handle):
        if handle == 1:
            raise NotSupported("Not Supported")
        return 123_456_789


def test_nvml_gives_the_counter_or_says_the_gpu_lacks_it(tmp_path, monkeypatch):
    monkeypatch.setattr(clocks, "_nvml", FakeNvml)
    monkeypatch.setattr(clocks, "_pynvml_importable", lambda: True)
    monkeypatch.setattr(clocks, "_pci_bus_id", lambda device: f"00000000:3B:00.{device.index}")
    assert gpu_energy.default_energy_reader()(gpu(0)) == 123_456_789
    with pytest.raises(gpu_energy.EnergyUnavailable, match="^nvml: NVMLError_NotSupported: Not Supported$"):
        gpu_energy.read_energy_nvml(gpu(1))
    doc = run(tmp_path, ["fake.two"], read_energy=None)
    assert doc["energy"][0]["reason"] == "nvml: NVMLError_NotSupported: Not Supported"
    assert after_timed(("traverse",)) == []


def test_a_cpu_strategy_and_a_variant_that_ended_early_say_why(tmp_path):
    doc = run(tmp_path, ["cpu.sequential", "fake.fails"])
    cpu, failed = doc["energy"]
    assert cpu["strategy"] == "cpu.sequential" and cpu["devices"] == [] and cpu["energy_j"] is None
    assert cpu["reason"] == ("cpu.sequential runs on no GPU of its own (a CPU strategy, or a peer's binary): "
                             "no GPU energy counter to read around its traversals")
    assert failed["reason"] == "its timed sources ended early (a failure or the time limit): nothing to replay"
    assert not any(e[0] == "energy" for e in LOG)


def test_a_counter_that_fails_or_goes_back_is_a_reason(tmp_path):
    readings = iter([5_000, OSError("gone")])

    def flaky(device):
        value = next(readings)
        if isinstance(value, Exception):
            raise value
        return value

    assert run(tmp_path, ["fake.gpu"], read_energy=flaky)["energy"][0]["reason"] == "OSError: gone"
    backwards = iter([9_000, 4_000])
    doc = run(tmp_path, ["fake.gpu"], read_energy=lambda device: next(backwards), out="back.json")
    assert doc["energy"][0]["reason"] == ("the energy counter of gpu:0 went back from 9000 to 4000 mJ "
                                          "(the driver reloaded?)")


def test_energy_s_0_records_nothing_and_replays_nothing(tmp_path):
    doc = run(tmp_path, ["cpu.sequential", "fake.gpu"], energy_s=0)
    assert doc["energy"] == [] and "energy_s" not in doc["config"]
    assert sum(1 for e in LOG if e[0] == "traverse") == 3  # the timed calls alone
    assert not any(e[0] == "energy" for e in LOG)


@pytest.mark.parametrize("value, expected", [
    (-1, "command line: energy_s: expected 0 or more seconds (0: off), got -1.0"),
    ("long", "command line: energy_s: expected int or float, got 'long'"),
    (True, "command line: energy_s: expected int or float, got True"),
    (float("nan"), "command line: energy_s: expected 0 or more seconds (0: off), got nan"),
])
def test_energy_s_is_checked_as_every_number_of_a_config(value, expected):
    with pytest.raises(UserError) as err:
        build_config({"datasets": ["g"], "strategies": ["fake.gpu"], "energy_s": value},
                     dataset_check=lambda name: None, registry=REGISTRY)
    assert str(err.value) == expected


# ------------------------------------------------------------------ the journal
def test_a_stopped_runs_journal_keeps_its_energy_and_resume_adds_the_rest(tmp_path):
    FakeGpu.stop_on = "h"  # Ctrl-C on the second graph, after the first graph's replay
    outcome = runner(tmp_path, ["fake.gpu"], graphs=("g", "h")).run()
    assert outcome.interrupted and outcome.journal == journal_path(tmp_path / "out.json")
    replayed = read_journal(outcome.journal).results()
    assert [(e["dataset"], e["traversals"], e["energy_j"]) for e in replayed["energy"]] == [("g", 4, 400.0)]
    assert load_results(outcome.path)["energy"] == replayed["energy"]
    FakeGpu.stop_on = None
    resumed = runner(tmp_path, ["fake.gpu"], graphs=("g", "h"), resume=outcome.journal).run()
    assert [e["dataset"] for e in load_results(resumed.path)["energy"]] == ["g", "h"]


def test_a_journal_line_with_negative_energy_is_one_error(tmp_path):
    FakeGpu.stop_on = "h"
    journal = runner(tmp_path, ["fake.gpu"], graphs=("g", "h")).run().journal
    lines = journal.read_text().splitlines()
    number = next(i for i, line in enumerate(lines, start=1) if '"energy_j": 400.0' in line
                  or '"energy_j":400.0' in line)
    record = json.loads(lines[number - 1])
    record["energy"][0]["energy_j"] = -1.0
    lines[number - 1] = json.dumps(record)
    journal.write_text("\n".join(lines) + "\n")
    with pytest.raises(UserError) as err:
        read_journal(journal)
    assert str(err.value) == (f"{journal}:{number}: an energy record of fake.gpu on g: energy_j: expected a "
                              "number >= 0, found -1.0")
