"""Risk bounds for conjunctions of decision stumps (Shah, Marchand & Corbeil 2010).

Three pure functions, one per learning setting of the paper, built on
:mod:`widefs.stats`:

- :func:`occam_bound` — Theorem 2 (Occam's razor with a dyadic threshold code);
- :func:`sample_compression_bound` — eqs. 4-5 (Marchand & Sokolova 2005);
- :func:`pac_bayes_bound` — Theorem 5 (uniform threshold posteriors on margin intervals).

Conventions (see ``FORMULAS.md`` section 2): ``zeta(a) = (6 / pi^2) (a + 1)^-2``, which sums
to 1 over ``a = 0, 1, ...`` (the paper prints ``(a + 1)^-2``, which sums to ``pi^2 / 6``); a
conjunction of ``k`` stumps over ``n`` attributes gets prior mass
``zeta(k) / (C(n, k) 2^k)`` for its attributes and directions. Every quantity is computed
in log space, so bounds stay finite for ``n = 1e6`` attributes and tiny ``delta``.

Helpers :func:`log_zeta` and :func:`dyadic_bits` are exposed because the learners use them
in their utilities.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from widefs.stats import binomial_tail_inversion, kl_inverse_upper, log_binomial_coefficient

__all__ = [
    "BoundScope",
    "dyadic_bits",
    "dyadic_threshold",
    "log_zeta",
    "occam_bound",
    "pac_bayes_bound",
    "sample_compression_bound",
]

_LOG_6_OVER_PI2 = math.log(6.0 / math.pi**2)
# Below this, Binbar's delta argument is not representable as a positive double.
_LOG_TINY = math.log(np.finfo(float).tiny)
# Longest dyadic code tried: 2^-62 of the range is below double resolution for any range.
MAX_BITS = 62


@dataclass(frozen=True)
class BoundScope:
    """The sample size ``m`` and confidence ``delta`` a machine's bound is computed with.

    A binary machine: its own training set and the estimator's ``delta``. A machine of a
    multiclass decision list (:mod:`widefs.scm._multiclass`): all ``m`` training examples,
    since its loss is counted as zero on the classes it never sees, and its share of
    ``delta``.
    """

    m: int
    delta: float


def log_zeta(a: ArrayLike) -> float | np.ndarray:
    """``ln zeta(a) = ln(6 / pi^2) - 2 ln(a + 1)``, the size/length prior of the paper.

    ``zeta`` sums to 1 over ``a = 0, 1, ...`` (the paper prints ``(a + 1)^-2``, which
    sums to ``pi^2 / 6``).

    Parameters
    ----------
    a : int or array_like of int
        Non-negative integers.

    Returns
    -------
    float or ndarray
        ``ln zeta(a)``, of the shape of ``a``.

    See Also
    --------
    occam_bound, sample_compression_bound, pac_bayes_bound : The bounds built on it.

    Examples
    --------
    >>> round(float(np.exp(log_zeta(0))), 6)  # 6 / pi^2
    0.607927
    """
    if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) and a >= 0:
        return _LOG_6_OVER_PI2 - 2.0 * math.log1p(a)  # the bounds' scalar calls: no arrays
    a_arr = np.asarray(a, dtype=float)
    if np.any(a_arr < 0) or np.any(a_arr != np.round(a_arr)):
        raise ValueError("zeta(a) is defined for non-negative integers a.")
    out = _LOG_6_OVER_PI2 - 2.0 * np.log1p(a_arr)
    return float(out) if out.ndim == 0 else out


def _check_common(m: int, n_features: int, delta: float) -> None:
    if not (isinstance(m, int | np.integer) and m >= 1):
        raise ValueError(f"m (number of training examples) must be a positive integer, got {m!r}.")
    if not (isinstance(n_features, int | np.integer) and n_features >= 1):
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
    if not (0 < delta <= 1):
        raise ValueError(f"delta must lie in (0, 1], got {delta!r}.")


def _log_attribute_prior(n_features: int, n_stumps: int, feature_reuse: bool) -> float:
    """``ln[ zeta(k) / (C(n, k) 2^k) ]``: the prior of the attribute set and directions.

    With ``feature_reuse`` the k stumps are a multiset of the 2n (attribute, direction)
    pairs: ``zeta(k) / C(2n + k - 1, k)`` (sums to at most 1 over k and the multisets).
    """
    if feature_reuse:
        return log_zeta(n_stumps) - float(
            log_binomial_coefficient(2 * n_features + n_stumps - 1, n_stumps)
        )
    if n_stumps > n_features:
        raise ValueError(
            f"A conjunction uses each attribute at most once: {n_stumps} stumps > "
            f"{n_features} attributes."
        )
    return (
        log_zeta(n_stumps)
        - float(log_binomial_coefficient(n_features, n_stumps))
        - n_stumps * math.log(2.0)
    )


def dyadic_threshold(lo: float, hi: float, bits: int, j: int) -> float:
    """The ``j``-th point (``j = 1..2^bits``) of the dyadic grid ``Lambda_bits(lo, hi)``.

    ``Lambda_l(A, B) = {A + (B - A)(2j - 1) / 2^(l+1) : j = 1..2^l}``, the midpoints of
    ``2^l`` equal cells of ``[A, B]`` (Section III). The formula is evaluated the same way
    by the learner and the receiver of the message, so the floating-point value is a
    deterministic function of ``(l, j)`` and the bound's countable class is well defined.

    Parameters
    ----------
    lo, hi : float
        The a-priori range ``[A, B]``.
    bits : int
        Code length ``l``.
    j : int
        Grid index, ``1 <= j <= 2^l``.

    Returns
    -------
    float

    See Also
    --------
    dyadic_bits : The shortest code of a threshold interval.

    Examples
    --------
    >>> dyadic_threshold(0.0, 1.0, 0, 1), dyadic_threshold(0.0, 1.0, 2, 3)
    (0.5, 0.625)
    """
    return lo + (hi - lo) * (2.0 * j - 1.0) / 2.0 ** (bits + 1)


def dyadic_bits(a: float, b: float, lo: float, hi: float) -> tuple[int, float]:
    """Smallest code length ``l`` whose grid ``Lambda_l(lo, hi)`` has a point ``t`` with ``a <= t < b``.

    ``[a, b)`` is the interval of equally good thresholds of a stump that predicts
    ``x <= t`` versus ``x > t`` (``a`` is the largest value on the left, ``b`` the smallest
    on the right). Returns ``(l, t)``; ``(-1, nan)`` when no grid point up to
    :data:`MAX_BITS` bits falls in the interval (it is narrower than double precision
    resolves).

    Parameters
    ----------
    a, b : float
        The interval ``[a, b)`` of equally good thresholds.
    lo, hi : float
        The a-priori range ``[A, B]``, with ``lo <= a < b <= hi``.

    Returns
    -------
    bits : int
    t : float
        The grid point, ``dyadic_threshold(lo, hi, bits, j)`` for some ``j``.

    See Also
    --------
    dyadic_threshold : The grid points.
    OccamSCM : Learns thresholds coded this way.

    Examples
    --------
    >>> dyadic_bits(0.4, 0.6, 0.0, 1.0)
    (0, 0.5)
    >>> dyadic_bits(0.1, 0.2, 0.0, 1.0)
    (2, 0.125)
    """
    if not (lo <= a < b <= hi) or not lo < hi:
        raise ValueError(f"Need lo <= a < b <= hi with lo < hi; got a={a}, b={b}, [{lo}, {hi}].")
    bits, t = dyadic_search(float(a), float(b), float(lo), float(hi))
    return int(bits), float(t)


def dyadic_search(a, b, lo, hi):
    """The search of :func:`dyadic_bits` for many intervals at once, without input checks.

    ``a, b, lo, hi`` broadcast against each other. Returns ``(bits, t)``: an int64 and a
    float64 array of the broadcast shape, ``(-1, nan)`` where no grid point up to
    :data:`MAX_BITS` bits lies in ``[a, b)``. Every interval goes through the same float
    operations as a one-interval search would, so the Occam learner, which codes every cut
    that can win with it, and :func:`dyadic_bits` agree.
    """
    arrays = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, lo, hi)))
    shape = arrays[0].shape
    a, b, lo, hi = (v.ravel() for v in arrays)
    width = hi - lo
    bits_out = np.full(a.size, -1, dtype=np.int64)
    t_out = np.full(a.size, np.nan)
    todo = np.arange(a.size)  # intervals with no grid point found yet
    for bits in range(MAX_BITS + 1):
        if todo.size == 0:
            break
        at, bt, lot, wt = a[todo], b[todo], lo[todo], width[todo]
        scale = 2.0 ** (bits + 1)
        k = np.ceil((at - lot) / wt * scale)
        k[k % 2.0 == 0.0] += 1.0
        found = np.zeros(todo.size, dtype=bool)
        live = np.ones(todo.size, dtype=bool)
        # Float rounding can put the computed point just below a: try the next odd k too.
        for step in range(2):
            kk = k + 2.0 * step
            live &= ~(kk > scale - 1.0)
            t = lot + wt * kk / scale
            hit = live & (at <= t) & (t < bt)
            bits_out[todo[hit]] = bits
            t_out[todo[hit]] = t[hit]
            found |= hit
            live &= ~hit & ~(t >= bt)
        todo = todo[~found]
    return bits_out.reshape(shape), t_out.reshape(shape)


def occam_bound(
    n_errors: int,
    m: int,
    n_features: int,
    bits: Sequence[int] | ArrayLike,
    delta: float = 0.05,
    *,
    feature_reuse: bool = False,
) -> float:
    """Occam's razor bound of Theorem 2 (Shah et al. 2010) for a conjunction of stumps.

    With probability at least ``1 - delta`` over training sets of ``m`` examples, every
    conjunction of ``k = len(bits)`` stumps whose thresholds are coded with ``bits[i]``
    bits has true risk at most

    ``Binbar(n_errors, m, zeta(k) g(sigma) delta / (C(n, k) 2^k))``,
    ``g(sigma) = prod_i zeta(l_i) 2^(-l_i)``.

    Parameters
    ----------
    n_errors : int
        Training errors of the conjunction, ``m R_S``.
    m : int
        Number of training examples.
    n_features : int
        Number of attributes ``n``.
    bits : sequence of int
        Code length ``l_i >= 0`` of each stump's threshold (one entry per stump).
    delta : float, default=0.05
    feature_reuse : bool, default=False
        The paper uses each attribute at most once (prior ``1 / (C(n, k) 2^k)``). With
        ``True`` the stumps form a multiset of (attribute, direction) pairs and the prior is
        ``1 / C(2n + k - 1, k)``, so conjunctions that reuse an attribute are covered too.

    Returns
    -------
    float
        The bound on the true risk, in ``[n_errors / m, 1]``. When the effective
        confidence underflows double precision the trivial bound 1 is returned.

    See Also
    --------
    OccamSCM : Learns conjunctions with this bound.
    widefs.stats.binomial_tail_inversion : ``Binbar``.

    Examples
    --------
    >>> round(occam_bound(0, 62, 2000, [3]), 4)
    0.2583
    """
    _check_common(m, n_features, delta)
    bits_arr = np.asarray(bits, dtype=float).reshape(-1)
    if np.any(bits_arr < 0) or np.any(bits_arr != np.round(bits_arr)):
        raise ValueError("bits must be non-negative integers.")
    if not (0 <= n_errors <= m):
        raise ValueError(f"n_errors must lie in [0, m]; got {n_errors} with m={m}.")
    k = bits_arr.size
    log_message = float(np.sum(log_zeta(bits_arr) - bits_arr * math.log(2.0))) if k else 0.0
    log_delta = _log_attribute_prior(n_features, k, feature_reuse) + log_message + math.log(delta)
    if log_delta < _LOG_TINY:
        return 1.0
    return float(binomial_tail_inversion(int(n_errors), m, math.exp(log_delta)))


def sample_compression_bound(
    n_errors_outside: int,
    m: int,
    n_features: int,
    n_stumps: int,
    delta: float = 0.05,
    *,
    message_prior: str = "paper",
    feature_reuse: bool = False,
) -> float:
    """Sample-compression bound of eqs. 4-5 (Shah et al. 2010; Marchand & Sokolova 2005).

    A conjunction of ``k`` stumps whose thresholds are the attribute values of ``|i| = k``
    training examples (the compression set), making ``|j|`` errors on the other
    ``m - k`` examples, has, with probability at least ``1 - delta``, true risk at most

    ``1 - exp(-[ln C(m, |i|) + ln C(m - |i|, |j|) + ln 1/P_M(sigma)
    + ln 1/(zeta(|i|) zeta(|j|) delta)] / (m - |i| - |j|))``.

    Parameters
    ----------
    n_errors_outside : int
        ``|j|``: training errors outside the compression set.
    m : int
    n_features : int
    n_stumps : int
        ``|k| = |i|``.
    delta : float, default=0.05
    message_prior : {"paper", "ordered"}, default="paper"
        ``"paper"``: ``P_M(sigma) = 1 / (C(n, k) 2^k)`` (eq. 5). ``"ordered"``: additionally
        divides by ``k!``, which also encodes which compression example serves which stump.
    feature_reuse : bool, default=False
        As in :func:`occam_bound`: ``P_M = 1 / C(2n + k - 1, k)`` when attributes may repeat.

    Returns
    -------
    float
        The bound (1 when ``m - |i| - |j| <= 0``, where eq. 4 is undefined).

    See Also
    --------
    SampleCompressionSCM : Learns conjunctions with this bound.

    Examples
    --------
    >>> round(sample_compression_bound(2, 62, 2000, 1), 4)
    0.3726
    """
    _check_common(m, n_features, delta)
    if message_prior not in ("paper", "ordered"):
        raise ValueError(f"message_prior must be 'paper' or 'ordered', got {message_prior!r}.")
    if n_stumps < 0 or n_errors_outside < 0:
        raise ValueError("n_stumps and n_errors_outside must be non-negative.")
    if n_stumps + n_errors_outside > m:
        raise ValueError(
            f"n_stumps + n_errors_outside ({n_stumps} + {n_errors_outside}) exceeds m = {m}."
        )
    free = m - n_stumps - n_errors_outside
    if free <= 0:
        return 1.0
    log_pm = -_log_attribute_prior(n_features, n_stumps, feature_reuse) + log_zeta(n_stumps)
    if message_prior == "ordered":
        log_pm += math.lgamma(n_stumps + 1)
    total = (
        float(log_binomial_coefficient(m, n_stumps))
        + float(log_binomial_coefficient(m - n_stumps, n_errors_outside))
        + log_pm
        - log_zeta(n_stumps)
        - log_zeta(n_errors_outside)
        - math.log(delta)
    )
    return float(-math.expm1(-total / free))


def pac_bayes_bound(
    gibbs_risk: float,
    m: int,
    n_features: int,
    interval_ratios: Sequence[float] | ArrayLike,
    delta: float = 0.05,
    *,
    feature_reuse: bool = False,
) -> float:
    """PAC-Bayes bound of Theorem 5 (Shah et al. 2010) on the Gibbs risk.

    The posterior keeps the chosen attributes and directions and draws each threshold
    uniformly in its margin interval ``[a_k, b_k]`` inside the a-priori range
    ``[A_k, B_k]``. With probability at least ``1 - delta``,

    ``R(G) <= sup{eps : kl(R_S(G) || eps) <= psi}``,
    ``psi = [ln(C(n, k) 2^k / zeta(k)) + sum_k ln((B_k - A_k)/(b_k - a_k)) + ln((m+1)/delta)] / m``,

    and the Bayes classifier's risk is at most twice this.

    Parameters
    ----------
    gibbs_risk : float
        Empirical Gibbs risk ``R_S(G)`` in ``[0, 1]``.
    m : int
    n_features : int
    interval_ratios : sequence of float
        ``(b_k - a_k) / (B_k - A_k)`` in ``(0, 1]``, one per stump.
    delta : float, default=0.05
    feature_reuse : bool, default=False
        As in :func:`occam_bound` (discrete prior ``zeta(k) / C(2n + k - 1, k)``).

    Returns
    -------
    float
        The bound on the Gibbs risk; twice it (at most 1) bounds the Bayes classifier.

    See Also
    --------
    PACBayesSCM : Learns conjunctions with margin intervals and this bound.
    widefs.stats.kl_inverse_upper : The inversion of ``kl``.

    Examples
    --------
    >>> round(pac_bayes_bound(11 / 62, 62, 2000, [0.42]), 4)
    0.5486
    """
    _check_common(m, n_features, delta)
    ratios = np.asarray(interval_ratios, dtype=float).reshape(-1)
    if np.any(~((ratios > 0) & (ratios <= 1))):
        raise ValueError("interval_ratios must lie in (0, 1].")
    if not (0 <= gibbs_risk <= 1):
        raise ValueError(f"gibbs_risk must lie in [0, 1], got {gibbs_risk!r}.")
    kl_qp = -_log_attribute_prior(n_features, ratios.size, feature_reuse) - float(
        np.sum(np.log(ratios))
    )
    psi = (kl_qp + math.log((m + 1) / delta)) / m
    return float(kl_inverse_upper(gibbs_risk, psi))
