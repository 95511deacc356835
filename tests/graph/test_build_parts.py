"""The CSR build in parts, read in chunks, and its move from the GPU to the CPU: the same
CSR to the bit as the build in one part, whatever the chunk and part sizes.

No GPU here: numpy stands in for CuPy (FakeDevice: numpy's functions, a fake free
memory and pool, and allocations that can be made to fail like CuPy's)."""

from __future__ import annotations

import types

import numpy as np
import pytest

from gpubfs_cli.graph import EdgeList, build_csr, memory
from gpubfs_cli.graph import build as build_mod
from gpubfs_cli.graph.build import (
    ENTRY_BYTES,
    RECORD_BYTES,
    VERTEX_BYTES,
    PartTooLarge,
    Plan,
    entry_bound,
    entry_bytes,
    host_budget,
    part_cuts,
    plan_parts,
)
from gpubfs_cli.graph.generators import generate


def budget_for(n: int, records: int, chunk: int, part: int, weight_itemsize: int = 0) -> int:
    """The memory_bytes that makes plan_parts allow `part` entries per part."""
    return VERTEX_BYTES * n + RECORD_BYTES * min(chunk, max(records, 1)) + entry_bytes(weight_itemsize) * part


def same_csr(a, b) -> None:
    assert a.row_offsets.dtype == b.row_offsets.dtype == np.int64
    assert a.col_indices.dtype == b.col_indices.dtype == np.int32
    assert np.array_equal(a.row_offsets, b.row_offsets)
    assert np.array_equal(a.col_indices, b.col_indices)
    assert a.directed == b.directed and a.n == b.n and a.m == b.m
    if a.weights is None:
        assert b.weights is None
    else:
        assert a.weights.dtype == b.weights.dtype and np.array_equal(a.weights, b.weights)


GRAPHS = [
    ("kronecker", {"scale": 10, "edgefactor": 16}),
    ("kronecker", {"scale": 9, "edgefactor": 8, "directed": True}),
    ("rmat", {"n": 3000, "m": 20_000}),  # unpermuted: low ids hold most edges
    ("gnm", {"n": 2000, "m": 15_000}),
    ("gnm", {"n": 1500, "m": 12_000, "directed": False, "self_loops": True}),
]
POLICIES = [{}, {"self_loops": "keep"}, {"duplicates": "keep"}, {"self_loops": "keep", "duplicates": "keep"}]


