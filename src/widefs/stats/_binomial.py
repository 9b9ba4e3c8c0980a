"""Binomial tails, their inversion, and the Bernoulli KL divergence with its inverse.

These are the shared kernels behind the chance thresholds (Palatucci & Carlson 2008),
the risk bounds of the Set Covering Machines (Shah, Marchand & Corbeil 2010, after
Langford 2005) and the process-oriented estimates (Domingos 1999).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from widefs._utils import as_float_array, check_integer_array, check_unit_interval

__all__ = [
    "binomial_tail",
    "binomial_tail_inversion",
    "kl_divergence",
    "kl_inverse_upper",
    "log_binomial_coefficient",
]

# Bisection on [q, 1) halves the bracket each step; 1100 halvings take any bracket below
# the smallest subnormal spacing, but the loop stops as soon as no element moves.
_MAX_BISECTIONS = 1100


def _scalar_or_array(x: NDArray) -> float | NDArray:
    return x[()] if x.ndim == 0 else x


# stirlerr(x) = ln Gamma(x + 1) - (x + 1/2) ln x + x - ln(2 pi) / 2 for x = 1..15, from 40-digit
# arithmetic (tests/stats/test_binomial.py recomputes them with mpmath); larger x use the series.
_STIRLERR_SMALL = np.array(
    [
        np.nan,
        0.08106146679532726,
        0.0413406959554093,
        0.02767792568499834,
        0.020790672103765093,
        0.016644691189821193,
        0.013876128823070748,
        0.01189670994589177,
        0.010411265261972096,
        0.009255462182712733,
        0.00833056343336287,
        0.007573675487951841,
        0.00694284010720953,
        0.006408994188004207,
        0.0059513701127588475,
        0.005554733551962801,
    ]
)
_HALF_LOG_2PI = 0.9189385332046727417803297


def _stirlerr(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Error of Stirling's formula, ``ln x! - [(x + 1/2) ln x - x + ln(2 pi) / 2]``, for integer x >= 1.

    Table below 16; above, the asymptotic series ``1/(12x) - 1/(360x^3) + 1/(1260x^5) -
    1/(1680x^7) + 1/(1188x^9)``, whose next term ``691/(360360 x^11)`` is below 1.2e-16
    at x = 16, an absolute error (Loader 2000, "Fast and accurate computation of binomial
    probabilities").
    """
    small = x < 16
    out = _STIRLERR_SMALL[np.where(small, x, 0).astype(np.intp)]
    big = np.where(small, 16.0, x)
    inv2 = 1.0 / (big * big)
    series = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - inv2 / 1188) * inv2) * inv2) * inv2) / big
    return np.where(small, out, series)


def _is_count(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _stirlerr_scalar(x: float) -> float:
    """:func:`_stirlerr` of one number, in Python floats (no array overhead)."""
    if x < 16:
        return float(_STIRLERR_SMALL[int(x)])
    inv2 = 1.0 / (x * x)
    return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - inv2 / 1188) * inv2) * inv2) * inv2) / x


def _log_binomial_scalar(n: float, k: float) -> float:
    """The formula of :func:`log_binomial_coefficient` for one valid pair of counts.

    The risk bounds of ``widefs.scm`` call it a few times per model size; the array path's
    validation and temporaries cost far more than the arithmetic there.
    """
    j = min(k, n - k)
    return 0.0 if j == 0 else _loader_log_binomial(n, j, _stirlerr_scalar, math.log, math.log1p)


def _loader_log_binomial(n, j, stirlerr, log, log1p):
    """Loader's saddle-point ``ln C(n, j)`` for ``1 <= j <= n / 2`` (see
    :func:`log_binomial_coefficient`), in the arithmetic of ``stirlerr``, ``log``, ``log1p``
    (Python floats or numpy arrays)."""
    log_q = log1p(-j / n)  # ln(1 - p), p = j / n <= 1/2
    return (
        stirlerr(n)
        - stirlerr(j)
        - stirlerr(n - j)
        - 0.5 * log(2 * math.pi * j)
        + j * log(n / j)
        - (n - j + 0.5) * log_q
    )


