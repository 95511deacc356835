"""Answer: what every strategy's traverse() returns, whatever its problem."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


def to_host(a):
    """A numpy array (or None) from a numpy or device array."""
    if a is None:
        return None
    if hasattr(a, "get") and not isinstance(a, np.ndarray):
        return a.get()
    return a


@dataclass
class Answer:
    """Distances (-1 unreached; int32 for BFS levels, int64 for weighted distances),
    optional parents (-1 for none, the source's own id at the source), and counters.

    GPU strategies may return device (cupy) arrays and device scalars in counters:
    the runner stops its timer first and calls to_host() afterwards, so the copy-back
    stays outside the timed region. Counter values are ints, floats, or 1-D arrays
    (per-iteration series such as frontier sizes).
    """

    distances: Any
    parents: Any | None = None
    counters: dict[str, Any] = field(default_factory=dict)
    # time_ms: the strategy's own figure, read only for timing "self" (a peer's timer, a
    # multi-GPU strategy's slowest rank). A peer's binary also checks itself: timed_by
    # names it, peer_valid is its own check (None: it checked nothing), and distances
    # is None; the harness measures with the baseline's answer. A peer that reports only
    # counts gives peer_counts = (levels, reached): the harness checks them against the
    # baseline's depth + 1 and reached count.
    timed_by: str | None = None
    time_ms: float | None = None
    peer_valid: bool | None = None
    peer_counts: tuple[int, int] | None = None

    def to_host(self) -> Answer:
        counters = {}
        for k, v in self.counters.items():
            v = to_host(v)
            if isinstance(v, np.ndarray):
                v = v.item() if v.ndim == 0 else v
            counters[k] = v
        return Answer(to_host(self.distances), to_host(self.parents), counters,
                      self.timed_by, self.time_ms, self.peer_valid, self.peer_counts)
