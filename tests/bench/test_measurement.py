"""How GPU samples are measured: the prime call and the cold-L2 flush (once per timed
sample, never inside the timed region), the clocks read before and after each group,
what the results file and the report say about them, and the `l2` and `prime` config
keys."""

from __future__ import annotations

import json
import os
import stat

import pytest
from typer.testing import CliRunner

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.bench import measure as measure_module
from gpubfs_cli.bench.config import build_config, load_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.cli import app
from gpubfs_cli.core.device import gpu
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.errors import UserError
from gpubfs_cli.gpu import backend, clocks
from gpubfs_cli.gpu.l2 import L2Flusher
from gpubfs_cli.graph.samples import grid
from gpubfs_cli.report.build import overview
from gpubfs_cli.report.load import load_many, shown_path
from gpubfs_cli.report.render import render
from gpubfs_cli.results.groups import group_samples
from gpubfs_cli.results.schema import doc_samples, load_results
from tests.bench.host_timers import logged_timers
from tests.test_cli_run import _one_line

LOG: list = []


class FakeGpu(Strategy):
    """A CPU traversal that says it runs on GPU 0 (the runner's timer is swapped for the
    host clock below), logging each traverse() call."""

    name = "fake.gpu"
    paper = "test"
    section = "test"
    device_kind = "gpu"

    def traverse(self, source, predecessors=False):
        LOG.append(("traverse", source))
        return sequential_bfs(self.graph, source, predecessors)


REGISTRY = {"bfs": {c.name: c for c in (SequentialBfs, FakeGpu)}}


@pytest.fixture
def host_timer(monkeypatch):
    """The runner's timers on the host clock, logging where each timed region starts and ends."""

    logged, traverse, _ = logged_timers(LOG)

    LOG.clear()
    monkeypatch.setattr(measure_module, "timed_call", logged)
    monkeypatch.setattr(measure_module, "timed_traverse", traverse)


def flush(devices):
    LOG.append(("flush", tuple(str(d) for d in devices)))


def reader(device):
    """Readings that change with each call, so before and after differ."""
    k = sum(1 for e in LOG if e[0] == "clock")
    LOG.append(("clock", str(device)))
    return clocks.ClockReading(sm_mhz=1980 - k, mem_mhz=2619, temperature_c=40 + k, via="fake")


def run(tmp_path, strategies, *, flush_l2=flush, read_clocks=reader, out="out.json", **raw):
    g = grid(6, 6, name="grid6")
    raw = {"name": "t", "datasets": ["grid6"], "strategies": strategies, "sources": 3, "warmup_ms": 0, **raw}  # counts runs
    cfg = build_config(raw, dataset_check=lambda name: None, registry=REGISTRY)
    r = Runner(cfg, load_graph=lambda spec, d, p: (g, {}), out_path=tmp_path / out,
               environment={"git_commit": None, "command_line": "test"}, registry=REGISTRY,
               flush_l2=flush_l2, read_clocks=read_clocks)
    outcome = r.run()
    return outcome, load_results(outcome.path)


def test_cold_flushes_once_per_sample_outside_the_timed_region(tmp_path, host_timer):
    _, doc = run(tmp_path, ["fake.gpu"], l2="cold", warmup=1)
    samples = doc["samples"]
    assert [s["status"] for s in samples] == ["ok"] * 3 and {s["l2"] for s in samples} == {"cold"}
    sources = doc["sources"]["grid6"]
    timed_part = [e for e in LOG if e[0] in ("flush", "timed", "traverse", "/timed")]
    # upload, prepare, the untimed warm-up, then per source: flush, and only then the timer
    per_source = [e for s in sources
                  for e in (("flush", ("gpu:0",)), ("timed",), ("traverse", s), ("/timed",))]
    assert timed_part[-12:] == per_source
    assert timed_part[:5] == [("timed",), ("/timed",), ("timed",), ("/timed",), ("traverse", sources[0])]
    assert sum(1 for e in LOG if e[0] == "flush") == 3


def test_warm_never_flushes(tmp_path, host_timer):
    _, doc = run(tmp_path, ["fake.gpu"])
    assert not any(e[0] == "flush" for e in LOG)
    assert doc["config"]["l2"] == "warm" and {s["l2"] for s in doc["samples"]} == {"warm"}