def log_binomial_coefficient(n: ArrayLike, k: ArrayLike) -> float | NDArray[np.float64]:
    """Natural log of the binomial coefficient C(n, k), to a few ulp for any n.

    With ``j = min(k, n - k) >= 1`` and ``p = j / n``, Loader's (2000) saddle-point form

    ``ln C(n, j) = s(n) - s(j) - s(n - j) - ln(2 pi j) / 2 + j ln(1 / p)
    - (n - j + 1/2) ln(1 - p)``,

    with ``s`` the error of Stirling's formula, adds terms that do not cancel, so the
    relative error stays within about 1e-15 from n = 1 to 1e15 (a difference of
    ``gammaln`` values loses up to 1e-10 at n = 1e7). ``C(n, 0) = C(n, n) = 1`` exactly.

    Parameters
    ----------
    n, k : array_like of int
        ``0 <= k <= n``; broadcast against each other.

    Returns
    -------
    float or ndarray
        ``ln C(n, k)``, a float for scalar arguments.

    See Also
    --------
    binomial_tail : Sums of binomial probabilities ``C(m, i) r^i (1-r)^(m-i)``.

    Examples
    --------
    >>> round(float(np.exp(log_binomial_coefficient(10, 3))), 6)
    120.0
    >>> float(log_binomial_coefficient(7, 0))
    0.0
    """
    if _is_count(n) and _is_count(k) and 0 <= k <= n:
        return np.float64(_log_binomial_scalar(float(n), float(k)))
    n_arr = check_integer_array(n, "n", minimum=0)
    k_arr = check_integer_array(k, "k", minimum=0)
    n_arr, k_arr = np.broadcast_arrays(n_arr, k_arr)
    if np.any(k_arr > n_arr):
        raise ValueError("k must not exceed n in C(n, k).")
    n_f = n_arr.astype(float)
    j = np.minimum(k_arr, n_arr - k_arr).astype(float)
    trivial = j == 0
    j = np.where(trivial, 1.0, j)
    n_f = np.where(trivial, 2.0, n_f)
    out = _loader_log_binomial(n_f, j, _stirlerr, np.log, np.log1p)
    return _scalar_or_array(np.where(trivial, 0.0, out))


def binomial_tail(k: ArrayLike, m: ArrayLike, r: ArrayLike) -> float | NDArray[np.float64]:
    """Lower binomial tail ``Bin(k, m, r) = P(X <= k)`` for ``X ~ Binomial(m, r)``.

    This is Langford's (2005) ``Bin(k, m, r) = sum_{i=0}^{k} C(m, i) r^i (1-r)^(m-i)``.
    With ``r`` the chance error rate it is also the one-sided p-value of observing at
    most ``k`` errors out of ``m`` under the null hypothesis of guessing.

    Parameters
    ----------
    k : array_like of int
        Number of errors, ``0 <= k <= m``.
    m : array_like of int
        Number of trials, ``m >= 1``.
    r : array_like of float
        Error probability in ``[0, 1]``.

    Returns
    -------
    float or ndarray
        ``P(X <= k)`` (broadcast shape of the arguments; a float for scalar arguments).

    See Also
    --------
    binomial_tail_inversion : The largest ``r`` with ``Bin(k, m, r) >= delta``.
    expected_min_errors : The chance order statistic built on these tails.

    Examples
    --------
    >>> float(binomial_tail(0, 3, 0.5))
    0.125
    >>> float(binomial_tail(3, 3, 0.5))
    1.0

    The p-value of 9 errors in 62 leave-one-out trials when guessing errs 35% of the time:

    >>> round(float(binomial_tail(9, 62, 0.35)), 6)
    0.000275
    """
    k_arr = check_integer_array(k, "k", minimum=0)
    m_arr = check_integer_array(m, "m", minimum=1)
    r_arr = check_unit_interval(r, "r")
    k_arr, m_arr, r_arr = np.broadcast_arrays(k_arr, m_arr, r_arr)
    if np.any(k_arr > m_arr):
        raise ValueError("k must not exceed m in the binomial tail Bin(k, m, r).")
    out = stats.binom.cdf(k_arr, m_arr, r_arr)
    return _scalar_or_array(np.asarray(out, dtype=float))


