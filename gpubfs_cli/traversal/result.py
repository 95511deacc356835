"""BfsResult: what every strategy's traverse() returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


def _host(a):
    if a is None:
        return None
    if hasattr(a, "get") and not isinstance(a, np.ndarray):
        return a.get()
    return a


@dataclass
class BfsResult:
    """Distances (int32, -1 unreached), optional parents (int32/int64, -1 for none and
    the source's own id at the source), and counters.

    GPU strategies may return device (cupy) arrays and device scalars in counters:
    the runner stops its timer first and calls to_host() afterwards, so the copy-back
    stays outside the timed region. Counter values are ints, floats, or 1-D arrays
    (per-iteration series such as frontier sizes).
    """

    distances: Any
    parents: Any | None = None
    counters: dict[str, Any] = field(default_factory=dict)

    def to_host(self) -> BfsResult:
        counters = {}
        for k, v in self.counters.items():
            v = _host(v)
            if isinstance(v, np.ndarray):
                v = v.item() if v.ndim == 0 else v
            counters[k] = v
        return BfsResult(_host(self.distances), _host(self.parents), counters)