def test_a_failing_flush_is_the_samples_failure(tmp_path, host_timer):
    def broken(devices):
        raise RuntimeError("out of device memory for the flush buffer")

    _, doc = run(tmp_path, ["fake.gpu"], l2="cold", flush_l2=broken)
    (s,) = doc["samples"]
    assert s["status"] == "error"
    assert s["reason"] == ("L2 flush: RuntimeError: out of device memory for the flush buffer "
                           "(remaining 2 sources skipped)")
    assert [e for e in LOG if e[0] == "traverse"] == [("traverse", doc["sources"]["grid6"][0])]  # the warm-up


@pytest.fixture
def synced(monkeypatch):
    """backend.synchronize logged instead of run (no GPU here)."""
    monkeypatch.setattr(backend, "synchronize", lambda devices: LOG.append(("sync", tuple(map(str, devices)))))


def test_prime_calls_once_before_each_timed_call_outside_the_timer(tmp_path, host_timer, synced):
    """Per source: an untimed traversal from the source timed before it (the first from
    the last source), waited for; then the L2 flush; only then the timer."""
    _, doc = run(tmp_path, ["fake.gpu"], prime=True, l2="cold", warmup=1)
    assert [s["status"] for s in doc["samples"]] == ["ok"] * 3 and doc["config"]["prime"] is True
    assert all(s["prime"] is True for s in doc["samples"])
    a, b, c = doc["sources"]["grid6"]
    tail = [e for e in LOG if e[0] in ("traverse", "sync", "flush", "timed", "/timed")][-18:]
    assert tail == [e for before, s in ((c, a), (a, b), (b, c))
                    for e in (("traverse", before), ("sync", ("gpu:0",)), ("flush", ("gpu:0",)),
                              ("timed",), ("traverse", s), ("/timed",))]


def test_prime_leaves_cpu_strategies_and_unprimed_runs_alone(tmp_path, host_timer, synced):
    _, doc = run(tmp_path, ["cpu.sequential", "fake.gpu"], prime=True)
    assert sum(1 for e in LOG if e[0] == "sync") == 3  # fake.gpu's three samples alone
    LOG.clear()
    _, doc = run(tmp_path, ["fake.gpu"], out="plain.json")
    assert not any(e[0] == "sync" for e in LOG) and "prime" not in doc["config"]
    assert not any("prime" in s for s in doc["samples"])
    assert [e[0] for e in LOG].count("traverse") == 3 + 1  # the samples and one warm-up


def test_a_failing_prime_call_is_the_samples_failure(tmp_path, host_timer, monkeypatch):
    def broken(devices):
        raise RuntimeError("device lost")

    monkeypatch.setattr(backend, "synchronize", broken)
    _, doc = run(tmp_path, ["fake.gpu"], prime=True)
    (s,) = doc["samples"]
    assert (s["status"], s["reason"]) == ("error", "prime: RuntimeError: device lost (remaining 2 sources skipped)")


def test_the_report_says_which_files_were_primed(tmp_path, host_timer, synced):
    run(tmp_path, ["fake.gpu"], prime=True, out="primed.json")
    run(tmp_path, ["fake.gpu"], out="plain.json")
    pool = load_many([tmp_path / "primed.json", tmp_path / "plain.json"])
    assert [(g.prime, len(g.samples)) for g in group_samples(pool.samples)] == [(True, 3), (False, 3)]
    both = overview(pool, "ms")
    assert both.header[0].startswith(f"{shown_path(tmp_path / 'primed.json')}: environment not recorded; L2 warm, primed; ")
    assert both.header[1].startswith(f"{shown_path(tmp_path / 'plain.json')}: environment not recorded; L2 warm; ")
    assert both.header[2].startswith("these files mix primed and unprimed runs")
    alone = overview(load_many([tmp_path / "primed.json"]), "ms")
    assert not any("mix primed" in h for h in alone.header)


