"""A classifier that stays defined when a selector upstream keeps no feature."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, _fit_context, clone
from sklearn.dummy import DummyClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["PriorFallbackClassifier"]


class PriorFallbackClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Fit ``estimator``, or predict from the class prior when there is no feature left.

    Chance-aware selectors such as :class:`widefs.univariate.DiscriminativeSelector`
    may rightly select nothing on noise; scikit-learn classifiers refuse a matrix with
    zero columns. Put this wrapper after the selector so that the pipeline predicts the
    most frequent training class instead of failing, and can report that it did.

    Parameters
    ----------
    estimator : classifier, default=GaussianNB()

    Attributes
    ----------
    estimator_ : fitted classifier (the wrapped one, or a prior-only ``DummyClassifier``)
    used_prior_ : bool
        True when no feature reached this step and the prior was used.
    classes_ : ndarray

    Examples
    --------
    >>> import numpy as np
    >>> clf = PriorFallbackClassifier().fit(np.empty((4, 0)), [0, 1, 1, 1])
    >>> clf.used_prior_, clf.predict(np.empty((2, 0))).tolist()
    (True, [1, 1])
    """

    _parameter_constraints: dict = {"estimator": [HasMethods(["fit", "predict"]), None]}

    def __init__(self, estimator=None):
        self.estimator = estimator

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        X, y = validate_data(self, X, y, ensure_min_features=0, dtype=None)
        check_classification_targets(y)
        self.used_prior_ = X.shape[1] == 0
        if self.used_prior_:
            self.estimator_ = DummyClassifier(strategy="prior").fit(np.zeros((len(y), 1)), y)
        else:
            base = GaussianNB() if self.estimator is None else self.estimator
            self.estimator_ = clone(base).fit(X, y)
        self.classes_ = self.estimator_.classes_
        return self

    def _X(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, ensure_min_features=0, dtype=None)
        return np.zeros((X.shape[0], 1)) if self.used_prior_ else X

    def predict(self, X):
        X = self._X(X)
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        X = self._X(X)
        return self.estimator_.predict_proba(X)
