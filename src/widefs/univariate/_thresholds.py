"""Threshold rules: from scores and p-values to a selection. The one home of every rule."""

from __future__ import annotations

import numbers

import numpy as np

from widefs.stats import benjamini_hochberg, binomial_tail, bonferroni
from widefs.stats import expected_errors as _analytic_errors
from widefs.stats import expected_min_errors as _analytic_min_errors

__all__ = ["NAMED_THRESHOLDS", "reject_pvalues", "threshold_in_errors", "top_k"]

NAMED_THRESHOLDS = ("mgm", "max_chance", "fdr", "bonferroni", "all")


def reject_pvalues(rule: str, pvalues, alpha: float, eligible) -> np.ndarray:
    """Features rejected at ``alpha`` by Benjamini-Hochberg (``"fdr"``) or Bonferroni.

    Examples
    --------
    >>> reject_pvalues("fdr", np.array([0.001, 0.02, 0.5]), 0.05, np.ones(3, bool)).tolist()
    [True, True, False]
    """
    if rule not in ("fdr", "bonferroni"):
        raise ValueError(f"Unknown p-value rule {rule!r}; use 'fdr' or 'bonferroni'.")
    eligible = np.asarray(eligible, bool)
    adjust = benjamini_hochberg if rule == "fdr" else bonferroni
    adjusted = np.ones(eligible.shape)
    adjusted[eligible] = adjust(np.asarray(pvalues, dtype=float)[eligible])
    return eligible & (adjusted <= alpha)


def top_k(k: int, badness, eligible) -> np.ndarray:
    """The ``k`` eligible features of smallest ``badness`` (ties to the lower index).

    Examples
    --------
    >>> top_k(2, np.array([3.0, 1.0, 1.0, 0.0]), np.array([True, True, True, False])).tolist()
    [False, True, True, False]
    """
    eligible = np.asarray(eligible, bool)
    k = min(int(k), int(eligible.sum()))
    ranked = np.flatnonzero(eligible)[np.argsort(np.asarray(badness)[eligible], kind="stable")]
    selected = np.zeros(eligible.shape, bool)
    selected[ranked[:k]] = True
    return selected


def _chance_cut(rule, m, n_validation, p_error, expected_errors, expected_min_errors) -> float:
    """The MGM or E[X(1)] cut in errors, from the given or the analytic null."""
    e_min = (
        float(_analytic_min_errors(m, n_validation, p_error))
        if expected_min_errors is None
        else float(expected_min_errors)
    )
    if rule == "max_chance":
        return e_min
    e_one = (
        float(_analytic_errors(n_validation, p_error))
        if expected_errors is None
        else float(expected_errors)
    )
    return 0.5 * (e_one + e_min)


def _binomial_pvalues(n_errors, n_validation, p_error):
    # Error counts are integers in 0..N: one tail per level, then a lookup.
    levels = np.asarray(binomial_tail(np.arange(n_validation + 1), n_validation, p_error))
    return levels[n_errors.astype(np.intp)]


