"""Chance order statistics of large collections of classifiers (Palatucci & Carlson 2008).

M classifiers label N examples at random, each erring on an example with probability
``p_error``; the errors of one classifier are X ~ Binomial(N, p_error) and the best of
them makes X_(1) = min of M independent copies. Theorem 4.1 gives
``E[X_(1)] = sum_{i=0}^{N-1} P(X >= i + 1)^M``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from widefs._utils import as_float_array, check_integer_array, check_unit_interval
from widefs.stats._binomial import _scalar_or_array

__all__ = [
    "chance_error_rate",
    "expected_errors",
    "expected_min_errors",
    "highest_chance_accuracy",
    "mgm_threshold",
    "multiplicity_gap",
    "permutation_pvalues",
]

# Rows of the (n_classifiers x n_examples) term matrix evaluated at once; bounds memory
# when many M values share one large N.
_ROW_BLOCK = 256


def _log_survival(n: int, p: float) -> NDArray[np.float64]:
    """``log P(X >= i + 1)`` for i = 0..n-1, X ~ Binomial(n, p), accurate at both ends.

    Where the CDF is small, ``log1p(-cdf)`` keeps the tiny deficit from 1 that
    ``M * log(sf)`` needs when M is huge; elsewhere ``log(sf)`` avoids cancellation.
    """
    i = np.arange(n, dtype=float)
    cdf = stats.binom.cdf(i, n, p)
    with np.errstate(divide="ignore"):
        return np.where(cdf < 0.5, np.log1p(-cdf), np.log(stats.binom.sf(i, n, p)))


def _check_args(n_classifiers: ArrayLike, n_examples: ArrayLike, p_error: ArrayLike):
    m = check_integer_array(n_classifiers, "n_classifiers", minimum=1)
    n = check_integer_array(n_examples, "n_examples", minimum=1)
    p = check_unit_interval(p_error, "p_error")
    return np.broadcast_arrays(m, n, p)


def expected_errors(n_examples: ArrayLike, p_error: ArrayLike = 0.5) -> float | NDArray[np.float64]:
    """Expected errors of one random classifier, ``E[X] = N * p_error``.

    Parameters
    ----------
    n_examples : array_like of int
        N, the number of examples labelled, ``>= 1``.
    p_error : array_like of float, default=0.5
        Probability of an error on one example.

    Returns
    -------
    float or ndarray
        ``N * p_error``.

    See Also
    --------
    expected_min_errors : the best of M such classifiers.

    Examples
    --------
    >>> float(expected_errors(20))
    10.0
    """
    n = check_integer_array(n_examples, "n_examples", minimum=1)
    p = check_unit_interval(p_error, "p_error")
    return _scalar_or_array(np.asarray(n * p, dtype=float))


def expected_min_errors(
    n_classifiers: ArrayLike, n_examples: ArrayLike, p_error: ArrayLike = 0.5
) -> float | NDArray[np.float64]:
    """Expected errors of the best of M random classifiers, ``E[X_(1)]`` (Theorem 4.1).

    ``E[X_(1)] = sum_{i=0}^{N-1} [1 - F_X(i)]^M`` with ``X ~ Binomial(N, p_error)``,
    evaluated as ``exp(M * log(1 - F_X(i)))`` in log space so that it stays finite and
    monotone for M up to 1e9 and N up to 1e5. Arguments broadcast against each other.

    Parameters
    ----------
    n_classifiers : array_like of int
        M, the number of classifiers (features scored), ``>= 1``.
    n_examples : array_like of int
        N, the number of examples each classifier labels, ``>= 1``.
    p_error : array_like of float, default=0.5
        Probability that a random classifier errs on one example (``1 - 1/c`` for c
        balanced classes).

    Returns
    -------
    float or ndarray
        ``E[X_(1)]`` in errors.

    See Also
    --------
    highest_chance_accuracy : the same as an accuracy, ``1 - E[X_(1)] / N``.
    mgm_threshold : the midpoint of ``E[X_(1)]`` and ``E[X]``.
    chance_error_rate : the ``p_error`` of classes of unequal sizes.

    Examples
    --------
    One classifier is just one binomial draw, ``E[X_(1)] = N p``:

    >>> float(expected_min_errors(1, 20))
    10.0
    >>> round(float(expected_min_errors(200, 20)), 4)
    4.05
    """
    m, n, p = _check_args(n_classifiers, n_examples, p_error)
    out = np.empty(m.shape, dtype=float)
    flat_out = out.reshape(-1)
    flat_m, flat_n, flat_p = m.reshape(-1), n.reshape(-1), p.reshape(-1)
    # One survival vector per distinct (N, p); all M sharing it are summed at once.
    pairs, inverse = np.unique(np.stack([flat_n, flat_p], axis=1), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for g, (n_g, p_g) in enumerate(pairs):
        idx = np.flatnonzero(inverse == g)
        log_sf = _log_survival(int(n_g), float(p_g))
        for start in range(0, idx.size, _ROW_BLOCK):
            block = idx[start : start + _ROW_BLOCK]
            with np.errstate(invalid="ignore"):
                expo = flat_m[block, None] * log_sf[None, :]
            # 0 * -inf (M finite, survival exactly 0) is a zero term, not NaN.
            expo = np.where(np.isneginf(log_sf)[None, :], -np.inf, expo)
            flat_out[block] = np.exp(expo).sum(axis=1)
    return _scalar_or_array(out)


def highest_chance_accuracy(
    n_classifiers: ArrayLike, n_examples: ArrayLike, p_error: ArrayLike = 0.5
) -> float | NDArray[np.float64]:
    """Highest expected chance accuracy ``E[A_H] = 1 - E[X_(1)] / N`` (Theorem 4.1).

    The accuracy that the best of M classifiers guessing at random is expected to reach
    on N examples.

    Parameters
    ----------
    n_classifiers : array_like of int
        M, the number of classifiers, ``>= 1``.
    n_examples : array_like of int
        N, the number of examples, ``>= 1``.
    p_error : array_like of float, default=0.5
        Probability that a random classifier errs on one example.

    Returns
    -------
    float or ndarray
        ``1 - E[X_(1)] / N``.

    See Also
    --------
    expected_min_errors : ``E[X_(1)]`` itself.

    Examples
    --------
    Example 4.1 of Palatucci & Carlson (2008): an office pool of 200 people guessing 20
    games expects its winner to be right about 80% of the time.

    >>> round(float(highest_chance_accuracy(200, 20)), 4)
    0.7975
    """
    m, n, p = _check_args(n_classifiers, n_examples, p_error)
    return _scalar_or_array(np.asarray(1.0 - expected_min_errors(m, n, p) / n))


def multiplicity_gap(
    n_classifiers: ArrayLike, n_examples: ArrayLike, p_error: ArrayLike = 0.5
) -> float | NDArray[np.float64]:
    """Multiplicity gap ``G_{M,N} = E[X] - E[X_(1)]`` in errors (Section 5.1).

    Parameters
    ----------
    n_classifiers : array_like of int
        M, the number of classifiers, ``>= 1``.
    n_examples : array_like of int
        N, the number of examples, ``>= 1``.
    p_error : array_like of float, default=0.5
        Probability that a random classifier errs on one example.

    Returns
    -------
    float or ndarray
        ``N p_error - E[X_(1)]``.

    See Also
    --------
    mgm_threshold : the midpoint of the gap.

    Examples
    --------
    >>> round(float(multiplicity_gap(200, 20)), 4)
    5.95
    """
    m, n, p = _check_args(n_classifiers, n_examples, p_error)
    return _scalar_or_array(np.asarray(n * p - expected_min_errors(m, n, p)))


def mgm_threshold(
    n_classifiers: ArrayLike, n_examples: ArrayLike, p_error: ArrayLike = 0.5
) -> float | NDArray[np.float64]:
    """Multiplicity-gap midpoint threshold ``T_MGM = (E[X] + E[X_(1)]) / 2`` in errors.

    A feature is selected when its validation errors are strictly less than this value.

    Parameters
    ----------
    n_classifiers : array_like of int
        M, the number of classifiers, ``>= 1``.
    n_examples : array_like of int
        N, the number of examples, ``>= 1``.
    p_error : array_like of float, default=0.5
        Probability that a random classifier errs on one example.

    Returns
    -------
    float or ndarray
        ``(N p_error + E[X_(1)]) / 2`` in errors.

    See Also
    --------
    multiplicity_gap : the gap whose midpoint this is.
    widefs.univariate.DiscriminativeSelector : applies it (``threshold="mgm"``).

    Examples
    --------
    >>> round(float(mgm_threshold(200, 20)), 4)
    7.025
    """
    m, n, p = _check_args(n_classifiers, n_examples, p_error)
    return _scalar_or_array(np.asarray(0.5 * (n * p + expected_min_errors(m, n, p))))


def chance_error_rate(class_counts: ArrayLike) -> float | NDArray[np.float64]:
    """Lowest expected error rate of a classifier that does not see the labels it is scored on.

    On N validation examples with ``n_c`` examples of class c, any classifier whose
    predictions are independent of the validation labels (trained on other examples,
    applied to a feature that carries no information about the class) errs on
    ``N - sum_c n_c q_c`` examples in expectation, where ``q_c`` is the probability that
    it predicts class c. The minimum over all such classifiers is reached by always
    predicting the majority class:

        ``p_min = 1 - max_c n_c / N``.

    For balanced classes this is ``1 - 1/C``, the chance rate of Palatucci & Carlson
    (2008); with 24 vs 6 validation examples it is 0.2, not 0.5.

    Used as ``p_error`` of Theorem 4.1 it makes the binomial null conservative for
    *any* label-blind classifier: its validation errors are a sum of independent
    Bernoulli variables whose mean rate is at least ``p_min``, and by Hoeffding (1956,
    Theorem 4) such a sum has a lower tail no heavier than ``Binomial(N, p)`` at
    counts ``k <= N p - 1``; the binomial lower tail only grows as ``p`` falls to
    ``p_min``. So ``P(X <= k) <= P(Binomial(N, p_min) <= k)`` for
    ``k <= N p_min - 1``.

    Parameters
    ----------
    class_counts : array_like of int, shape (..., n_classes)
        Validation examples of each class (last axis); at least one example per row.

    Returns
    -------
    float or ndarray of shape (...)
        ``1 - max_c n_c / N`` for each row.

    See Also
    --------
    expected_min_errors : E[X_(1)] of Theorem 4.1 for a given ``p_error``.
    widefs.univariate.DiscriminativeSelector : uses it for ``p_error="auto"``.

    Examples
    --------
    >>> float(chance_error_rate([24, 6]))
    0.2
    >>> round(float(chance_error_rate([10, 10, 10])), 6)
    0.666667
    """
    counts = check_integer_array(class_counts, "class_counts", minimum=0)
    if counts.ndim == 0 or counts.shape[-1] == 0:
        raise ValueError("class_counts must have one entry per class on its last axis.")
    total = counts.sum(axis=-1)
    if np.any(total <= 0):
        raise ValueError("class_counts must hold at least one example.")
    # (N - max) / N rather than 1 - max / N: exact for counts such as 6 / 30.
    return _scalar_or_array(np.asarray((total - counts.max(axis=-1)) / total))


def permutation_pvalues(observed: ArrayLike, null: ArrayLike) -> NDArray[np.float64]:
    """Lower-tail permutation p-values with the +1 correction, one per column.

    ``p_j = (1 + #{b : null[b, j] <= observed[j]}) / (1 + B)``: the observed labelling
    counts as one of the ``B + 1`` equally likely labellings, so ``P(p_j <= a) <= a``
    for every level ``a`` when feature j carries no information about the labels
    (Phipson & Smyth 2010; exact for ``a`` a multiple of ``1 / (B + 1)``). Small error
    counts are extreme, hence the lower tail. The smallest attainable p-value is
    ``1 / (B + 1)``.

    Parameters
    ----------
    observed : array_like of shape (n_features,)
        Statistic on the real labels (validation errors).
    null : array_like of shape (n_permutations, n_features)
        The same statistic on each label permutation.

    Returns
    -------
    ndarray of shape (n_features,)

    See Also
    --------
    widefs.stats.benjamini_hochberg : FDR adjustment of the p-values.

    Examples
    --------
    >>> permutation_pvalues([2, 9], [[5, 9], [2, 10], [7, 8]])
    array([0.5 , 0.75])
    """
    obs = as_float_array(observed, "observed")
    ref = as_float_array(null, "null")
    if obs.ndim != 1:
        raise ValueError("observed must be one-dimensional (one value per feature).")
    if ref.ndim != 2 or ref.shape[1] != obs.shape[0] or ref.shape[0] < 1:
        raise ValueError(
            f"null must have shape (n_permutations >= 1, {obs.shape[0]}), got {ref.shape}."
        )
    if np.isnan(obs).any() or np.isnan(ref).any():
        raise ValueError("observed and null must not contain NaN.")
    as_extreme = (ref <= obs[None, :]).sum(axis=0)
    return (1.0 + as_extreme) / (1.0 + ref.shape[0])
