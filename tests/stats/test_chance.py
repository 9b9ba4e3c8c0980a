"""Chance order statistics against the paper, exact rational arithmetic and Monte Carlo."""

import functools
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from widefs.stats import (
    chance_error_rate,
    expected_errors,
    expected_min_errors,
    highest_chance_accuracy,
    mgm_threshold,
    multiplicity_gap,
    permutation_pvalues,
)

# Figure 1 of Palatucci & Carlson (2008), E[A_H] in %, p_error = 0.5 (FORMULAS.md section 1).
FIGURE1_M = [1, 10, 50, 100, 200, 300, 400, 500]
FIGURE1 = {
    10: [50.00, 73.82, 84.05, 87.50, 90.62, 92.15, 93.10, 93.82],
    20: [50.00, 67.03, 74.63, 77.32, 79.75, 81.07, 81.97, 82.65],
    30: [50.00, 63.95, 70.25, 72.51, 74.56, 75.68, 76.45, 77.03],
    40: [50.00, 62.10, 67.60, 69.58, 71.38, 72.37, 73.05, 73.56],
}


@functools.cache  # a reference: rerun per mutant by mutation testing
def exact_expected_min(m: int, n: int, p: Fraction) -> Fraction:
    """Theorem 4.1 in exact rational arithmetic: sum_i P(X >= i+1)^M."""
    pmf = [math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)]
    total = Fraction(0)
    for i in range(n):
        total += sum(pmf[i + 1 :]) ** m
    return total


@functools.cache  # a reference: rerun per mutant by mutation testing
def brute_force_expected_min(m: int, n: int, p: Fraction) -> Fraction:
    """E[min] from the distribution of the minimum, P(min = k) = S(k)^M - S(k+1)^M."""
    pmf = [math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)]
    surv = [sum(pmf[k:]) for k in range(n + 2)]
    return sum(k * (surv[k] ** m - surv[k + 1] ** m) for k in range(n + 1))


def test_example_4_1():
    assert highest_chance_accuracy(200, 20) == pytest.approx(0.7975, abs=5e-5)


@pytest.mark.parametrize("n", sorted(FIGURE1))
def test_figure_1_values(n):
    got = 100 * highest_chance_accuracy(np.array(FIGURE1_M), n)
    np.testing.assert_allclose(got, FIGURE1[n], atol=0.005 + 1e-9)


@pytest.mark.parametrize("m", [1, 2, 3, 7, 50])
@pytest.mark.parametrize("n", [1, 2, 5, 12])
@pytest.mark.parametrize("p", [Fraction(1, 2), Fraction(1, 3), Fraction(9, 10)])
def test_matches_exact_rational_reference(m, n, p):
    exact = exact_expected_min(m, n, p)
    assert exact == brute_force_expected_min(m, n, p)
    got = expected_min_errors(m, n, float(p))
    assert got == pytest.approx(float(exact), rel=1e-10, abs=1e-12)


@pytest.mark.parametrize(("m", "n", "p"), [(30, 15, 0.5), (500, 20, 2 / 3), (5, 40, 0.2)])
def test_monte_carlo(m, n, p):
    rng = np.random.default_rng(12345)
    reps = 20000
    minima = rng.binomial(n, p, size=(reps, m)).min(axis=1)
    se = minima.std(ddof=1) / np.sqrt(reps)
    # Four standard errors with a fixed seed.
    assert abs(minima.mean() - expected_min_errors(m, n, p)) < 4 * se + 1e-12


def test_single_classifier_is_binomial_mean():
    np.testing.assert_allclose(
        expected_min_errors(1, [7, 20, 333], 0.3), [2.1, 6.0, 99.9], rtol=1e-10
    )


def test_broadcasting_shapes_and_values():
    m = np.array([[1], [10], [100]])
    n = np.array([10, 20])
    got = expected_min_errors(m, n)
    assert got.shape == (3, 2)
    for i in range(3):
        for j in range(2):
            assert got[i, j] == pytest.approx(
                expected_min_errors(int(m[i, 0]), int(n[j])), rel=1e-12
            )


