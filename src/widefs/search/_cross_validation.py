"""Any scikit-learn classifier as a subset evaluator: cross-validated predictions (slow path)."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import NDArray

from widefs.search._interface import _Evaluator, _SubsetModel

__all__ = ["CrossValidationEvaluator", "SubsetClassifier"]


class SubsetClassifier(_SubsetModel):
    """A fitted scikit-learn classifier applied to a column subset, predicting class codes.

    Parameters
    ----------
    estimator : fitted classifier
        Trained on ``X[:, cols]`` with class codes as labels.
    cols : array-like of int

    See Also
    --------
    ClassifierEvaluator.fit_model : Builds it.

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X = np.array([[0.0, 7.0], [1.0, 7.0], [5.0, 0.0]])
    >>> clf = SubsetClassifier(KNeighborsClassifier(1).fit(X[:, [0]], [0, 0, 1]), [0])
    >>> clf.predict_codes(np.array([[4.5, 7.0]])).tolist()
    [1]
    """

    def __init__(self, estimator, cols):
        self.estimator = estimator
        self.cols = np.asarray(cols, dtype=np.int64)

    def predict_codes(self, X) -> NDArray[np.int64]:
        return np.asarray(self.estimator.predict(X[:, self.cols]), dtype=np.int64)


class CrossValidationEvaluator(_Evaluator):
    """Cross-validated predictions of any scikit-learn classifier (the slow fallback).

    Each subset costs one ``cross_val_predict`` (one fit per fold); candidates are
    spread over ``n_jobs`` workers. With ``cv=LeaveOneOut()`` the predictions are
    leave-one-out ones, like the fast evaluators'.

    Parameters
    ----------
    estimator : classifier
        Cloned for every fit.
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of int, shape (n_samples,)
        Class codes.
    rows : ndarray of int
        Rows whose predictions are returned.
    cv : int, cross-validation generator or iterable, default=5
        An int means stratified k-fold, capped by the smallest class (at least 2).

    See Also
    --------
    ClassifierEvaluator : Builds this engine.

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X = np.array([[0.0, 3], [0.1, 1], [0.2, 2], [1.0, 1], [1.1, 3], [1.2, 2]])
    >>> ev = CrossValidationEvaluator(KNeighborsClassifier(1), X, [0, 0, 0, 1, 1, 1], range(6), cv=3)
    >>> ev.predict_subset(np.array([True, False])).tolist()
    [0, 0, 0, 1, 1, 1]
    """

    def __init__(self, estimator, X, y, rows, cv=5):
        from sklearn.model_selection import check_cv

        self.estimator = estimator
        self.X = np.asarray(X)
        self.y = np.asarray(y, dtype=np.int64)
        self.rows = np.asarray(rows, dtype=np.int64)
        if isinstance(cv, numbers.Integral):
            # Never more folds than the smallest class allows (and at least 2).
            smallest = int(np.bincount(self.y).min()) if self.y.size else 2
            cv = max(2, min(int(cv), smallest))
        self.cv = check_cv(cv, self.y, classifier=True)

    def _predict(self, mask) -> NDArray[np.int64]:
        from sklearn.base import clone
        from sklearn.model_selection import cross_val_predict

        cols = np.flatnonzero(mask)
        pred = cross_val_predict(clone(self.estimator), self.X[:, cols], self.y, cv=self.cv)
        return np.asarray(pred, dtype=np.int64)[self.rows]

    def initial_state(self, mask):
        return np.asarray(mask, dtype=bool).copy()

    def apply_move(self, state, f: int, add: bool):
        new = state.copy()
        new[f] = add
        return new

    def predict_state(self, state) -> NDArray[np.int64]:
        return self._predict(state)

    def predict_moves(self, state, candidates, add: bool, n_jobs=None) -> NDArray[np.int64]:
        masks = [self.apply_move(state, int(f), add) for f in candidates]
        return self.predict_masks(masks, n_jobs=n_jobs)

    def predict_masks(self, masks, n_jobs=None) -> NDArray[np.int64]:
        from widefs._utils import parallel_calls

        masks = list(masks)
        out = np.empty((len(masks), self.rows.size), dtype=np.int64)
        preds = parallel_calls(self._predict, [(m,) for m in masks], n_jobs=n_jobs)
        for i, p in enumerate(preds):
            out[i] = p
        return out
