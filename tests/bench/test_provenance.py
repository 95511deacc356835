"""What every results file records of where its numbers came from: the code (commit, tree,
dirty), each GPU (UUID, driver, clocks and throttle reasons at the run's start and end),
their topology, NCCL's version where a multi-GPU strategy ran, and each peer binary's
hash. No GPU here: NVML, nvidia-smi and CuPy's NCCL are stand-ins."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import types

import pytest

from gpubfs_cli.algorithms.bfs.cpu.sequential import SequentialBfs, sequential_bfs
from gpubfs_cli.bench import code
from gpubfs_cli.bench import environment as env
from gpubfs_cli.bench.config import build_config
from gpubfs_cli.bench.runner import Runner
from gpubfs_cli.core.device import CPU, Device, gpu
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.gpu import clocks
from gpubfs_cli.graph.samples import grid
from gpubfs_cli.results.schema import load_results

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


# ------------------------------------------------------------------ stand-ins
class FakeNvml:
    """pynvml's calls the readers make, for two GPUs found by bus id."""

    NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU = 1, 2, 0

    def __init__(self, masks=(0x1, 0x4 | 0x40)):
        self.masks = list(masks)

    def nvmlDeviceGetHandleByPciBusId(self, bus):
        return int(bus[-1])

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetClockInfo(self, handle, which):
        return {1: 1980, 2: 2619}[which] - 100 * handle

    def nvmlDeviceGetTemperature(self, handle, which):
        return 40 + handle

    def nvmlDeviceGetUUID(self, handle):
        return f"GPU-{handle}a1b2c3d-0000-1111-2222-333344445555".encode()  # older pynvml: bytes

    def nvmlSystemGetDriverVersion(self):
        return "570.124.06"

    def nvmlDeviceGetCurrentClocksEventReasons(self, handle):
        return self.masks[handle]

    def nvmlDeviceGetTopologyCommonAncestor(self, a, b):
        return 10

    def nvmlDeviceGetP2PStatus(self, a, b, cap):
        return 0 if cap != 3 else 5


@pytest.fixture
def nvml(monkeypatch):
    fake = FakeNvml()
    monkeypatch.setattr(clocks, "_nvml", lambda: fake)
    monkeypatch.setattr(clocks, "_pynvml_importable", lambda: True)
    monkeypatch.setattr(clocks, "_pci_bus_id", lambda device: f"00000000:3B:00.{device.index}")
    monkeypatch.setenv("PATH", "")  # no nvidia-smi: NVML answers everything
    return fake


@pytest.fixture
def two_gpus(monkeypatch):
    """gpus_info() as CuPy would give it on a machine of two GPUs."""
    props = [{"available": True, "index": i, "name": "NVIDIA H200", "runtime_version": 12080,
              "driver_version": 12080} for i in range(2)]
    monkeypatch.setattr(env, "gpus_info", lambda: [dict(p) for p in props])
    monkeypatch.setattr(env, "gpu_info", lambda gpus=None: dict(props[0]))


def fake_smi(folder, body: str):
    smi = folder / "nvidia-smi"
    smi.write_text("#!/bin/sh\n" + body)
    smi.chmod(smi.stat().st_mode | stat.S_IEXEC)
    return smi


# ------------------------------------------------------------------ the code
def git(repo, *args) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()


