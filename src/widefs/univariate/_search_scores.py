"""The search certificate's fast path for ``DiscriminativeSelector``: best scores per relabelling.

``search_score_`` (the best feature's score) does not depend on the thresholds or their
null, so a relabelling costs one pass of the statistic over all features, with the input
validated and the label-free work done once.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from widefs._utils import is_lazy_matrix
from widefs.univariate._distribution import LOCATION_WEIGHT, best_scores
from widefs.univariate._error_counts import best_score, score_block, split_masks

__all__ = ["permutation_best_scores"]


def _codes(base, X, y, dtype):
    X, y = validate_data(base, X, y, dtype=dtype, ensure_min_samples=2)
    check_classification_targets(y)
    classes, y_codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"DiscriminativeSelector needs at least 2 classes; got 1 class ({classes[0]!r})."
        )
    return X, y_codes, classes.size


def _errors_scores(selector, base, X, y, permutations, n_jobs):
    from joblib import Parallel, delayed, effective_n_jobs

    X, y_codes, n_classes = _codes(base, X, y, np.float64)
    eligible = np.ptp(X, axis=0) > 0
    columns = slice(0, X.shape[1])

    def one(perm) -> float:
        # A fresh fit seeds its generator from a copy of random_state (clone deep-copies).
        rng = check_random_state(copy.deepcopy(selector.random_state))
        labels = y_codes[perm]
        train, val = split_masks(selector.cv, labels, n_classes, rng)
        block = score_block(
            X,
            columns,
            False,
            labels,
            n_classes,
            train,
            val,
            selector.scorer,
            selector.var_smoothing,
        )
        return best_score(1.0 - block.errors / int(val.sum()), eligible)

    n_chunks = max(1, min(len(permutations), effective_n_jobs(n_jobs)))
    chunks = [c for c in np.array_split(np.arange(len(permutations)), n_chunks) if c.size]
    parts = Parallel(n_jobs=len(chunks), backend="threading")(
        delayed(lambda idx: [one(permutations[i]) for i in idx])(c) for c in chunks
    )
    return np.array([v for part in parts for v in part], dtype=float)


def permutation_best_scores(selector, X, y, permutations, n_jobs=None) -> np.ndarray:
    """``clone(selector).fit(X, y[perm]).search_score_`` for every row of ``permutations``."""
    if is_lazy_matrix(X):
        y = np.asarray(y)
        return np.array([clone(selector).fit(X, y[p]).search_score_ for p in permutations])
    statistic = selector._resolve_statistic()
    base = clone(selector)
    if statistic == "errors":
        return _errors_scores(selector, base, X, y, permutations, n_jobs)
    X, y_codes, n_classes = _codes(base, X, y, [np.float64, np.float32])
    weight = 1.0 if statistic == "location" else LOCATION_WEIGHT
    best = best_scores(X, y_codes[permutations], n_classes, location_weight=weight, n_jobs=n_jobs)
    # Every feature constant: fit's search score is the (zero) score of any feature.
    return np.where(np.isfinite(best), best, 0.0)
