"""Summaries of per-source samples: time statistics and the harmonic mean of TEPS."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def summarize(
    times_ms: Sequence[float], edges: Sequence[int], low_reach: Sequence[bool] | None = None
) -> dict:
    """mean/median/min/max/std of time (ms), and TEPS rates.

    gteps_hmean is the harmonic mean of the per-source rates edges/time (Graph500
    averages rates harmonically); it equals total edges / total time when every source
    traverses the same number of edges. Sources flagged `low_reach` (under 1% of the
    vertices reached: a few edges in a few microseconds) are left out of the rates
    unless every source is one; the time statistics keep every sample.
    """
    t = np.asarray(times_ms, dtype=np.float64)
    e = np.asarray(edges, dtype=np.float64)
    if len(t) == 0:
        return {"count": 0}
    rates = np.where(t > 0, e / np.maximum(t, 1e-12) / 1e6, np.inf)  # GTEPS = edges / ms / 1e6
    if low_reach is not None:
        keep = ~np.asarray(low_reach, dtype=bool)
        if keep.any():
            rates = rates[keep]
    finite = rates[np.isfinite(rates) & (rates > 0)]
    hmean = float(len(finite) / np.sum(1.0 / finite)) if len(finite) else 0.0
    return {
        "count": int(len(t)),
        "mean_ms": float(t.mean()),
        "median_ms": float(np.median(t)),
        "min_ms": float(t.min()),
        "max_ms": float(t.max()),
        "std_ms": float(t.std(ddof=1)) if len(t) > 1 else 0.0,
        "gteps_hmean": hmean,
        "gteps_median": float(np.median(rates)) if len(rates) else 0.0,
        "edges_mean": float(e.mean()),
        "rate_samples": int(len(rates)),
    }
