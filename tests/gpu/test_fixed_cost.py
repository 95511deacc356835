"""Issue 14, section 3 on the GPU: a warm traverse() makes no device allocation, for
every registered GPU strategy (BFS and SSSP; new strategies are covered by the registry),
counted by an allocator in front of CuPy's memory pool. A strategy whose algorithm is
built on a library call that allocates (classic.spmv's cupyx SpMV, raval.wd/hp's
cupy.cumsum) says so in `traverse_allocates`; it must then keep nothing: the pool's
used bytes are back where they were once its answer is dropped (on samples.grid_and_pair,
whose shape tests/graph/test_samples.py checks)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from gpubfs_cli.core.strategy import all_strategies, make_knobs, registry
from gpubfs_cli.gpu.base import GpuStrategy
from gpubfs_cli.graph.samples import PAIR_SOURCE, grid_and_pair

GPU_STRATEGIES = [(p, n) for p, names in registry().items() for n, cls in names.items()
                  if issubclass(cls, GpuStrategy)]


@contextlib.contextmanager
def counted_mallocs():
    """Sizes of the device allocations made inside the block (every CuPy allocation goes
    through the current allocator)."""
    import cupy as cp

    before = cp.cuda.get_allocator()
    pool = cp.get_default_memory_pool()
    sizes: list[int] = []

    def malloc(size):
        sizes.append(int(size))
        return pool.malloc(size)

    cp.cuda.set_allocator(malloc)
    try:
        yield sizes
    finally:
        cp.cuda.set_allocator(before)


@pytest.mark.gpu
@pytest.mark.parametrize("problem,name", GPU_STRATEGIES, ids=[f"{p}-{n}" for p, n in GPU_STRATEGIES])
def test_warm_traverse_allocates_no_device_memory(problem, name):
    import cupy as cp

    cls = all_strategies(problem)[name]
    reason = cls.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    g = grid_and_pair(weighted=problem == "sssp")
    strategy = cls(make_knobs(cls, {}))
    strategy.upload(g)
    strategy.prepare(g)
    pool = cp.get_default_memory_pool()
    modes = (False, True) if cls.supports_predecessors else (False,)
    try:
        for source in (PAIR_SOURCE, 0):
            for pred in modes:
                strategy.traverse(source, pred).to_host()  # warm
                cp.cuda.runtime.deviceSynchronize()
                used = pool.used_bytes()
                with counted_mallocs() as sizes:
                    answer = strategy.traverse(source, pred)
                    cp.cuda.runtime.deviceSynchronize()
                host = answer.to_host()
                del answer
                assert host.distances[source] == 0
                where = f"{name} from {source}, predecessors={pred}"
                if cls.traverse_allocates:
                    assert pool.used_bytes() == used, f"{where} keeps device memory it allocated"
                else:
                    assert sizes == [], f"{where} allocated {len(sizes)} device arrays: {sizes[:8]} bytes"
    finally:
        strategy.release()


def test_arg_template_fills_its_slots_in_order():
    from gpubfs_cli.gpu.launch import SLOT, ArgTemplate, i32

    buf = np.zeros(3)
    t = ArgTemplate(i32(5), SLOT, buf, SLOT)
    a = t(i32(7), None)
    assert a[0] == 5 and a[1] == 7 and a[2] is buf and a[3] is None and isinstance(a, tuple)
    b = t(i32(8), i32(9))
    assert b[1] == 8 and b[3] == 9 and a[1] == 7  # each call its own tuple, the template unchanged
    with pytest.raises(TypeError):
        t(i32(1))


def test_release_drops_derived_views():
    from gpubfs_cli.algorithms.bfs.gpu.classic.harish import HarishBfs

    s = HarishBfs(make_knobs(HarishBfs, {}))
    s._buffers, s._pinned, s._derived = {}, {}, []
    s.derived("views", (np.zeros(2), np.zeros(2)))
    s.release()
    assert s.views is None and s._derived == []
