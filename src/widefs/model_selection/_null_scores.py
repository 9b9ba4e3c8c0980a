"""The null of a search certificate: the certified score after re-running on relabellings.

The permutations are drawn once, in the caller, and every score is computed by one of two
picklable functions (:func:`search_score`, :func:`cv_score`), row by row in permutation
order, or by the estimator's batched path over many relabellings; chunks of rows may run in
parallel without changing any value. :func:`sequential_null_scores` scores them in blocks
and stops at the relabelling where the null has settled (Besag & Clifford 1991): the
scores it returns are the first ones of the full null, whatever the block size.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from widefs.model_selection._cross_validated import (
    cross_validated_score,
    design_folds,
)
from widefs.model_selection._metrics import balanced_accuracy

__all__ = [
    "cv_score",
    "draw_design_permutations",
    "draw_permutations",
    "fitted_clone",
    "null_scores",
    "search_score",
    "sequential_null_scores",
    "stopping_point",
]


def draw_permutations(n_samples: int, n_permutations: int, rng) -> np.ndarray:
    """``(n_permutations, n_samples)`` random permutations of ``range(n_samples)``, one draw.

    Drawn by the same code as the chance screen's permutation null (one cell holding every
    example: unrestricted permutations), from the ``RandomState`` ``rng``; the same state
    gives the same permutations for any later split of the work.
    """
    from widefs.univariate import label_permutations

    return label_permutations(np.zeros(int(n_samples), dtype=np.intp), n_permutations, rng)


def draw_design_permutations(y, groups, n_permutations: int, rng) -> np.ndarray:
    """:func:`draw_permutations` without ``groups``; with them, the relabellings the design
    allows (:func:`widefs.stats.permutation_indices`: within or between groups), from ``rng``."""
    if groups is None:
        return draw_permutations(np.shape(y)[0], n_permutations, rng)
    from widefs.stats import permutation_indices

    return permutation_indices(y, groups, n_permutations=int(n_permutations), random_state=rng)


def fitted_clone(estimator, X, y, params=None):
    """``clone(estimator).fit(X, y, **params)``, metadata routing on when ``params`` are given
    (so a pipeline passes ``covariates`` to the steps that request them)."""
    from sklearn import config_context
    from sklearn.base import clone

    if not params:
        return clone(estimator).fit(X, y)
    with config_context(enable_metadata_routing=True):
        return clone(estimator).fit(X, y, **params)


def search_score(estimator, X, y, params=None) -> float:
    """``clone(estimator).fit(X, y, **params).search_score_``: the score the search optimized."""
    return float(fitted_clone(estimator, X, y, params).search_score_)


def cv_score(
    estimator, X, y, *, n_splits: int, seed: int, scoring: str, groups=None, params=None
) -> float:
    """The cross-validated ``scoring`` of clones of ``estimator`` on folds seeded by ``seed``
    (whole groups per fold with ``groups``)."""
    return cross_validated_score(
        estimator, X, y, n_splits=n_splits, seed=seed, groups=groups, params=params
    ).value(scoring)


def _scores(score, X, y, permutations) -> np.ndarray:
    """The oracle: ``score(X, y[perm])`` for each row, sharing label-free work across rows.

    (:func:`widefs._utils.sharing_label_free_work` changes what the fits cost, not their
    results.)
    """
    from widefs._utils import sharing_label_free_work

    with sharing_label_free_work():
        return np.array([score(X, y[perm]) for perm in permutations], dtype=float)


def null_scores(estimator, X, y, permutations, *, cv=None, n_jobs=None, params=None) -> np.ndarray:
    """The certified score on each relabelling ``y[permutations[i]]``, in permutation order.

    ``cv`` is ``None`` for the search score (then the estimator's batched
    ``permutation_search_scores`` is used when it has one), else a dict of the
    :func:`cv_score` keywords (``groups`` among them for whole-group folds). ``params`` are
    the fit parameters (``covariates``) that stay with their samples; with them every score
    is a plain refit (the batched paths take none). Chunks of permutations run on ``n_jobs``
    workers.
    """
    from joblib import effective_n_jobs
    from sklearn.base import clone

    from widefs._utils import parallel_calls

    if cv is None:
        batched = None if params else getattr(clone(estimator), "permutation_search_scores", None)
        if batched is not None:
            return np.asarray(batched(X, y, permutations, n_jobs=n_jobs), dtype=float)
        score = partial(search_score, estimator, params=params or None)
    else:
        batched = None if params else getattr(clone(estimator), "out_of_fold_predictions", None)
        if batched is not None:
            return _batched_cv_scores(batched, X, y, permutations, cv, n_jobs)
        score = partial(cv_score, estimator, **cv, params=params or None)
    n_chunks = max(1, min(len(permutations), effective_n_jobs(n_jobs)))
    if n_chunks == 1:
        return _scores(score, X, y, permutations)
    chunks = np.array_split(np.arange(len(permutations)), n_chunks)
    parts = parallel_calls(
        _scores, [(score, X, y, permutations[c]) for c in chunks], n_jobs=n_chunks
    )
    return np.concatenate(parts)


def _batched_cv_scores(out_of_fold_predictions, X, y, permutations, cv, n_jobs) -> np.ndarray:
    """:func:`cv_score` of every relabelling from the estimator's batched predictions."""
    Y = y[permutations]
    groups = cv.get("groups")
    folds = np.array([design_folds(row, cv["n_splits"], cv["seed"], groups) for row in Y])
    folds = folds.reshape(Y.shape)
    predictions = out_of_fold_predictions(X, Y, folds, n_jobs=n_jobs)
    if cv["scoring"] == "accuracy":
        return np.mean(predictions == Y, axis=1).astype(float)
    classes = np.unique(y)
    return np.array([balanced_accuracy(t, p, classes) for t, p in zip(Y, predictions)])


def stopping_point(scores, observed: float, needed: int) -> int | None:
    """The number of leading ``scores`` up to the ``needed``-th one ``>= observed`` (None
    when fewer reach it): where a sequential null that still needs that many stops."""
    reached = np.flatnonzero(np.asarray(scores) >= observed)
    return int(reached[needed - 1]) + 1 if reached.size >= needed else None


def sequential_null_scores(
    estimator, X, y, permutations, observed, *, stop_after, cv=None, n_jobs=None, params=None
) -> np.ndarray:
    """The leading null scores up to the ``stop_after``-th that reaches ``observed``.

    All of them when fewer reach it or ``stop_after`` is None (then in one call of
    :func:`null_scores`). Blocks of ``max(stop_after, n_jobs)`` rows are scored in turn:
    no null can stop before ``stop_after`` rows, and the result is a prefix of the full
    null, the same for any block size and ``n_jobs``.
    """
    from joblib import effective_n_jobs

    if stop_after is None:
        return null_scores(estimator, X, y, permutations, cv=cv, n_jobs=n_jobs, params=params)
    block = max(int(stop_after), effective_n_jobs(n_jobs))
    parts, reached = [], 0
    for start in range(0, len(permutations), block):
        rows = permutations[start : start + block]
        scores = null_scores(estimator, X, y, rows, cv=cv, n_jobs=n_jobs, params=params)
        stop = stopping_point(scores, observed, int(stop_after) - reached)
        if stop is not None:
            parts.append(scores[:stop])
            break
        reached += int(np.count_nonzero(scores >= observed))
        parts.append(scores)
    return np.concatenate(parts) if parts else np.empty(0)
