"""Bounds of Shah, Marchand & Corbeil (2010) against exact mpmath/Fraction computations."""

import functools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from widefs.scm import (
    dyadic_bits,
    dyadic_threshold,
    log_zeta,
    occam_bound,
    pac_bayes_bound,
    sample_compression_bound,
)
from widefs.scm._bounds import MAX_BITS, dyadic_search


def _dyadic_many(a, b, lo, hi):
    """The vectorized search (the Occam scan's) on one interval, among decoys around it."""
    bits, t = dyadic_search([0.1, a, 0.3], [0.2, b, 0.7], [0.0, lo, 0.0], [1.0, hi, 1.0])
    assert bits.shape == t.shape == (3,) and bits[0] == 2 and bits[2] == 0
    return int(bits[1]), float(t[1])


mp.mp.dps = 50


def zeta(a):
    return mp.mpf(6) / mp.pi**2 / (a + 1) ** 2


@functools.cache  # a reference: rerun per mutant by mutation testing
def binbar_exact(k, m, delta):
    """sup{r : sum_{i<=k} C(m,i) r^i (1-r)^(m-i) >= delta} by 200-step bisection in mpmath."""
    lo, hi = mp.mpf(0), mp.mpf(1)
    for _ in range(200):
        mid = (lo + hi) / 2
        tail = mp.fsum(mp.binomial(m, i) * mid**i * (1 - mid) ** (m - i) for i in range(k + 1))
        if tail >= delta:
            lo = mid
        else:
            hi = mid
    return lo


@functools.cache  # a reference: rerun per mutant by mutation testing
def kl_inv_exact(q, psi):
    q = mp.mpf(q)
    lo, hi = q, mp.mpf(1)
    for _ in range(200):
        mid = (lo + hi) / 2
        kl = (q * mp.log(q / mid) if q > 0 else 0) + (1 - q) * mp.log((1 - q) / (1 - mid))
        if kl <= psi:
            lo = mid
        else:
            hi = mid
    return lo


@pytest.mark.parametrize(
    ("errors", "m", "n", "bits", "delta"),
    [
        (0, 62, 2000, [3], 0.05),
        (5, 40, 100, [0, 2, 7], 0.1),
        (12, 30, 7, [1, 1], 0.01),
        (0, 10, 3, [], 0.5),
    ],
)
def test_occam_bound_matches_exact(errors, m, n, bits, delta):
    k = len(bits)
    g = mp.fprod([zeta(b) * mp.mpf(2) ** (-b) for b in bits]) if bits else mp.mpf(1)
    d_eff = zeta(k) * g * delta / (mp.binomial(n, k) * mp.mpf(2) ** k)
    expected = binbar_exact(errors, m, d_eff)
    assert occam_bound(errors, m, n, bits, delta) == pytest.approx(float(expected), rel=1e-9)


@pytest.mark.parametrize("prior", ["paper", "ordered"])
@pytest.mark.parametrize(
    ("j", "m", "n", "k", "delta"),
    # The last case leaves a single example free (m - |i| - |j| = 1), right next to the
    # m - |i| - |j| = 0 case where the bound is 1.
    [(2, 62, 2000, 1, 0.05), (0, 34, 5893, 3, 0.05), (7, 50, 10, 2, 0.2), (0, 3, 5, 2, 0.5)],
)
def test_sample_compression_bound_matches_exact(j, m, n, k, delta, prior):
    # eqs. 4-5 with exact integer binomials
    log_pm = math.log(math.comb(n, k)) + k * math.log(2)
    if prior == "ordered":
        log_pm += math.log(math.factorial(k))
    total = (
        mp.log(math.comb(m, k))
        + mp.log(math.comb(m - k, j))
        + log_pm
        - mp.log(zeta(k) * zeta(j) * delta)
    )
    expected = 1 - mp.exp(-total / (m - k - j))
    got = sample_compression_bound(j, m, n, k, delta, message_prior=prior)
    assert got == pytest.approx(float(expected), rel=1e-10)


