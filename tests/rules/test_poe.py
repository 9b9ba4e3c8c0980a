"""POE estimates against exact arithmetic, mpmath integrals and seeded Monte Carlo."""

import functools
import math
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy.integrate import trapezoid

from widefs.rules import (
    effective_hypotheses,
    poe1_estimate,
    poe_combine,
    poe_estimate,
    poe_exact_beta,
)


# ---------------------------------------------------------------- Eq. 13 (POE2)
@pytest.mark.parametrize("effective", ["log2", "log", "log10", "identity"])
def test_eq13_matches_exact_fractions(effective):
    g = {"log2": mpmath.log, "log": mpmath.log, "log10": mpmath.log, "identity": None}[effective]
    base = {"log2": 2, "log": mpmath.e, "log10": 10}.get(effective)
    for n, e, m, prior in [(10, 0, 1, 0.5), (37, 5, 2, 0.3), (200, 17, 1000, 0.45), (5, 5, 7, 0.9)]:
        m_eff = Fraction(m) if g is None else Fraction(max(1.0, float(g(m, base))))
        p = Fraction(prior)
        exact = Fraction(e, n) / m_eff + (1 - 1 / m_eff) * p
        got = poe_estimate(n, e, m, prior, effective=effective)
        assert got == pytest.approx(float(exact), rel=1e-13)


def test_eq13_limits_and_broadcasting():
    # m = 1 (and m' clamped to 1 for m < 2 under log2): the maximum-likelihood estimate.
    assert poe_estimate(40, 6, 1, 0.4) == pytest.approx(6 / 40)
    assert poe_estimate(40, 6, 1.9, 0.4) == pytest.approx(6 / 40)
    # m -> infinity: the prior.
    assert poe_estimate(40, 6, 1e300, 0.4, effective="identity") == pytest.approx(0.4)
    out = poe_estimate(np.array([[10], [20]]), np.array([[1], [2]]), [1, 4, 16], 0.5)
    assert out.shape == (2, 3)
    assert np.allclose(out[:, 0], 0.1)
    # Monotone: more hypotheses pull a low training error up towards the prior.
    assert np.all(np.diff(poe_estimate(100, 5, np.logspace(0, 6, 20), 0.5)) >= 0)
    assert effective_hypotheses(8) == 3.0
    assert poe_combine(0.2, 4, 0.6) == pytest.approx(0.2 / 2 + 0.5 * 0.6)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(n=0, errors=0, n_hypotheses=1, prior_error=0.5), "n must be >= 1"),
        (dict(n=5, errors=6, n_hypotheses=1, prior_error=0.5), "must not exceed n"),
        (dict(n=5, errors=1, n_hypotheses=0.5, prior_error=0.5), "n_hypotheses must be >= 1"),
        (dict(n=5, errors=1, n_hypotheses=2, prior_error=1.5), r"prior_error must lie in \[0, 1\]"),
        (dict(n=5, errors=1.5, n_hypotheses=2, prior_error=0.5), "integer"),
    ],
)
def test_eq13_validation(kwargs, message):
    with pytest.raises(ValueError, match=message):
        poe_estimate(**kwargs)
    with pytest.raises(ValueError, match="effective must be one of"):
        poe_estimate(5, 1, 2, 0.5, effective="sqrt")


# ---------------------------------------------------------------- Eq. 11 (Beta prior)
# References (mpmath integrals, seeded simulations) are cached: they do not depend on the
# code under test, and mutation testing reruns these tests once per mutant.
@functools.cache
def _eq11_mpmath(n, e, m, a, b):
    """Eq. 11 with F, f, E_b, E_B as mpmath integrals over the Beta density."""
    mpmath.mp.dps = 30
    beta = mpmath.beta(a, b)

    def prior(x):
        return x ** (a - 1) * (1 - x) ** (b - 1) / beta

    def pmf(x, k):
        return mpmath.binomial(n, k) * x**k * (1 - x) ** (n - k)

    def upper(x):  # B(e | n, eps) = P(X > e)
        return mpmath.fsum(pmf(x, k) for k in range(e + 1, n + 1))

    f = mpmath.quad(lambda x: pmf(x, e) * prior(x), [0, 1])
    F = mpmath.quad(lambda x: upper(x) * prior(x), [0, 1])
    Eb = mpmath.quad(lambda x: x * pmf(x, e) * prior(x), [0, 1]) / f
    EB = mpmath.quad(lambda x: x * upper(x) * prior(x), [0, 1]) / F if F > 0 else 0
    S = F + f
    num = f * Eb * S ** (m - 1) + F * EB * (S ** (m - 1) - F ** (m - 1))
    return float(num / (S**m - F**m))


