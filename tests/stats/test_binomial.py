"""Binomial tails, Langford's inversion and the KL inverse against mpmath/Fraction references."""

import functools
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


@functools.cache  # a reference: rerun per mutant by mutation testing
def exact_tail(k, m, r: Fraction) -> Fraction:
    return sum(math.comb(m, i) * r**i * (1 - r) ** (m - i) for i in range(k + 1))


@pytest.mark.parametrize("m", [1, 4, 13])
@pytest.mark.parametrize("r", [Fraction(0), Fraction(1, 7), Fraction(1, 2), Fraction(1)])
def test_binomial_tail_exact(m, r):
    ks = np.arange(m + 1)
    got = binomial_tail(ks, m, float(r))
    want = [float(exact_tail(int(k), m, r)) for k in ks]
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-300)


@functools.cache  # a reference: rerun per mutant by mutation testing
def mp_binbar(k, m, delta, iters=110):
    """Reference Binbar: bisection on ln r (or ln(1 - r) when the answer is above 1/2) of the
    tail Bin(k, m, r) = delta, in 40 digits plus what 1 - (upper sum) needs, so that answers
    within 1e-300 of 0 or 1 are resolved (110 halvings of [-2400, ln 1/2] leave 1e-30)."""
    if k == m:
        return 1.0
    # The direct sum has no cancellation; the complement needs digits beyond -log10(delta).
    direct = k + 1 <= m - k or (m - k > 200 and k < 2000)
    idx = range(k + 1) if direct else range(k + 1, m + 1)
    dps = 40 + (0 if direct else int(-mpmath.log10(delta)) + 10)
    with mpmath.workdps(dps):
        delta = mpmath.mpf(delta)
        coef = [mpmath.binomial(m, i) for i in idx]

        def tail(r, s):
            terms = mpmath.fsum(c * r**i * s ** (m - i) for c, i in zip(coef, idx, strict=True))
            return terms if direct else 1 - terms

        half = mpmath.mpf(1) / 2
        lo, hi = mpmath.mpf(-2400), mpmath.log(half)
        if tail(half, half) >= delta:  # answer in [1/2, 1): bisect on s = 1 - r
            for _ in range(iters):
                mid = (lo + hi) / 2
                s = mpmath.exp(mid)
                lo, hi = (lo, mid) if tail(1 - s, s) >= delta else (mid, hi)
            return float(1 - mpmath.exp(hi))
        for _ in range(iters):
            mid = (lo + hi) / 2
            r = mpmath.exp(mid)
            lo, hi = (mid, hi) if tail(r, 1 - r) >= delta else (lo, mid)
        return float(mpmath.exp(lo))


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
    want = mp_binbar(k, m, delta)
    assert binomial_tail_inversion(k, m, delta) == pytest.approx(want, rel=1e-14)


DELTAS = [0.999999, 0.5, 0.05, 1e-10, 1e-50, 1e-100, 1e-150, 1e-200, 1e-250, 1e-300, 1e-307]


@pytest.mark.parametrize(
    ("k", "m"),
    [
        (0, 1),
        (0, 2),
        (1, 2),
        (1, 5),
        (3, 5),
        (4, 5),
        (0, 62),
        (20, 62),
        (31, 62),
        (61, 62),
        (33, 100),
        (2, 1000),
        (998, 1000),
        (0, 10**6),
        (2, 10**6),
        (10**6 - 1, 10**6),
        (1, 10**9),
        (10**9 - 2, 10**9),
    ],
)
def test_binbar_whole_documented_range(k, m):
    """delta from 1 down to 1e-307, k and m at their extremes, against 40+ digit arithmetic.

    Before the fix, scipy's inverse returned NaN for (1, 5) and every delta from 1e-300 to
    about 1e-150 (the answer rounds to 1), and lost 6 digits at (33, 100, 1e-300).
    """
    got = binomial_tail_inversion(k, m, DELTAS)
    want = [mp_binbar(k, m, d) for d in DELTAS]
    np.testing.assert_allclose(got, want, rtol=4e-15, atol=0)
    # The median of Bin(m, k/m) is at least k, so the bound is never below k/m for delta <= 1/2.
    assert np.all(np.isfinite(got)) and np.all(got[1:] >= k / m)