@pytest.mark.parametrize(
    ("risk", "m", "n", "ratios", "delta"),
    [
        (11 / 62, 62, 2000, [0.42], 0.05),
        (0.0, 34, 7129, [0.1, 0.5], 0.05),
        (0.3, 100, 5, [1.0], 0.01),
    ],
)
def test_pac_bayes_bound_matches_exact(risk, m, n, ratios, delta):
    k = len(ratios)
    kl_qp = mp.log(mp.binomial(n, k) * mp.mpf(2) ** k / zeta(k)) + mp.fsum(
        mp.log(1 / mp.mpf(r)) for r in ratios
    )
    psi = (kl_qp + mp.log(mp.mpf(m + 1) / delta)) / m
    expected = kl_inv_exact(risk, psi)
    assert pac_bayes_bound(risk, m, n, ratios, delta) == pytest.approx(float(expected), rel=1e-9)


def test_table_v_magnitudes():
    # Table V (colon): 1 stump, ratio 0.42, about 12 Gibbs errors; the reported bound is
    # 33 of 62 examples. Training folds hold m = 49-50 examples; a training Gibbs risk
    # around 0.12-0.2 must give a bound of that magnitude (30-40 of 62).
    for risk in (0.12, 0.16, 0.2):
        assert 28 <= 62 * pac_bayes_bound(risk, 50, 2000, [0.42]) <= 40
    # Leukemia: 3 stumps, ratio 0.002 (tiny margins), bound 48 of 72.
    assert 40 <= 72 * pac_bayes_bound(0.12, 58, 7129, [0.002] * 3) <= 56


@pytest.mark.parametrize(
    "bound",
    [
        lambda e, m, k, d: occam_bound(e, m, 500, [2] * k, d),
        lambda e, m, k, d: sample_compression_bound(e, m, 500, k, d),
        lambda e, m, k, d: pac_bayes_bound(e / m, m, 500, [0.3] * k, d),
    ],
    ids=["occam", "sc", "pac_bayes"],
)
def test_invariants(bound):
    for e, m, k in [(0, 40, 1), (3, 40, 2), (10, 60, 3)]:
        b = bound(e, m, k, 0.05)
        assert b >= e / m
        # monotone: larger delta -> smaller bound; more stumps -> larger; larger m at a fixed
        # error count -> smaller.
        assert bound(e, m, k, 0.2) <= b <= bound(e, m, k, 0.01)
        assert bound(e, m, k + 1, 0.05) >= b
        assert bound(e, m + 20, k, 0.05) <= b


def test_extremes_stay_finite():
    assert occam_bound(0, 1000, 10**6, [60] * 30, 1e-10) == 1.0  # confidence underflows
    assert 0 < occam_bound(0, 100000, 10**6, [5] * 3, 1e-12) < 0.01
    assert sample_compression_bound(5, 10, 10, 5, 0.05) == 1.0  # m - |i| - |j| = 0
    assert 0 < pac_bayes_bound(0.0, 10**5, 10**6, [1e-6] * 5, 1e-300) < 0.01


def test_log_zeta_sums_to_one():
    a = np.arange(200000)
    total = np.exp(log_zeta(a)).sum()
    assert total == pytest.approx(1.0, abs=1e-5)  # tail beyond 2e5 is ~3e-6


def test_log_zeta_scalar_and_array_paths_agree():
    # Integer scalars (the bounds' calls) skip the array path; both equal mpmath's value.
    for a in [0, 1, 2, 7, 1000, 10**9]:
        exact = float(mp.log(6 / mp.pi**2) - 2 * mp.log(a + 1))
        for got in (log_zeta(a), log_zeta(np.int64(a)), log_zeta(np.array([a]))[0]):
            assert got == pytest.approx(exact, rel=1e-15)
    with pytest.raises(ValueError, match="non-negative"):
        log_zeta(-1)


def test_bad_inputs():
    with pytest.raises(ValueError, match="delta"):
        occam_bound(0, 10, 5, [1], 0.0)
    with pytest.raises(ValueError, match="at most once"):
        sample_compression_bound(0, 10, 2, 3)
    with pytest.raises(ValueError, match="interval_ratios"):
        pac_bayes_bound(0.1, 10, 5, [0.0])
    with pytest.raises(ValueError, match="message_prior"):
        sample_compression_bound(0, 10, 5, 1, message_prior="x")


@functools.cache  # a reference: rerun per mutant by mutation testing
def _dyadic_exact(a, b, lo, hi):
    a, b, lo, hi = map(Fraction, (a, b, lo, hi))
    for bits in range(40):
        for j in range(1, 2**bits + 1):
            t = lo + (hi - lo) * Fraction(2 * j - 1, 2 ** (bits + 1))
            if a <= t < b:
                return bits, t
    return None


