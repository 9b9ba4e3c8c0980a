"""Binomial tails, their inversion, and the Bernoulli KL divergence with its inverse.

These are the shared kernels behind the chance thresholds (Palatucci & Carlson 2008),
the risk bounds of the Set Covering Machines (Shah, Marchand & Corbeil 2010, after
Langford 2005) and the process-oriented estimates (Domingos 1999).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from widefs.utils._validation import as_float_array, check_integer_array, check_unit_interval

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


def log_binomial_coefficient(n: ArrayLike, k: ArrayLike) -> float | NDArray[np.float64]:
    """Natural log of the binomial coefficient C(n, k), exact in log space for large n.

    Parameters
    ----------
    n, k : array_like of int
        ``0 <= k <= n``; broadcast against each other.

    Examples
    --------
    >>> round(float(np.exp(log_binomial_coefficient(10, 3))), 6)
    120.0
    """
    n_arr = check_integer_array(n, "n", minimum=0)
    k_arr = check_integer_array(k, "k", minimum=0)
    n_arr, k_arr = np.broadcast_arrays(n_arr, k_arr)
    if np.any(k_arr > n_arr):
        raise ValueError("k must not exceed n in C(n, k).")
    # special.binom is accurate to a few ulp while finite; gammaln differences lose
    # digits to cancellation for large n, so they are used only where binom overflows.
    direct = special.binom(n_arr, k_arr)
    with np.errstate(divide="ignore"):
        out = np.where(
            np.isfinite(direct),
            np.log(direct),
            special.gammaln(n_arr + 1.0)
            - special.gammaln(k_arr + 1.0)
            - special.gammaln(n_arr - k_arr + 1.0),
        )
    return _scalar_or_array(np.asarray(out, dtype=float))


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

    Examples
    --------
    >>> float(binomial_tail(0, 3, 0.5))
    0.125
    >>> float(binomial_tail(3, 3, 0.5))
    1.0
    """
    k_arr = check_integer_array(k, "k", minimum=0)
    m_arr = check_integer_array(m, "m", minimum=1)
    r_arr = check_unit_interval(r, "r")
    k_arr, m_arr, r_arr = np.broadcast_arrays(k_arr, m_arr, r_arr)
    if np.any(k_arr > m_arr):
        raise ValueError("k must not exceed m in the binomial tail Bin(k, m, r).")
    out = stats.binom.cdf(k_arr, m_arr, r_arr)
    return _scalar_or_array(np.asarray(out, dtype=float))


def binomial_tail_inversion(
    k: ArrayLike, m: ArrayLike, delta: ArrayLike
) -> float | NDArray[np.float64]:
    """Langford's binomial tail inversion ``Binbar(k, m, delta) = sup{r : Bin(k, m, r) >= delta}``.

    The largest true error rate under which observing at most ``k`` errors in ``m``
    trials still has probability ``delta``: the one-sided Clopper-Pearson upper limit
    ``Beta^{-1}(1 - delta; k + 1, m - k)``. Computed with the complemented incomplete
    beta inverse (``scipy.stats.beta.isf``), which keeps full relative accuracy for
    ``delta`` down to 1e-300; ``Binbar(m, m, delta) = 1``.

    Parameters
    ----------
    k : array_like of int
        Observed errors, ``0 <= k <= m``.
    m : array_like of int
        Trials, ``m >= 1``.
    delta : array_like of float
        Confidence parameter in ``(0, 1]``.

    Examples
    --------
    Zero errors: ``Binbar(0, m, delta) = 1 - delta^(1/m)``.

    >>> round(float(binomial_tail_inversion(0, 10, 0.05)), 6)
    0.258866
    """
    k_arr = check_integer_array(k, "k", minimum=0)
    m_arr = check_integer_array(m, "m", minimum=1)
    d_arr = as_float_array(delta, "delta")
    if np.any(~((d_arr > 0) & (d_arr <= 1))):
        raise ValueError("delta must lie in (0, 1].")
    k_arr, m_arr, d_arr = np.broadcast_arrays(k_arr, m_arr, d_arr)
    if np.any(k_arr > m_arr):
        raise ValueError("k must not exceed m in Binbar(k, m, delta).")
    full = k_arr == m_arr
    # beta.isf needs b = m - k > 0; the k = m entries are exactly 1.
    b = np.where(full, 1, m_arr - k_arr)
    out = stats.beta.isf(d_arr, k_arr + 1.0, b.astype(float))
    out = np.where(full, 1.0, out)
    return _scalar_or_array(np.asarray(out, dtype=float))


def kl_divergence(q: ArrayLike, p: ArrayLike) -> float | NDArray[np.float64]:
    """Bernoulli Kullback-Leibler divergence ``kl(q || p)``.

    ``kl(q || p) = q ln(q/p) + (1-q) ln((1-q)/(1-p))`` with ``0 ln 0 = 0``; infinite
    when ``p`` is 0 or 1 and ``q`` differs from it.

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
