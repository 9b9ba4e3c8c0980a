"""Threshold rules at their boundaries, against independent computations.

Error counts are integers, so cuts that fall on an integer decide whether a feature with
exactly that many errors is in (it is not: every cut is strict). Ties of counts go to the
lower feature index; p-values equal to the level are rejected; ineligible features are
never selected and never counted in a correction. References: scipy's binomial
distribution, a step-up loop for Benjamini-Hochberg, E[min] as a sum of tail powers.
"""

import math

import numpy as np
import pytest
from scipy import stats

from widefs.univariate import threshold_in_errors
from widefs.univariate._thresholds import (
    NAMED_THRESHOLDS,
    _binomial_pvalues,
    _chance_cut,
    reject_pvalues,
    top_k,
)


def ref_bh(p, alpha):
    """Benjamini-Hochberg step-up by a loop: reject the k smallest for the largest k with
    p_(k) <= k alpha / m."""
    m = len(p)
    order = np.argsort(p, kind="stable")
    k_max = 0
    for k in range(1, m + 1):
        if p[order[k - 1]] <= k * alpha / m:
            k_max = k
    out = np.zeros(m, bool)
    out[order[:k_max]] = True
    return out


def ref_expected_min(m, n, p):
    """E[min of m independent Binomial(n, p)] = sum_{k>=1} P(X >= k)^m."""
    return sum(stats.binom.sf(k - 1, n, p) ** m for k in range(1, n + 1))


# -- reject_pvalues ------------------------------------------------------------------------------
def test_bonferroni_rejects_at_the_level_exactly():
    p = np.array([0.01, 0.0125, 0.02, 0.5])
    eligible = np.ones(4, bool)
    # m = 4: 0.0125 * 4 = 0.05 is rejected at 0.05 (<=), 0.02 * 4 is not.
    assert reject_pvalues("bonferroni", p, 0.05, eligible).tolist() == [True, True, False, False]
    # Only eligible features count: m = 2 rejects 0.02 (0.04 <= 0.05).
    eligible = np.array([False, False, True, True])
    assert reject_pvalues("bonferroni", p, 0.05, eligible).tolist() == [False, False, True, False]


@pytest.mark.parametrize("seed", range(5))
def test_fdr_is_the_step_up_among_eligible_features(seed):
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(30) ** 3, 3)  # repeated p-values
    p[:4] = [0.001, 0.001, 0.002, 0.004]
    eligible = rng.random(30) < 0.8
    got = reject_pvalues("fdr", p, 0.05, eligible)
    want = np.zeros(30, bool)
    want[eligible] = ref_bh(p[eligible], 0.05)
    np.testing.assert_array_equal(got, want)


def test_fdr_at_the_step_up_boundary():
    # p_(k) = k alpha / m exactly for k = 1, 2, 3: three rejections.
    p = np.array([0.5, 0.03, 0.01, 0.02, 0.9])
    assert reject_pvalues("fdr", p, 0.05, np.ones(5, bool)).tolist() == [
        False,
        True,
        True,
        True,
        False,
    ]
    p[1] = np.nextafter(0.03, 1.0)  # just above 3 alpha / m: two rejections left
    got = reject_pvalues("fdr", p, 0.05, np.ones(5, bool))
    assert got.tolist() == [False, False, True, True, False]
    p[3] = 0.021  # and above 2 alpha / m: one
    assert reject_pvalues("fdr", p, 0.05, np.ones(5, bool)).tolist() == [
        False,
        False,
        True,
        False,
        False,
    ]


def test_reject_pvalues_names_an_unknown_rule():
    with pytest.raises(ValueError, match="Unknown p-value rule 'mgm'"):
        reject_pvalues("mgm", np.array([0.01]), 0.05, np.ones(1, bool))


# -- top_k ----------------------------------------------------------------------------------------
def test_top_k_ties_go_to_the_lower_index():
    badness = np.array([2.0, 1.0, 2.0, 1.0, 2.0, 0.0])
    eligible = np.array([True, True, True, True, True, False])
    assert top_k(1, badness, eligible).tolist() == [False, True, False, False, False, False]
    assert top_k(3, badness, eligible).tolist() == [True, True, False, True, False, False]
    assert top_k(4, badness, eligible).tolist() == [True, True, True, True, False, False]
    # More than the eligible count: all eligible, never an ineligible one.
    assert top_k(9, badness, eligible).tolist() == [True] * 5 + [False]
    assert top_k(0, badness, eligible).sum() == 0