@pytest.mark.parametrize(
    ("n", "e", "m", "a", "b"),
    [(12, 2, 5, 2.0, 3.0), (20, 0, 40, 1.0, 1.0), (15, 7, 3, 4.0, 2.5), (8, 8, 10, 2.0, 2.0)],
)
def test_eq11_matches_direct_integrals(n, e, m, a, b):
    assert poe_exact_beta(n, e, m, a, b) == pytest.approx(_eq11_mpmath(n, e, m, a, b), rel=1e-10)


@functools.cache
def _simulate(n, m, a, b, trials, seed):
    rng = np.random.default_rng(seed)
    eps = rng.beta(a, b, size=(trials, m))
    errors = rng.binomial(n, eps)
    return eps, errors


@pytest.mark.parametrize(
    ("n", "m", "a", "b", "trials"), [(20, 5, 2.0, 3.0, 400_000), (30, 50, 3.0, 3.0, 100_000)]
)
def test_eq11_matches_monte_carlo(n, m, a, b, trials):
    # The generative story of Sec. 2: m hypotheses with error rates drawn from the prior,
    # each scored on n examples. Eq. 11 is E[eps_c | min_i e_i = e] for a fixed index c
    # (the paper marginalizes the posterior given the minimum over all other components).
    eps, errors = _simulate(n, m, a, b, trials, seed=12345)
    e_min = errors.min(axis=1)
    checked = 0
    for e in np.unique(e_min):
        rows = e_min == e
        if rows.sum() < 1000:
            continue
        sample = eps[rows, 0]
        se = sample.std(ddof=1) / np.sqrt(sample.size)
        assert abs(sample.mean() - poe_exact_beta(n, e, m, a, b)) < 4 * se
        checked += 1
    assert checked >= 3


def test_chosen_hypothesis_has_the_single_hypothesis_posterior():
    # The hypothesis that attains the minimum (ties broken at random) has posterior mean
    # E_b = (a + e) / (a + b + n) for every m: under independence the other counts say
    # nothing about its error. This is the m = 1 value of Eq. 11, not Eq. 11 itself.
    n, m, a, b = 20, 5, 2.0, 3.0
    eps, errors = _simulate(n, m, a, b, 400_000, seed=7)
    rng = np.random.default_rng(8)
    noisy = errors + rng.random(errors.shape) * 0.5  # random tie-break, order kept
    chosen = np.argmin(noisy, axis=1)
    e_min = errors.min(axis=1)
    picked = eps[np.arange(eps.shape[0]), chosen]
    for e in (1, 2, 3):
        sample = picked[e_min == e]
        se = sample.std(ddof=1) / np.sqrt(sample.size)
        assert abs(sample.mean() - (a + e) / (a + b + n)) < 4 * se
        assert abs(sample.mean() - poe_exact_beta(n, e, 1, a, b)) < 4 * se
        assert poe_exact_beta(n, e, m, a, b) - sample.mean() > 20 * se


def test_eq11_limits():
    n, e, a, b = 25, 3, 2.0, 5.0
    # m = 1: the posterior mean E_b.
    assert poe_exact_beta(n, e, 1, a, b) == pytest.approx((a + e) / (a + b + n), rel=1e-12)
    # m -> infinity: E[eps | X >= e], computed here from beta-binomial sums.
    from scipy import stats

    xs = np.arange(e, n + 1)
    w = stats.betabinom.pmf(xs, n, a, b)
    cond_mean = np.sum(w * (a + xs) / (a + b + n)) / w.sum()
    assert poe_exact_beta(n, e, 1e9, a, b) == pytest.approx(cond_mean, rel=1e-8)
    # e = n: F = 0, only E_b remains.
    assert poe_exact_beta(10, 10, 50, a, b) == pytest.approx((a + 10) / (a + b + 10))
    # Monotone in m, between E_b and the large-m limit.
    vals = poe_exact_beta(n, e, np.arange(1, 200), a, b)
    assert np.all(np.diff(vals) >= -1e-15)


