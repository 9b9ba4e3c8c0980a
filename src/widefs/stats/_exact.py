"""Exact conditional p-values of two-valued features (a 2 x C table with fixed margins).

A feature with two values (a variant, a k-mer present or absent, a gene detected or not)
has a permutation null that depends only on how many examples carry the value (k) and on
the class sizes: under the null, the carriers' class counts ``(a_1, ..., a_C)`` follow the
multivariate hypergeometric distribution ``prod_c C(n_c, a_c) / C(n, k)``. The statistic is
the one-way F of the 0/1 values, which for fixed margins increases with
``S = sum_c a_c^2 / n_c`` (Pearson's chi-square is affine in S), and the p-value is the exact
``P(S >= S_observed)``: the permutation p-value over *every* relabelling, with no Monte Carlo
floor. Its smallest attainable value ``P(S = max S)`` is returned too, so that a multiple-
testing step can leave out features that could never be rejected (Tarone 1990).
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["binary_exact_pvalues", "binary_table_distribution"]

#: Relative tolerance under which two values of S count as equal (S is a sum of rationals).
_TIE = 1e-10
#: Largest number of distinct (carriers, S) states the enumeration keeps.
MAX_STATES = 2_000_000


def _log_choose(n, k):
    from scipy.special import gammaln

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _merge(total, s, logw):
    """States with equal (carriers, S) merged, their weights added (log scale)."""
    key_s = np.round(s * 1e9)
    order = np.lexsort((key_s, total))
    total, key_s, s, logw = total[order], key_s[order], s[order], logw[order]
    start = np.flatnonzero(np.r_[True, (np.diff(total) != 0) | (np.diff(key_s) != 0)])
    return total[start], s[start], np.logaddexp.reduceat(logw, start)


def binary_table_distribution(k: int, class_sizes: ArrayLike):
    """The null distribution of ``S = sum_c a_c^2 / n_c`` for k carriers among the classes.

    Parameters
    ----------
    k : int
        Number of carriers, ``0 <= k <= sum(class_sizes)``.
    class_sizes : array_like of int, shape (n_classes,)

    Returns
    -------
    values : ndarray of float
        The distinct values of S, descending.
    upper : ndarray of float
        ``P(S >= values[i])``, increasing to 1.

    See Also
    --------
    binary_exact_pvalues : p-values of many features.

    Examples
    --------
    >>> values, upper = binary_table_distribution(2, [2, 2])
    >>> values.tolist(), upper.round(4).tolist()
    ([2.0, 1.0], [0.3333, 1.0])
    """
    sizes = np.asarray(class_sizes, dtype=np.int64).ravel()
    n = int(sizes.sum())
    if not 0 <= k <= n:
        raise ValueError(f"k must lie in [0, {n}]; got {k}.")
    total, s, logw = np.zeros(1, np.int64), np.zeros(1), np.zeros(1)
    left = n
    for size in sizes:
        left -= size
        a = np.arange(size + 1)
        total = (total[:, None] + a).ravel()
        s = (s[:, None] + a * a / size).ravel()
        logw = (logw[:, None] + _log_choose(size, a)).ravel()
        # Keep the partial tables that can still reach k carriers.
        keep = (total <= k) & (total + left >= k)
        total, s, logw = _merge(total[keep], s[keep], logw[keep])
        if total.size > MAX_STATES:
            raise ValueError(
                f"Enumerating the tables of {sizes.size} classes of sizes {sizes.tolist()} "
                f"needs more than {MAX_STATES} states."
            )
    prob = np.exp(logw - _log_choose(n, k))
    order = np.argsort(-s, kind="stable")
    s, prob = s[order], prob[order]
    # Values within the tie tolerance are one value of S.
    first = np.r_[True, np.diff(s) < -_TIE * np.maximum(1.0, np.abs(s[1:]))]
    values = s[first]
    upper = np.minimum(np.cumsum(prob)[np.r_[np.flatnonzero(first)[1:] - 1, s.size - 1]], 1.0)
    return values, upper


@functools.lru_cache(maxsize=1024)
def _distribution(k: int, sizes: tuple[int, ...]):
    """:func:`binary_table_distribution`, once per (k, class sizes): a screen calls
    :func:`binary_exact_pvalues` a block of features at a time, with the same few k each
    time. The arrays are read-only (shared by every call)."""
    values, upper = binary_table_distribution(k, np.array(sizes, dtype=np.int64))
    values.flags.writeable = upper.flags.writeable = False
    return values, upper


def binary_exact_pvalues(
    carriers: ArrayLike, class_sizes: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Exact permutation p-values of two-valued features, and their smallest attainable ones.

    Parameters
    ----------
    carriers : array_like of int, shape (n_features, n_classes)
        ``a_jc``: examples of class c that carry feature j's value (either of its two values:
        the p-value is the same).
    class_sizes : array_like of int, shape (n_classes,)

    Returns
    -------
    pvalues : ndarray of shape (n_features,)
        ``P(S >= S_j)`` under the multivariate hypergeometric null (1 for features with 0 or
        n carriers).
    min_pvalues : ndarray of shape (n_features,)
        ``P(S = max S)`` for the feature's number of carriers.

    See Also
    --------
    binary_table_distribution : the distribution for one number of carriers.

    Examples
    --------
    >>> p, floor = binary_exact_pvalues([[2, 0], [1, 1]], [3, 3])
    >>> p.round(4).tolist(), floor.round(4).tolist()
    ([0.4, 1.0], [0.4, 0.4])
    """
    a = np.asarray(carriers, dtype=np.int64)
    sizes = np.asarray(class_sizes, dtype=np.int64).ravel()
    if a.ndim != 2 or a.shape[1] != sizes.size:
        raise ValueError("carriers must have one row per feature and one column per class.")
    if (a < 0).any() or (a > sizes).any():
        raise ValueError("carriers must lie between 0 and the class sizes.")
    k_all = a.sum(axis=1)
    s_obs = (a * a / sizes).sum(axis=1)
    pvalues = np.ones(a.shape[0])
    floors = np.ones(a.shape[0])
    for k in np.unique(k_all):
        rows = np.flatnonzero(k_all == k)
        values, upper = _distribution(int(k), tuple(sizes.tolist()))
        # values descend: the first value below S_obs (less the tie tolerance) ends the tail.
        cut = s_obs[rows] - _TIE * np.maximum(1.0, s_obs[rows])
        at = np.searchsorted(-values, -cut, side="right") - 1
        pvalues[rows] = upper[np.maximum(at, 0)]
        floors[rows] = upper[0]
    return pvalues, floors