# -- threshold_in_errors: counts and rates ---------------------------------------------------------
def test_k_best_with_tied_counts():
    errors = np.array([4, 2, 2, 7, 2, 1])
    cut, sel = threshold_in_errors(2, errors, 10, 0.5)
    assert cut == 3.0 and sel.tolist() == [False, True, False, False, False, True]
    cut, sel = threshold_in_errors(4, errors, 10, 0.5)  # all three 2s: the lower index first
    assert cut == 3.0 and sel.tolist() == [False, True, True, False, True, True]
    cut, sel = threshold_in_errors(1, errors, 10, 0.5, eligible=errors > 1)
    assert cut == 3.0 and sel.tolist() == [False, True, False, False, False, False]
    cut, sel = threshold_in_errors(3, errors, 10, 0.5, eligible=np.zeros(6, bool))
    assert cut == 0.0 and not sel.any()


def test_a_rate_cut_on_an_integer_is_strict():
    errors = np.array([2, 3, 4, 5])
    cut, sel = threshold_in_errors(0.25, errors, 16, 0.5)  # cut 4.0 errors exactly
    assert cut == 4.0 and sel.tolist() == [True, True, False, False]
    cut, sel = threshold_in_errors(0.25, errors, 16, 0.5, eligible=[False, True, True, True])
    assert sel.tolist() == [False, True, False, False]


@pytest.mark.parametrize("bad", [0, -1, -3, True, False, 0.0, 1.0, 1.5, -0.2, math.nan, None, "x"])
def test_threshold_validator(bad):
    with pytest.raises(ValueError, match=r"^(threshold must be one of|Unknown threshold 'x')"):
        threshold_in_errors(bad, np.array([1, 2, 3]), 10, 0.5)


def test_smallest_valid_count_and_rates():
    errors = np.array([1, 2, 3])
    assert threshold_in_errors(1, errors, 10, 0.5)[1].tolist() == [True, False, False]
    assert threshold_in_errors(0.2, errors, 10, 0.5)[1].tolist() == [True, False, False]
    tiny = np.nextafter(0.0, 1.0)
    assert threshold_in_errors(tiny, np.array([0, 1]), 10, 0.5)[1].tolist() == [True, False]
    near_one = np.nextafter(1.0, 0.0)
    assert threshold_in_errors(near_one, np.array([9, 10]), 10, 0.5)[1].tolist() == [True, False]
    assert threshold_in_errors(np.int64(2), errors, 10, 0.5)[0] == 3.0
    assert threshold_in_errors(np.float32(0.25), errors, 10, 0.5)[0] == 2.5


