"""The pooled permutation null of the class-difference statistic, in two stages.

Every non-constant feature is scored under B label permutations; a feature's p-value is its
rank among all those draws (:func:`widefs.stats.pooled_permutation_pvalues`), exact when the
features are exchangeable under the null. Its floor is ``1 / (D + 1)`` for D draws, and
Bonferroni needs ``D >= M / alpha`` to reject anything, which would cost ``1 / alpha``
permutations per feature. Two stages give that resolution only where it can matter:

1. ``D1 = B1 x M`` draws (``B1 >= 2``) give every feature its p-value ``p1``.
2. If the features beyond every stage-1 draw (the set S, at the floor ``1 / (D1 + 1)``)
   could be rejected with a finer floor and not with this one (Bonferroni: S is not empty
   and the floor exceeds ``alpha / M``; Benjamini-Hochberg: it exceeds ``alpha |S| / M``),
   a fresh, independent set of at least ``M / alpha`` draws gives the features of S their
   p-value ``p2`` instead.

Validity (``P(p_j <= u) <= u`` for a feature whose null holds): for ``u >= 1 / (D1 + 1)``,
``p_j <= u`` implies ``p1_j <= u`` (a feature of S has ``p1`` at the floor), and ``p1`` is
valid; for smaller u, ``p_j <= u`` implies ``p2_j <= u``, where ``p2`` comes from draws that
stage 1 never saw and whose number is fixed in advance, so it is valid too. With at least
ten features beyond every stage-1 draw (a real signal), stage 2 is not needed: Benjamini-
Hochberg rejects all of them at the stage-1 floor.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from widefs._utils import load_columns
from widefs.stats import null_heterogeneity, pooled_permutation_pvalues
from widefs.univariate._distribution import LOCATION_WEIGHT, check_sizes, score_blocks
from widefs.univariate._null import label_permutations

__all__ = ["ClassDifferenceNull", "first_stage_permutations", "pooled_null", "second_stage_draws"]

#: Fewest stage-1 draws, whatever the number of features.
MIN_NULL_DRAWS = 100_000
#: Features and draws of the sample that measures the nulls' heterogeneity.
_HETEROGENEITY_FEATURES = 2000
_HETEROGENEITY_DRAWS = 50_000


def first_stage_permutations(n_features: int) -> int:
    """B1: at least 2 permutations, and at least ``MIN_NULL_DRAWS`` draws in all.

    Examples
    --------
    >>> first_stage_permutations(1000), first_stage_permutations(10**6)
    (100, 2)
    """
    return int(max(2, -(-MIN_NULL_DRAWS // max(n_features, 1))))


def second_stage_draws(n_features: int, alpha: float) -> int:
    """D2: enough draws that the floor ``1 / (D2 + 1)`` is below ``alpha / M``.

    Examples
    --------
    >>> second_stage_draws(1000, 0.05)
    20000
    """
    return int(np.floor(n_features / alpha))


@dataclass(frozen=True)
class ClassDifferenceNull:
    """The class-difference statistic of every feature and its pooled permutation null.

    Attributes
    ----------
    scores, location, spread : ndarray of shape (n_features,)
        Combined score (see :func:`class_difference_scores`) and the two F statistics.
    constant : ndarray of bool, shape (n_features,)
        Constant features (score 0, p-value 1, no null draws).
    pvalues : ndarray of shape (n_features,)
        Pooled permutation p-values.
    permutations : ndarray of int, shape (B1, n_samples)
        The stage-1 relabellings ``y[permutations[b]]``.
    n_draws : tuple of int
        Draws of stage 1 and stage 2 (0 when stage 2 was not needed).
    min_pvalue : float
        The smallest p-value the draws can give.
    heterogeneity : float
        :func:`widefs.stats.null_heterogeneity` on up to 2,000 evenly spaced features under
        at least 20 permutations, 50,000 draws (0 when the features' nulls are alike).
    """

    scores: NDArray[np.float64]
    location: NDArray[np.float64]
    spread: NDArray[np.float64]
    constant: NDArray[np.bool_]
    pvalues: NDArray[np.float64]
    permutations: NDArray[np.intp]
    n_draws: tuple
    min_pvalue: float
    heterogeneity: float


def _stage_one(X, y_codes, n_classes, perms, weight, n_jobs):
    labels = np.vstack([y_codes[None, :], y_codes[perms]])
    parts = score_blocks(X, labels, n_classes, weight, n_jobs)
    constant = np.concatenate([p.constant for p in parts])
    scores = np.concatenate([p.scores[0] for p in parts])
    scores[constant] = 0.0
    location = np.concatenate([p.location for p in parts])
    spread = np.concatenate([p.spread for p in parts])
    draws = np.concatenate([p.scores[1:, ~p.constant].ravel() for p in parts])
    return scores, location, spread, constant, draws


def _needs_second_stage(n_beyond: int, n_eligible: int, n_draws: int, alpha, rule) -> bool:
    """Whether the stage-1 floor, not the data, could keep the features of S out."""
    if n_beyond == 0:
        return False
    rejectable = alpha / n_eligible if rule == "bonferroni" else alpha * n_beyond / n_eligible
    return 1.0 / (n_draws + 1) > rejectable


def _stage_two(X, y_codes, n_classes, observed, rng, n_eligible, alpha, weight, n_jobs):
    """p-values of ``observed`` scores from fresh draws: counts of draws at least as large."""
    n_draws = second_stage_draws(n_eligible, alpha)
    n_perm = -(-n_draws // n_eligible)
    perms = label_permutations(np.zeros(y_codes.size, dtype=np.intp), n_perm, rng)
    # Only the draws that reach the smallest observed score matter: reduced per block.
    above = score_blocks(
        X, y_codes[perms], n_classes, weight, n_jobs, reduce=("above", observed.min())
    )
    high = np.sort(np.concatenate(above)) if above else np.zeros(0)
    total = n_perm * n_eligible
    at_least = high.size - np.searchsorted(high, observed, side="left")
    return (1.0 + at_least) / (1.0 + total), total


def _heterogeneity(X, y_codes, n_classes, constant, rng, weight, n_jobs) -> float:
    eligible = np.flatnonzero(~constant)
    if eligible.size == 0:
        return float("nan")
    step = max(1, eligible.size // _HETEROGENEITY_FEATURES)
    columns = eligible[::step]
    # At least 20 permutations per feature, more on few features: the estimate's noise
    # falls with the draws per feature and with the number of features.
    n_perm = max(20, -(-_HETEROGENEITY_DRAWS // columns.size))
    perms = label_permutations(np.zeros(y_codes.size, dtype=np.intp), n_perm, rng)
    parts = score_blocks(load_columns(X, columns), y_codes[perms], n_classes, weight, n_jobs)
    return null_heterogeneity(np.hstack([p.scores for p in parts]))


def pooled_null(
    X,
    y_codes,
    n_classes,
    rng,
    *,
    n_permutations=None,
    alpha=0.05,
    rule="fdr",
    location_weight=LOCATION_WEIGHT,
    n_jobs=None,
) -> ClassDifferenceNull:
    """Scores of every feature and their two-stage pooled permutation p-values.

    Parameters
    ----------
    X : ndarray, memmap, dask or zarr array of shape (n_samples, n_features)
        Finite data (float32 or float64 in memory; out of core, loaded a block at a time).
    y_codes : ndarray of int, shape (n_samples,)
        Class codes 0..n_classes-1.
    n_classes : int
    rng : RandomState
        Draws the permutations, stage 1 first.
    n_permutations : int, optional
        B1 (default :func:`first_stage_permutations`).
    alpha : float, default=0.05
        Level whose floor stage 2 guarantees.
    rule : {"fdr", "bonferroni"} or other, default="fdr"
        The adjustment the p-values feed (decides when stage 2 runs; any other value is
        treated as "fdr").
    location_weight : float, default=0.85
    n_jobs : int, optional
        Blocks of columns scored in parallel threads; results do not depend on it.

    Returns
    -------
    ClassDifferenceNull
    """
    check_sizes(X.shape[0], n_classes)
    n_perm = n_permutations or first_stage_permutations(X.shape[1])
    perms = label_permutations(np.zeros(y_codes.size, dtype=np.intp), n_perm, rng)
    scores, location, spread, constant, draws = _stage_one(
        X, y_codes, n_classes, perms, location_weight, n_jobs
    )
    n_eligible = int((~constant).sum())
    pvalues = np.ones(scores.shape)
    n_draws, floor = (draws.size, 0), 1.0 / (draws.size + 1)
    if draws.size:
        draws.sort()
        pvalues[~constant] = pooled_permutation_pvalues(
            scores[~constant], draws, assume_sorted=True
        )
    beyond = np.flatnonzero(~constant & (pvalues <= floor))
    if _needs_second_stage(beyond.size, n_eligible, draws.size, alpha, rule):
        pvalues[beyond], extra = _stage_two(
            X,
            y_codes,
            n_classes,
            scores[beyond],
            rng,
            n_eligible,
            alpha,
            location_weight,
            n_jobs,
        )
        n_draws, floor = (draws.size, extra), 1.0 / (extra + 1)
    del draws
    heterogeneity = _heterogeneity(X, y_codes, n_classes, constant, rng, location_weight, n_jobs)
    return ClassDifferenceNull(
        scores, location, spread, constant, pvalues, perms, n_draws, floor, heterogeneity
    )
