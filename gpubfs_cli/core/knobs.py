"""Knob values: their identity as one string, and the checks the GPU families share.

Results groups, reproduce's cells, auto's rules and its counters all match variants by
their knobs: one spelling here, so that no two of them can disagree on what is equal.
The checks raise ValueError with one line naming the knob (make_knobs makes it a
UserError naming the strategy).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable

import numpy as np


def knobs_key(knobs: dict) -> str:
    """`knobs` as JSON with its keys sorted: equal knob values give equal keys."""
    try:  # a big results file repeats a few knob sets over thousands of samples
        return _key_of(tuple((k, type(v), v) for k, v in knobs.items()))
    except TypeError:  # an unhashable value (a list)
        return json.dumps(knobs, sort_keys=True)


@functools.lru_cache(maxsize=4096)
def _key_of(items: tuple) -> str:
    # the value's type is part of the cache key: True == 1 == 1.0, but their JSON differs
    return json.dumps({k: v for k, _, v in items}, sort_keys=True)


def whole(value) -> bool:
    """An integer knob value (numpy's integers too), not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def check_flags(knobs, keys: Iterable[str]) -> None:
    """Switch knobs: true or false, nothing else (1 is not a switch)."""
    for key in keys:
        value = getattr(knobs, key)
        if not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false, not {value!r}")


def check_launch(cta_size, sizes: Iterable[int], blocks_per_sm) -> None:
    """A persistent kernel's launch knobs: CTAs of one of `sizes` threads (each compiled
    apart), `blocks_per_sm` of them an SM (0 = as many as fit)."""
    sizes = tuple(sizes)
    if not whole(cta_size) or cta_size not in sizes:
        raise ValueError(f"cta_size must be one of {', '.join(map(str, sizes))}, not {cta_size!r}")
    if not whole(blocks_per_sm) or blocks_per_sm < 0:
        raise ValueError("blocks_per_sm must be an integer >= 0 (0 = as many as fit)")


def check_edge_count(key: str, value, zero: str) -> None:
    """An edge-count knob that reaches a kernel as an int: 0 (meaning `zero`) to 2^31 - 1."""
    if not whole(value) or not 0 <= value < 2**31:
        raise ValueError(f"{key} must be an integer from 0 ({zero}) to 2^31 - 1, not {value!r}")


def check_thread_edges(value) -> None:
    """A bottom-up search's hand-off: the in-edges a thread scans alone before its warp
    takes the rest of the list (0: never)."""
    check_edge_count("thread_edges", value, "a thread scans its whole list")


PROBE_BATCHES = (1, 2, 4, 8)  # a probe_batch knob's values: BU_BATCH, one build each


def check_probe_batch(value) -> None:
    """In-edges a bottom-up lane loads at once (do.bfs, msbfs.bfs): one of PROBE_BATCHES."""
    if isinstance(value, bool) or value not in PROBE_BATCHES:
        raise ValueError(f"probe_batch must be one of {', '.join(map(str, PROBE_BATCHES))}, not {value!r}")


FRONTIER_CACHES = ("l2", "l1")  # a frontier_cache knob's values, indexed by BU_FRONT_L1; one build each


def check_frontier_cache(value) -> None:
    """Where a bottom-up lane's frontier loads are cached (do.bfs, msbfs.bfs): one of FRONTIER_CACHES."""
    if not isinstance(value, str) or value not in FRONTIER_CACHES:
        raise ValueError(f"frontier_cache must be one of {', '.join(FRONTIER_CACHES)}, not {value!r}")


def check_thresholds(knobs, scale: int, keys: Iterable[str] = ("alpha", "beta")) -> None:
    """Beamer's switch thresholds: numbers >= 0 that still fit a kernel's 64-bit integer
    once multiplied by `scale` (they reach it in 1/scale units)."""
    for key in keys:
        value = getattr(knobs, key)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                or not 0 <= value < 2**53 / scale:
            raise ValueError(f"{key} must be a number >= 0, not {value!r}")
