"""The generic floor: devices, the strategy registry per problem, aliases, the device
layer's per-device keys and the kernel constants read from the headers."""

from __future__ import annotations

import dataclasses

import pytest

from gpubfs_cli.core.device import CPU, Device, gpu
from gpubfs_cli.core.problem import all_problems, get_problem
from gpubfs_cli.core.strategy import (
    ALIASES,
    Strategy,
    canonical_name,
    get_strategy,
    problems_of,
    register,
    registry,
)
from gpubfs_cli.errors import UserError


def test_devices_are_values():
    assert str(CPU) == "cpu" and str(gpu(1)) == "gpu:1"
    assert gpu(0) == Device("gpu", 0) and gpu(0) != gpu(1) and gpu(0).is_gpu and not CPU.is_gpu


def test_every_strategy_names_a_problem_and_follows_family_variant():
    problems = all_problems()
    for key, names in registry().items():
        assert key in problems
        for name, cls in names.items():
            assert cls.problem == key and cls.name == name
            family, _, variant = name.partition(".")
            assert family and variant, name


def test_strategy_devices_follow_its_kind_and_knobs():
    @dataclasses.dataclass(frozen=True)
    class Spread:
        gpus: int = 2

    class OnSeveral(Strategy):
        name = "test.several"
        device_kind = "gpu"
        Knobs = Spread

        @classmethod
        def devices_for(cls, knobs):
            return tuple(gpu(i) for i in range(knobs.gpus))

    class OnOne(Strategy):
        name = "test.one"
        device_kind = "gpu"

    assert OnSeveral().devices == (gpu(0), gpu(1)) and OnSeveral().device == gpu(0)
    assert OnSeveral(Spread(3)).devices == (gpu(0), gpu(1), gpu(2))
    assert OnOne().devices == (gpu(0),) and not hasattr(Strategy, "gpus")
    assert get_strategy("cpu.sequential")().devices == (CPU,)
    assert OnSeveral(devices=(gpu(3), gpu(5))).devices == (gpu(3), gpu(5))


def test_the_multi_gpu_strategies_span_the_gpus_their_knob_names():
    from gpubfs_cli.core.strategy import make_knobs

    for name in ("merrill.multi_gpu", "merrill.multi_gpu_do", "mgpu.bfs"):
        cls = get_strategy(name)
        assert cls.timing == "self"
        assert cls(make_knobs(cls, {"gpus": 2})).devices == (gpu(0), gpu(1))
        assert cls().devices == (gpu(0),)


def test_every_strategy_declares_a_timing_kind():
    from gpubfs_cli.core.strategy import TIMINGS

    kinds = {}
    for names in registry().values():
        for name, cls in names.items():
            assert cls.timing in TIMINGS, name
            kinds[name] = cls.timing
    # GPU strategies by events, CPU strategies by the host clock, peers by themselves.
    assert kinds["merrill.hybrid"] == kinds["do.bfs"] == kinds["auto.bfs"] == "events"
    assert kinds["cpu.sequential"] == kinds["cpu.parallel_do"] == "host"
    assert kinds["peer.gunrock"] == kinds["peer.gapbs"] == "self"
    multi = ("merrill.multi_gpu", "merrill.multi_gpu_do", "mgpu.bfs")  # each rank times its own GPU
    assert all(kinds[n] == "self" for n in multi)
    assert all(kinds[n] == "events" for names in registry().values() for n, c in names.items()
               if c.device_kind == "gpu" and n not in multi)

    class Odd(Strategy):
        name = "test.odd"
        timing = "stopwatch"

    with pytest.raises(RuntimeError, match="timing 'stopwatch'"):
        register(Odd)

    class HostTimedGpu(Strategy):
        name = "test.host_gpu"
        device_kind = "gpu"

    with pytest.raises(RuntimeError, match="not the host clock"):
        register(HostTimedGpu)


def test_old_names_are_aliases():
    for old, new in ALIASES.items():
        assert canonical_name(old) == new
        assert get_strategy(old) is get_strategy(new)
        assert problems_of(old) == ["bfs"]