def test_eq13_approximates_eq11_for_large_n():
    # The paper's approximation: F >> f, E_b ~ e/n, E_B ~ prior mean, for large n and an
    # observed error well below the prior mean.
    a, b, n, m = 30.0, 70.0, 20_000, 50
    e = 1000  # e/n = 0.05 against a prior mean of 0.3
    exact = poe_exact_beta(n, e, m, a, b)
    approx = poe_estimate(n, e, m, a / (a + b), effective="identity")
    assert exact == pytest.approx(approx, abs=2e-3)


def _eq11_fraction(n, e, m, a, b):
    """Eq. 11 in exact rational arithmetic for integer a, b and m: every integral is a
    sum of Beta functions, int eps^j (1 - eps)^(n - j) Beta(eps; a, b) = B(a + j, b + n - j) / B(a, b)."""

    def beta(x, y):  # B(x, y) for positive integers
        return Fraction(math.factorial(x - 1) * math.factorial(y - 1), math.factorial(x + y - 1))

    def moment(j, extra):  # int eps^extra C(n, j) eps^j (1 - eps)^(n - j) p(eps)
        return math.comb(n, j) * beta(a + j + extra, b + n - j) / beta(a, b)

    f, i_b = moment(e, 0), moment(e, 1)
    upper, i_upper = (
        sum(moment(j, 0) for j in range(e + 1, n + 1)),
        sum(moment(j, 1) for j in range(e + 1, n + 1)),
    )
    s = upper + f
    return (i_b * s ** (m - 1) + i_upper * (s ** (m - 1) - upper ** (m - 1))) / (s**m - upper**m)


@pytest.mark.parametrize(
    ("n", "e", "m", "a", "b"),
    [
        (6, 1, 2, 1, 2),  # e = 1: F + f = P(X >= 1) < 1, m = 2
        (10, 1, 3, 2, 3),
        (4, 1, 2, 1, 1),
        (5, 2, 2, 3, 1),
        (7, 0, 4, 2, 2),  # e = 0: F + f = 1
        (12, 4, 7, 3, 2),
        (3, 3, 4, 1, 1),  # e = n: F = 0 and f / (F + f) rounds to exactly 1
        (9, 9, 2, 1, 2),
    ],
)
def test_eq11_matches_exact_fractions(n, e, m, a, b):
    """Eq. 11 against exact rationals, at e = 0, 1, n and m = 2 (a plain ``m == 1``
    special case or a ``e > 1`` log-tail guard would differ here)."""
    import warnings

    want = float(_eq11_fraction(n, e, m, a, b))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # F = 0 (e = n) is handled without a RuntimeWarning
        got = poe_exact_beta(n, e, m, float(a), float(b))
    assert got == pytest.approx(want, rel=1e-12)
    if e == n:
        assert got == pytest.approx((a + n) / (a + b + n), rel=1e-12)


def test_eq11_validation():
    with pytest.raises(ValueError, match="must be positive"):
        poe_exact_beta(10, 2, 3, 0.0, 1.0)
    with pytest.raises(ValueError, match="n_hypotheses must be >= 1"):
        poe_exact_beta(10, 2, 0, 1.0, 1.0)


# ---------------------------------------------------------------- POE1 integral
@functools.cache
def _poe1_mpmath(n, e, m):
    mpmath.mp.dps = 25

    def upper(x, k):  # P(X > k) = I_x(k + 1, n - k), the regularized incomplete beta
        if k < 0:
            return mpmath.mpf(1)
        if k >= n:
            return mpmath.mpf(0)
        return mpmath.betainc(k + 1, n - k, 0, x, regularized=True)

    def g(x):
        return upper(x, e - 1) ** m - upper(x, e) ** m

    pts = mpmath.linspace(0, 1, 11)
    return float(mpmath.quad(lambda x: x * g(x), pts) / mpmath.quad(g, pts))


# The last two put the mass against eps = 1, where the integration range is clipped.
@pytest.mark.parametrize(
    ("n", "e", "m"),
    [(10, 2, 1), (10, 2, 10), (30, 0, 200), (40, 12, 7.5), (50, 50, 3), (50, 49, 2)],
)
def test_poe1_matches_mpmath(n, e, m):
    assert poe1_estimate(n, e, m) == pytest.approx(_poe1_mpmath(n, e, m), rel=1e-9)