def tarone_testable(min_pvalues: ArrayLike, alpha: float) -> tuple[NDArray[np.bool_], int]:
    """The features that could be rejected, and the multiplicity to count them with.

    Tarone (1990): with ``m(K) = #{j : min_p_j <= alpha / K}``, take the smallest K with
    ``m(K) <= K``; only the ``m(K)`` features whose smallest attainable p-value reaches
    ``alpha / K`` can be rejected by a Bonferroni test at that level, so the others are left
    out of the count. Rejecting ``p_j <= alpha / K`` among them controls the family-wise error
    at alpha; Benjamini-Hochberg at alpha on them controls the false discovery rate (Gilbert
    2005). ``min_pvalues`` depend only on the margins (not on which examples are in which
    class), so leaving features out this way does not look at the labels. Features that
    cannot fall below every level (a rare variant carried by two examples) then cost the
    others nothing.

    Parameters
    ----------
    min_pvalues : array_like of shape (n_features,)
        Smallest attainable p-value of each feature (0 for continuous p-values).
    alpha : float
        The level.

    Returns
    -------
    testable : ndarray of bool, shape (n_features,)
    K : int
        The multiplicity (``testable.sum() <= K``; 0 when there are no features).

    See Also
    --------
    binary_exact_pvalues : gives the smallest attainable p-values of two-valued features.

    Examples
    --------
    >>> testable, K = tarone_testable([0.0, 0.0, 0.3, 0.3, 0.3], 0.05)
    >>> testable.tolist(), K
    ([True, True, False, False, False], 2)
    """
    floors = np.asarray(min_pvalues, dtype=np.float64).ravel()
    m = floors.size
    if m == 0:
        return np.zeros(0, bool), 0
    ordered = np.sort(floors)
    K = np.arange(1, m + 1)
    reach = np.searchsorted(ordered, alpha / K, side="right")
    k_star = int(K[np.argmax(reach <= K)])  # reach(m) <= m always holds
    return floors <= alpha / k_star, k_star