def test_gap_and_mgm_relations():
    m, n, p = 200, 20, 0.5
    emin = expected_min_errors(m, n, p)
    assert expected_errors(n, p) == 10.0
    assert multiplicity_gap(m, n, p) == pytest.approx(10.0 - emin)
    assert mgm_threshold(m, n, p) == pytest.approx((10.0 + emin) / 2)


def test_monotone_in_m_and_n():
    ms = np.unique(np.logspace(0, 9, 60).round())
    for n in [10, 1000, 100000]:
        e = expected_min_errors(ms, n)
        assert np.all(np.isfinite(e))
        assert np.all(np.diff(e) <= 1e-9)
    ns = np.arange(1, 300)
    acc = highest_chance_accuracy(1000, ns)
    # More examples make chance success harder: E[A_H] never increases with N.
    assert np.all(np.diff(acc) <= 1e-12)
    assert np.all(np.diff(expected_min_errors(1000, ns)) >= -1e-12)


def test_extremes_finite_and_bounded():
    e = expected_min_errors(1e9, 1e5, 0.5)
    assert np.isfinite(e) and 0 < e < 5e4
    assert expected_min_errors(1e9, 10) == pytest.approx(0.0, abs=1e-300)
    assert expected_min_errors(10, 30, 0.0) == 0.0
    assert expected_min_errors(10, 30, 1.0) == 30.0
    assert highest_chance_accuracy(1e9, 1) == pytest.approx(1.0)


