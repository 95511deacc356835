"""Rank classes for the CPU checks of the rank layer (gpu/ranks): built by the worker
from "tests.gpu.rank_helpers:Echo" like a strategy's rank class, with no GPU."""

from __future__ import annotations

import os
import time


class Echo:
    def __init__(self, rank: int, device: int, comm, tag: str = ""):
        assert comm is None
        self.rank, self.tag = rank, tag

    def nbytes(self) -> int:
        return 100 * self.rank

    def whoami(self, x: int) -> tuple:
        return (self.rank, self.tag, x, os.getpid())

    def boom(self) -> None:
        raise RuntimeError(f"boom on {self.rank}")

    def nap(self, seconds: float) -> None:
        time.sleep(seconds)


class Broken:
    def __init__(self, rank: int, device: int, comm):
        raise MemoryError(f"out of memory on GPU {device} (asked 17.2 GB)")


class WithComm:
    """A rank given a communicator (the worker's fake NcclComm in the teardown check)."""

    def __init__(self, rank: int, device: int, comm):
        assert comm is not None
        self.comm = comm

    def nbytes(self) -> int:
        return 1