@pytest.mark.parametrize("k", [4000, 5000, 6000])
def test_binbar_near_the_mode_of_large_m(k):
    # k in the thousands near m / 2: the log-space tail sum has not converged after its 400
    # terms, so the incomplete beta decides, on the r side (answers below 1/2) and on the
    # 1 - r side (above). Reference: scipy's Clopper-Pearson limit, well conditioned here.
    m = 10_000
    deltas = np.array([0.9, 0.5, 0.05, 1e-3, 1e-10])
    got = binomial_tail_inversion(k, m, deltas)
    want = stats.beta.isf(deltas, k + 1, m - k)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_binbar_rounds_to_one_without_nan():
    deltas = np.geomspace(1e-300, 1e-100, 41)
    got = binomial_tail_inversion(1, 5, deltas)
    assert np.all(got == 1.0)  # 1 - r = (delta / 5) ** (1/4) < 1e-25: rounds to 1
    assert binomial_tail_inversion(1, 5, 1e-60) < 1.0  # 1 - r ~ 5e-16 is representable
    assert binomial_tail_inversion(3, 5, 1.0) == 0.0 and binomial_tail_inversion(5, 5, 1.0) == 1.0


@pytest.mark.parametrize(
    ("n_errors", "m", "n_features", "bits", "delta"),
    [
        (1, 5, 1, [0], 1e-300),
        (1, 5, 1, [0], 1e-200),
        (1, 5, 1, [0], 1e-150),
        (10, 100, 50, [3, 5], 1e-250),
        (0, 1000, 10**4, [5] * 3, 1e-250),
        (3, 40, 2000, [10, 10, 10], 1e-250),
    ],
)
def test_occam_bound_at_tiny_delta(n_errors, m, n_features, bits, delta):
    """Theorem 2 of Shah et al. 2010 at tiny delta (the NaN of issue 10), in exact arithmetic."""
    from widefs.scm import occam_bound

    with mpmath.workdps(50):
        k = len(bits)

        def zeta(a):
            return mpmath.mpf(6) / mpmath.pi**2 / (a + 1) ** 2

        message = mpmath.fprod([zeta(b) * mpmath.mpf(2) ** -b for b in bits])
        d_eff = zeta(k) * message * delta / (mpmath.binomial(n_features, k) * 2**k)
    got = occam_bound(n_errors, m, n_features, bits, delta)
    assert np.isfinite(got)
    assert got == pytest.approx(mp_binbar(n_errors, m, d_eff), rel=1e-13)


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


def test_kl_inverse_of_one_value_is_the_array_answer_bit_for_bit():
    # One pair takes a float path (an SCM's bound path calls it once per prefix): the same
    # halvings as the array path, so the same double, edge cases included.
    rng = np.random.default_rng(0)
    edges_q = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.5, 1 - 2**-53, 5e-324, 1e-300, 0.3, 0.25]
    edges_b = [0.0, 1e-300, 0.7, np.inf, 0.0, 0.2, 0.0, 1e-3, 1e-300, 700.0, 1e300, 2**-1074]
    # q = 0 has its closed form: 300 of them (numpy's expm1 and math's differ at times).
    q = np.concatenate(
        [rng.random(400), rng.random(100) ** 8, np.round(rng.random(50), 2), np.zeros(300), edges_q]
    )
    b = np.concatenate(
        [rng.random(400) * 3, 10.0 ** rng.uniform(-300, 3, 150), rng.random(300) * 5, edges_b]
    )
    whole = kl_inverse_upper(q, b)
    one = [kl_inverse_upper(float(qi), float(bi)) for qi, bi in zip(q, b, strict=True)]
    assert all(type(v) is np.float64 for v in one)
    np.testing.assert_array_equal(np.array(one), whole)
    assert kl_inverse_upper(0.3, 0.0) == 0.3 and kl_inverse_upper(1.0, 0.5) == 1.0