def test_huge_m_uses_tiny_deficits_correctly():
    # N = 1: E[X_(1)] = p^M exactly.
    assert expected_min_errors(1e6, 1, 0.999999) == pytest.approx(0.999999**1e6, rel=1e-9)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_classifiers": 0, "n_examples": 10}, "n_classifiers must be >= 1"),
        ({"n_classifiers": 2.5, "n_examples": 10}, "n_classifiers must hold integer"),
        ({"n_classifiers": 5, "n_examples": 0}, "n_examples must be >= 1"),
        ({"n_classifiers": 5, "n_examples": np.inf}, "n_examples must be finite"),
        ({"n_classifiers": 5, "n_examples": 10, "p_error": 1.5}, r"p_error must lie in \[0, 1\]"),
        ({"n_classifiers": "a", "n_examples": 10}, "n_classifiers must be numeric"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        expected_min_errors(**kwargs)


# ------------------------------------------------ the label-blind chance rate (calibrated null)


def exact_error_pmf(val_counts, q):
    """Exact pmf of the errors of a label-blind classifier predicting class c w.p. q[c].

    Errors on class c's examples are Binomial(n_c, 1 - q[c]), independent across classes;
    the pmf is their convolution, in exact rational arithmetic.
    """
    pmf = [Fraction(1)]
    for n_c, q_c in zip(val_counts, q, strict=True):
        wrong = 1 - q_c
        part = [math.comb(n_c, k) * wrong**k * (1 - wrong) ** (n_c - k) for k in range(n_c + 1)]
        out = [Fraction(0)] * (len(pmf) + n_c)
        for i, a in enumerate(pmf):
            for j, b in enumerate(part):
                out[i + j] += a * b
        pmf = out
    return pmf


def test_chance_error_rate_is_the_majority_class_error():
    assert chance_error_rate([24, 6]) == 0.2
    assert chance_error_rate([20, 11]) == pytest.approx(11 / 31, rel=1e-15)
    assert chance_error_rate([10, 10, 10]) == pytest.approx(2 / 3, rel=1e-15)
    np.testing.assert_allclose(chance_error_rate([[1, 3], [5, 5], [0, 7]]), [0.25, 0.5, 0.0])


@pytest.mark.parametrize("val_counts", [(24, 6), (11, 20), (21, 6, 4), (5, 5), (4, 4, 4)])
def test_binomial_at_chance_rate_bounds_every_label_blind_classifier(val_counts):
    """Hoeffding (1956, Theorem 4): P(X <= k) <= P(Binomial(N, p_min) <= k) for k <= N p_min - 1.

    Checked exactly over a grid of prediction distributions q (vertices, edges and the
    interior of the simplex). With the paper's p = 1 - 1/C the bound fails on
    imbalanced classes (the majority predictor makes N - max n_c errors surely).
    """
    N = sum(val_counts)
    C = len(val_counts)
    p_min = Fraction(N - max(val_counts), N)
    assert chance_error_rate(val_counts) == pytest.approx(float(p_min), rel=1e-15)
    bound_pmf = [math.comb(N, k) * p_min**k * (1 - p_min) ** (N - k) for k in range(N + 1)]
    grid = [Fraction(i, 8) for i in range(9)]
    checked = 0
    for q in itertools.product(grid, repeat=C - 1):
        if sum(q) > 1:
            continue
        q = (*q, 1 - sum(q))
        pmf = exact_error_pmf(val_counts, q)
        mean = sum(k * w for k, w in enumerate(pmf))
        assert mean >= N * p_min  # no label-blind classifier beats the majority on average
        cdf = bound_cdf = Fraction(0)
        for k in range(N + 1):
            cdf += pmf[k]
            bound_cdf += bound_pmf[k]
            if k <= N * p_min - 1:
                assert cdf <= bound_cdf, (q, k)
                checked += 1
    assert checked > 0
    if len(set(val_counts)) > 1:
        # The uniform rate 1 - 1/C is not a bound: the majority predictor beats it surely.
        uniform = Fraction(C - 1, C)
        k = N - max(val_counts)
        tail = sum(math.comb(N, i) * uniform**i * (1 - uniform) ** (N - i) for i in range(k + 1))
        assert tail < 1  # P(X <= k) = 1 for the majority predictor


def test_chance_error_rate_bad_input():
    with pytest.raises(ValueError, match="at least one example"):
        chance_error_rate([0, 0])
    with pytest.raises(ValueError, match="one entry per class"):
        chance_error_rate(3)
    with pytest.raises(ValueError, match="class_counts must be >= 0"):
        chance_error_rate([-1, 4])


# ------------------------------------------------ permutation p-values


def test_permutation_pvalues_match_a_loop():
    rng = np.random.default_rng(0)
    observed = rng.integers(0, 10, 30)
    null = rng.integers(0, 10, (99, 30))
    got = permutation_pvalues(observed, null)
    for j in range(30):
        count = sum(1 for b in range(99) if null[b, j] <= observed[j])
        assert got[j] == (1 + count) / 100
    assert got.min() >= 1 / 100 and got.max() <= 1


def test_permutation_pvalues_are_valid_by_exchangeability():
    # Exchangeable continuous statistics: the +1 p-value is exactly uniform on k / (B + 1).
    rng = np.random.default_rng(1)
    draws = rng.normal(size=(20, 20000))  # row 0 observed, rows 1.. the permutations
    p = permutation_pvalues(draws[0], draws[1:])
    for k in [1, 2, 5, 10]:
        rate = (p <= k / 20).mean()
        assert abs(rate - k / 20) < 4 * np.sqrt(k / 20 * (1 - k / 20) / 20000)


@pytest.mark.parametrize(
    ("observed", "null", "match"),
    [
        ([1.0, 2.0], [[1.0, 2.0, 3.0]], r"shape \(n_permutations >= 1, 2\)"),
        ([[1.0]], [[1.0]], "one-dimensional"),
        ([np.nan], [[1.0]], "NaN"),
        ([1.0], np.zeros((0, 1)), "n_permutations >= 1"),
    ],
)
def test_permutation_pvalues_bad_input(observed, null, match):
    with pytest.raises(ValueError, match=match):
        permutation_pvalues(observed, null)


@pytest.mark.parametrize(("m", "n", "p"), [(3, 10, Fraction(3, 10)), (40, 7, Fraction(4, 5))])
def test_chance_statistics_use_the_given_p_error(m, n, p):
    # Exact: G = N p - E[X_(1)], T_MGM = (N p + E[X_(1)]) / 2 with E[X_(1)] of *this* p.
    e_min = exact_expected_min(m, n, p)
    assert multiplicity_gap(m, n, float(p)) == pytest.approx(float(n * p - e_min), rel=1e-10)
    assert mgm_threshold(m, n, float(p)) == pytest.approx(float((n * p + e_min) / 2), rel=1e-10)
    assert expected_errors(n, float(p)) == pytest.approx(float(n * p), rel=1e-15)
    assert highest_chance_accuracy(m, n, float(p)) == pytest.approx(float(1 - e_min / n), rel=1e-10)


def test_p_error_defaults_to_one_half():
    half = Fraction(1, 2)
    e_min = exact_expected_min(5, 9, half)
    assert expected_errors(9) == 4.5
    assert expected_min_errors(5, 9) == pytest.approx(float(e_min), rel=1e-10)
    assert highest_chance_accuracy(5, 9) == pytest.approx(float(1 - e_min / 9), rel=1e-10)
    assert multiplicity_gap(5, 9) == pytest.approx(float(9 * half - e_min), rel=1e-10)
    assert mgm_threshold(5, 9) == pytest.approx(float((9 * half + e_min) / 2), rel=1e-10)


def test_degenerate_p_error_is_exact_and_silent():
    # p = 0: no classifier ever errs; p = 1: all always err. log P(X >= i + 1) = log 0 is
    # taken without a RuntimeWarning (warnings are errors here).
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert expected_min_errors(7, 12, 0.0) == 0.0
        assert expected_min_errors(7, 12, 1.0) == 12.0
        assert highest_chance_accuracy(3, 5, 0.0) == 1.0


def _mp_expected_min(m, n, p, dps=60):
    """E[X_(1)] = sum_i P(X >= i+1)^M with exact rational tails and mpmath powers."""
    import mpmath

    p = Fraction(p)
    pmf = [math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)]
    with mpmath.workdps(dps):
        total = mpmath.fsum(
            mpmath.power(mpmath.mpf(sum(pmf[i + 1 :]).numerator) / sum(pmf[i + 1 :]).denominator, m)
            for i in range(n)
        )
        return float(total)


