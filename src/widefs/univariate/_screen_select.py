"""The screen's selection rules without temporaries as long as the features.

Tarone's testable set and the Benjamini-Hochberg cut of :class:`ClassDifferenceScreen`,
equal to :func:`widefs.stats.tarone_testable` and :func:`widefs.stats.benjamini_hochberg`
applied to the eligible features (the same floating-point operations on the same values),
but read a block of features at a time: on 10^8 features a sort of every p-value and its
order would cost more memory than the p-values themselves.

- Tarone: the two-valued features' floors depend only on their number of carriers, so they
  take few distinct values; their counts give ``reach(K)`` for every multiplicity K.
- Benjamini-Hochberg rejects the p-values up to the largest ``p_(j)`` with
  ``p_(j) m / j <= alpha``; every such ``p_(j)`` is at most about alpha, so only the
  p-values below (a hair above) alpha are sorted.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from widefs._utils import feature_blocks

__all__ = ["bh_cut", "tarone"]

TWO_VALUED = 1  # the kind code of _kinds (not imported: _kinds loads the screen's kernels)
# Candidates of the Benjamini-Hochberg cut: p <= alpha * (1 + _MARGIN) holds every p-value
# whose scaled value p m / j (rounded twice) can be <= alpha.
_MARGIN = 1e-9
_BLOCK_BYTES = 4 * 2**20  # temporaries of a block of features


def tarone(kinds, min_pvalues, alpha: float) -> tuple[NDArray[np.bool_], int]:
    """Tarone's testable features and multiplicity K among the non-constant ones.

    The floors are the two-valued features' ``min_pvalues``, 0 for the other non-constant
    kinds (their tests reach every level); constant features are never testable.

    Parameters
    ----------
    kinds : ndarray of int8, shape (n_features,)
    min_pvalues : ndarray of shape (n_features,)
    alpha : float

    Returns
    -------
    testable : ndarray of bool, shape (n_features,)
    K : int
        0 when no feature is eligible.
    """
    m = 0
    values, counts = [np.zeros(0)], [np.zeros(0, np.int64)]
    for block in feature_blocks(kinds.size, 16, _BLOCK_BYTES):
        k = kinds[block]
        m += int(np.count_nonzero(k))
        v, c = np.unique(min_pvalues[block][k == TWO_VALUED], return_counts=True)
        values.append(v)
        counts.append(c)
    testable = np.zeros(kinds.size, bool)
    if m == 0:
        return testable, 0
    floors, inverse = np.unique(np.concatenate(values), return_inverse=True)
    weight = np.bincount(inverse, weights=np.concatenate(counts), minlength=floors.size)
    below = np.cumsum(weight).astype(np.int64)  # two-valued floors <= floors[i]
    zeros = m - (int(below[-1]) if below.size else 0)
    k_star = _smallest_multiplicity(floors, below, zeros, m, alpha)
    for block in feature_blocks(kinds.size, 16, _BLOCK_BYTES):
        k = kinds[block]
        testable[block] = (k != 0) & ((k != TWO_VALUED) | (min_pvalues[block] <= alpha / k_star))
    return testable, k_star


def _smallest_multiplicity(floors, below, zeros: int, m: int, alpha: float) -> int:
    """The smallest K in 1..m with ``reach(K) <= K`` (reach: floors <= alpha / K), by
    bisection: reach falls and K grows, so the condition holds from some K on."""

    def reach(K: int) -> int:
        i = int(np.searchsorted(floors, alpha / K, side="right"))
        # The zero floors reach every level; two-valued floors are positive.
        return zeros + (int(below[i - 1]) if i else 0)

    lo, hi = 1, m  # reach(m) <= m always holds
    while lo < hi:
        mid = (lo + hi) // 2
        if reach(mid) <= mid:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bh_cut(pvalues, testable, alpha: float) -> float:
    """The Benjamini-Hochberg cut among the ``testable`` p-values: the largest ``p_(j)`` with
    ``p_(j) m / j <= alpha`` (-1 when none), so that the rejected features are those with
    ``p <= cut``.

    Parameters
    ----------
    pvalues : ndarray of shape (n_features,)
    testable : ndarray of bool, shape (n_features,)
    alpha : float in (0, 1)

    Returns
    -------
    cut : float
    """
    m = 0
    low = alpha * (1.0 + _MARGIN)
    found = [np.zeros(0)]
    for block in feature_blocks(pvalues.size, 16, _BLOCK_BYTES):
        t = testable[block]
        m += int(np.count_nonzero(t))
        p = pvalues[block]
        found.append(p[t & (p <= low)])
    if m == 0:
        return -1.0
    ordered = np.concatenate(found)
    del found
    ordered.sort()
    # As benjamini_hochberg computes it: (p * m) / j, the positions j counted from 1.
    scaled = ordered * m
    scaled /= np.arange(1, ordered.size + 1)
    passing = np.flatnonzero(scaled <= alpha)
    return float(ordered[passing[-1]]) if passing.size else -1.0
