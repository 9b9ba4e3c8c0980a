"""Multiple-testing adjustments. Selectors call these; they never re-implement them."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from widefs._utils import check_unit_interval

__all__ = ["benjamini_hochberg", "bonferroni", "reject_at"]


def _check_pvalues(pvalues: ArrayLike) -> NDArray[np.float64]:
    p = check_unit_interval(pvalues, "pvalues")
    if p.ndim != 1:
        raise ValueError("pvalues must be one-dimensional.")
    return p


def benjamini_hochberg(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Benjamini-Hochberg adjusted p-values (step-up false discovery rate control).

    ``p_adj(i) = min_{j >= i} min(1, m p_(j) / j)`` over the sorted p-values; rejecting
    ``p_adj <= alpha`` controls the FDR at ``alpha`` for independent tests. Matches
    ``scipy.stats.false_discovery_control(p, method="bh")``.

    Parameters
    ----------
    pvalues : array_like of float, shape (m,)
        One p-value per hypothesis, each in ``[0, 1]``; may be empty.

    Returns
    -------
    ndarray of float, shape (m,)
        The adjusted p-values, in the order of ``pvalues``; never below the raw ones.

    See Also
    --------
    bonferroni : Family-wise error control, more conservative.
    reject_at : The rejection mask at a level.

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03, 0.5]).round(4)
    array([0.04  , 0.0533, 0.0533, 0.5   ])
    """
    p = _check_pvalues(pvalues)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    # Step-up: the running minimum from the largest p-value downwards.
    adjusted_sorted = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted_sorted, 1.0)
    return out


def bonferroni(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Bonferroni adjusted p-values ``min(1, m p)`` (family-wise error control).

    Parameters
    ----------
    pvalues : array_like of float, shape (m,)
        One p-value per hypothesis, each in ``[0, 1]``; may be empty.

    Returns
    -------
    ndarray of float, shape (m,)
        ``min(1, m p)`` for each p-value, in the order of ``pvalues``.

    See Also
    --------
    benjamini_hochberg : False discovery rate control, less conservative.
    reject_at : The rejection mask at a level.

    Examples
    --------
    >>> bonferroni([0.01, 0.2, 0.5])
    array([0.03, 0.6 , 1.  ])
    """
    p = _check_pvalues(pvalues)
    return np.minimum(p * p.size, 1.0)


def reject_at(adjusted_pvalues: ArrayLike, alpha: float) -> NDArray[np.bool_]:
    """Boolean mask of hypotheses rejected at level ``alpha`` (``p_adj <= alpha``).

    Parameters
    ----------
    adjusted_pvalues : array_like of float, shape (m,)
        Adjusted p-values in ``[0, 1]``, e.g. from :func:`benjamini_hochberg`.
    alpha : float
        Level in ``(0, 1)``: the false discovery rate or family-wise error to control.

    Returns
    -------
    ndarray of bool, shape (m,)
        True where the hypothesis is rejected (a p-value equal to ``alpha`` is rejected).

    See Also
    --------
    benjamini_hochberg : Adjusted p-values for false discovery rate control.
    bonferroni : Adjusted p-values for family-wise error control.

    Examples
    --------
    >>> p = [0.01, 0.04, 0.03, 0.5]
    >>> reject_at(benjamini_hochberg(p), 0.05)
    array([ True, False, False, False])
    >>> reject_at(bonferroni(p), 0.05)
    array([ True, False, False, False])
    >>> reject_at(benjamini_hochberg(p), 0.06)
    array([ True,  True,  True, False])
    """
    if not 0 < alpha < 1:
        raise ValueError("alpha must lie in (0, 1).")
    return _check_pvalues(adjusted_pvalues) <= alpha