@needs_git
def test_the_code_is_its_commit_its_tree_and_whether_the_tree_differs(tmp_path):
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("a = 1\n")
    (tmp_path / "notes.txt").write_text("outside the package\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "one")
    head = git(tmp_path, "rev-parse", "HEAD")
    clean = code.code_identity(tmp_path, "pkg")
    assert clean == {"commit": head, "tree": git(tmp_path, "rev-parse", "HEAD:pkg"), "dirty": False}
    (tmp_path / "notes.txt").write_text("changed, but not the code that runs\n")
    assert code.code_identity(tmp_path, "pkg")["dirty"] is False
    (tmp_path / "pkg" / "new.py").write_text("b = 2\n")  # untracked: git_commit's +dirty misses it
    changed = code.code_identity(tmp_path, "pkg")
    assert changed["commit"] == head and changed["dirty"] is True and changed["tree"] != clean["tree"]
    assert changed["tree"] == code.source_tree(tmp_path, "pkg")  # the id resume compares


def test_no_checkout_no_code(tmp_path):
    (tmp_path / "pkg").mkdir()
    assert code.code_identity(tmp_path, "pkg") == {"commit": None, "tree": None, "dirty": None}


def test_the_environment_records_the_code_and_its_tree_once():
    got = env.collect_environment(["gpubfs", "run"])
    assert set(got["code"]) == {"commit", "tree", "dirty"}
    assert got["source_tree"] == got["code"]["tree"]


# ------------------------------------------------------------------ the GPUs
def test_without_a_gpu_the_reason_is_recorded(monkeypatch):
    monkeypatch.setattr(env, "gpus_info", lambda: [])
    monkeypatch.setattr(env, "gpu_info", lambda gpus=None: {"available": False, "reason": "no CUDA device found"})
    got = env.collect_environment(["gpubfs", "run"])
    assert got["gpus"] == [] and got["gpu_clocks"] == {"reason": "no GPU (no CUDA device found)"}
    assert "topology" not in got
    assert env.run_end(got) == {}  # nothing to read at the end either


def test_nvml_gives_each_gpus_identity_clocks_throttling_and_topology(nvml, two_gpus):
    got = env.collect_environment(["gpubfs", "run"])
    assert [(g["uuid"], g["driver"]) for g in got["gpus"]] == [
        ("GPU-0a1b2c3d-0000-1111-2222-333344445555", "570.124.06"),
        ("GPU-1a1b2c3d-0000-1111-2222-333344445555", "570.124.06")]
    assert got["gpu"]["uuid"] == got["gpus"][0]["uuid"] and got["gpus"][0]["runtime_version"] == 12080
    start = got["gpu_clocks"]["start"]
    assert start[0] == {"device": "gpu:0", "uuid": "GPU-0a1b2c3d-0000-1111-2222-333344445555", "sm_mhz": 1980,
                        "mem_mhz": 2619, "temperature_c": 40, "via": "nvml", "throttle_mask": "0x0000000000000001",
                        "throttle_reasons": ["gpu_idle"], "reason": None}
    assert start[1]["throttle_reasons"] == ["sw_power_cap", "hw_thermal_slowdown"] and start[1]["sm_mhz"] == 1880
    assert got["topology"] == {"via": "nvml", "pairs": [{
        "gpus": ["gpu:0", "gpu:1"], "link": "one PCIe switch",
        "p2p": {"read": "ok", "write": "ok", "nvlink": "ok", "atomics": "status 5"}}]}
    nvml.masks = [0x8, 0x0]  # the end finds GPU 0 slowed down
    end = env.run_end(got)
    assert [e["throttle_reasons"] for e in end["gpu_clocks_end"]] == [["hw_slowdown"], []]
    env.apply_end(got, end)
    assert got["gpu_clocks"]["start"] == start and got["gpu_clocks"]["end"] == end["gpu_clocks_end"]


def test_the_older_throttle_call_and_a_driver_without_reasons(nvml, monkeypatch):
    class Older(FakeNvml):  # a pynvml from before clock event reasons were named so
        nvmlDeviceGetCurrentClocksEventReasons = None

        def nvmlDeviceGetCurrentClocksThrottleReasons(self, handle):
            return 0x20

    monkeypatch.setattr(clocks, "_nvml", Older)
    assert clocks.read_state_nvml(gpu(0))["throttle_reasons"] == ["sw_thermal_slowdown"]

    class Neither(Older):
        nvmlDeviceGetCurrentClocksThrottleReasons = None

    monkeypatch.setattr(clocks, "_nvml", Neither)
    state = clocks.read_state_nvml(gpu(0))
    assert state["uuid"].startswith("GPU-0") and "throttle_mask" not in state  # the identity stands
    why = "nvml: AttributeError: this pynvml has no clock event reasons"
    assert state["throttle_reason"] == why
    entry = env.gpu_readings([{"index": 0}])[0]
    assert entry["sm_mhz"] == 1980 and entry["throttle_reasons"] is None and entry["reason"] == why


def test_nvml_that_fails_is_a_reason_not_a_failed_run(monkeypatch, two_gpus):
    def broken():
        raise RuntimeError("NVML Shared Library Not Found")

    monkeypatch.setattr(clocks, "_nvml", broken)
    monkeypatch.setattr(clocks, "_pynvml_importable", lambda: True)
    monkeypatch.setattr(clocks, "_pci_bus_id", lambda device: None)
    monkeypatch.setenv("PATH", "")
    got = env.collect_environment(["gpubfs", "run"])
    why = "nvml: RuntimeError: NVML Shared Library Not Found"
    assert got["gpus"][0]["uuid"] is None and got["gpus"][0]["identity_reason"] == why
    assert got["gpu_clocks"]["start"][0]["reason"] == why  # the clocks' and the state's, said once
    assert got["topology"] == {"reason": why}


def test_nvidia_smi_when_nvml_is_missing(tmp_path, monkeypatch, two_gpus):
    log = tmp_path / "calls"
    fake_smi(tmp_path, f"""echo "$@" >> {log}
case "$1" in
  topo) printf '\\t\\033[4mGPU0\\tGPU1\\033[0m\\nGPU0\\t X \\tNV18\\nGPU1\\tNV18\\t X \\n' ;;
  --query-gpu=uuid*) echo "GPU-5f1c2a9e-aaaa-bbbb-cccc-ddddeeeeffff, 580.65.06, 1980 MHz, 2619 MHz, 0x0000000000000004" ;;
  *) echo "1980, 2619, 35" ;;
esac
""")
    monkeypatch.setattr(clocks, "_pynvml_importable", lambda: False)
    monkeypatch.setattr(clocks, "_pci_bus_id", lambda device: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    got = env.collect_environment(["gpubfs", "run"])
    assert got["gpus"][1]["uuid"] == "GPU-5f1c2a9e-aaaa-bbbb-cccc-ddddeeeeffff"
    assert got["gpus"][1]["driver"] == "580.65.06"
    assert got["gpu_clocks"]["start"][1] == {
        "device": "gpu:1", "uuid": "GPU-5f1c2a9e-aaaa-bbbb-cccc-ddddeeeeffff", "sm_mhz": 1980, "mem_mhz": 2619,
        "temperature_c": 35, "via": "nvidia-smi", "throttle_mask": "0x0000000000000004",
        "throttle_reasons": ["sw_power_cap"], "reason": None}
    assert got["topology"] == {"via": "nvidia-smi topo -m",
                               "text": "\tGPU0\tGPU1\nGPU0\t X \tNV18\nGPU1\tNV18\t X"}
    assert ("--query-gpu=uuid,driver_version,clocks.sm,clocks.mem,clocks_throttle_reasons.active "
            "--format=csv,noheader -i 1") in log.read_text().splitlines()


def test_nvidia_smi_that_renamed_the_throttle_field(tmp_path, monkeypatch):
    fake_smi(tmp_path, """case "$1" in
  *throttle*) echo 'Field "clocks_throttle_reasons.active" is not a valid field to query.'; exit 2 ;;
  *) echo "GPU-77, 590.1, [N/A], 2619 MHz, 0x0000000000000000" ;;
esac
""")
    monkeypatch.setattr(clocks, "_pci_bus_id", lambda device: None)
    state = clocks.read_state_smi(gpu(0), smi=str(tmp_path / "nvidia-smi"))
    assert state == {"uuid": "GPU-77", "driver": "590.1", "mem_mhz": 2619, "throttle_mask": "0x0000000000000000",
                     "throttle_reasons": [], "via": "nvidia-smi"}  # [N/A] clocks are left out
    fake_smi(tmp_path, "echo 'Failed to initialize NVML: Driver/library version mismatch' >&2\nexit 18\n")
    with pytest.raises(clocks.ClocksUnavailable, match="exited 18: Failed to initialize NVML"):
        clocks.read_state_smi(gpu(0), smi=str(tmp_path / "nvidia-smi"))


def test_parse_smi_state_refuses_what_it_cannot_read():
    for bad, why in (("", "got 0"), ("a, b\nc, d", "got 2"), ("GPU-1, 570, 1980 MHz", "5 values")):
        with pytest.raises(clocks.ClocksUnavailable, match=why):
            clocks.parse_smi_state(bad)
    state = clocks.parse_smi_state("GPU-1, 570.1, 1980 MHz, 2619 MHz, Not Active")
    assert state["throttle_reason"] == "nvidia-smi: clock event reasons 'Not Active'" and state["sm_mhz"] == 1980


def test_neither_reader_says_so(monkeypatch, two_gpus, tmp_path):
    monkeypatch.setattr(clocks, "_pynvml_importable", lambda: False)
    monkeypatch.setenv("PATH", str(tmp_path))
    got = env.collect_environment(["gpubfs", "run"])
    why = "neither pynvml (nvidia-ml-py) nor nvidia-smi is available"
    assert got["gpus"][0]["identity_reason"] == why and got["topology"] == {"reason": why}
    assert got["gpu_clocks"]["start"][0]["reason"] == why


def test_throttle_reason_names():
    assert clocks.throttle_reasons(0) == []
    assert clocks.throttle_reasons(0x1 | 0x100) == ["gpu_idle", "display_clock_setting"]
    assert clocks.throttle_reasons(0x400 | 0x2) == ["applications_clocks_setting", "unknown 0x400"]


# ------------------------------------------------------------------ NCCL
def test_nccl_version_where_cupy_has_it(monkeypatch):
    assert clocks.nccl_text(22703) == "2.27.3" and clocks.nccl_text(2804) == "2.8.4"
    nccl = types.SimpleNamespace(get_version=lambda: 22105)
    cuda = types.ModuleType("cupy.cuda")
    cuda.nccl = nccl
    cupy = types.ModuleType("cupy")
    cupy.cuda = cuda
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setitem(sys.modules, "cupy.cuda", cuda)
    for key in [k for k in os.environ if k.startswith("NCCL_")]:
        monkeypatch.delenv(key)
    assert clocks.nccl_version() == "2.21.5"
    assert env.run_end({}, multi_gpu=True) == {"nccl_version": "2.21.5", "nccl_env": {}}
    # the variables that move NCCL off NVLink (the emulated two hosts) are part of the record
    monkeypatch.setenv("NCCL_SHM_DISABLE", "1")
    monkeypatch.setenv("NCCL_P2P_DISABLE", "1")
    assert env.run_end({}, multi_gpu=True)["nccl_env"] == {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"}
    assert env.run_end({}, multi_gpu=False) == {}
    monkeypatch.setitem(sys.modules, "cupy", None)  # not importable: absent
    monkeypatch.setitem(sys.modules, "cupy.cuda", None)
    assert clocks.nccl_version() is None and "nccl_version" not in env.run_end({}, multi_gpu=True)


# ------------------------------------------------------------------ peers
def test_file_facts(tmp_path):
    binary = tmp_path / "bfs"
    binary.write_bytes(b"\x7fELF" + b"x" * 5000)
    assert code.file_facts(binary) == {"path": str(binary.resolve()), "size": 5004,
                                      "sha256": hashlib.sha256(binary.read_bytes()).hexdigest()}
    assert code.file_facts(tmp_path / "gone")["reason"] == "No such file or directory"


def _executable(path, text="#!/bin/sh\nexit 0\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_each_peer_names_the_binaries_its_prepare_runs(tmp_path, monkeypatch):
    from gpubfs_cli.algorithms.bfs.peer import blest, gapbs, gunrock
    from gpubfs_cli.algorithms.sssp.peer import gapbs as gapbs_sssp

    bfs = _executable(tmp_path / "gunrock" / "bfs")
    monkeypatch.setenv("GPUBFS_GUNROCK_BFS", str(bfs))
    assert gunrock.GunrockBfs.peer_binaries(gunrock.GunrockKnobs()) == [bfs]
    other = _executable(tmp_path / "elsewhere" / "bfs")
    assert gunrock.GunrockBfs.peer_binaries(gunrock.GunrockKnobs(binary=str(other))) == [other]  # the knob wins
    for cls, variable in ((gapbs.GapbsBfs, "GPUBFS_GAPBS_BFS"), (gapbs_sssp.GapbsSssp, "GPUBFS_GAPBS_SSSP")):
        binary = _executable(tmp_path / "gapbs" / cls.kernel)
        monkeypatch.setenv(variable, str(binary))
        assert cls.peer_binaries(cls.Knobs()) == [binary]
    script = _executable(tmp_path / "blest" / "run.sh")
    monkeypatch.setenv("GPUBFS_BLEST", str(script.parent))
    monkeypatch.delenv("BLEST", raising=False)
    assert blest.BlestBfs.peer_binaries(blest.BlestKnobs()) == [script]  # no blest beside it yet
    binary = _executable(tmp_path / "blest" / "blest")
    assert blest.BlestBfs.peer_binaries(blest.BlestKnobs()) == [script, binary]
    monkeypatch.setenv("GPUBFS_GUNROCK_BFS", str(tmp_path / "missing"))
    assert gunrock.GunrockBfs.peer_binaries(gunrock.GunrockKnobs()) == []


# ------------------------------------------------------------------ through the runner
class Peer(Strategy):
    """A peer stand-in: the baseline's answers, and a binary that provenance hashes."""

    name = "fake.peer"
    paper = "peer"
    section = "test"
    binary = None

    def prepare(self, graph):
        self.graph = graph

    def traverse(self, source, predecessors=False):
        return sequential_bfs(self.graph, source, predecessors)

    @classmethod
    def peer_binaries(cls, knobs):
        return [cls.binary]


class TwoDevices(Peer):
    """Prepared on two devices: a multi-GPU strategy as the prepare record shows it."""

    name = "fake.two"

    @classmethod
    def devices_for(cls, knobs):
        return (CPU, Device("cpu", 1))

    @classmethod
    def peer_binaries(cls, knobs):
        return []

    def prepare_details(self):
        return {"ranks_start_ms": 812.5, "nccl_form_ms": 3012.0, "nccl_first_call_ms": 701.25}

    def device_bytes(self):
        return [9_000_000_000, 8_500_000_000]


class NeverPrepared(Peer):
    name = "fake.unprepared"

    def prepare(self, graph):
        raise RuntimeError("no")


REGISTRY = {"bfs": {c.name: c for c in (SequentialBfs, Peer, TwoDevices, NeverPrepared)}}


def _run(tmp_path, strategies, environment, **kw):
    g = grid(4, 4, name="g4")
    cfg = build_config({"name": "t", "datasets": ["g4"], "strategies": strategies, "sources": 2, "warmup": 0},
                       dataset_check=lambda name: None, registry=REGISTRY)
    outcome = Runner(cfg, load_graph=lambda spec, d, p: (g, {}), out_path=tmp_path / "out.json",
                     environment=environment, registry=REGISTRY, **kw).run()
    return load_results(outcome.path)


def test_the_runner_reads_the_gpus_again_as_the_run_ends(tmp_path, monkeypatch):
    calls = []

    def reader(device):
        calls.append(str(device))
        return clocks.ClockReading(sm_mhz=1500, mem_mhz=2619, temperature_c=70, via="fake")

    monkeypatch.setattr(clocks, "default_state_reader", lambda: lambda device: clocks.GpuState(
        uuid="GPU-1234", driver="570.1", **clocks._throttle(0x4), via="fake"))
    start = [{"device": "gpu:0", "sm_mhz": 1980, "throttle_reasons": []}]
    environment = {"gpus": [{"index": 0, "name": "NVIDIA H200"}], "gpu_clocks": {"start": start}}
    doc = _run(tmp_path, ["cpu.sequential"], environment, read_clocks=reader)
    assert calls == ["gpu:0"]  # no GPU strategy ran: only the end's reading
    assert doc["environment"]["gpu_clocks"] == {"start": start, "end": [{
        "device": "gpu:0", "uuid": "GPU-1234", "sm_mhz": 1500, "mem_mhz": 2619, "temperature_c": 70, "via": "fake",
        "throttle_mask": "0x0000000000000004", "throttle_reasons": ["sw_power_cap"], "reason": None}]}
    assert "nccl_version" not in doc["environment"] and "peers" not in doc["environment"]


def test_the_runner_records_the_peers_it_prepared_and_nccl_where_several_devices_ran(tmp_path, monkeypatch):
    binary = _executable(tmp_path / "peer-bin", "#!/bin/sh\necho peer\n")
    monkeypatch.setattr(Peer, "binary", binary)
    monkeypatch.setattr(clocks, "nccl_version", lambda: "2.27.3")
    doc = _run(tmp_path, ["cpu.sequential", "fake.peer", "fake.unprepared"], {})
    assert doc["environment"]["peers"] == [{
        "strategy": "fake.peer", "problem": "bfs", "path": str(binary.resolve()), "size": binary.stat().st_size,
        "sha256": hashlib.sha256(binary.read_bytes()).hexdigest()}]  # not the one whose prepare failed
    assert "nccl_version" not in doc["environment"]  # every prepare on one device
    doc = _run(tmp_path, ["cpu.sequential", "fake.two"], {})
    assert doc["environment"]["nccl_version"] == "2.27.3" and "peers" not in doc["environment"]
    # what starting the ranks cost rides with the prepare, never in a sample
    prepares = {p["strategy"]: p for p in doc["prepares"]}
    assert prepares["fake.two"]["setup"] == {"ranks_start_ms": 812.5, "nccl_form_ms": 3012.0,
                                             "nccl_first_call_ms": 701.25}
    assert "setup" not in prepares["cpu.sequential"]
    # and what each rank holds on its GPU, apart
    assert prepares["fake.two"]["device_bytes"] == [9_000_000_000, 8_500_000_000]
    assert "device_bytes" not in prepares["cpu.sequential"]



class OneDeviceRank(TwoDevices):
    """A rank of an MPI world: it names its own GPU alone, but formed an NCCL communicator."""

    name = "fake.mpi"

    @classmethod
    def devices_for(cls, knobs):
        return (CPU,)


def test_a_rank_under_mpi_records_nccl_though_it_names_one_device(tmp_path, monkeypatch):
    monkeypatch.setattr(clocks, "nccl_version", lambda: "2.28.9")
    monkeypatch.setitem(REGISTRY["bfs"], "fake.mpi", OneDeviceRank)
    doc = _run(tmp_path, ["cpu.sequential", "fake.mpi"], {})
    assert doc["environment"]["nccl_version"] == "2.28.9" and "nccl_env" in doc["environment"]


def test_an_end_that_cannot_be_read_never_fails_the_run(tmp_path, monkeypatch):
    def broken(*a, **k):
        raise OSError("disk gone")

    monkeypatch.setattr(code, "file_facts", broken)
    monkeypatch.setattr(Peer, "binary", tmp_path)
    doc = _run(tmp_path, ["fake.peer"], {})
    assert doc["complete"] is True and doc["environment"]["end_reason"] == "OSError: disk gone"


def test_a_results_file_without_the_gpu_keeps_its_old_shape(tmp_path):
    doc = _run(tmp_path, ["cpu.sequential"], {"git_commit": None, "command_line": "test"})
    assert doc["environment"] == {"git_commit": None, "command_line": "test"}
    assert os.path.exists(tmp_path / "out.json")
