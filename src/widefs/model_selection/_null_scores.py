"""The null of a search certificate: the certified score after re-running on relabellings.

The permutations are drawn once, in the caller, and every score is computed by one of two
picklable functions (:func:`search_score`, :func:`cv_score`), row by row in permutation
order; chunks of rows may run in parallel without changing any value.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from widefs.model_selection._cross_validated import cross_validated_score

__all__ = ["cv_score", "draw_permutations", "null_scores", "search_score"]


def draw_permutations(n_samples: int, n_permutations: int, rng) -> np.ndarray:
    """``(n_permutations, n_samples)`` random permutations of ``range(n_samples)``, one draw.

    Drawn by the same code as the chance screen's permutation null (one cell holding every
    example: unrestricted permutations), from the ``RandomState`` ``rng``; the same state
    gives the same permutations for any later split of the work.
    """
    from widefs.univariate import label_permutations

    return label_permutations(np.zeros(int(n_samples), dtype=np.intp), n_permutations, rng)


def search_score(estimator, X, y) -> float:
    """``clone(estimator).fit(X, y).search_score_``: the score the search optimized."""
    from sklearn.base import clone

    return float(clone(estimator).fit(X, y).search_score_)


def cv_score(estimator, X, y, *, n_splits: int, seed: int, scoring: str) -> float:
    """The cross-validated ``scoring`` of clones of ``estimator`` on folds seeded by ``seed``."""
    return cross_validated_score(estimator, X, y, n_splits=n_splits, seed=seed).value(scoring)


def _scores(score, X, y, permutations) -> np.ndarray:
    """The oracle: ``score(X, y[perm])`` for each row, sharing label-free work across rows.

    (:func:`widefs._utils.sharing_label_free_work` changes what the fits cost, not their
    results.)
    """
    from widefs._utils import sharing_label_free_work

    with sharing_label_free_work():
        return np.array([score(X, y[perm]) for perm in permutations], dtype=float)


def null_scores(estimator, X, y, permutations, *, cv=None, n_jobs=None) -> np.ndarray:
    """The certified score on each relabelling ``y[permutations[i]]``, in permutation order.

    ``cv`` is ``None`` for the search score (then the estimator's batched
    ``permutation_search_scores`` is used when it has one), else a dict of the
    :func:`cv_score` keywords. Chunks of permutations run on ``n_jobs`` workers.
    """
    from joblib import effective_n_jobs

    from widefs._utils import parallel_calls

    if cv is None:
        from sklearn.base import clone

        batched = getattr(clone(estimator), "permutation_search_scores", None)
        if batched is not None:
            return np.asarray(batched(X, y, permutations, n_jobs=n_jobs), dtype=float)
        score = partial(search_score, estimator)
    else:
        score = partial(cv_score, estimator, **cv)
    n_chunks = max(1, min(len(permutations), effective_n_jobs(n_jobs)))
    if n_chunks == 1:
        return _scores(score, X, y, permutations)
    chunks = np.array_split(np.arange(len(permutations)), n_chunks)
    parts = parallel_calls(
        _scores, [(score, X, y, permutations[c]) for c in chunks], n_jobs=n_chunks
    )
    return np.concatenate(parts)
