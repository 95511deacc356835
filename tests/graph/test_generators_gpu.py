"""CPU and GPU generators give byte-identical edges and CSR arrays (run with make test-gpu)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from gpubfs_cli.graph.build import build_csr, to_numpy
from gpubfs_cli.graph.generators import DEVICE_FAMILIES, generate

# Small graphs, some large enough to span several generation chunks (rmat 2M, gnm and
# kronecker 4M, small_world 4M records per chunk) and to need self-loop redraws.
CASES = [
    ("rmat", {"n": 1000, "m": 50_000}),  # not a power of two
    ("rmat", {"n": 2**16, "m": 5_000_000, "a": 0.57, "b": 0.19, "c": 0.19}),
    ("rmat", {"n": 64, "m": 20_000, "gtgraph_b_quirk": False, "self_loops": True}),
    ("rmat", {"n": 4096, "m": 30_000, "vary": 0.0}),
    ("gnm", {"n": 3, "m": 10_000}),  # many self-loop redraw rounds
    ("gnm", {"n": 100_000, "m": 9_000_000}),
    ("gnm", {"n": 5000, "m": 40_000, "directed": False, "self_loops": True}),
    ("kronecker", {"scale": 12, "edgefactor": 16}),
    ("kronecker", {"scale": 18, "edgefactor": 20, "directed": True}),
    ("lattice", {"dims": [37, 23]}),
    ("lattice", {"dims": [20, 30, 40], "diagonal": True}),
    ("luo_scalefree", {"n": 50_000}),
    ("small_world", {"n": 500_000, "k": 10, "p": 0.3}),
    ("forest_fire", {"n": 5000}),
]


def digest(*arrays) -> list[str]:
    return [hashlib.sha256(np.ascontiguousarray(to_numpy(a)).tobytes()).hexdigest() for a in arrays]


def test_cases_cover_every_device_family():
    assert set(DEVICE_FAMILIES) <= {family for family, _ in CASES}


@pytest.mark.gpu
@pytest.mark.parametrize(("family", "params"), CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(CASES)])
def test_gpu_edges_and_csr_identical_to_cpu(family, params):
    import cupy

    cpu = generate(family, params, 3, xp=np)
    gpu = generate(family, params, 3, xp=cupy)
    assert isinstance(gpu.src, cupy.ndarray) and isinstance(cpu.src, np.ndarray)
    assert (gpu.n, gpu.directed, gpu.num_records) == (cpu.n, cpu.directed, cpu.num_records)
    assert gpu.src.dtype == cpu.src.dtype and gpu.dst.dtype == cpu.dst.dtype
    assert digest(gpu.src, gpu.dst) == digest(cpu.src, cpu.dst)
    for policy in ({"duplicates": "keep", "self_loops": "keep"}, {}):
        g_cpu = build_csr(cpu, **policy)
        g_gpu = build_csr(gpu, **policy)
        assert digest(g_gpu.row_offsets, g_gpu.col_indices) == digest(g_cpu.row_offsets, g_cpu.col_indices)


PART_CASES = [
    ("kronecker", {"scale": 16, "edgefactor": 16}),
    ("rmat", {"n": 2**16, "m": 1_000_000}),
    ("gnm", {"n": 100_000, "m": 2_000_000, "directed": False, "self_loops": True}),
]


@pytest.mark.gpu
@pytest.mark.parametrize(("family", "params"), PART_CASES, ids=[f for f, _ in PART_CASES])
def test_gpu_build_in_parts_and_chunks_identical_to_cpu(family, params):
    """The GPU build split into parts (a small memory budget) and read in chunks of a
    prime number of records gives the CPU's one-part CSR to the bit."""
    import cupy

    from gpubfs_cli.graph import EdgeList
    from gpubfs_cli.graph.build import RECORD_BYTES, VERTEX_BYTES, entry_bound, entry_bytes

    gpu = generate(family, params, 5, xp=cupy)
    host = EdgeList(gpu.src.get(), gpu.dst.get(), gpu.n, gpu.directed)
    bound = entry_bound(gpu.num_records, not gpu.directed)
    for policy in ({"duplicates": "keep", "self_loops": "keep"}, {}):
        want = build_csr(host, **policy)
        for chunk, part in ((100_003, bound // 5), (1 << 26, bound)):
            said = []
            mem = VERTEX_BYTES * gpu.n + RECORD_BYTES * chunk + entry_bytes() * part
            got = build_csr(gpu, chunk=chunk, memory_bytes=mem, report=said.append, **policy)
            assert digest(got.row_offsets, got.col_indices) == digest(want.row_offsets, want.col_indices)
            assert got.row_offsets.dtype == np.int64 and got.col_indices.dtype == np.int32
            assert all("on the GPU" in s for s in said) and len(said) == (part < bound)