def threshold_in_errors(
    threshold,
    n_errors,
    n_validation: int,
    p_error: float,
    *,
    n_scored: int | None = None,
    alpha: float = 0.05,
    eligible=None,
    pvalues=None,
    expected_errors: float | None = None,
    expected_min_errors: float | None = None,
) -> tuple[float, np.ndarray]:
    """Turn a threshold on validation error counts into an error cut and a selection mask.

    The rules of Palatucci & Carlson (2008) on the paper's statistic. ``"mgm"``: fewer errors
    than ``(E[X] + E[X_(1)]) / 2``; ``"max_chance"``: fewer than ``E[X_(1)]``; ``"fdr"`` /
    ``"bonferroni"``: Benjamini-Hochberg / Bonferroni at ``alpha`` on ``pvalues`` (default
    the one-sided binomial test against ``p_error``); ``"all"``: every eligible feature; an
    int k: the k best (ties to the lower index); a float in (0, 1): error rate below it.
    The chance quantities are analytic (Theorem 4.1, ``X ~ Binomial(N, p_error)`` for
    ``M = n_scored`` features, default the eligible count) unless ``expected_errors`` and
    ``expected_min_errors`` come from a permutation null.

    Parameters
    ----------
    threshold : str, int or float
        ``"mgm"``, ``"max_chance"``, ``"fdr"``, ``"bonferroni"``, ``"all"``, k or a rate.
    n_errors : ndarray of shape (n_features,)
        Validation errors of each feature.
    n_validation : int
        Validation examples N.
    p_error : float
        Chance error rate of one feature unrelated to the classes.
    n_scored : int, optional
        Features M searched (default: the eligible count).
    alpha : float, default=0.05
        Level of ``"fdr"`` and ``"bonferroni"``.
    eligible : ndarray of bool, optional
        Features that may be selected (default: all).
    pvalues : ndarray, optional
        Per-feature p-values for ``"fdr"`` / ``"bonferroni"`` (default: the binomial test).
    expected_errors, expected_min_errors : float, optional
        E[X] and E[X_(1)] of a permutation null (default: analytic).

    Returns
    -------
    cut : float
        A feature is selected when eligible and below it (for ``"fdr"`` / ``"bonferroni"``,
        one more than the largest rejected count; for k, the k-th count plus one).
    selected : ndarray of bool
        The selection mask.

    See Also
    --------
    DiscriminativeSelector : computes the errors and the null, then calls this.
    widefs.stats.mgm_threshold : the analytic MGM cut.

    Examples
    --------
    >>> errors = np.array([1, 4, 9, 10])
    >>> cut, selected = threshold_in_errors("mgm", errors, 20, 0.5)
    >>> round(cut, 2), selected.tolist()
    (8.86, [True, True, False, False])
    >>> permutation_null = {"expected_errors": 9.0, "expected_min_errors": 5.0}
    >>> threshold_in_errors("mgm", errors, 20, 0.5, **permutation_null)[0]
    7.0
    """
    n_errors = np.asarray(n_errors)
    eligible = np.ones(n_errors.shape, bool) if eligible is None else np.asarray(eligible, bool)
    m = max(int(eligible.sum()), 1) if n_scored is None else n_scored
    if isinstance(threshold, str):
        chance = (m, n_validation, p_error, expected_errors, expected_min_errors)
        return _named_cut(threshold, n_errors, eligible, pvalues, alpha, chance)
    return _count_or_rate_cut(threshold, n_errors, eligible, n_validation)


def _count_or_rate_cut(threshold, n_errors, eligible, n_validation):
    """:func:`threshold_in_errors` for a count k >= 1 or a rate in (0, 1) (a negative k
    would select all but the worst features, a rate of 1 or more every feature)."""
    integral = isinstance(threshold, numbers.Integral)
    ok = (
        isinstance(threshold, numbers.Real)
        and not isinstance(threshold, bool)
        and (threshold >= 1 if integral else 0 < threshold < 1)
    )
    if not ok:
        raise ValueError(
            f"threshold must be one of {NAMED_THRESHOLDS}, an int k >= 1 or a rate in (0, 1), "
            f"got {threshold!r}."
        )
    if integral:
        selected = top_k(threshold, n_errors, eligible)
        cut = float(n_errors[selected].max() + 1) if selected.any() else 0.0
        return cut, selected
    cut = float(threshold) * n_validation
    return cut, eligible & (n_errors < cut)


def _named_cut(threshold, n_errors, eligible, pvalues, alpha, chance):
    """:func:`threshold_in_errors` for a named threshold; ``chance`` is (M, N, p_error,
    E[X], E[X_(1)])."""
    if threshold not in NAMED_THRESHOLDS:
        raise ValueError(f"Unknown threshold {threshold!r}; use one of {NAMED_THRESHOLDS}.")
    if threshold in ("fdr", "bonferroni"):
        if pvalues is None:
            pvalues = _binomial_pvalues(n_errors, chance[1], chance[2])
        # Permutation p-values need not be monotone in the counts: the rejections are the
        # selection, and the cut only summarizes them.
        rejected = reject_pvalues(threshold, pvalues, alpha, eligible)
        return (float(n_errors[rejected].max() + 1) if rejected.any() else 0.0), rejected
    cut = np.inf if threshold == "all" else _chance_cut(threshold, *chance)
    return cut, eligible & (n_errors < cut)
