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

from widefs._utils import block_width, is_lazy_matrix, iter_column_blocks
from widefs.univariate._distribution import LOCATION_WEIGHT, best_scores
from widefs.univariate._error_counts import score_block, split_masks

__all__ = ["permutation_best_scores"]


def _codes(base, X, y, dtype):
    X, y = validate_data(base, X, y, dtype=dtype, ensure_min_samples=2)
    check_classification_targets(y)
    classes, y_codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(
            f"DiscriminativeSelector needs at least 2 classes; got 1 class ({classes.tolist()[0]!r})."
        )
    return X, y_codes, classes.size


#: Bytes of one float64 block of columns the errors certificate scores at a time: the
#: permutations read a block converted once, and memory does not grow with the features.
_ERRORS_BLOCK_BYTES = 16 * 2**20


def _errors_scores(selector, base, X, y, permutations, n_jobs):
    from joblib import Parallel, delayed, effective_n_jobs

    # float32 stays float32 (no float64 copy of the matrix): each block is widened when read.
    X, y_codes, n_classes = _codes(base, X, y, [np.float64, np.float32])
    splits = []
    for perm in permutations:
        # A fresh fit seeds its generator from a copy of random_state (clone deep-copies).
        rng = check_random_state(copy.deepcopy(selector.random_state))
        labels = y_codes[perm]
        train, val = split_masks(selector.cv, labels, n_classes, rng)
        splits.append((labels, train, val, int(val.sum())))

    def block_best(columns):
        """Per permutation: the best score of the block's eligible features and of all."""
        Xb = np.asarray(X[:, columns], dtype=np.float64)
        eligible = np.ptp(Xb, axis=0) > 0
        best = np.full((len(splits), 2), -np.inf)
        for i, (labels, train, val, n_val) in enumerate(splits):
            settings = (selector.scorer, selector.var_smoothing)
            block = score_block(Xb, columns, False, labels, n_classes, train, val, *settings)
            scores = 1.0 - block.errors / n_val
            best[i] = scores[eligible].max(initial=-np.inf), scores.max()
        return best, bool(eligible.any())

    width = block_width(X.shape[0], 8, _ERRORS_BLOCK_BYTES)
    parts = Parallel(n_jobs=effective_n_jobs(n_jobs), backend="threading")(
        delayed(block_best)(b) for b in iter_column_blocks(X.shape[1], width)
    )
    # best_score: the best eligible feature's score, any feature's when none is eligible
    # (maxima of floats: the same whatever the blocks).
    column = 0 if any(any_eligible for _, any_eligible in parts) else 1
    return np.max([best[:, column] for best, _ in parts], axis=0).astype(float)


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
