"""Summaries of per-source samples: time statistics, the harmonic mean of TEPS, paired
ratios and the seeded bootstrap behind every "faster / slower" a report prints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

ALL_LOW_REACH = "every source reached < 1% of the vertices"
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_LEVEL = 0.95
BOOTSTRAP_SEED = 0  # fixed: the same two files always give the same interval


def summarize(
    times_ms: Sequence[float], edges: Sequence[int], low_reach: Sequence[bool] | None = None
) -> dict:
    """mean/median/min/max/std of time (ms), and TEPS rates.

    gteps_hmean is the harmonic mean of the per-source rates edges/time (Graph500
    averages rates harmonically); it equals total edges / total time when every source
    traverses the same number of edges. Sources flagged `low_reach` (under 1% of the
    vertices reached: a few edges in a few microseconds) are left out of the rates; when
    every source is one there is no rate (None, `rates_note` says why); the time
    statistics keep every sample.
    """
    t = np.asarray(times_ms, dtype=np.float64)
    e = np.asarray(edges, dtype=np.float64)
    if len(t) == 0:
        return {"count": 0}
    rates = np.where(t > 0, e / np.maximum(t, 1e-12) / 1e6, np.inf)  # GTEPS = edges / ms / 1e6
    note = None
    if low_reach is not None:
        keep = ~np.asarray(low_reach, dtype=bool)
        rates = rates[keep]
        if not keep.any():
            note = ALL_LOW_REACH
    finite = rates[np.isfinite(rates) & (rates > 0)]
    hmean = float(len(finite) / np.sum(1.0 / finite)) if len(finite) else (None if note else 0.0)
    out = {
        "count": int(len(t)),
        "mean_ms": float(t.mean()),
        "median_ms": float(np.median(t)),
        "min_ms": float(t.min()),
        "max_ms": float(t.max()),
        "std_ms": float(t.std(ddof=1)) if len(t) > 1 else 0.0,
        "gteps_hmean": hmean,
        "gteps_median": float(np.median(rates)) if len(rates) else (None if note else 0.0),
        "edges_mean": float(e.mean()),
        "rate_samples": int(len(rates)),
    }
    if note:
        out["rates_note"] = note
    return out


def paired_ratios(numerator: Mapping[int, float], denominator: Mapping[int, float]) -> np.ndarray:
    """numerator[s] / denominator[s] for every source s both have (with a positive
    denominator), in source order: the per-source ratios a speedup is the median of."""
    common = sorted(s for s in set(numerator) & set(denominator) if denominator[s] > 0)
    return np.array([numerator[s] / denominator[s] for s in common], dtype=np.float64)


def pass_sums(order: Sequence[int], size: int, *sides: Mapping[int, float]) -> list[np.ndarray]:
    """Each side's times summed over the passes of a batched strategy: consecutive runs of
    `size` sources of `order` (the order it ran them in). A pass is timed once for all its
    sources, so a throughput ratio pairs passes, not sources; a last short pass is left out."""
    passes = [order[i:i + size] for i in range(0, len(order) - size + 1, size)]
    return [np.array([sum(side[s] for s in p) for p in passes], dtype=np.float64) for side in sides]


def median_iqr(values: Sequence[float]) -> tuple[float, float, float]:
    """(median, 25th percentile, 75th percentile)."""
    q25, med, q75 = np.percentile(np.asarray(values, dtype=np.float64), [25, 50, 75])
    return float(med), float(q25), float(q75)


def relative_noise(values: Sequence[float]) -> float:
    """The spread of single measurements relative to their median: the interquartile
    range / 1.349 (a standard deviation that one outlier does not inflate) / median."""
    med, q25, q75 = median_iqr(values)
    return float((q75 - q25) / 1.349 / med) if med > 0 else float("inf")


def ratio_noise(a: Sequence[float], b: Sequence[float], paired: bool) -> float:
    """How much one ratio a/b varies from measurement to measurement: the relative
    noise of the per-source ratios (paired), else the two sides' noises combined."""
    if paired:
        return relative_noise(np.asarray(a, dtype=np.float64) / np.asarray(b, dtype=np.float64))
    return float(np.hypot(relative_noise(a), relative_noise(b)))


def ratio_estimate(a: Sequence[float], b: Sequence[float], paired: bool) -> float:
    """The median of the per-source ratios a[i] / b[i] (paired), else median(a) / median(b)."""
    if paired:
        return float(np.median(np.asarray(a, dtype=np.float64) / np.asarray(b, dtype=np.float64)))
    return float(np.median(a) / np.median(b))


def bootstrap_ratio(a: Sequence[float], b: Sequence[float], paired: bool, *,
                    resamples: int = BOOTSTRAP_RESAMPLES, level: float = BOOTSTRAP_LEVEL,
                    seed: int = BOOTSTRAP_SEED) -> tuple[float, float, float]:
    """(estimate, low, high) of "a over b" with a percentile bootstrap interval.

    paired (a[i] and b[i] are the same source): the median of the per-source ratios
    a[i] / b[i], resampling sources. Unpaired: median(a) / median(b), resampling each
    side on its own. Seeded, so the same inputs always give the same interval."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    rng = np.random.default_rng(seed)
    tail = 100 * (1 - level) / 2
    if paired:
        if len(a) != len(b):
            raise ValueError("paired samples must have the same length")
        r = a / b
        boot = np.median(r[rng.integers(0, len(r), size=(resamples, len(r)))], axis=1)
    else:
        ma = np.median(a[rng.integers(0, len(a), size=(resamples, len(a)))], axis=1)
        mb = np.median(b[rng.integers(0, len(b), size=(resamples, len(b)))], axis=1)
        boot = ma / mb
    lo, hi = np.percentile(boot, [tail, 100 - tail])
    return ratio_estimate(a, b, paired), float(lo), float(hi)