def test_poe1_large_n_matches_dense_trapezoid():
    # n in the thousands (thyroid-sized rules): a plain trapezoid on 400,001 points.
    from scipy import stats

    n, e, m = 2500, 40, 3000
    x = np.linspace(0.0, 1.0, 400_001)
    hi = np.exp(m * stats.binom.logsf(e - 1, n, x))
    g = hi - np.exp(m * stats.binom.logsf(e, n, x))
    expected = trapezoid(x * g, x) / trapezoid(g, x)  # (np.trapezoid needs numpy 2)
    assert poe1_estimate(n, e, m) == pytest.approx(expected, rel=1e-7)


def test_poe1_one_hypothesis_is_uniform_posterior_mean():
    for n, e in [(5, 0), (50, 7), (300, 150), (2000, 3)]:
        assert poe1_estimate(n, e, 1) == pytest.approx((e + 1) / (n + 2), rel=1e-9)


@functools.cache
def _simulate_poe1(n, m, trials, seed):
    rng = np.random.default_rng(seed)
    eps = rng.random(trials)
    return eps, rng.binomial(n, eps[:, None], size=(trials, m)).min(axis=1)


def test_poe1_matches_monte_carlo():
    # POE1's story: one error rate eps ~ U(0, 1) shared by all m hypotheses.
    n, m = 15, 8
    eps, e_min = _simulate_poe1(n, m, 400_000, seed=99)
    for e in (0, 1, 2, 4):
        sample = eps[e_min == e]
        se = sample.std(ddof=1) / np.sqrt(sample.size)
        assert abs(sample.mean() - poe1_estimate(n, e, m)) < 4 * se
    vals = poe1_estimate(n, 2, [1, 2, 8, 64])
    assert np.all(np.diff(vals) > 0)


# ---------------------------------------------------------------- one message per failure
_POE_FUNCTIONS = {
    "effective_hypotheses": lambda n, e, m, p: effective_hypotheses(m),
    "poe_combine": lambda n, e, m, p: poe_combine(e / n, m, p),
    "poe_estimate": lambda n, e, m, p: poe_estimate(n, e, m, p),
    "poe_exact_beta": lambda n, e, m, p: poe_exact_beta(n, e, m, 1.0, 2.0),
    "poe1_estimate": lambda n, e, m, p: poe1_estimate(n, e, m),
}


@pytest.mark.parametrize(
    ("functions", "args", "error", "message"),
    [
        (
            ["effective_hypotheses", "poe_estimate", "poe_exact_beta", "poe1_estimate"],
            (5, 1, "many", 0.5),
            TypeError,
            "n_hypotheses must be numeric, got 'many'.",
        ),
        (
            ["effective_hypotheses", "poe_combine", "poe_estimate", "poe_exact_beta"],
            (5, 1, 0.5, 0.5),
            ValueError,
            "n_hypotheses must be >= 1.",
        ),
        (["poe1_estimate"], (5, 1, 0.5, 0.5), ValueError, "n_hypotheses must be >= 1."),
        (["poe_combine"], (5, 6, 2, 0.5), ValueError, "error_estimate must lie in [0, 1]."),
        (["poe_combine"], (5, 1, 2, -0.1), ValueError, "prior_error must lie in [0, 1]."),
        (
            ["poe_estimate", "poe_exact_beta", "poe1_estimate"],
            (5, -1, 2, 0.5),
            ValueError,
            "errors must be >= 0.",
        ),
        (
            ["poe_estimate", "poe_exact_beta", "poe1_estimate"],
            (5, 6, 2, 0.5),
            ValueError,
            "errors must not exceed n.",
        ),
        (
            ["poe_estimate", "poe_exact_beta", "poe1_estimate"],
            (0, 0, 2, 0.5),
            ValueError,
            "n must be >= 1.",
        ),
        (
            ["poe_estimate", "poe_exact_beta", "poe1_estimate"],
            (5, 1.5, 2, 0.5),
            ValueError,
            "errors must hold integer values.",
        ),
        (
            ["poe_estimate", "poe_exact_beta", "poe1_estimate"],
            (5.5, 1, 2, 0.5),
            ValueError,
            "n must hold integer values.",
        ),
    ],
)
def test_every_failure_has_its_exact_message(functions, args, error, message):
    for name in functions:
        with pytest.raises(error, match="^" + re.escape(message) + "$"):
            _POE_FUNCTIONS[name](*args)