def test_clocks_before_and_after_each_gpu_group(tmp_path, host_timer):
    _, doc = run(tmp_path, ["cpu.sequential", "fake.gpu"], predecessors="both", l2="cold")
    entries = doc["clocks"]
    assert [(e["strategy"], e["predecessors"], e["device"], e["l2"]) for e in entries] == [
        ("fake.gpu", False, "gpu:0", "cold"), ("fake.gpu", True, "gpu:0", "cold")]  # none for the CPU
    readings = [(e["before"]["sm_mhz"], e["after"]["sm_mhz"]) for e in entries]
    assert readings == [(1980, 1979), (1978, 1977)] and all(e["reason"] is None for e in entries)
    assert entries[0]["before"] == {"sm_mhz": 1980, "mem_mhz": 2619, "temperature_c": 40, "via": "fake"}
    # each group's readings bracket its timed samples, never inside a timed region
    for group in (False, True):
        start = [i for i, e in enumerate(LOG) if e[0] == "clock"][2 * group]
        stop = [i for i, e in enumerate(LOG) if e[0] == "clock"][2 * group + 1]
        inside = [e[0] for e in LOG[start + 1:stop]]
        assert inside == ["flush", "timed", "traverse", "/timed"] * 3
    depth = 0
    for e in LOG:
        depth += {"timed": 1, "/timed": -1}.get(e[0], 0)
        assert not (depth and e[0] in ("clock", "flush"))


def test_unreadable_clocks_are_null_with_the_reason(tmp_path, host_timer):
    calls = []

    def unreadable(device):
        calls.append(device)
        if len(calls) == 1:
            raise clocks.ClocksUnavailable("nvidia-smi exited 9: No devices were found")
        raise OSError("gone")

    _, doc = run(tmp_path, ["fake.gpu"], read_clocks=unreadable)
    (e,) = doc["clocks"]
    assert e["before"] is None and e["after"] is None
    assert e["reason"] == "before: nvidia-smi exited 9: No devices were found; after: OSError: gone"
    assert [s["status"] for s in doc["samples"]] == ["ok"] * 3  # a clock never fails a run


def test_results_round_trip_and_the_report_says_which_mode(tmp_path, host_timer):
    _, warm = run(tmp_path, ["fake.gpu"], out="warm.json")
    _, cold = run(tmp_path, ["fake.gpu"], l2="cold", out="cold.json")
    assert [(e["before"]["temperature_c"], e["after"]["temperature_c"]) for e in cold["clocks"]] == [(42, 43)]
    pool = load_many([tmp_path / "warm.json", tmp_path / "cold.json"])
    assert pool.l2_modes() == {shown_path(tmp_path / "warm.json"): "warm", shown_path(tmp_path / "cold.json"): "cold"}
    groups = group_samples(pool.samples)
    assert [(g.strategy, g.l2, len(g.samples)) for g in groups] == [("fake.gpu", "warm", 3), ("fake.gpu", "cold", 3)]
    doc = overview(pool, "ms")
    assert doc.header[0] == (f"{shown_path(tmp_path / 'warm.json')}: environment not recorded; L2 warm; "
                             "clocks SM 1979-1980 MHz, memory 2619 MHz, 40-41 C (2 readings)")
    assert doc.header[1].startswith(f"{shown_path(tmp_path / 'cold.json')}: environment not recorded; L2 cold; clocks SM ")
    assert doc.header[2].startswith("these files mix warm- and cold-L2 runs")
    data = json.loads(render(doc, "json"))
    assert data["l2"] == pool.l2_modes()
    assert sorted(g["l2"] for g in data["groups"]) == ["cold", "warm"]
    for fmt in ("md", "html", "table"):
        text = render(doc, fmt)
        assert "L2 cold" in text and "L2 warm" in text and "mix warm- and cold-L2" in text
    alone = overview(load_many([tmp_path / "cold.json"]), "ms")
    assert not any("mix warm- and cold-L2" in h for h in alone.header)  # no warning for one mode


def test_files_from_before_the_l2_mode_read_as_warm(tmp_path, host_timer):
    _, doc = run(tmp_path, ["fake.gpu"])
    for s in doc["samples"]:
        del s["l2"]
    del doc["config"]["l2"], doc["clocks"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    pool = load_many([old])
    assert {s.l2 for s in pool.samples} == {"warm"}
    assert overview(pool, "ms").header[0] == f"{shown_path(old)}: environment not recorded; L2 warm"


@pytest.mark.parametrize("where, value, expected", [
    (("config", "l2"), "tepid", "config.l2: expected warm or cold, got 'tepid'"),
    (("clocks",), {"a": 1}, "clocks: expected a list, got dict"),
    (("clocks", 0, "before"), {"sm_mhz": "fast"}, "clocks[0]: expected before and after as null or"),
    (("samples", 0, "l2"), "hot", "samples[0].l2: expected warm or cold, got 'hot'"),
])
def test_bad_mode_or_clocks_in_a_results_file_is_one_error(tmp_path, host_timer, where, value, expected):
    _, doc = run(tmp_path, ["fake.gpu"])
    o = doc
    for k in where[:-1]:
        o = o[k]
    o[where[-1]] = value
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError) as e:
        load_many([bad])
    assert str(e.value).startswith(f"{bad}: {expected}")


