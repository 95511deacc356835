"""summarize(): time statistics and harmonic-mean rates."""

import numpy as np
import pytest

from gpubfs_cli.results.statistics import (
    ALL_LOW_REACH,
    bootstrap_ratio,
    median_iqr,
    paired_ratios,
    pass_sums,
    ratio_estimate,
    summarize,
)


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
    # when every source is low-reach there is no rate, and the summary says why
    only = summarize([0.2], [2], [True])
    assert only["rate_samples"] == 0 and only["gteps_hmean"] is None
    assert only["rates_note"] == ALL_LOW_REACH and only["median_ms"] == 0.2


def test_paired_ratios_pair_by_source():
    assert paired_ratios({0: 10.0, 1: 12.0, 5: 3.0}, {1: 4.0, 0: 5.0, 2: 1.0}).tolist() == [2.0, 3.0]
    assert paired_ratios({0: 1.0}, {0: 0.0}).tolist() == []  # a zero time pairs with nothing
    assert median_iqr([4.0, 7.0, 10.0, 12.0]) == (8.5, 6.25, 10.5)


def test_bootstrap_is_seeded_and_identical_inputs_give_one():
    a = [1.0, 1.2, 0.9, 1.5, 1.1, 1.0, 1.3, 0.8]
    assert bootstrap_ratio(a, a, paired=True) == (1.0, 1.0, 1.0)
    b = [x * 1.05 for x in reversed(a)]
    assert bootstrap_ratio(a, b, paired=False) == bootstrap_ratio(a, b, paired=False)
    assert bootstrap_ratio(a, b, paired=False)[0] == pytest.approx(1 / 1.05)


def test_bootstrap_one_outlier_stays_inside_the_noise():
    a = [1.0] * 8
    b = [1.0] * 7 + [4.3]  # one slow source in B
    est, lo, hi = bootstrap_ratio(a, b, paired=True)
    assert est == 1.0 and lo <= 1.0 <= hi
    # a consistent 2x on every source is outside it
    est, lo, hi = bootstrap_ratio(a, [0.5] * 8, paired=True)
    assert (est, lo, hi) == (2.0, 2.0, 2.0)


def test_unpaired_ratio_of_medians_interval_covers_it():
    rng = np.random.default_rng(1)
    a = rng.normal(10, 1, 40)
    b = rng.normal(10, 1, 30)
    est, lo, hi = bootstrap_ratio(a, b, paired=False)
    assert est == pytest.approx(ratio_estimate(a, b, paired=False))
    assert lo < 1 < hi


def test_relative_noise_ignores_one_outlier():
    from gpubfs_cli.results.statistics import ratio_noise, relative_noise

    assert relative_noise([1.0] * 7 + [40.0]) == 0.0
    assert relative_noise([0.9, 1.0, 1.1, 1.0]) == pytest.approx((1.025 - 0.975) / 1.349)
    assert ratio_noise([2.0, 4.0, 6.0], [1.0, 2.0, 3.0], paired=True) == 0.0  # a constant 2x


def test_a_source_that_traversed_no_edge_is_left_out_of_the_harmonic_mean():
    # its rate is 0; counted, 1 / 0 would drag the harmonic mean to 0
    s = summarize([1.0, 1.0], [0, 2_000_000])
    assert s["gteps_hmean"] == pytest.approx(2.0)


def test_a_zero_level_interval_is_one_point():
    # level 0: both ends are the bootstrap's median (the tails are half the
    # distribution each), so a wrong tail width shows as a gap
    a, b = [1.0, 2.0, 3.0, 4.0, 9.0], [1.0, 1.5, 2.0, 2.5, 3.0]
    for paired in (True, False):
        _, lo, hi = bootstrap_ratio(a, b, paired, level=0.0)
        assert lo == hi
        _, lo95, hi95 = bootstrap_ratio(a, b, paired)
        assert lo95 < lo < hi95


def test_pass_sums_sum_each_side_over_the_passes_in_run_order():
    order = [7, 3, 9, 1, 5]  # two whole passes of 2, in the order run; source 5 is left out
    one_source = {7: 1.0, 3: 2.0, 9: 4.0, 1: 8.0, 5: 100.0}
    batched = {7: 0.5, 3: 0.5, 9: 3.0, 1: 3.0, 5: 3.0}
    a, b = pass_sums(order, 2, one_source, batched)
    assert a.tolist() == [3.0, 12.0] and b.tolist() == [1.0, 6.0]
    assert bootstrap_ratio(a, b, paired=True)[0] == pytest.approx(2.5)  # the median of 3x and 2x
    assert pass_sums([7, 3], 4, one_source)[0].size == 0  # no whole pass
