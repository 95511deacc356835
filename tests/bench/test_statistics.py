"""summarize(): time statistics and harmonic-mean rates."""

import pytest

from gpubfs_cli.bench.statistics import summarize


def test_harmonic_mean_is_total_edges_over_total_time_for_equal_edges():
    s = summarize([1.0, 3.0], [1_000_000, 1_000_000])
    assert s["gteps_hmean"] == pytest.approx(2_000_000 / 4.0 / 1e6)
    assert s["median_ms"] == 2.0 and s["count"] == 2


def test_low_reach_sources_are_left_out_of_rates_but_not_times():
    # a source in a 2-vertex component: 2 edges in 0.2 ms would pull the mean to ~0
    s = summarize([1.0, 1.0, 0.2], [10_000_000, 10_000_000, 2], [False, False, True])
    assert s["gteps_hmean"] == pytest.approx(10.0)
    assert s["rate_samples"] == 2 and s["count"] == 3
    assert s["min_ms"] == 0.2
    # when every source is low-reach, the rates are what there is
    only = summarize([0.2], [2], [True])
    assert only["rate_samples"] == 1 and only["gteps_hmean"] == pytest.approx(1e-5)