# Terms of the lower binomial tail summed in log space before falling back to the
# incomplete beta function (see _log_binomial_cdf).
_MAX_TAIL_TERMS = 400


def _log_binomial_cdf(
    k: NDArray, m: NDArray, log_coef: NDArray, log_r: NDArray, log_s: NDArray
) -> tuple[NDArray, NDArray]:
    """``ln P(X <= k)`` for ``X ~ Bin(m, r)``, ``s = 1 - r``, without underflow; and where it converged.

    ``ln pmf(k) + ln sum_j pmf(k - j) / pmf(k)`` (``log_coef = ln C(m, k)``): the ratios ``pmf(i - 1) / pmf(i) =
    i s / ((m - i + 1) r)`` shrink as ``i`` falls, so the sum stops once a term is below
    1e-17 of the total with a ratio under 1/2, or after all ``k + 1`` terms. Elements still
    running after ``_MAX_TAIL_TERMS`` terms are marked not converged (their tail is near the
    mode, where ``scipy.special.betainc`` is accurate).
    """
    k_f = k.astype(float)
    m_f = m.astype(float)
    with np.errstate(all="ignore"):
        log_pmf = (
            log_coef
            + np.where(k_f > 0, k_f * log_r, 0.0)
            + np.where(m_f > k_f, (m_f - k_f) * log_s, 0.0)
        )
        s_over_r = np.exp(np.minimum(log_s - log_r, 700.0))
    total = np.ones_like(log_pmf)
    term = np.ones_like(log_pmf)
    i = k_f.copy()
    done = i == 0
    for _ in range(_MAX_TAIL_TERMS):
        if np.all(done):
            break
        ratio = i * s_over_r / (m_f - i + 1.0)
        term = np.where(done, 0.0, term * ratio)
        total += term
        i -= 1.0
        done |= (i == 0) | ((term < 1e-17 * total) & (ratio < 0.5))
    return log_pmf + np.log(total), done


def _bisect_half(below, guess: NDArray, active: NDArray) -> tuple[NDArray, NDArray]:
    """Bracket ``[lo, hi]`` of adjacent doubles in ``[0, 1/2]`` where ``below`` turns False.

    ``below(x)`` is a monotone predicate (True left of the root, False at 1/2) evaluated
    elementwise; elements not ``active`` are left at ``[1/2, 1/2]``. The search starts from
    ``guess`` +- 2e-15 (a few ulp) or else +- 1e-9 where that brackets the root, else from
    ``[0, 1/2]``;
    midpoints are geometric while ``hi / lo > 4`` (so a root near 1e-300 takes ~10 steps),
    then arithmetic.
    """
    tiny = np.finfo(float).smallest_subnormal
    finite = active & np.isfinite(guess) & (guess > tiny) & (guess < 0.5 / (1 + 2e-9))
    g = np.where(finite, guess, 0.25)
    usable = np.zeros_like(finite)
    start, hi = np.full(g.shape, tiny), np.full(g.shape, 0.5)
    # A bracket of a few ulp around scipy's inverse is right almost always; one of 1e-9
    # catches the rest of its misses; only then the whole half-interval (~60 steps).
    for width in (2e-15, 1e-9):
        try_ = finite & ~usable
        if not np.any(try_):
            break
        g_lo, g_hi = g * (1 - width), g * (1 + width)
        ok = try_ & below(g_lo) & ~below(g_hi)
        start, hi = np.where(ok, g_lo, start), np.where(ok, g_hi, hi)
        usable |= ok
    lo = np.where(usable | below(start), start, 0.0)  # else the root is below every double
    lo = np.where(active, lo, 0.5)
    for _ in range(_MAX_BISECTIONS):
        geometric = (lo > 0) & (hi > 4 * lo)
        mid = np.where(geometric, np.sqrt(lo) * np.sqrt(hi), lo + 0.5 * (hi - lo))
        moved = (mid > lo) & (mid < hi)
        if not np.any(moved):
            break
        left = below(mid)
        lo = np.where(moved & left, mid, lo)
        hi = np.where(moved & ~left, mid, hi)
    return lo, hi