def test_unknown_strategy_names_its_problem():
    with pytest.raises(UserError, match="unknown bfs strategy 'merrill.hybird'"):
        get_strategy("merrill.hybird")


def test_register_refuses_a_name_without_a_family():
    class Bare(Strategy):
        name = "bare"

    with pytest.raises(RuntimeError, match="family.variant"):
        register(Bare)


def test_problem_descriptions_are_what_results_files_record():
    bfs = get_problem("bfs").describe()
    assert bfs["baseline"] == "cpu.sequential" and bfs["option"] == "predecessors"
    assert bfs["option_label"] == "+pred" and bfs["reach_metric"] == "depth"


def test_gpus_needed_against_gpus_present(monkeypatch):
    from gpubfs_cli.gpu import backend

    monkeypatch.setattr(backend, "unavailable_reason", lambda: None)
    monkeypatch.setattr(backend, "device_count", lambda: 1)
    assert backend.gpus_unavailable_reason(1) is None
    assert backend.gpus_unavailable_reason(2) == "needs 2 GPUs, this machine has 1"


def test_timed_call_on_the_cpu_uses_the_host_clock():
    from gpubfs_cli.bench.timing import timed_call

    ms, value = timed_call(lambda: sum(range(1000)), (CPU,))
    assert value == 499500 and ms >= 0


def test_kernel_constants_come_from_the_headers():
    from gpubfs_cli.algorithms.bfs.gpu.luo import hierarchical as luo
    from gpubfs_cli.algorithms.bfs.gpu.merrill import strategies as merrill
    from gpubfs_cli.gpu.modules import header_constants

    c = header_constants(merrill.KERNELS.with_name("merrill.cuh"))
    assert (merrill.CTL_OVERFLOW, merrill.CTL_ITERS, merrill.CTL_WORDS) == (12, 13, 20)
    assert merrill.CULLING["atomic"] == c["CULL_ATOMIC"] == 4
    assert merrill.BLOCK == 256 and luo.BLOCK_THREADS == 1024 and luo.ST_ENQ == 5


def test_compile_options_carry_the_files_folder_and_defines(tmp_path):
    from gpubfs_cli.gpu.modules import INCLUDE_DIR, compile_options

    cu = tmp_path / "k.cu"
    opts = compile_options(cu, {"B": 128, "A": 1}, rdc=True)
    assert f"-I{INCLUDE_DIR}" in opts and f"-I{tmp_path.resolve()}" in opts
    assert opts[-3:] == ("-DA=1", "-DB=128", "-rdc=true")


def test_gpu_buffers_are_counted_and_released(monkeypatch):
    """GpuStrategy.buffer/keep: prepared_bytes sums distinct arrays (lists too), release
    drops every attribute (checked with numpy standing in for cupy)."""
    import numpy as np

    from gpubfs_cli.gpu.base import GpuStrategy

    class Fake(GpuStrategy):
        name = "test.fake"

        def cupy(self):
            return np

    s = Fake()
    s._buffers = {}
    a = s.buffer("a", 10, np.int32)
    s.buffer("b", 4, np.uint8, fill=7)
    s.keep("pair", [a, np.zeros(3, np.int64)])
    s.keep("matrix", object())  # a sparse matrix: its arrays are kept (and counted) apart
    assert s.b.tolist() == [7] * 4
    assert s.prepared_bytes() == 40 + 4 + 24  # `a` counted once
    assert s.device_bytes() is None  # nothing on a device before prepare's graph

    class Graph:
        def nbytes(self):
            return 1000

    s.dgraph = Graph()
    assert s.device_bytes() == [1000 + 40 + 4 + 24]  # the graph on the device and the buffers
    s.release()
    assert s.a is None and s.b is None and s.pair is None and s.matrix is None
    assert s.prepared_bytes() == 0


def test_knob_dataclasses_are_frozen():
    for names in registry().values():
        for cls in names.values():
            assert dataclasses.is_dataclass(cls.Knobs)
