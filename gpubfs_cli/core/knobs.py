"""Knob values: their identity as one string, their valid ranges, and the checks the
GPU families share.

Results groups, reproduce's cells, auto's rules and its counters all match variants by
their knobs: one spelling here, so that no two of them can disagree on what is equal.

Every numeric knob carries its valid range: its field is declared with `knob(default,
low, high, ...)`, which puts a `Range` in the field's metadata; strategy registration
refuses a numeric knob without one, and core.strategy.make_knobs checks every given
value against it before the knobs are made (configs, flags, resumed runs and code
alike). Run config values are checked against Ranges of the same kind
(bench/config.py). The family checks below raise ValueError with one line naming the
knob (make_knobs makes it a UserError naming the strategy): what a range cannot say
(one knob against another) and the same bounds for knobs made directly.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Iterable
from typing import Any

import numpy as np

RANGE = "gpubfs_range"  # the key of a numeric knob's Range in its field's metadata


@dataclasses.dataclass(frozen=True)
class Range:
    """The valid values of a numeric knob or config value: whole numbers (`whole`) or
    any numbers, at least `low` (more than it when `above`) and at most `high` (None: no
    bound), or only those `among`; never NaN, and infinity only with `infinite`. `unit`
    names what is counted ("milliseconds"); `means` says what a special value means
    ("0: all cores"); `optional`: null (None) is valid too."""

    low: float | None = None
    high: float | None = None
    whole: bool = True
    above: bool = False
    among: tuple = ()
    unit: str = ""
    means: str = ""
    infinite: bool = False
    optional: bool = False

    def expected(self) -> str:
        """What a valid value is, in words: `a whole number from 1 to 64`."""
        kind = "a whole number" if self.whole else "a number"
        low, high = self.low, self.high
        if self.among:
            text = f"one of {', '.join(map(_number, self.among))}"
        elif low is not None and high is not None:
            text = f"{kind} from {_number(low)} to {_number(high)}"
        elif self.unit and low is not None and not self.above:
            text = f"{_number(low)} or more {self.unit}"
        elif low == 0 and self.above or low == 1 and self.whole and not self.above:
            text = f"a positive {kind[2:]}"
        elif low is not None:
            text = f"{kind} {'>' if self.above else '>='} {_number(low)}"
        elif high is not None:
            text = f"{kind} <= {_number(high)}"
        else:
            text = kind
        if self.unit and not text.endswith(self.unit):
            text += f" of {self.unit}"
        if self.means:
            text += f" ({self.means})"
        return text + (", or null" if self.optional else "")

    def problem(self, value: Any) -> str | None:
        """None when `value` is valid, else `expected ..., got VALUE`."""
        if value is None and self.optional:
            return None
        if not self.holds(value):
            return f"expected {self.expected()}, got {shown(value)}"
        return None

    def holds(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            return False
        if self.whole and not whole(value):
            return False
        if isinstance(value, (float, np.floating)) and (
                math.isnan(value) or math.isinf(value) and not (self.infinite and self.high is None and value > 0)):
            return False
        if self.among:
            return value in self.among
        if self.low is not None and (value <= self.low if self.above else value < self.low):
            return False
        return self.high is None or value <= self.high


def knob(default: Any, low: float | None = None, high: float | None = None, *, above: bool = False,
         among: Iterable = (), unit: str = "", means: str = "", infinite: bool = False,
         whole: bool | None = None) -> Any:
    """A numeric knob's dataclass field: its default and its valid Range (whole numbers
    unless the default is a float or `whole` is False; a None default makes null valid too)."""
    whole = not isinstance(default, float) if whole is None else whole
    rng = Range(low, high, whole, above, tuple(among), unit, means, infinite, default is None)
    if not rng.holds(default) and not rng.optional:
        raise ValueError(f"a knob's default {default!r} is outside its own range ({rng.expected()})")
    return dataclasses.field(default=default, metadata={RANGE: rng})


def knob_range(field: dataclasses.Field) -> Range | None:
    """The Range a knob's field declares (None: a knob that is not numeric)."""
    return field.metadata.get(RANGE)


def is_numeric(value: Any) -> bool:
    """A number, not a bool: a knob whose default is one must declare its Range."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def shown(value: Any) -> str:
    """A value as an error line quotes it: null, 3, 2.5, inf, 'text'."""
    if isinstance(value, np.generic):
        value = value.item()
    return "null" if value is None else repr(value)


def _number(value: Any) -> str:
    """2^31 - 1 and 2^62 for the bounds that are such, else the plain number."""
    if isinstance(value, int) and value >= 1 << 16:
        if value & (value - 1) == 0:
            return f"2^{value.bit_length() - 1}"
        if value & (value + 1) == 0:
            return f"2^{value.bit_length()} - 1"
    return f"{value:g}" if isinstance(value, float) else str(value)


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


def check_small_frontier(value, cap: int) -> None:
    """A persistent kernel's small-frontier threshold (small_frontier.cuh): the most items
    its leader CTA runs alone, 0 (off) to `cap`, the size of its shared-memory queues."""
    if not whole(value) or not 0 <= value <= cap:
        raise ValueError(f"small_frontier must be a whole number between 0 (off) and {cap}, not {value!r}")


def check_delta_scale(delta_given: bool, scale) -> None:
    """A delta-stepping strategy's bucket width as a multiple of the mean edge weight
    (delta_scale): None, or a number above 0, and not beside an explicit delta."""
    if scale is not None and (isinstance(scale, bool) or not isinstance(scale, (int, float))
                              or not 0 < scale < float("inf")):
        raise ValueError(f"delta_scale must be a number above 0 (times the mean edge weight), not {scale!r}")
    if delta_given and scale is not None:
        raise ValueError("delta and delta_scale: give one (delta_scale is delta over the mean edge weight)")


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