def binomial_tail_inversion(
    k: ArrayLike, m: ArrayLike, delta: ArrayLike
) -> float | NDArray[np.float64]:
    """Langford's binomial tail inversion ``Binbar(k, m, delta) = sup{r : Bin(k, m, r) >= delta}``.

    The largest true error rate under which observing at most ``k`` errors in ``m``
    trials still has probability ``delta``: the one-sided Clopper-Pearson upper limit
    ``Beta^{-1}(1 - delta; k + 1, m - k)``. ``Binbar(m, m, delta) = 1`` and, for
    ``k < m``, ``Binbar(k, m, 1) = 0``.

    Solved by bisection on the regularized incomplete beta function
    (``Bin(k, m, r) = 1 - I_r(k + 1, m - k) = I_{1-r}(m - k, k + 1)``): on ``r`` when the
    answer is below 1/2, on ``1 - r`` above, each in the form (``I`` or its complement)
    that keeps full relative accuracy, with geometric steps so that answers within 1e-300
    of 0 or 1 are found. The bracket ends at adjacent doubles and its *upper* end in ``r``
    is returned, so a risk bound is never understated; an answer within one ulp of 1 is 1.
    Accurate to a few ulp for ``delta`` from 1 down to the smallest positive double and
    any ``0 <= k <= m`` (tested against 400-digit arithmetic down to ``delta = 1e-300``
    and ``m = 1e9``).

    Parameters
    ----------
    k : array_like of int
        Observed errors, ``0 <= k <= m``.
    m : array_like of int
        Trials, ``m >= 1``.
    delta : array_like of float
        Confidence parameter in ``(0, 1]``.

    Returns
    -------
    float or ndarray
        ``Binbar(k, m, delta)`` in ``[k / m, 1]`` (broadcast shape of the arguments).

    See Also
    --------
    binomial_tail : the tail ``Bin(k, m, r)`` this function inverts.

    Examples
    --------
    Zero errors: ``Binbar(0, m, delta) = 1 - delta^(1/m)``.

    >>> round(float(binomial_tail_inversion(0, 10, 0.05)), 6)
    0.258866
    >>> float(binomial_tail_inversion(1, 5, 1e-300))  # 1 - 2e-76 rounds to 1
    1.0
    """
    k_arr = check_integer_array(k, "k", minimum=0)
    m_arr = check_integer_array(m, "m", minimum=1)
    d_arr = as_float_array(delta, "delta")
    if np.any(~((d_arr > 0) & (d_arr <= 1))):
        raise ValueError("delta must lie in (0, 1].")
    k_arr, m_arr, d_arr = np.broadcast_arrays(k_arr, m_arr, d_arr)
    if np.any(k_arr > m_arr):
        raise ValueError("k must not exceed m in Binbar(k, m, delta).")
    tail = _TailAtLeast(k_arr, m_arr, d_arr.astype(float))
    d, full = tail.d, tail.full
    half = np.full(d.shape, 0.5)
    no = np.zeros(d.shape, dtype=bool)
    upper = tail(half, no, no)  # the answer is at least 1/2
    with np.errstate(all="ignore"):  # scipy's inverses start the search (NaN where they fail)
        r_guess = np.where(upper, np.nan, special.betainccinv(tail.a, tail.b, d))
        s_guess = np.where(upper, special.betaincinv(tail.b, tail.a, d), np.nan)
    _, r_hi = _bisect_half(lambda r: tail(r, no, upper), r_guess, ~upper)
    s_lo, _ = _bisect_half(lambda s: ~tail(s, ~no, ~upper), s_guess, upper)
    out = np.where(upper, 1.0 - s_lo, r_hi)
    out = np.where(d == 1.0, 0.0, out)
    out = np.where(full, 1.0, out)
    return _scalar_or_array(np.asarray(out, dtype=float))


