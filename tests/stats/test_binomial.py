"""Binomial tails, Langford's inversion and the KL inverse against mpmath/Fraction references."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from widefs.stats import (
    binomial_tail,
    binomial_tail_inversion,
    kl_divergence,
    kl_inverse_upper,
    log_binomial_coefficient,
)


def exact_tail(k, m, r: Fraction) -> Fraction:
    return sum(math.comb(m, i) * r**i * (1 - r) ** (m - i) for i in range(k + 1))


@pytest.mark.parametrize("m", [1, 4, 13])
@pytest.mark.parametrize("r", [Fraction(0), Fraction(1, 7), Fraction(1, 2), Fraction(1)])
def test_binomial_tail_exact(m, r):
    ks = np.arange(m + 1)
    got = binomial_tail(ks, m, float(r))
    want = [float(exact_tail(int(k), m, r)) for k in ks]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-300)


def mp_binbar(k, m, delta):
    """Reference Binbar by bisection in 200-digit arithmetic on Bin(k, m, r) = delta."""
    mpmath.mp.dps = 200

    def tail(r):
        return mpmath.fsum(mpmath.binomial(m, i) * r**i * (1 - r) ** (m - i) for i in range(k + 1))

    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    for _ in range(700):
        mid = (lo + hi) / 2
        if tail(mid) >= delta:
            lo = mid
        else:
            hi = mid
    return float(lo)


@pytest.mark.parametrize(
    ("k", "m", "delta"),
    [
        (0, 10, 0.05),
        (3, 20, 0.05),
        (7, 62, 1e-3),
        (10, 30, 1e-20),
        (2, 100, 1e-300),
        (49, 50, 1e-100),
    ],
)
def test_binbar_matches_high_precision(k, m, delta):
    want = mp_binbar(k, m, mpmath.mpf(delta))
    assert binomial_tail_inversion(k, m, delta) == pytest.approx(want, rel=1e-10)


def test_binbar_closed_forms_and_invariants():
    m = 40
    assert binomial_tail_inversion(m, m, 0.05) == 1.0
    assert binomial_tail_inversion(0, m, 0.05) == pytest.approx(1 - 0.05 ** (1 / m), rel=1e-12)
    ks = np.arange(m)
    values = binomial_tail_inversion(ks, m, 0.05)
    # Never below the empirical rate, increasing in k, decreasing in delta and in m.
    assert np.all(values >= ks / m)
    assert np.all(np.diff(values) > 0)
    assert np.all(
        binomial_tail_inversion(5, m, [0.5, 0.1, 1e-5, 1e-300])
        == np.sort(binomial_tail_inversion(5, m, [0.5, 0.1, 1e-5, 1e-300]))
    )
    assert binomial_tail_inversion(5, 80, 0.05) < binomial_tail_inversion(5, 40, 0.05)
    # Inversion property: Bin(k, m, Binbar) = delta.
    r = binomial_tail_inversion(ks, m, 0.05)
    np.testing.assert_allclose(binomial_tail(ks, m, r), 0.05, rtol=1e-8)


def test_kl_divergence_reference():
    q, p = 0.2, 0.35
    want = q * math.log(q / p) + (1 - q) * math.log((1 - q) / (1 - p))
    assert kl_divergence(q, p) == pytest.approx(want, rel=1e-12)
    assert kl_divergence(0.0, 0.3) == pytest.approx(-math.log(0.7), rel=1e-12)
    assert kl_divergence(0.3, 1.0) == np.inf


@pytest.mark.parametrize("q", [0.0, 0.01, 0.2, 0.5, 0.97, 1.0])
@pytest.mark.parametrize("bound", [0.0, 1e-6, 0.05, 0.7, 5.0])
def test_kl_inverse_is_the_sup(q, bound):
    p = kl_inverse_upper(q, bound)
    assert q <= p <= 1
    if bound == 0 or q == 1:
        assert p == pytest.approx(q)
        return
    if q == 0:
        assert p == pytest.approx(-math.expm1(-bound), rel=1e-14)
        return
    # p is the upper end of a one-ulp bracket around the sup: kl crosses the bound there.
    below = np.nextafter(p, 0.0)
    assert kl_divergence(q, below) <= bound * (1 + 1e-12)
    assert kl_divergence(q, p) >= bound * (1 - 1e-12)


def test_kl_inverse_zero_closed_form_and_monotone():
    assert kl_inverse_upper(0.0, 0.3) == pytest.approx(-math.expm1(-0.3), rel=1e-14)
    b = np.linspace(0.01, 2, 50)
    assert np.all(np.diff(kl_inverse_upper(0.1, b)) > 0)
    assert kl_inverse_upper(0.1, np.inf) == 1.0


def test_log_binomial_coefficient():
    assert np.exp(log_binomial_coefficient(62, 5)) == pytest.approx(math.comb(62, 5), rel=1e-12)
    big = log_binomial_coefficient(10**6, 3)
    assert big == pytest.approx(math.log(math.comb(10**6, 3)), rel=1e-12)
    with pytest.raises(ValueError, match="k must not exceed n"):
        log_binomial_coefficient(3, 4)


def test_agrees_with_scipy_binomtest():
    # One-sided p-value of <= k errors under chance equals scipy's exact binomial test.
    res = stats.binomtest(3, 20, 0.5, alternative="less")
    assert binomial_tail(3, 20, 0.5) == pytest.approx(res.pvalue, rel=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: binomial_tail(5, 4, 0.5), "k must not exceed m"),
        (lambda: binomial_tail(1, 4, -0.1), r"r must lie in \[0, 1\]"),
        (lambda: binomial_tail_inversion(1, 4, 0.0), r"delta must lie in \(0, 1\]"),
        (lambda: binomial_tail_inversion(1, 0, 0.1), "m must be >= 1"),
        (lambda: kl_inverse_upper(0.1, -1), "bound must be non-negative"),
        (lambda: kl_divergence(2, 0.5), r"q must lie in \[0, 1\]"),
    ],
)
def test_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()