@functools.cache  # a reference: rerun per mutant by mutation testing
def mp_log_comb(n, k):
    with mpmath.workdps(40):
        return float(mpmath.loggamma(n + 1) - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1))


def test_log_binomial_coefficient():
    assert np.exp(log_binomial_coefficient(62, 5)) == pytest.approx(math.comb(62, 5), rel=1e-12)
    big = log_binomial_coefficient(10**6, 3)
    assert big == pytest.approx(math.log(math.comb(10**6, 3)), rel=1e-15)
    assert log_binomial_coefficient(10**9, 0) == 0.0 == log_binomial_coefficient(7, 7)
    with pytest.raises(ValueError, match="k must not exceed n"):
        log_binomial_coefficient(3, 4)


def test_log_binomial_coefficient_against_mpmath():
    """A few ulp from n = 1 to 1e15 (a gammaln difference was off by 3e-11 at n = 1e6-1e7)."""
    rng = np.random.default_rng(0)
    n = np.unique(np.round(10 ** rng.uniform(0, 15, 400)).astype(np.int64))
    n = np.concatenate([n, [1, 2, 3, 15, 16, 17, 31, 32, 1029, 1030, 10**5, 10**6]])
    frac = rng.uniform(0, 1, n.size) ** 4  # many small k, where cancellation was worst
    k = np.minimum(n, np.round(frac * n)).astype(np.int64)
    k = np.concatenate([k, np.ones_like(n), n // 2, n - 1, np.minimum(n, 16)])
    n = np.tile(n, 5)
    got = log_binomial_coefficient(n, k)
    want = np.array([mp_log_comb(int(a), int(b)) for a, b in zip(n, k, strict=True)])
    exact = want == 0
    assert np.all(got[exact] == 0)
    np.testing.assert_allclose(got[~exact], want[~exact], rtol=2e-15, atol=0)


def test_stirling_error_table():
    from widefs.stats._binomial import _STIRLERR_SMALL, _stirlerr

    with mpmath.workdps(40):
        exact = [
            float(
                mpmath.loggamma(x + 1)
                - (x + mpmath.mpf(1) / 2) * mpmath.log(x)
                + x
                - mpmath.log(2 * mpmath.pi) / 2
            )
            for x in range(1, 40)
        ]
    np.testing.assert_allclose(_STIRLERR_SMALL[1:], exact[:15], rtol=1e-16)
    # Beyond the table the truncated series is within 691 / (360360 x^11) < 1.2e-16 (absolute,
    # which is what ln C(n, k) adds up).
    np.testing.assert_allclose(_stirlerr(np.arange(1.0, 40.0)), exact, rtol=0, atol=1.2e-16)


def test_stirling_error_scalar_path_is_the_array_formula():
    # The scalar path of log_binomial_coefficient evaluates the same table and series in
    # Python floats: the same correctly rounded operations in the same order, so the same
    # doubles (a coefficient of the x^-7 or x^-9 term off by one in the last digit of its
    # denominator moves the result by 1e-17 to 1e-15, below what ln C(n, k) can show).
    from widefs.stats._binomial import _stirlerr, _stirlerr_scalar

    xs = np.concatenate([np.arange(1.0, 200.0), np.geomspace(200, 1e15, 300).round()])
    scalar = np.array([_stirlerr_scalar(float(x)) for x in xs])
    np.testing.assert_array_equal(scalar, _stirlerr(xs))


def _bisect_with_count(root, guess, active=None):
    from widefs.stats._binomial import _bisect_half

    root = np.asarray(root, dtype=float)
    active = np.ones(root.shape, bool) if active is None else np.asarray(active)
    calls = []

    def below(x):
        calls.append(x.size)
        return x < root

    lo, hi = _bisect_half(below, np.asarray(guess, dtype=float), active)
    return lo, hi, len(calls)


ROOTS = np.array([1e-300, 1e-20, 0.1, 0.3, 0.4999])


@pytest.mark.parametrize(
    ("miss", "max_calls"),
    [(0.0, 10), (1e-15, 10), (1e-12, 32), (1e-10, 32), (1e-6, 70), (np.nan, 70)],
)
def test_bisect_half_brackets_the_root_at_the_documented_cost(miss, max_calls):
    # The search inverts a tail with one evaluation per call: from a guess within a few ulp
    # it needs about 8 calls, within 1e-9 about 30, else the whole half-interval about 63
    # (geometric steps down to 1e-300, then arithmetic). Roots in [1/4, 1/2) included: a
    # guard that dropped their guesses cost 6x in the Occam bound fits.
    for root in ROOTS:
        lo, hi, n_calls = _bisect_with_count([root], [root * (1 + miss)])
        assert lo[0] < root <= hi[0] and hi[0] == np.nextafter(lo[0], 1.0)
        assert n_calls <= max_calls, (root, n_calls)
    # Vectorized, some elements inactive: those stay at [1/2, 1/2] whatever their guess.
    active = np.array([True, False, True, False, True])
    lo, hi, _ = _bisect_with_count(ROOTS, ROOTS * (1 + miss), active)
    np.testing.assert_array_equal(hi[active], ROOTS[active])
    np.testing.assert_array_equal(lo[active], np.nextafter(ROOTS[active], 0.0))
    assert np.all(lo[~active] == 0.5) and np.all(hi[~active] == 0.5)


def test_bisect_half_root_below_every_double():
    tiny = np.finfo(float).smallest_subnormal
    lo, hi, _ = _bisect_with_count([0.0, 0.0], [np.nan, 1e-310])
    np.testing.assert_array_equal(lo, [0.0, 0.0])
    np.testing.assert_array_equal(hi, [tiny, tiny])


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


def test_log_binomial_coefficient_scalar_path_matches_array_path_and_exact():
    # Python/numpy integer scalars take a float-only path (the risk bounds call it per
    # model size); it must agree with the array path and with exact integer arithmetic.
    rng = np.random.default_rng(3)
    pairs = [(n, k) for n in range(0, 60) for k in range(0, n + 1)]
    pairs += [(int(n), int(rng.integers(0, n + 1))) for n in rng.integers(1, 10**12, 300)]
    for n, k in pairs:
        scalar = log_binomial_coefficient(np.int64(n), k)
        array = log_binomial_coefficient(np.array([n]), np.array([k]))[0]
        assert isinstance(scalar, np.float64)
        assert scalar == pytest.approx(array, rel=1e-15, abs=1e-300)
        if n < 200:
            assert scalar == pytest.approx(math.log(math.comb(n, k)), rel=1e-14, abs=1e-15)
    with pytest.raises(ValueError, match="k must not exceed n"):
        log_binomial_coefficient(3, 4)
    with pytest.raises(ValueError):
        log_binomial_coefficient(-1, 0)


def test_kl_inverse_at_q_zero_matches_mpmath_down_to_tiny_bounds():
    # KL(0 || p) = -ln(1 - p), so p = 1 - exp(-bound) = -expm1(-bound); bisection alone is
    # limited by the float spacing near 0 and loses every digit for bound < 1e-16.
    bounds = np.array([1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.01, 0.5, 1.0, 5.0, 36.0, 700.0])
    want = [float(-mpmath.expm1(-mpmath.mpf(float(b)))) for b in bounds]
    np.testing.assert_allclose(kl_inverse_upper(0.0, bounds), want, rtol=2e-16, atol=0)
    assert kl_inverse_upper(0.0, np.inf) == 1.0 and kl_inverse_upper(0.3, np.inf) == 1.0