@pytest.mark.parametrize("seed", [1, 2, 7])
@pytest.mark.parametrize(("family", "params"), GRAPHS, ids=[f"{f}-{i}" for i, (f, _) in enumerate(GRAPHS)])
def test_parts_and_chunks_give_the_one_part_csr(family, params, seed):
    edges = generate(family, params, seed)
    for policy in POLICIES:
        whole = build_csr(edges, **policy)
        bound = entry_bound(edges.num_records, not edges.directed)
        # chunks of a prime number of records split rows anywhere; parts from 2 to ~40
        for chunk, part in ((997, bound // 2 + 1), (4099, bound // 7), (1 << 20, bound // 40)):
            said = []
            parts = build_csr(edges, chunk=chunk, report=said.append,
                              memory_bytes=budget_for(edges.n, edges.num_records, chunk, part), **policy)
            same_csr(whole, parts)
            assert len(said) == 1 and "building the CSR on the CPU in" in said[0]
            assert int(said[0].split(" in ")[1].split()[0]) >= 2


def test_records_sorted_by_row_split_rows_across_chunks():
    """Records in CSR order: every chunk boundary falls inside some vertex's row."""
    g = build_csr(generate("rmat", {"n": 500, "m": 8000}, 3), duplicates="keep")
    rows = np.repeat(np.arange(g.n, dtype=np.int32), np.diff(g.row_offsets))
    edges = EdgeList(rows, g.col_indices.copy(), g.n, True)
    for chunk, part in ((1, 4000), (5, 700), (64, 50), (333, 1), (8000, 200)):
        got = build_csr(edges, duplicates="keep", chunk=chunk, memory_bytes=budget_for(g.n, len(rows), chunk, part))
        same_csr(g, got)


def test_weights_and_every_policy_in_parts():
    rng = np.random.default_rng(5)
    n, r = 60, 1200
    src, dst = rng.integers(0, n, r), rng.integers(0, n, r)
    for w in (rng.integers(0, 9, r).astype(np.int32), rng.random(r)):
        for directed in (True, False):
            edges = EdgeList(src, dst, n, directed, weights=w)
            for policy in POLICIES:
                whole = build_csr(edges, keep_weights=True, **policy)
                for chunk, part in ((7, 500), (256, 60)):
                    mem = budget_for(n, r, chunk, part, w.dtype.itemsize)
                    same_csr(whole, build_csr(edges, keep_weights=True, chunk=chunk, memory_bytes=mem, **policy))


def test_odd_id_dtypes_and_empty_lists():
    src = np.array([3, 1, 1, 0], dtype=np.uint32)
    dst = np.array([1, 3, 2, 0], dtype=np.uint32)
    edges = EdgeList(src, dst, 5, False)
    whole = build_csr(edges)
    assert whole.m == 4 and list(whole.neighbors(1)) == [2, 3]
    same_csr(whole, build_csr(edges, chunk=1, memory_bytes=budget_for(5, 4, 1, 1)))
    empty = build_csr(EdgeList(np.array([], np.int32), np.array([], np.int32), 4, True), chunk=3)
    assert empty.m == 0 and list(empty.row_offsets) == [0] * 5
    none = build_csr(EdgeList(np.array([], np.int64), np.array([], np.int64), 0, False))
    assert (none.n, none.m) == (0, 0)


# ---- the decisions ---------------------------------------------------------------

def test_plan_parts_from_the_budget():
    n, records, chunk = 1000, 50_000, 4096
    fixed = VERTEX_BYTES * n + RECORD_BYTES * chunk
    assert plan_parts(n, records, True, None, chunk=chunk) == Plan(chunk, 100_000)  # unknown: one part
    assert plan_parts(n, records, True, fixed - 1, chunk=chunk) is None  # not even the fixed arrays
    assert plan_parts(n, records, True, fixed + ENTRY_BYTES * 123 + 5, chunk=chunk) == Plan(chunk, 123)
    assert plan_parts(n, records, False, 10**15, chunk=chunk) == Plan(chunk, records)  # capped at the bound
    assert plan_parts(n, 10, True, fixed, chunk=chunk) == Plan(chunk, 20)  # a chunk holds at most the records
    assert plan_parts(n, 10, True, VERTEX_BYTES * n + RECORD_BYTES * 10 - 1, chunk=chunk) is None
    with_w = plan_parts(n, records, True, fixed + entry_bytes(8) * 10, weight_itemsize=8, chunk=chunk)
    assert with_w.part_entries == 10 and entry_bytes(8) > ENTRY_BYTES


def test_bounds_and_plans_of_the_largest_graphs_stay_exact():
    """s27: 2^31 records, 2^32 entries: Python ints throughout, nothing wraps at 2^31."""
    records = 16 << 27
    assert entry_bound(records, True) == 1 << 32
    plan = plan_parts(1 << 27, records, True, 60 * 10**9)
    assert 1 << 30 < plan.part_entries < 1 << 32
    assert isinstance(plan.part_entries, int)


def test_part_cuts_count_in_int64_past_2_31():
    big = 2**31
    entries = np.array([big - 1, 5, big, 0, 7, 0], dtype=np.int64)
    cuts, sizes = part_cuts(entries, big + 10, oversize=False)
    assert cuts == [0, 2, 6] and sizes == [big + 4, big + 7]
    assert sum(sizes) == int(entries.sum()) > 2**32
    # int32 counts in: the running sum is still int64
    cuts, sizes = part_cuts(np.full(5, 2**30, dtype=np.int32), 2**31, oversize=False)
    assert cuts == [0, 2, 4, 5] and sizes == [2**31, 2**31, 2**30]


def test_part_cuts_oversize_vertex():
    entries = np.array([2, 9, 1, 1, 0, 3], dtype=np.int64)
    with pytest.raises(PartTooLarge, match="vertex 1 has 9 entries"):
        part_cuts(entries, 4, oversize=False)
    cuts, sizes = part_cuts(entries, 4, oversize=True)
    assert cuts == [0, 1, 2, 5, 6] and sizes == [2, 9, 2, 3]
    assert part_cuts(np.zeros(3, np.int64), 4, oversize=False) == ([0, 3], [0])


def test_host_budget_is_bounded_whatever_the_reading(monkeypatch):
    n, records = 1 << 20, 1 << 24
    per = entry_bytes()
    fixed = VERTEX_BYTES * n + RECORD_BYTES * build_mod.CHUNK_RECORDS
    for free, parts in ((None, build_mod.HOST_PART_MAX), (10**6, build_mod.HOST_PART_MIN),
                        (10**15, build_mod.HOST_PART_MAX)):
        monkeypatch.setattr(memory, "available_memory", lambda free=free: free)
        assert host_budget(n, records, True, 4) == fixed + per * parts
    monkeypatch.setattr(memory, "available_memory", lambda: 40 * 10**9)
    mid = host_budget(n, records, True, 4)
    assert fixed + per * build_mod.HOST_PART_MIN < mid < fixed + per * build_mod.HOST_PART_MAX


# ---- the GPU path, with numpy standing in for CuPy -------------------------------

class OutOfMemoryError(MemoryError):
    """What CuPy's allocator raises (same name, module and attributes)."""

    __module__ = "cupy.cuda.memory"

    def __init__(self, size: int, total: int):
        super().__init__(f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes).")
        self._size, self._total = size, total


class FakeDevice:
    """numpy as a device module: memGetInfo says `free`; an allocation over `fail_over`
    bytes raises CuPy's OutOfMemoryError; free_all_blocks is counted."""

    def __init__(self, free: int, fail_over: int | None = None):
        self.free, self.fail_over, self.released, self.allocations = free, fail_over, 0, 0
        self.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(memGetInfo=lambda: (self.free, 80 * 10**9)))

    def get_default_memory_pool(self):
        def free_all_blocks():
            self.released += 1

        return types.SimpleNamespace(free_bytes=lambda: 0, free_all_blocks=free_all_blocks)

    def empty(self, shape, dtype=float):
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        if self.fail_over is not None and nbytes > self.fail_over:
            raise OutOfMemoryError(nbytes, 68_700_000_000)
        self.allocations += 1
        return np.empty(shape, dtype)

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.fixture
def kron():
    return generate("kronecker", {"scale": 10, "edgefactor": 16}, 4)


def _on(monkeypatch, device: FakeDevice) -> None:
    monkeypatch.setattr(build_mod, "array_module", lambda a: device)


def test_gpu_build_in_parts_when_the_whole_does_not_fit(monkeypatch, kron):
    whole = build_csr(kron)
    bound = entry_bound(kron.num_records, True)
    free = int(budget_for(kron.n, kron.num_records, build_mod.CHUNK_RECORDS, bound // 3) / build_mod.DEVICE_SHARE)
    device = FakeDevice(free)
    _on(monkeypatch, device)
    said = []
    same_csr(whole, build_csr(kron, report=said.append))
    assert len(said) == 1 and said[0].startswith("building the CSR on the GPU in ")
    assert device.allocations and device.released == 1


def test_gpu_parts_stay_under_2_31_entries(monkeypatch, kron):
    """However much memory is free, a GPU part holds at most DEVICE_PART_MAX entries
    (2**31 - 1: CuPy's kernels index in 32 bits), here made small."""
    whole = build_csr(kron)
    bound = entry_bound(kron.num_records, True)
    assert build_mod.DEVICE_PART_MAX == 2**31 - 1
    monkeypatch.setattr(build_mod, "DEVICE_PART_MAX", bound // 4)
    _on(monkeypatch, FakeDevice(free=10**15))
    said = []
    same_csr(whole, build_csr(kron, report=said.append))
    assert said[0].startswith("building the CSR on the GPU in ")
    assert int(said[0].split(" in ")[1].split()[0]) >= 4


def test_gpu_too_small_for_the_fixed_arrays_builds_on_the_cpu(monkeypatch, kron):
    whole = build_csr(kron)
    device = FakeDevice(free=1000)
    _on(monkeypatch, device)
    said = []
    same_csr(whole, build_csr(kron, report=said.append))
    assert said[0].startswith("building the CSR on the CPU: the GPU has 0.0 GB free")
    assert device.allocations == 0  # decided before allocating anything


def test_gpu_out_of_memory_midway_falls_back_and_frees_the_pool(monkeypatch, kron):
    whole = build_csr(kron)
    device = FakeDevice(free=10**12, fail_over=1 << 16)  # the estimate says yes; the allocator says no
    _on(monkeypatch, device)
    said = []
    same_csr(whole, build_csr(kron, report=said.append))
    assert device.released >= 1
    assert said[-1].startswith("building the CSR on the CPU: the GPU ran out of memory (")
    assert "68.7 GB held by this process" in said[-1]


def test_gpu_vertex_larger_than_a_part_builds_on_the_cpu(monkeypatch):
    # a star: vertex 0 holds every edge, more than a part may
    n = 300
    edges = EdgeList(np.zeros(n - 1, np.int32), np.arange(1, n, dtype=np.int32), n, False)
    whole = build_csr(edges)
    free = int(budget_for(n, n - 1, 64, 200) / build_mod.DEVICE_SHARE) + 100
    _on(monkeypatch, FakeDevice(free))
    said = []
    same_csr(whole, build_csr(edges, chunk=64, report=said.append))
    assert said[-1].startswith("building the CSR on the CPU: one part does not fit the GPU (vertex 0 has 299")


def test_a_gpu_error_that_is_not_memory_is_raised(monkeypatch, kron):
    class Broken(FakeDevice):
        def bincount(self, *a, **k):
            raise RuntimeError("CUDA driver error")

    _on(monkeypatch, Broken(free=10**12))
    with pytest.raises(RuntimeError, match="CUDA driver error"):
        build_csr(kron)


def test_out_of_memory_descriptions(monkeypatch):
    monkeypatch.setattr(memory, "available_memory", lambda: 9_100_000_000)
    try:
        np.empty(1 << 50)
    except MemoryError as exc:
        host = exc
    assert memory.is_out_of_memory(host)
    assert memory.out_of_memory(host) == ("host memory", "9007199.3 GB asked, 9.1 GB available")
    gpu = OutOfMemoryError(17_200_000_000, 68_700_000_000)
    assert memory.out_of_memory(gpu, FakeDevice(0)) == (
        "GPU memory", "17.2 GB asked, 68.7 GB held by this process, 80.0 GB on the GPU")
    assert memory.out_of_memory(gpu) == ("GPU memory", "17.2 GB asked, 68.7 GB held by this process")
    assert memory.is_out_of_memory(RuntimeError("cudaErrorMemoryAllocation: out of memory"))
    assert memory.out_of_memory(RuntimeError("cudaErrorMemoryAllocation: out of memory"))[0] == "GPU memory"
    assert not memory.is_out_of_memory(RuntimeError("other"))
    assert memory.out_of_memory(MemoryError()) == ("host memory", "9.1 GB available")
    monkeypatch.setattr(memory, "available_memory", lambda: None)
    assert memory.out_of_memory(MemoryError()) == ("host memory", "")
