"""Shared machinery of the wrapper selectors: input encoding, evaluator and k choice."""

from __future__ import annotations

import logging
import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs.search._encoding import encode_fit
from widefs.search._evaluators import (
    Criterion,
    CrossValidationEvaluator,
    KNNLeaveOneOut,
    NaiveBayesLeaveOneOut,
    dissertation_k_grid,
)

logger = logging.getLogger("widefs.search")

__all__ = ["WrapperSelector", "build_evaluator", "choose_k"]


def choose_k(evaluator, criterion, grid, mask):
    """Pick k by the criterion's leave-one-out score on the features of ``mask``.

    Soares (2010), Section 5.2.3: k is tuned once, before the search, by leave-one-out
    on the training set (for class-specific members, on that class's criterion). Ties go
    to the smaller k.

    Returns
    -------
    k : int
    scores : dict {k: score}
    """
    grid = sorted({int(k) for k in grid if 1 <= int(k) <= evaluator.n_samples - 1}) or [1]
    state = evaluator.initial_state(mask)
    scores = criterion.score(evaluator.predict_state_ks(state, grid))
    best = int(np.argmax(scores))  # first maximum: the smallest k
    return grid[best], dict(zip(grid, scores.tolist()))


def build_evaluator(params, X, y_codes, n_classes, encoding, criterion):
    """The evaluator named by ``params["estimator"]`` on the criterion's rows."""
    est = params["estimator"]
    rows = criterion.rows
    if isinstance(est, str) and est == "knn":
        return KNNLeaveOneOut(X, y_codes, n_classes, encoding.nominal, rows)
    if isinstance(est, str) and est == "naive_bayes":
        return NaiveBayesLeaveOneOut(
            X,
            y_codes,
            n_classes,
            encoding.nominal,
            encoding.n_categories,
            rows,
            var_smoothing=params["var_smoothing"],
            alpha=params["alpha"],
        )
    return CrossValidationEvaluator(est, X, y_codes, rows, cv=params["cv"])


class WrapperSelector(SelectorMixin, BaseEstimator):
    """Base of the wrapper selectors (not public): validation, evaluator, k, fitted state."""

    _parameter_constraints: dict = {
        "estimator": [StrOptions({"knn", "naive_bayes"}), HasMethods(["fit", "predict"])],
        "n_neighbors": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None, closed="left")],
        "k_grid": ["array-like", None],
        "target_class": "no_validation",
        "class_criterion": [StrOptions({"recall", "balanced"})],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
        "var_smoothing": [Interval(numbers.Real, 0, None, closed="left")],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
        "cv": ["cv_object"],
        "n_jobs": [numbers.Integral, None],
        "verbose": ["verbose"],
    }

    def _prepare(self, X, y):
        """Encode inputs, build criterion and evaluator, choose k. Returns (Xe, ev, crit)."""
        Xe, y, encoding = encode_fit(self, X, y, self.categorical_features)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        n_classes = self.classes_.size
        if n_classes < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 classes; got 1 class "
                f"({self.classes_[0]!r})."
            )
        target = None
        if self.target_class is not None:
            hits = np.flatnonzero(self.classes_ == self.target_class)
            if hits.size != 1:
                raise ValueError(
                    f"target_class={self.target_class!r} is not one of the classes "
                    f"{self.classes_.tolist()}."
                )
            target = int(hits[0])
        self._encoding = encoding
        self.nominal_features_ = encoding.nominal.copy()
        self._y_codes = y_codes
        criterion = Criterion(y_codes, target, self.class_criterion)
        params = self.get_params(deep=False)
        evaluator = build_evaluator(params, Xe, y_codes, n_classes, encoding, criterion)
        self.n_neighbors_ = None
        self.k_scores_ = None
        if isinstance(evaluator, KNNLeaveOneOut):
            if self.n_neighbors == "auto":
                grid = (
                    dissertation_k_grid(Xe.shape[0]) if self.k_grid is None else list(self.k_grid)
                )
                k, self.k_scores_ = choose_k(
                    evaluator, criterion, grid, np.ones(Xe.shape[1], dtype=bool)
                )
            else:
                k = int(self.n_neighbors)
            evaluator.n_neighbors = k
            self.n_neighbors_ = k
        logger.info(
            "%s: %d x %d, evaluator %s, k=%s",
            type(self).__name__,
            *Xe.shape,
            type(evaluator).__name__,
            self.n_neighbors_,
        )
        return Xe, evaluator, criterion

    def transform(self, X):
        """Reduce X to the selected features (nominal columns may hold missing values).

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        X_r : array of shape (n_samples, n_selected_features)
        """
        check_is_fitted(self)
        if not self.nominal_features_.any():
            return super().transform(X)
        X = validate_data(self, X, dtype=None, ensure_all_finite=False, reset=False)
        return self._transform(X)

    def _get_support_mask(self):
        check_is_fitted(self)
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
