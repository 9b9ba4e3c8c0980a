"""CN2 refitted many times on the same examples: permuted labels, cross-validation folds.

A search certificate (:func:`widefs.model_selection.search_certificate`) refits CN2 on
hundreds of relabellings, and its cross-validated score refits it on every training fold of
each. What does not depend on the labels is done once here: the input is validated and
encoded once, and the candidate table (the presort of every attribute into bins, and the
static candidate conditions) is built once on all examples; a fold's search runs on that
table with the fold's rows as the rows it learns from (:func:`fold_model`), and learns the
rules a fit on the fold's rows learns, so every rule learned is the plain refit's rule.
"""

from __future__ import annotations

import copy

import numpy as np

from widefs._utils import array_key, check_classes, encode_fit, feature_names_or_default
from widefs.rules._shared_rounds import rounds_key
from widefs.rules._table import CandidateTable

__all__ = ["out_of_fold_predictions", "permutation_search_scores"]


def _prepared(estimator, X, y):
    """A clone of ``estimator`` with the encoding and table of ``(X, y)`` set, and ``Xe``."""
    from sklearn.base import clone

    base = clone(estimator)
    base._check_quality_mode()
    Xe, y, base._encoding = encode_fit(base, X, y, base.categorical_features, missing="propagate")
    base._names = [str(n) for n in feature_names_or_default(base)]
    base._table = CandidateTable.shared(Xe, base._encoding.nominal, base._encoding.n_categories)
    key = rounds_key(Xe, base._encoding)  # the search on all rows shares its rounds
    base._rounds_key = None if key is None else key + b"all rows"
    return base, Xe, y


def _threaded(work, n_items: int, n_jobs) -> list:
    """``[work(idx) for idx in chunks of range(n_items)]`` flattened, on threads."""
    from joblib import Parallel, delayed, effective_n_jobs

    n_chunks = max(1, min(n_items, effective_n_jobs(n_jobs)))
    chunks = [c for c in np.array_split(np.arange(n_items), n_chunks) if c.size]
    parts = Parallel(n_jobs=len(chunks), backend="threading")(delayed(work)(c) for c in chunks)
    return [v for part in parts for v in part]


def permutation_search_scores(estimator, X, y, permutations, n_jobs=None) -> np.ndarray:
    """``search_score_`` of ``estimator`` refitted on each ``y[permutations[i]]``."""
    base, Xe, y = _prepared(estimator, X, y)
    base.classes_, y_codes = check_classes(base, y, min_classes=1)
    permutations = np.asarray(permutations)

    def work(idx):
        # A shallow copy shares the read-only encoding and table, learns its own rules.
        return [
            copy.copy(base)._learn_codes(Xe, y_codes[permutations[i]]).search_score_ for i in idx
        ]

    return np.array(_threaded(work, len(permutations), n_jobs), dtype=float)


def fold_model(base, Xe, train, y_train):
    """``base`` (prepared on all rows) fitted on the rows ``train`` (a mask) with labels
    ``y_train``, on the table of all rows: what ``clone(base).fit(X[train], y_train)``
    learns on numeric data.

    The other rows are never covered, so a beam round walks the fold's rows in the order of
    a table built on them and generates candidates only on the bins they take, in the same
    order; a bin's value, the threshold printed, is the same number (a build on the rows
    numbers their bins in the same increasing order, dropping the others). Nominal codes
    are the table's, not those of an encoding of the rows alone: refits on nominal data
    build their own. (Taking the fold's rows of the table instead cost colon's certificates
    more than walking past the other rows: ~1 ms of numpy a fold.)
    """
    model = copy.copy(base)
    model.classes_, codes = check_classes(model, y_train, min_classes=1)
    y_codes = np.zeros(train.size, dtype=codes.dtype)  # the other rows: never read
    y_codes[train] = codes
    if getattr(base, "_rounds_key", None) is not None:  # shared with other searches
        model._rounds_key = base._rounds_key + array_key(train)
    return model._learn_codes(Xe, y_codes, rows=train)


def _plain_predictions(estimator, X, Y, folds) -> np.ndarray:
    """The refit loop: a clone fitted on each training fold predicts its test fold."""
    from sklearn.base import clone

    take = (lambda idx: X.iloc[idx]) if hasattr(X, "iloc") else (lambda idx: X[idx])
    out = np.empty(Y.shape, dtype=Y.dtype)
    for i in range(Y.shape[0]):
        for f in np.unique(folds[i]).tolist():
            train, test = np.flatnonzero(folds[i] != f), np.flatnonzero(folds[i] == f)
            out[i, test] = clone(estimator).fit(take(train), Y[i, train]).predict(take(test))
    return out


def out_of_fold_predictions(estimator, X, Y, folds, n_jobs=None) -> np.ndarray:
    """Each labelling's out-of-fold predictions, sharing the table across all fits."""
    Y = np.asarray(Y)
    folds = np.asarray(folds)
    if Y.ndim != 2 or folds.shape != Y.shape or Y.shape[1] != np.shape(X)[0]:
        raise ValueError(
            f"Y and folds must both have shape (n_labellings, {np.shape(X)[0]}); got "
            f"{Y.shape} and {folds.shape}."
        )
    if Y.shape[0] == 0:
        return np.empty(Y.shape, dtype=Y.dtype)
    base, Xe, _ = _prepared(estimator, X, Y[0])
    if base._encoding.nominal.any():
        # A fold's own encoding numbers the categories it sees: the shared codes differ.
        return _plain_predictions(estimator, X, Y, folds)

    def work(idx):
        rows = []
        for i in idx:
            pred = np.empty(Y.shape[1], dtype=Y.dtype)
            for f in np.unique(folds[i]).tolist():
                test = folds[i] == f
                model = fold_model(base, Xe, ~test, Y[i, ~test])
                scores = model._encoded_class_scores(Xe[test])
                pred[test] = model.classes_[np.argmax(scores, axis=1)]
            rows.append(pred)
        return rows

    return np.array(_threaded(work, Y.shape[0], n_jobs), dtype=Y.dtype).reshape(Y.shape)