@pytest.mark.parametrize(
    ("m", "n", "p"),
    [
        # M huge, P(X = 0) tiny: M log P(X >= 1) needs log1p(-cdf); log(sf) is off by 3e-8.
        (10**9, 40, 0.4),
        (2**30, 30, 0.5),
        # Tiny p: P(X >= 1) ~ 5e-9 needs log(sf); log1p(-cdf) is off by 6e-9 (cancellation).
        (1, 5, 1e-9),
        (2, 5, 1e-9),
        (3, 8, 1e-6),
    ],
)
def test_log_survival_is_accurate_at_both_ends(m, n, p):
    # abs=0: the expectations at tiny p are ~1e-16, below pytest.approx's default abs.
    want = _mp_expected_min(m, n, p)
    assert expected_min_errors(m, n, p) == pytest.approx(want, rel=1e-12, abs=0)


def test_many_classifier_counts_share_one_survival_vector():
    # More M values for one (N, p) than one block of rows (256): every block is filled.
    ms = np.arange(1, 601)
    got = expected_min_errors(ms, 10, 0.3)
    for i in (0, 255, 256, 511, 599):
        want = exact_expected_min(int(ms[i]), 10, Fraction(3, 10))
        assert got[i] == pytest.approx(float(want), rel=1e-10)
    # Scalars in, numpy scalars out (not 0-d arrays); arrays keep their shape.
    for value in (expected_min_errors(3, 10), expected_errors(10), multiplicity_gap(3, 10)):
        assert isinstance(value, float) and not isinstance(value, np.ndarray)
    assert expected_min_errors([[3]], 10).shape == (1, 1)
