"""A classifier that stays defined when a selector upstream keeps no feature."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.dummy import DummyClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs._compat import HasMethods, fit_context
from widefs._utils import refuse_sparse

__all__ = ["PriorFallbackClassifier"]


class PriorFallbackClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """Fit ``estimator``, or predict from the class prior when there is no feature left.

    Chance-aware selectors such as :class:`widefs.univariate.DiscriminativeSelector`
    may rightly select nothing on noise; scikit-learn classifiers refuse a matrix with
    zero columns. Put this wrapper after the selector so that the pipeline predicts the
    most frequent training class instead of failing, and can report that it did.

    Accepting a matrix with zero columns is the purpose of this class, so it is the one
    widefs estimator that fails one scikit-learn estimator check,
    ``check_estimators_empty_data_messages``: that check requires a ``ValueError`` for
    zero features. A matrix with zero *rows* is still rejected.

    Parameters
    ----------
    estimator : classifier, default=None
        The classifier fitted when there is at least one feature; ``None`` means
        ``GaussianNB()``.

    Attributes
    ----------
    estimator_ : classifier
        The fitted wrapped classifier, or a prior-only ``DummyClassifier``.
    used_prior_ : bool
        True when no feature reached this step and the prior was used.
    classes_ : ndarray
        Class labels.
    n_features_in_ : int
        Number of features seen in ``fit`` (may be 0).

    See Also
    --------
    widefs.univariate.DiscriminativeSelector : A selector that may keep nothing.
    nested_evaluate : Evaluates such pipelines with selection inside the folds.

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

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit the wrapped classifier, or the class prior when ``X`` has no column.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            Training data; ``n_features`` may be 0.
        y : array_like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        refuse_sparse(self, X)  # before any work: one line saying what to do
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
        """Predict class labels (the training majority class when there was no feature).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            As many columns as in ``fit``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        X = self._X(X)  # checks that the model is fitted
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        """Class probabilities (the training class frequencies when there was no feature).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
            As many columns as in ``fit``.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities in the order of ``classes_``.
        """
        X = self._X(X)
        return self.estimator_.predict_proba(X)