def test_a_sample_of_an_unknown_problem_names_the_file(tmp_path, host_timer):
    _, doc = run(tmp_path, ["fake.gpu"])
    doc["samples"][1]["problem"] = "nope"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError, match=rf"^{bad}: samples\[1\]\.problem: unknown problem 'nope'"):
        load_many([bad])
    doc["problems"]["nope"] = dict(doc["problems"]["bfs"], title="described by the file")
    bad.write_text(json.dumps(doc))
    assert {s.problem for s in load_many([bad]).samples} == {"bfs", "nope"}


# ------------------------------------------------------------------ the config key
def test_l2_key_and_flag():
    check = {"dataset_check": lambda name: None, "registry": REGISTRY}
    assert build_config({"datasets": ["g"]}, **check).l2 == "warm"
    assert build_config({"datasets": ["g"], "l2": "cold"}, **check).to_dict()["l2"] == "cold"
    assert build_config({"datasets": ["g"], "l2": "cold"}, {"l2": "warm"}, **check).l2 == "warm"
    for bad in ("hot", True, 1, None, ["cold"]):
        with pytest.raises(UserError, match=r"^f\.yaml: l2: unknown value"):
            build_config({"datasets": ["g"], "l2": bad}, where="f.yaml", **check)


def test_primed_files_from_before_samples_carried_the_key(tmp_path, host_timer, synced):
    """A file whose config says prime: true but whose samples lack the key (written the
    day the policy came, before samples carried it): its samples read as primed."""
    _, doc = run(tmp_path, ["fake.gpu"], prime=True)
    for s in doc["samples"]:
        del s["prime"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    assert {s.prime for s in load_many([old]).samples} == {True}
    assert {s.prime for s in doc_samples(doc)} == {True}  # what the workflows read
    doc["samples"][0]["prime"] = "yes"
    old.write_text(json.dumps(doc))
    with pytest.raises(UserError, match=r"samples\[0\]\.prime: expected true or false"):
        load_many([old])


def test_prime_key_and_flag(tmp_path, monkeypatch):
    check = {"dataset_check": lambda name: None, "registry": REGISTRY}
    assert build_config({"datasets": ["g"]}, **check).prime is False
    assert build_config({"datasets": ["g"], "prime": True}, **check).to_dict()["prime"] is True
    assert build_config({"datasets": ["g"], "prime": True}, {"prime": False}, **check).prime is False
    for bad in ("yes", 1, None, [True]):
        with pytest.raises(UserError, match=r"^f\.yaml: prime: expected bool"):
            build_config({"datasets": ["g"], "prime": bad}, where="f.yaml", **check)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text("datasets: [smoke-grid]\nstrategies: [cpu.sequential]\nprime: sometimes\n")
    _one_line(CliRunner().invoke(app, ["run", "c.yaml", "--dir", "data"]),
              "c.yaml: prime: expected bool, got 'sometimes'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]
    cfg = load_config(tmp_path / "c.yaml", {"prime": True}, dataset_check=lambda n: None)
    assert cfg.prime is True  # the flag wins over the file


def test_bad_l2_is_one_line_and_nothing_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    _one_line(runner.invoke(app, ["run", "-d", "smoke-grid", "--l2", "lukewarm", "--dir", "data"]),
              "command line: l2: unknown value 'lukewarm'", "warm")
    (tmp_path / "c.yaml").write_text("datasets: [smoke-grid]\nstrategies: [cpu.sequential]\nl2: frozen\n")
    _one_line(runner.invoke(app, ["run", "c.yaml", "--dir", "data"]), "c.yaml: l2: unknown value 'frozen'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]  # no graph, no results file
    cfg = load_config(tmp_path / "c.yaml", {"l2": "cold"}, dataset_check=lambda n: None)
    assert cfg.l2 == "cold"  # the flag wins over the file


def test_cold_cli_run_of_cpu_strategies(tmp_path, monkeypatch):
    """CPU rows run the same in a cold run: nothing to flush, no clocks to read; the
    mode still reaches the results file and the report."""
    from gpubfs_cli.gpu import backend

    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")
    out = tmp_path / "cold.json"
    result = CliRunner().invoke(app, ["run", "-d", "smoke-gnm", "-s", "cpu.sequential", "--sources", "2",
                                      "--l2", "cold", "--out", str(out), "--dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    doc = load_results(out)
    assert doc["config"]["l2"] == "cold" and doc["clocks"] == []
    assert [(s["status"], s["l2"]) for s in doc["samples"]] == [("ok", "cold")] * 2
    report = CliRunner().invoke(app, ["report", str(out), "--format", "md"])
    assert report.exit_code == 0 and f"- {shown_path(out)}: no GPU (disabled for this test), CPU " in report.stdout
    assert "; L2 cold\n" in report.stdout


# ------------------------------------------------------------------ the clock readers
def test_parse_smi_line():
    assert clocks.parse_smi_line("1980, 2619, 35\n") == {
        "sm_mhz": 1980, "mem_mhz": 2619, "temperature_c": 35, "via": "nvidia-smi"}
    for bad, why in (("", "got 0"), ("1, 2, 3\n4, 5, 6", "got 2"), ("1, 2", "3 values"),
                     ("[N/A], 2619, 35", "expected numbers")):
        with pytest.raises(clocks.ClocksUnavailable, match=why):
            clocks.parse_smi_line(bad)


def _fake_smi(folder, body):
    smi = folder / "nvidia-smi"
    smi.write_text("#!/bin/sh\n" + body)
    smi.chmod(smi.stat().st_mode | stat.S_IEXEC)
    return smi


def test_nvidia_smi_reader_when_pynvml_is_missing(tmp_path, monkeypatch):
    args = tmp_path / "args"
    _fake_smi(tmp_path, f'echo "$@" > {args}\necho "1410, 1593, 52"\n')
    monkeypatch.setattr(clocks, "_pynvml_importable", lambda: False)
    monkeypatch.setattr(clocks, "_pci_bus_id", lambda device: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    read = clocks.default_reader()
    assert read(gpu(1)) == {"sm_mhz": 1410, "mem_mhz": 1593, "temperature_c": 52, "via": "nvidia-smi"}
    assert args.read_text().split() == [
        "--query-gpu=clocks.sm,clocks.mem,temperature.gpu", "--format=csv,noheader,nounits", "-i", "1"]
    monkeypatch.setattr(clocks, "_pci_bus_id", lambda device: "00000000:3B:00.0")
    read(gpu(1))
    assert args.read_text().split()[-1] == "00000000:3B:00.0"  # NVML's order may differ from CUDA's
    _fake_smi(tmp_path, 'echo "Failed to initialize NVML: Driver/library version mismatch" >&2\nexit 18\n')
    assert clocks.reading_or_reason(read, gpu(0)) == (
        None, "nvidia-smi exited 18: Failed to initialize NVML: Driver/library version mismatch")


def test_no_reader_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(clocks, "_pynvml_importable", lambda: False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert clocks.reading_or_reason(clocks.default_reader(), gpu(0)) == (
        None, "neither pynvml (nvidia-ml-py) nor nvidia-smi is available")


def test_nvml_reader(monkeypatch):
    class FakeNvml:
        NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU = 1, 2, 0

        def nvmlDeviceGetHandleByPciBusId(self, bus):
            return ("bus", bus)

        def nvmlDeviceGetHandleByIndex(self, i):
            return ("index", i)

        def nvmlDeviceGetClockInfo(self, handle, which):
            return {1: 1755, 2: 2619}[which] + (handle[0] == "index")

        def nvmlDeviceGetTemperature(self, handle, which):
            assert which == 0
            return 47

    monkeypatch.setattr(clocks, "_nvml", FakeNvml)
    monkeypatch.setattr(clocks, "_pci_bus_id", lambda device: "0000:3B:00.0")
    assert clocks.read_nvml(gpu(0)) == {"sm_mhz": 1755, "mem_mhz": 2619, "temperature_c": 47, "via": "nvml"}
    monkeypatch.setattr(clocks, "_pci_bus_id", lambda device: None)
    assert clocks.read_nvml(gpu(0))["sm_mhz"] == 1756  # by index when CUDA gives no bus id

    def failing():
        raise RuntimeError("NVML Shared Library Not Found")

    monkeypatch.setattr(clocks, "_nvml", failing)
    assert clocks.reading_or_reason(clocks.read_nvml, gpu(0)) == (
        None, "nvml: RuntimeError: NVML Shared Library Not Found")


def test_flusher_skips_cpu_devices():
    from gpubfs_cli.core.device import CPU

    f = L2Flusher()
    f([CPU])  # no GPU among the devices: nothing to flush, CuPy never needed
    assert f.flushes == 0


# ------------------------------------------------------------------ on the GPU
@pytest.mark.gpu
def test_flusher_on_the_gpu():
    from gpubfs_cli.gpu import backend

    f = L2Flusher()
    f([gpu(0)])
    f([gpu(0)])
    assert f.flushes == 2
    (buf,) = f._buffers.values()
    assert buf.nbytes == 2 * backend.l2_bytes(gpu(0)) > 0
    assert int(buf[0]) == 2 and int(buf[-1]) == 2  # the second flush wrote every word
    f.release()
    assert f._buffers == {}


@pytest.mark.gpu
def test_cold_run_of_one_gpu_strategy_records_clocks(tmp_path):
    out = tmp_path / "cold.json"
    result = CliRunner().invoke(app, [
        "run", "-d", "smoke-gnm", "-s", "classic.harish", "--sources", "3", "--l2", "cold",
        "--out", str(out), "--dir", str(tmp_path / "data"), "--require-gpu"])
    assert result.exit_code == 0, result.output
    doc = load_results(out)
    assert doc["config"]["l2"] == "cold"
    gpu_samples = [s for s in doc["samples"] if s["strategy"] == "classic.harish"]
    assert len(gpu_samples) == 3 and all(s["status"] == "ok" and s["valid"] and s["l2"] == "cold"
                                         for s in gpu_samples)
    (entry,) = doc["clocks"]
    assert entry["reason"] is None, entry["reason"]
    for when in ("before", "after"):
        r = entry[when]
        assert r["sm_mhz"] > 0 and r["mem_mhz"] > 0 and 0 < r["temperature_c"] < 120
        assert r["via"] in ("nvml", "nvidia-smi")
    header = overview(load_many([out]), "ms").header[0]
    assert "L2 cold; clocks SM " in header, header
    assert os.path.exists(out)


@pytest.mark.gpu
def test_primed_run_of_gpu_strategies(tmp_path):
    """do.bfs (one traversal a call) and msbfs.bfs (a batch a call), primed: every answer
    valid, the file and the report say so."""
    out = tmp_path / "primed.json"
    result = CliRunner().invoke(app, [
        "run", "-d", "smoke-rmat", "-s", "do.bfs", "-s", "msbfs.bfs", "--sources", "4", "--prime",
        "--out", str(out), "--dir", str(tmp_path / "data"), "--require-gpu"])
    assert result.exit_code == 0, result.output
    doc = load_results(out)
    assert doc["config"]["prime"] is True
    samples = [s for s in doc["samples"] if s["strategy"] in ("do.bfs", "msbfs.bfs")]
    assert len(samples) == 8 and all(s["status"] == "ok" and s["valid"] for s in samples)
    assert ", primed; " in overview(load_many([out]), "ms").header[0]


def test_warm_up_runs_counts_then_time():
    """warm_up_runs: `runs` at least, then on until `ms` has passed; none with runs 0."""
    import time

    from gpubfs_cli.bench.schedule import warm_up_runs

    assert list(warm_up_runs(3, 0)) == [0, 1, 2]
    assert list(warm_up_runs(0, 1000)) == []
    t0 = time.perf_counter()
    n = 0
    for _ in warm_up_runs(1, 20):
        time.sleep(0.002)
        n += 1
    assert time.perf_counter() - t0 >= 0.02 and n >= 1  # on until 20 ms passed, however long a run took


def test_timed_traverse_split_gives_the_host_share_of_the_time():
    """A CPU strategy on the host clock: the launch share is inside the total, and the
    answer comes back as traverse() returned it."""
    import time

    from gpubfs_cli.bench.timing import timed_traverse_split

    class Sleepy(SequentialBfs):
        def traverse(self, source, predecessors=False):
            time.sleep(0.005)
            return super().traverse(source, predecessors)

    g = grid(4, 4, name="g")
    s = Sleepy()
    s.upload(g)
    s.prepare(g)
    ms, host_ms, answer = timed_traverse_split(s, 0)
    assert 5.0 <= host_ms <= ms
    assert list(answer.to_host().distances) == list(sequential_bfs(g, 0).distances)