def test_exact_beta_prior_messages():
    for a, b in [(0.0, 1.0), (1.0, 0.0), (-1.0, 1.0), (1.0, float("nan"))]:
        with pytest.raises(
            ValueError, match=r"^The Beta prior parameters a and b must be positive\.$"
        ):
            poe_exact_beta(10, 2, 3, a, b)
    for name, kwargs in [("a", dict(a="x", b=1.0)), ("b", dict(a=1.0, b="x"))]:
        with pytest.raises(TypeError, match=f"^{name} must be numeric, got 'x'.$"):
            poe_exact_beta(10, 2, 3, **kwargs)
    with pytest.raises(
        ValueError,
        match=r"^effective must be one of \['identity', 'log', 'log10', 'log2'\], got 'sqrt'\.$",
    ):
        effective_hypotheses(4, "sqrt")


def test_poe1_is_silent_where_both_tails_vanish():
    # At eps = 0 both log tails are -inf; the integrand is 0 there, computed without a
    # RuntimeWarning (warnings are errors here).
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = poe1_estimate([10, 40], [2, 12], [3, 7.5])
    assert got[1] == pytest.approx(_poe1_mpmath(40, 12, 7.5), rel=1e-9)


@pytest.mark.parametrize(("n", "errors", "m"), [(10**6, 10, 5)])
def test_poe1_large_n_mass_narrower_than_the_linear_grid_matches_mpmath(n, errors, m):
    # The posterior mass lies near errors / n, far below a linear grid's step of 1/4096; a
    # grid that misses it raised IndexError (n = 1e6, errors = 10).
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 20

    def upper_tail(k, eps):  # P(X > k) for X ~ Binomial(n, eps)
        if k < 0:
            return mpmath.mpf(1)
        return mpmath.betainc(k + 1, n - k, 0, eps, regularized=True)

    def f(eps):
        return upper_tail(errors - 1, eps) ** m - upper_tail(errors, eps) ** m

    scale = mpmath.mpf(errors + 1) / n
    # Beyond 8 * (errors + 1) / n the integrand is below 1e-30 of its peak (n = 1e6, e = 10).
    points = [0] + [scale * t for t in (0.25, 0.5, 1, 2, 4, 8)]
    want = mpmath.quad(lambda x: x * f(x), points) / mpmath.quad(f, points)
    assert poe1_estimate(n, errors, m) == pytest.approx(float(want), rel=1e-9)


@pytest.mark.parametrize(("n", "errors"), [(10**18, 1), (10**17, 3)])
def test_poe1_mass_below_the_grid_is_one_clear_error(n, errors):
    # n eps >= 1000 at the smallest grid point 1e-15: P(X <= errors) underflows there, so
    # the integrand is 0 on the whole grid (0 * nan at eps = 0) and the mass cannot be
    # located; that is a ValueError naming the arguments, not an IndexError.
    message = (
        f"POE1 cannot locate the posterior mass for n={n}, errors={errors}, n_hypotheses=3 "
        "(it lies below an error rate of 1e-15)."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        poe1_estimate(n, errors, 3)


def test_scalar_in_float_out_array_in_array_out():
    # The documented return types: "a float for scalar input", arrays keep their shape.
    scalar_calls = [
        lambda: effective_hypotheses(8),
        lambda: poe_combine(0.2, 10, 0.3),
        lambda: poe_estimate(20, 3, 8, 0.4),
        lambda: poe_exact_beta(20, 3, 8, 2.0, 3.0),
        lambda: poe1_estimate(10, 2, 4),
    ]
    for call in scalar_calls:
        got = call()
        assert isinstance(got, float) and not isinstance(got, np.ndarray), got
    got = poe_exact_beta([20, 30], 3, 8, 2.0, 3.0)
    assert isinstance(got, np.ndarray) and got.shape == (2,) and got.dtype == np.float64
    assert isinstance(effective_hypotheses([[8]]), np.ndarray)


@pytest.mark.parametrize("effective", ["log2", "log", "log10", "identity"])
def test_unchecked_combine_is_poe_combine_bitwise(effective):
    from widefs.rules._poe import combine_unchecked

    rng = np.random.default_rng(0)
    eps, prior = rng.random(300), rng.random(300)
    m = np.concatenate([[1, 2, 3, 10], rng.integers(1, 10**6, 296)])
    eps[:3], prior[:3] = [0.0, 1.0, 0.5], [1.0, 0.0, 0.0]
    for e, k, p in zip(eps, m, prior, strict=True):
        want = float(poe_combine(float(e), int(k), float(p), effective=effective))
        assert combine_unchecked(float(e), int(k), float(p), effective) == want
