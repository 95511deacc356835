"""Cold L2: evict a GPU's L2 cache between timed samples (`gpubfs run --l2 cold`).

Warm runs (the default) time each traversal right after the previous one, so the
graph's hot lines (offsets, the visited bitmask, the frontier) may still sit in L2
(50 MB on an H100, 60 MB on an H200: whole small graphs fit). A cold run calls an
L2Flusher before each timed sample, outside the timed region: it writes a device
buffer of twice the L2 size (every line the traversal left, dirty ones included, is
evicted and written back now, not during the next timed traversal), then reads the
buffer back so that what stays in L2 is clean flush data (evicting it later costs no
write-back), and synchronizes. Twice the size, because the L2 is split in two
partitions and its replacement policy is not strict LRU.

The buffer is allocated once per device and run and dropped by release().
"""

from __future__ import annotations

from collections.abc import Sequence

from gpubfs_cli.core.device import Device
from gpubfs_cli.gpu import backend

FLUSH_FACTOR = 2


class L2Flusher:
    """flush(devices): evict the L2 of every GPU among `devices`; CPUs are skipped."""

    def __init__(self) -> None:
        self._buffers: dict[Device, object] = {}
        self.flushes = 0  # how many times flush ran on some GPU (the GPU tests check it)

    def _buffer(self, device: Device):
        buf = self._buffers.get(device)
        if buf is None:
            size = FLUSH_FACTOR * backend.l2_bytes(device)
            if size <= 0:
                raise RuntimeError(f"L2 flush: {device} reports no L2 cache size")
            cp = backend.cupy()
            with cp.cuda.Device(device.index):
                buf = cp.empty(size // 4, dtype=cp.int32)
            self._buffers[device] = buf
        return buf

    def __call__(self, devices: Sequence[Device]) -> None:
        gpus = [d for d in devices if d.is_gpu]
        if not gpus:
            return
        cp = backend.cupy()
        for d in gpus:
            buf = self._buffer(d)
            with cp.cuda.Device(d.index):
                buf.fill(self.flushes + 1)  # a kernel's stores, through L2
                buf.sum(dtype=cp.int64)  # loads: L2 ends up holding clean flush lines
        backend.synchronize(gpus)
        self.flushes += 1

    def release(self) -> None:
        self._buffers = {}