@pytest.mark.parametrize(
    ("a", "b", "lo", "hi"),
    [
        (0.4, 0.6, 0, 1),
        (0.1, 0.2, 0, 1),
        (0.5, 0.75, 0, 1),
        (3.0, 5.0, -8.0, 8.0),
        (0.25, 0.5, 0, 1),
        (10.0, 11.0, 0.0, 1024.0),
    ],
)
def test_dyadic_bits_is_the_shortest_code(a, b, lo, hi):
    # Inputs are dyadic rationals, so the float grid equals the exact one.
    bits, t = dyadic_bits(a, b, lo, hi)
    exact_bits, exact_t = _dyadic_exact(a, b, lo, hi)
    assert bits == exact_bits and Fraction(t) == exact_t
    assert _dyadic_many(a, b, lo, hi) == (bits, t)
    j = round(((t - lo) / (hi - lo) * 2 ** (bits + 1) + 1) / 2)
    assert dyadic_threshold(lo, hi, bits, j) == t


@pytest.mark.parametrize("bits", [1, 30, 60, 61, 62, 63])
def test_dyadic_bits_up_to_max_bits(bits):
    # [3, 4) / 2^(bits+1): the only grid point is 3 / 2^(bits+1), on the grid of exactly
    # ``bits`` bits (the coarser grids' points 2 / 2^(bits+1) and 4 / 2^(bits+1) miss it).
    # Powers of two, so the float arithmetic is exact. Past MAX_BITS = 62: (-1, nan).
    a, b = Fraction(3, 2 ** (bits + 1)), Fraction(4, 2 ** (bits + 1))
    for search in (dyadic_bits, _dyadic_many):
        got_bits, t = search(float(a), float(b), 0.0, 1.0)
        if bits <= MAX_BITS:
            assert (got_bits, Fraction(t)) == (bits, a)
        else:
            assert got_bits == -1 and math.isnan(t)
    # A scaled range (a power of two: still exact): the same code length.
    got_bits, t = dyadic_bits(float(16 * a), float(16 * b), 0.0, 16.0)
    assert got_bits == (bits if bits <= MAX_BITS else -1)


def test_dyadic_bits_random_agrees_with_vectorized_search():
    rng = np.random.default_rng(0)
    for _ in range(300):
        lo, hi = sorted(rng.normal(size=2) * 10.0 ** rng.integers(-5, 5))
        a, b = np.sort(rng.uniform(lo, hi, 2))
        if not a < b:
            continue
        bits, t = dyadic_bits(a, b, lo, hi)
        assert bits >= 0 and a <= t < b
        assert _dyadic_many(a, b, lo, hi) == (bits, t)
        # No shorter code has a grid point in [a, b): the nearest odd multiple at each
        # shorter length is checked in exact arithmetic.
        fa, fb, flo, fhi = map(Fraction, (a, b, lo, hi))
        for short in range(bits):
            scale = 2 ** (short + 1)
            k = math.ceil((fa - flo) / (fhi - flo) * scale)
            k += k % 2 == 0
            g = flo + (fhi - flo) * Fraction(k, scale)
            assert not (k < scale and g < fb)


def test_feature_reuse_prior_matches_exact():
    # zeta(k) / C(2n + k - 1, k): multisets of k (attribute, direction) pairs out of 2n.
    n, k, m, errors, delta = 7, 3, 40, 4, 0.05
    bits = [0, 2, 0]
    g = mp.fprod([zeta(b) * mp.mpf(2) ** (-b) for b in bits])
    d_eff = zeta(k) * g * delta / mp.binomial(2 * n + k - 1, k)
    got = occam_bound(errors, m, n, bits, delta, feature_reuse=True)
    assert got == pytest.approx(float(binbar_exact(errors, m, d_eff)), rel=1e-9)
    total = (
        mp.log(math.comb(m, k))
        + mp.log(math.comb(m - k, errors))
        + mp.log(mp.binomial(2 * n + k - 1, k))
        - mp.log(zeta(k) * zeta(errors) * delta)
    )
    expected = 1 - mp.exp(-total / (m - k - errors))
    got = sample_compression_bound(errors, m, n, k, delta, feature_reuse=True)
    assert got == pytest.approx(float(expected), rel=1e-10)
    # the multiset prior is smaller, so reuse never gives a smaller bound; k > n is allowed
    assert got >= sample_compression_bound(errors, m, n, k, delta)
    assert pac_bayes_bound(0.1, m, 2, [0.5] * 4, feature_reuse=True) < 1
