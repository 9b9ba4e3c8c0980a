"""Exact bounds of the untied rank null's p-values with two classes.

The rank branch's score is ``max(loc, spread)`` with ``loc = log w_loc - log P(F > F_loc)``,
so the permutation p-value ``P(score >= s)`` is at least ``P(loc >= s)`` (equal to it without
a spread part). With two classes and the ranks 1..n, ``F_loc`` is a function of the rank sum
T of the smaller class alone, whose permutation distribution is the number of its m-subsets
of {1..n} with each sum: a dynamic programme over the ranks. The location part of every
possible T is computed by the branch's own scoring function on one labelling with that sum,
so the bound compares exactly the floats the draws compare. These bounds are deterministic:
the settle check of ``_rank_settle`` uses them beside its Clopper-Pearson intervals without
spending any of its error on them. (The spread part depends on the class means, not on one
fixed score summed over a class, so it has no such distribution: with a spread part the
upper bound is 1.)
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["exact_bounds", "subset_sum_counts"]

#: Additions of the dynamic programme at most (about 50 ms); larger samples get no bound.
MAX_WORK = 5e7
#: Relative margin of the float counts: each is a sum of positive terms along at most n
#: additions, and a tail adds at most m (n - m) + 1 of them, so their relative error is at
#: most (n + m (n - m) + 2) eps, below 1e-9 wherever MAX_WORK allows the programme.
SAFETY = 1e-9


def subset_sum_counts(n: int, m: int) -> NDArray[np.float64]:
    """Number of m-subsets of {1..n} with each sum, from ``m (m + 1) / 2`` up (float64).

    Positive additions only (no cancellation): exact while the counts stay below 2**53."""
    width = m * (n - m) + 1
    # dp[k, t]: k-subsets of the ranks seen so far with sum t + k (k + 1) / 2 (offset sums:
    # adding rank i to a (k-1)-subset of {1..i-1} moves its offset sum up by i - k).
    dp = np.zeros((m + 1, width))
    dp[0, 0] = 1.0
    for i in range(1, n + 1):
        # Rows that can still reach m with the n - i ranks left, highest first (each row
        # reads the row below before that row is updated).
        for k in range(min(i, m), max(1, m - (n - i)) - 1, -1):
            shift = i - k
            if shift < width:
                dp[k, shift:] += dp[k - 1, : width - shift]
    return dp[m]


def _labellings(n: int, m: int, small: int) -> NDArray[np.uint8]:
    """One labelling per sum of the smaller class (class ``small``, m members): row t puts
    it on an m-subset of the ranks with sum ``t + m (m + 1) / 2``."""
    extra = np.arange(m * (n - m) + 1)[:, None]
    j = np.arange(m)[None, :]  # from the top: member j starts at m - j and moves up
    members = (m - j) + np.clip(extra - j * (n - m), 0, n - m)
    labels = np.full((extra.size, n), 1 - small, dtype=np.uint8)
    np.put_along_axis(labels, members - 1, np.uint8(small), axis=1)
    return labels


def exact_bounds(obs, codes, counts, log_w, scores):
    """Exact lower and upper bounds of the untied null's p-values ``P(score >= obs)``.

    Parameters
    ----------
    obs : ndarray of float
        Observed scores.
    codes : ndarray of int
        Class codes (two classes).
    counts : ndarray of float
        Class sizes.
    log_w : sequence of two floats
        The location and spread shares' logarithms (spread ``-inf``: location only).
    scores : callable
        The branch's ``_scores(R, labels, n_classes, counts, log_w)``.

    Returns
    -------
    (lower, upper) : ndarrays of float, or None when the programme would cost too much
    """
    n = codes.size
    small = int(np.argmin(counts))
    m = int(counts[small])
    if n * m * (m * (n - m) + 1) / 2 > MAX_WORK or not np.isfinite(log_w[0]):
        return None  # (no location part: nothing to bound the score by)
    number = subset_sum_counts(n, m)
    R = np.arange(1.0, n + 1.0)[:, None]
    loc = scores(R, _labellings(n, m, small), 2, counts, (log_w[0], -np.inf))[0][:, 0]
    order = np.argsort(loc)
    # tail[i]: labellings whose location part is at least the i-th smallest one's.
    tail = np.cumsum(number[order][::-1])[::-1]
    at = np.searchsorted(loc[order], obs, side="left")
    total = tail[0]
    p = np.where(at < loc.size, tail[np.minimum(at, loc.size - 1)], 0.0) / total
    lower = p * (1.0 - SAFETY)
    upper = np.minimum(1.0, p * (1.0 + SAFETY)) if np.isneginf(log_w[1]) else np.ones(p.size)
    return lower, upper