class _TailAtLeast:
    """``Bin(k, m, r) >= delta`` for the bisections of :func:`binomial_tail_inversion`."""

    def __init__(
        self, k_arr: NDArray[np.int64], m_arr: NDArray[np.int64], d: NDArray[np.float64]
    ) -> None:
        self.k_arr, self.m_arr, self.d = k_arr, m_arr, d
        self.full = k_arr == m_arr
        self.a = k_arr + 1.0
        self.b = np.where(self.full, 1.0, m_arr - k_arr).astype(float)  # placeholder at k = m
        self.big_delta = d >= 0.5  # 1 - delta is exact there (Sterbenz), and better conditioned
        self.log_d = np.log(d)
        self.log_coef = np.asarray(log_binomial_coefficient(m_arr, k_arr))

    def __call__(
        self, x: NDArray[np.float64], s_side: NDArray[np.bool_], skip: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """At ``r = 1 - x`` (``s_side``) or ``r = x``, for ``x <= 1/2``; elements in ``skip``
        get an arbitrary answer without the cost of the log-space sum."""
        a, b, k_arr, big_delta = self.a, self.b, self.k_arr, self.big_delta
        with np.errstate(all="ignore"):
            log_x, log_1mx = np.log(x), np.log1p(-x)
            bin_r = np.where(s_side, special.betainc(b, a, x), special.betaincc(a, b, x))
            one_minus = np.where(s_side, special.betaincc(b, a, x), special.betainc(a, b, x))
            plain = big_delta | skip  # 1 - Bin is accurate where delta >= 1/2
            k_sum = np.where(plain | self.full, 0, k_arr)
            log_tail, exact = _log_binomial_cdf(
                k_sum,
                self.m_arr,
                np.where(k_sum == k_arr, self.log_coef, 0.0),
                np.where(s_side, log_1mx, log_x),
                np.where(s_side, log_x, log_1mx),
            )
        return np.where(
            big_delta,
            one_minus <= 1.0 - self.d,
            np.where(exact & ~plain, log_tail >= self.log_d, bin_r >= self.d),
        )


def kl_divergence(q: ArrayLike, p: ArrayLike) -> float | NDArray[np.float64]:
    """Bernoulli Kullback-Leibler divergence ``kl(q || p)``.

    ``kl(q || p) = q ln(q/p) + (1-q) ln((1-q)/(1-p))`` with ``0 ln 0 = 0``; infinite
    when ``p`` is 0 or 1 and ``q`` differs from it.

    Parameters
    ----------
    q : array_like of float
        Mean of the first Bernoulli distribution (e.g. an empirical risk), in ``[0, 1]``.
    p : array_like of float
        Mean of the second (e.g. a true risk), in ``[0, 1]``.

    Returns
    -------
    float or ndarray
        ``kl(q || p) >= 0`` in nats (broadcast shape; a float for scalar arguments).

    See Also
    --------
    kl_inverse_upper : The largest ``p`` with ``kl(q || p)`` within a bound.

    Examples
    --------
    >>> float(kl_divergence(0.5, 0.5))
    0.0
    >>> round(float(kl_divergence(0.0, 0.5)), 12) == round(float(np.log(2)), 12)
    True
    """
    q_arr = check_unit_interval(q, "q")
    p_arr = check_unit_interval(p, "p")
    out = special.rel_entr(q_arr, p_arr) + special.rel_entr(1.0 - q_arr, 1.0 - p_arr)
    return _scalar_or_array(np.asarray(out, dtype=float))


def kl_inverse_upper(q: ArrayLike, bound: ArrayLike) -> float | NDArray[np.float64]:
    """Upper inverse of the Bernoulli KL: ``sup{p in [q, 1] : kl(q || p) <= bound}``.

    Used by PAC-Bayes bounds (Langford 2005; Theorem 5 of Shah et al. 2010). Solved by
    vectorized bisection on ``[q, 1]`` until the bracket is two adjacent doubles; the
    upper end is returned, so a risk bound is never understated (when the true value
    lies within one ulp of 1, the answer is 1). ``q = 0`` has the closed form
    ``1 - exp(-bound)``.

    Parameters
    ----------
    q : array_like of float
        Empirical risk in ``[0, 1]``.
    bound : array_like of float
        Non-negative right-hand side (``+inf`` gives 1).

    Returns
    -------
    float or ndarray
        The largest ``p`` in ``[q, 1]`` with ``kl(q || p) <= bound`` (broadcast shape).

    See Also
    --------
    kl_divergence : The divergence this function inverts.
    binomial_tail_inversion : The analogous inversion of the binomial tail.

    Examples
    --------
    >>> round(float(kl_inverse_upper(0.0, np.log(2))), 12)
    0.5
    >>> float(kl_inverse_upper(0.3, 0.0))
    0.3
    """
    q_arr = check_unit_interval(q, "q")
    b_arr = as_float_array(bound, "bound")
    if np.any(~(b_arr >= 0)):
        raise ValueError("bound must be non-negative (and not NaN).")
    q_arr, b_arr = np.broadcast_arrays(q_arr, b_arr)
    if q_arr.ndim == 0:  # one value (each bound of an SCM's path): no array per halving
        return _kl_inverse_upper_one(float(q_arr), float(b_arr))
    lo = q_arr.astype(float).copy()
    hi = np.ones_like(lo)
    active = (lo < 1.0) & (b_arr > 0)
    for _ in range(_MAX_BISECTIONS):
        if not np.any(active):
            break
        mid = 0.5 * (lo + hi)
        moved = active & (mid > lo) & (mid < hi)
        if not np.any(moved):
            break
        with np.errstate(divide="ignore"):
            kl = special.rel_entr(q_arr, mid) + special.rel_entr(1.0 - q_arr, 1.0 - mid)
        below = kl <= b_arr
        lo = np.where(moved & below, mid, lo)
        hi = np.where(moved & ~below, mid, hi)
        active = moved
    out = np.where(b_arr > 0, hi, q_arr)
    # The q = 0 case has a closed form that is exact where bisection is limited by spacing near 1.
    zero = q_arr == 0
    out = np.where(zero, -np.expm1(-b_arr), out)
    out = np.where(np.isinf(b_arr), 1.0, out)
    return _scalar_or_array(np.asarray(out, dtype=float))


def _kl_inverse_upper_one(q: float, bound: float) -> np.float64:
    """:func:`kl_inverse_upper` of one pair in floats: the same halvings, the same answer
    (numpy's ``expm1`` and scipy's ``rel_entr`` on floats: ``math`` rounds differently)."""
    if math.isinf(bound):
        return np.float64(1.0)
    if q == 0:
        return -np.expm1(np.float64(-bound))
    if not bound > 0:
        return np.float64(q)
    rel_entr = special.rel_entr
    lo, hi = q, 1.0
    for _ in range(_MAX_BISECTIONS if lo < 1.0 else 0):
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        if rel_entr(q, mid) + rel_entr(1.0 - q, 1.0 - mid) <= bound:
            lo = mid
        else:
            hi = mid
    return np.float64(hi)
