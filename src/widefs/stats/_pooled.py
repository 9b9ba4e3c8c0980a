"""Pooled permutation p-values: one null sample shared by every feature.

A per-feature permutation p-value cannot go below ``1 / (B + 1)``, so Benjamini-Hochberg over
M features can reject only when at least ``M / (q (B + 1))`` of them sit at that floor. When
the statistic has the same null distribution for every feature (the features are
*exchangeable* under the null), the ``M x B`` values of all features under all B label
permutations are draws from that one distribution, and a feature's p-value can be read off
all of them: its resolution is ``1 / (M B + 1)``, not ``1 / (B + 1)`` (the pooled null of
SAM, Tusher, Tibshirani & Chu 2001; Storey & Tibshirani 2003).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from widefs._utils import as_float_array

__all__ = ["null_heterogeneity", "pooled_permutation_pvalues"]


def pooled_permutation_pvalues(
    observed: ArrayLike, null: ArrayLike, *, assume_sorted: bool = False
) -> NDArray[np.float64]:
    """Upper-tail p-values of each observed statistic against one pooled null sample.

    ``p_j = (1 + #{d : null[d] >= observed[j]}) / (1 + D)`` over the ``D`` null draws (any
    shape, flattened). When feature j's statistic under the null is exchangeable with the
    draws, ``P(p_j <= a) <= a`` (the +1 correction of Phipson & Smyth 2010); the smallest
    attainable p-value is ``1 / (D + 1)``. Large statistics are extreme.

    Parameters
    ----------
    observed : array_like of shape (n_features,)
        The statistic of each feature on the real labels.
    null : array_like
        The statistic on permuted labels, pooled over features and permutations
        (``D = null.size >= 1`` draws).
    assume_sorted : bool, default=False
        ``null`` is already one-dimensional and sorted ascending (it is then neither copied
        nor checked for NaN: the caller sorted it, with its NaN last).

    Returns
    -------
    ndarray of shape (n_features,)

    See Also
    --------
    widefs.stats.permutation_pvalues : one null per feature (lower tail, error counts).
    null_heterogeneity : whether the features' nulls look alike.

    Examples
    --------
    >>> pooled_permutation_pvalues([3.0, 0.5], [[1.0, 2.0], [3.0, 0.2]])
    array([0.4, 0.8])
    """
    obs = as_float_array(observed, "observed")
    ref = as_float_array(null, "null").ravel()
    if obs.ndim != 1:
        raise ValueError("observed must be one-dimensional (one statistic per feature).")
    if ref.size < 1:
        raise ValueError("null must hold at least one draw.")
    if np.isnan(obs).any() or (not assume_sorted and np.isnan(ref).any()):
        raise ValueError("observed and null must not contain NaN.")
    ordered = ref if assume_sorted else np.sort(ref)
    # Sorted queries walk the draws in order (a binary search per query in random order
    # misses the cache on every step).
    order = np.argsort(obs)
    at_least = np.empty(obs.size)
    at_least[order] = ref.size - np.searchsorted(ordered, obs[order], side="left")
    return (1.0 + at_least) / (1.0 + ref.size)


def null_heterogeneity(null: ArrayLike, level: float = 0.1) -> float:
    """How much the features' permutation nulls differ: 0 when they are alike.

    For each feature (column of ``null``), the share of its B draws above the pooled null's
    upper ``level`` quantile estimates the upper-tail probability of its own null there. If
    every feature had the pooled null, these shares would differ only by binomial noise
    ``s (1 - s) / B``. The result is the coefficient of variation of the features' tail
    probabilities once that noise is removed, ``sqrt(max(0, var - s (1 - s) / B)) / s``: 0 for
    exchangeable features (correlated ones too), 0.3 when the features' tail probabilities
    typically differ by 30 % from the pooled one, in which case a pooled p-value is about
    that much too small for some features and too large for others.

    Parameters
    ----------
    null : array_like of shape (n_permutations, n_features)
        The statistic of each feature under each permutation (``n_permutations >= 2``).
    level : float, default=0.1
        Upper-tail probability of the reference quantile, in (0, 1).

    Returns
    -------
    float
        The coefficient of variation (NaN without a feature or without draws above the
        quantile).

    See Also
    --------
    pooled_permutation_pvalues : the p-values that assume it is near 0.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> alike = rng.normal(size=(50, 2000))
    >>> bool(null_heterogeneity(alike) < 0.1)  # binomial noise only
    True
    >>> unlike = alike * np.r_[np.ones(1000), 1.5 * np.ones(1000)]  # half the nulls wider
    >>> bool(null_heterogeneity(unlike) > 0.3)
    True
    """
    ref = as_float_array(null, "null")
    if ref.ndim != 2 or ref.shape[0] < 2:
        raise ValueError(
            f"null must have shape (n_permutations >= 2, n_features), got {ref.shape}."
        )
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}.")
    if ref.shape[1] == 0:
        return float("nan")
    b = ref.shape[0]
    shares = (ref > np.quantile(ref, 1.0 - level)).mean(axis=0)
    share = float(shares.mean())  # the realized tail share (ties at the quantile)
    if share == 0:
        return float("nan")
    excess = float(shares.var()) - share * (1.0 - share) / b
    return float(np.sqrt(max(excess, 0.0)) / share)
