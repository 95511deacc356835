"""The device layer on a GPU: a graph per device with weights and in-edges on demand,
modules per device and defines, events on every device of a strategy."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.core.device import gpu
from gpubfs_cli.graph.samples import gnm


def _graph(directed: bool):
    g = gnm(500, 4000, 3, directed=directed)
    g.weights = np.arange(g.m, dtype=np.int32) % 97
    return g


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False])
def test_device_graph_weights_and_in_edges(directed):
    from gpubfs_cli.gpu.device_graph import DeviceGraph

    g = _graph(directed)
    dg = DeviceGraph.of(g, gpu(0))
    assert DeviceGraph.of(g) is dg and dg.weights is None
    assert DeviceGraph.of(g, weights=True).weights.get().tolist() == g.weights.tolist()
    dg.with_in_edges()
    rows = np.repeat(np.arange(g.n), np.diff(g.row_offsets))
    want = sorted(zip(g.col_indices.tolist(), rows.tolist(), strict=True))
    offs, idx = dg.in_offsets.get(), dg.in_indices.get()
    got = [(v, int(u)) for v in range(g.n) for u in idx[offs[v]:offs[v + 1]]]
    assert got == want
    if not directed:
        assert dg.in_indices is dg.col_indices
    DeviceGraph.release(g)
    assert DeviceGraph.of(g) is not dg


@pytest.mark.gpu
def test_modules_are_cached_per_defines_and_device():
    from gpubfs_cli.algorithms.bfs.gpu.merrill.strategies import compiled_module

    assert compiled_module(256, gpu(0)) is compiled_module(256, gpu(0))
    assert compiled_module(512, gpu(0)) is not compiled_module(256, gpu(0))


@pytest.mark.gpu
def test_timed_call_records_events_on_the_device():
    import cupy as cp

    from gpubfs_cli.bench.timing import timed_call

    x = cp.arange(1 << 24, dtype=cp.float32)
    ms, value = timed_call(lambda: float((x * 2).sum()), (gpu(0),))
    assert ms > 0 and value > 0


def test_int32_row_offsets_only_below_2_31_edges():
    """No GPU needed: the decision alone (m itself is the last offset)."""
    from gpubfs_cli.gpu.device_graph import offsets32_fit

    assert offsets32_fit(0) and offsets32_fit(2**31 - 1)
    assert not offsets32_fit(2**31) and not offsets32_fit(16 << 28)
    assert offsets32_fit(np.int64(2**31 - 1)) and not offsets32_fit(np.int64(2**32 + 5))