# -- threshold_in_errors: chance rules -------------------------------------------------------------
@pytest.mark.parametrize(("m", "n", "p"), [(1, 10, 0.5), (50, 20, 0.5), (300, 13, 0.4)])
def test_analytic_chance_cuts(m, n, p):
    errors = np.arange(m) % (n + 1)
    e_min = ref_expected_min(m, n, p)
    cut, sel = threshold_in_errors("max_chance", errors, n, p)
    assert cut == pytest.approx(e_min, rel=1e-9)
    np.testing.assert_array_equal(sel, errors < e_min)
    cut, sel = threshold_in_errors("mgm", errors, n, p)
    assert cut == pytest.approx((n * p + e_min) / 2, rel=1e-9)
    np.testing.assert_array_equal(sel, errors < cut)
    # M is the eligible count by default, or n_scored when given.
    eligible = np.arange(m) < max(1, m // 3)
    cut = threshold_in_errors("max_chance", errors, n, p, eligible=eligible)[0]
    assert cut == pytest.approx(ref_expected_min(int(eligible.sum()), n, p), rel=1e-9)
    cut = threshold_in_errors("max_chance", errors, n, p, eligible=eligible, n_scored=7 * m)[0]
    assert cut == pytest.approx(ref_expected_min(7 * m, n, p), rel=1e-9)


def test_no_eligible_feature_counts_as_one():
    cut = threshold_in_errors("max_chance", np.array([3]), 10, 0.5, eligible=[False])[0]
    assert cut == pytest.approx(5.0)  # E[X_(1)] of one feature is E[X]


def test_permutation_null_cuts_on_integers_are_strict():
    errors = np.array([4, 5, 6, 7, 8, 9])
    null = {"expected_errors": 9.0, "expected_min_errors": 5.0}
    cut, sel = threshold_in_errors("mgm", errors, 20, 0.5, **null)  # (9 + 5) / 2 = 7
    assert cut == 7.0 and sel.tolist() == [True, True, True, False, False, False]
    cut, sel = threshold_in_errors("max_chance", errors, 20, 0.5, **null)
    assert cut == 5.0 and sel.tolist() == [True, False, False, False, False, False]
    # Only E[X_(1)] given: E[X] is analytic (N p = 10), and the other way round.
    cut = threshold_in_errors("mgm", errors, 20, 0.5, expected_min_errors=4.0)[0]
    assert cut == 7.0
    cut = threshold_in_errors("mgm", errors, 20, 0.5, expected_errors=8.0)[0]
    assert cut == pytest.approx((8.0 + ref_expected_min(6, 20, 0.5)) / 2, rel=1e-9)
    cut, sel = threshold_in_errors("all", errors, 20, 0.5, eligible=errors != 6)
    assert cut == np.inf and sel.tolist() == [True, True, False, True, True, True]


def test_chance_cut_directly():
    assert _chance_cut("max_chance", 5, 10, 0.5, 1.0, 2.0) == 2.0
    assert _chance_cut("mgm", 5, 10, 0.5, 6.0, 2.0) == 4.0
    assert _chance_cut("mgm", 1, 10, 0.3, None, None) == pytest.approx(3.0)


# -- threshold_in_errors: p-value rules -----------------------------------------------------------
def test_binomial_pvalues_are_the_lower_tail():
    n, p = 12, 0.4
    errors = np.array([0, 3, 3, 12, 5])
    np.testing.assert_allclose(
        _binomial_pvalues(errors, n, p), stats.binom.cdf(errors, n, p), rtol=1e-12
    )
    np.testing.assert_allclose(
        _binomial_pvalues(errors.astype(float), n, p), stats.binom.cdf(errors, n, p), rtol=1e-12
    )


@pytest.mark.parametrize("rule", ["fdr", "bonferroni"])
def test_pvalue_rules_default_to_the_binomial_test(rule):
    rng = np.random.default_rng(3)
    n = 20
    errors = rng.integers(0, 12, size=40)
    errors[:3] = [1, 2, 2]
    eligible = rng.random(40) < 0.9
    eligible[:3] = True
    p = stats.binom.cdf(errors, n, 0.5)
    cut, sel = threshold_in_errors(rule, errors, n, 0.5, eligible=eligible)
    want = np.zeros(40, bool)
    if rule == "fdr":
        want[eligible] = ref_bh(p[eligible], 0.05)
    else:
        want[eligible] = p[eligible] * eligible.sum() <= 0.05
    assert want.any()
    np.testing.assert_array_equal(sel, want)
    assert cut == errors[want].max() + 1


def test_given_pvalues_decide_and_no_rejection_cuts_at_zero():
    errors = np.array([1, 5, 9])
    p = np.array([0.9, 0.001, 0.9])  # not monotone in the counts: the p-values decide
    cut, sel = threshold_in_errors("bonferroni", errors, 10, 0.5, pvalues=p)
    assert sel.tolist() == [False, True, False] and cut == 6.0
    cut, sel = threshold_in_errors("fdr", errors, 10, 0.5, pvalues=p, alpha=0.002)
    assert sel.tolist() == [False, False, False] and cut == 0.0
    cut, sel = threshold_in_errors("fdr", errors, 10, 0.5, pvalues=p, alpha=0.003)
    assert sel.tolist() == [False, True, False] and cut == 6.0


def test_unknown_name():
    with pytest.raises(ValueError, match=r"^Unknown threshold 'MGM'; use one of \("):
        threshold_in_errors("MGM", np.array([1]), 10, 0.5)
    assert NAMED_THRESHOLDS == ("mgm", "max_chance", "fdr", "bonferroni", "all")


def test_ties_go_to_the_lower_index_among_many():
    # Thousands of tied counts: an unstable sort would pick among the ties at random.
    rng = np.random.default_rng(0)
    errors = rng.integers(0, 3, size=2000)
    eligible = rng.random(2000) < 0.9
    k = int((errors[eligible] == 0).sum()) + 100  # all zeros and 100 of the ones
    cut, sel = threshold_in_errors(k, errors, 10, 0.5, eligible=eligible)
    ones = np.flatnonzero(eligible & (errors == 1))
    want = eligible & (errors == 0)
    want[ones[:100]] = True
    np.testing.assert_array_equal(sel, want)
    assert cut == 2.0
    np.testing.assert_array_equal(top_k(k, errors.astype(float), eligible), want)


def test_masks_of_zeros_and_ones():
    # 0/1 eligibility means the same as booleans, not indices; masks come back boolean
    # (an integer mask would select columns 0 and 1 of X).
    errors = np.array([1, 2, 3, 4])
    eligible = [0, 1, 1, 0]
    for got in (
        top_k(1, errors, eligible),
        threshold_in_errors(1, errors, 10, 0.5, eligible=eligible)[1],
    ):
        assert got.dtype == bool and got.tolist() == [False, True, False, False]
    got = threshold_in_errors("all", errors, 10, 0.5, eligible=eligible)[1]
    assert got.dtype == bool and got.tolist() == [False, True, True, False]
    p = [0.01, 0.02, 0.02, 0.01]  # two eligible: 2 p <= 0.05 for both
    got = reject_pvalues("bonferroni", p, 0.05, eligible)
    assert got.dtype == bool and got.tolist() == [False, True, True, False]
