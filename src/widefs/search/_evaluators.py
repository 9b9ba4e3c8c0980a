"""The evaluator objects a wrapper search takes: which classifier scores a subset, and how.

A wrapper selector takes one evaluator, the way a scikit-learn meta-estimator takes
``estimator=``: :class:`KNNEvaluator` (exact leave-one-out kNN), :class:`NaiveBayesEvaluator`
(closed-form leave-one-out naive Bayes) or :class:`ClassifierEvaluator` (any scikit-learn
classifier, cross-validated). An evaluator holds settings only (its ``__init__`` stores
them; ``get_params``/``set_params`` make ``clone`` and ``GridSearchCV`` with
``evaluator__n_neighbors`` work) and is the one place that builds, on data, the engine
that predicts held-out rows of any subset (:meth:`~KNNEvaluator.leave_one_out`) and the
classifier fitted on one subset (:meth:`~KNNEvaluator.fit_model`); the searches of this
package and CEFS (:mod:`widefs.ensemble`) build theirs through it.

The settings every evaluator shares say what a subset's score is and how the data are
read: ``target_class`` and ``class_criterion`` (the class-specific criterion of CEFS,
:class:`Criterion`), ``categorical_features`` (nominal columns) and ``n_jobs`` (threads
for scoring candidates).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, clone

from widefs._compat import HasMethods, Interval, StrOptions
from widefs.search._criterion import Criterion
from widefs.search._cross_validation import CrossValidationEvaluator, SubsetClassifier
from widefs.search._docs import search_docs
from widefs.search._knn import KNNLeaveOneOut
from widefs.search._knn_model import KNNModel
from widefs.search._naive_bayes import NaiveBayesLeaveOneOut, NaiveBayesModel
from widefs.search._params import _CachedParamNames

__all__ = [
    "CLASS_K_GRID",
    "ClassifierEvaluator",
    "KNNEvaluator",
    "NaiveBayesEvaluator",
    "dissertation_k_grid",
]

#: k values tried for class-specific members (Soares 2010, Section 5.2.5.2: larger k made
#: members "recallers").
CLASS_K_GRID = tuple(range(1, 11))


def dissertation_k_grid(n_samples: int) -> tuple[int, ...]:
    """The k grid of Soares (2010), Section 5.2.5.2, restricted to ``k < n_samples``.

    ``{1, ..., 10, 15, 25, 0.25 n, 0.5 n, 0.75 n}`` (fractions rounded down), where
    ``n`` is the number of training examples; with leave-one-out there are ``n - 1``
    possible neighbours, so ``k <= n - 1``.

    Parameters
    ----------
    n_samples : int
        Training examples.

    Returns
    -------
    grid : tuple of int
        The distinct k of the grid below ``n_samples``, increasing.

    See Also
    --------
    CLASS_K_GRID : The smaller grid of the class-specific members.
    KNNLeaveOneOut.choose_k : Picks k from a grid by leave-one-out.

    Examples
    --------
    >>> dissertation_k_grid(36)
    (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 18, 25, 27)
    >>> dissertation_k_grid(4)
    (1, 2, 3)
    """
    ks = [*range(1, 11), 15, 25, int(0.25 * n_samples), int(0.5 * n_samples), int(0.75 * n_samples)]
    return tuple(sorted({k for k in ks if 1 <= k < n_samples}))


def _kinds(encoding, X):
    """``(nominal, n_categories)`` of an encoding (all numeric without one)."""
    if encoding is None:
        p = np.shape(X)[1]
        return np.zeros(p, dtype=bool), np.zeros(p, dtype=np.int64)
    return encoding.nominal, encoding.n_categories


class _SubsetEvaluator(_CachedParamNames, BaseEstimator):
    """The settings every evaluator shares and the two things it builds (not public)."""

    _parameter_constraints: dict = {
        "target_class": "no_validation",
        "class_criterion": [StrOptions({"recall", "balanced"})],
        "categorical_features": [StrOptions({"from_dtype"}), "array-like", None],
        "n_jobs": [numbers.Integral, None],
    }

    def leave_one_out(self, X, y, *, n_classes, encoding=None, rows=None):
        """The engine that predicts held-out ``rows`` of any feature subset.

        Parameters
        ----------
        X : ndarray of float64, shape (n_samples, n_features)
            Numeric values and nominal category codes.
        y : ndarray of int, shape (n_samples,)
            Class codes ``0 .. n_classes - 1``.
        n_classes : int
            Number of classes.
        encoding : FeatureEncoding, default=None
            Which columns are nominal and their category counts (``None``: all numeric);
            see :func:`widefs._utils.encode_fit`.
        rows : array-like of int, default=None
            Rows to predict (``None``: all).

        Returns
        -------
        engine : KNNLeaveOneOut, NaiveBayesLeaveOneOut or CrossValidationEvaluator
            Its ``predict_subset(mask)`` gives the held-out predictions of ``rows``.
        """
        nominal, n_categories = _kinds(encoding, X)
        rows = np.arange(len(y)) if rows is None else rows
        return self._engine(X, y, int(n_classes), nominal, n_categories, rows)

    def fit_model(self, X, y, *, n_classes, support, encoding=None):
        """The classifier fitted on all rows with the features of ``support``.

        Parameters
        ----------
        X : ndarray of float64, shape (n_samples, n_features)
            Numeric values and nominal category codes.
        y : ndarray of int, shape (n_samples,)
            Class codes ``0 .. n_classes - 1``.
        n_classes : int
            Number of classes.
        support : ndarray of bool, shape (n_features,)
            The subset.
        encoding : FeatureEncoding, default=None
            As for :meth:`leave_one_out`.

        Returns
        -------
        model : KNNModel, NaiveBayesModel or SubsetClassifier
            Has ``predict_codes(X_encoded)`` on all columns.
        """
        nominal, n_categories = _kinds(encoding, X)
        cols = np.flatnonzero(support)
        return self._model(X, y, int(n_classes), nominal, n_categories, cols)

    def _criterion(self, classes, y_codes) -> Criterion:
        """The score of a subset for these classes (``target_class`` found among them)."""
        target = None
        if self.target_class is not None:
            hits = np.flatnonzero(np.asarray(classes) == self.target_class)
            if hits.size != 1:
                raise ValueError(
                    f"target_class={self.target_class!r} is not one of the classes "
                    f"{np.asarray(classes).tolist()}."
                )
            target = int(hits[0])
        return Criterion(y_codes, target, self.class_criterion)

    def _tune(self, engine, criterion, mask):
        """Settings chosen on the training data before the search: ``(evaluator, scores)``,
        the evaluator with them (a copy) and the score of each value tried (``None``:
        nothing to choose)."""
        return clone(self), None

    def _engine(self, X, y, n_classes, nominal, n_categories, rows):  # pragma: no cover
        raise NotImplementedError

    def _model(self, X, y, n_classes, nominal, n_categories, cols):  # pragma: no cover
        raise NotImplementedError


@search_docs
class KNNEvaluator(_SubsetEvaluator):
    """Score subsets by exact leave-one-out k-nearest neighbours.

    Squared Euclidean distance on numeric columns plus a 0/1 mismatch per nominal column,
    distance ties to the lower row index, vote ties to the class of the nearest tied
    neighbour; every candidate move of a search is scored by incremental leave-one-out
    (:class:`KNNLeaveOneOut`), a subset's classifier is :class:`KNNModel`.

    Parameters
    ----------
    n_neighbors : "auto" or int, default="auto"
        k. ``"auto"``: chosen before the search by leave-one-out on all features from
        ``k_grid`` (Soares 2010, Section 5.2.3), ties to the smaller k; the search's
        ``evaluator_`` then holds the chosen k.
    k_grid : array-like of int, default=None
        Candidate k for ``"auto"``; ``None`` is the dissertation's
        ``{1..10, 15, 25, n/4, n/2, 3n/4}`` (k < n), :func:`dissertation_k_grid`.
    %(evaluator_params)s

    %(evaluator_see_also)s

    Examples
    --------
    >>> X = np.array([[0.0, 5.0], [0.1, 0.0], [1.0, 5.0], [1.1, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> evaluator = KNNEvaluator(n_neighbors=1)
    >>> engine = evaluator.leave_one_out(X, y, n_classes=2)
    >>> engine.predict_subset(np.array([True, False])).tolist()
    [0, 0, 1, 1]
    >>> model = evaluator.fit_model(X, y, n_classes=2, support=np.array([True, False]))
    >>> model.predict_codes(np.array([[0.05, 0.0], [1.05, 5.0]])).tolist()
    [0, 1]
    """

    _parameter_constraints: dict = {
        **_SubsetEvaluator._parameter_constraints,
        "n_neighbors": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None, closed="left")],
        "k_grid": ["array-like", None],
    }

    def __init__(
        self,
        n_neighbors="auto",
        *,
        k_grid=None,
        target_class=None,
        class_criterion="recall",
        categorical_features="from_dtype",
        n_jobs=None,
    ):
        self.n_neighbors = n_neighbors
        self.k_grid = k_grid
        self.target_class = target_class
        self.class_criterion = class_criterion
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs

    def _engine(self, X, y, n_classes, nominal, n_categories, rows):
        # "auto" starts at k = 1; _tune then sets the chosen k.
        k = 1 if self.n_neighbors == "auto" else int(self.n_neighbors)
        return KNNLeaveOneOut(X, y, n_classes, nominal, rows, k)

    def _model(self, X, y, n_classes, nominal, n_categories, cols):
        if self.n_neighbors == "auto":
            raise ValueError(
                "n_neighbors='auto' is chosen by a search; fit_model needs an int k "
                "(a fitted selector's evaluator_ holds the chosen one)."
            )
        return KNNModel(X, y, n_classes, nominal, cols, int(self.n_neighbors))

    def _tune(self, engine, criterion, mask):
        if self.n_neighbors != "auto":
            return clone(self), None
        n = engine.n_samples
        grid = dissertation_k_grid(n) if self.k_grid is None else self.k_grid
        k, scores = engine.choose_k(criterion, list(grid), mask)
        engine.n_neighbors = k
        return clone(self).set_params(n_neighbors=k), scores


@search_docs
class NaiveBayesEvaluator(_SubsetEvaluator):
    """Score subsets by closed-form leave-one-out naive Bayes.

    Gaussian on numeric columns and categorical (Laplace ``alpha``) on nominal ones;
    every candidate move is scored in closed form (:class:`NaiveBayesLeaveOneOut`), a
    subset's classifier is :class:`NaiveBayesModel`.

    Parameters
    ----------
    var_smoothing : float, default=1e-9
        Added to every variance, times the largest variance of any numeric column (fixed
        for all subsets and folds, unlike ``GaussianNB``'s per-fit value).
    alpha : float, default=1.0
        Laplace smoothing of the category counts.
    %(evaluator_params)s

    %(evaluator_see_also)s

    Examples
    --------
    >>> X = np.array([[0.0, 1], [0.2, 0], [0.1, 1], [1.0, 1], [1.2, 0], [1.1, 0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> engine = NaiveBayesEvaluator().leave_one_out(X, y, n_classes=2)
    >>> engine.predict_subset(np.array([True, False])).tolist()
    [0, 0, 0, 1, 1, 1]
    """

    _parameter_constraints: dict = {
        **_SubsetEvaluator._parameter_constraints,
        "var_smoothing": [Interval(numbers.Real, 0, None, closed="left")],
        "alpha": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        var_smoothing=1e-9,
        alpha=1.0,
        *,
        target_class=None,
        class_criterion="recall",
        categorical_features="from_dtype",
        n_jobs=None,
    ):
        self.var_smoothing = var_smoothing
        self.alpha = alpha
        self.target_class = target_class
        self.class_criterion = class_criterion
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs

    def _engine(self, X, y, n_classes, nominal, n_categories, rows):
        return NaiveBayesLeaveOneOut(
            X, y, n_classes, nominal, n_categories, rows, self.var_smoothing, self.alpha
        )

    def _model(self, X, y, n_classes, nominal, n_categories, cols):
        return NaiveBayesModel(
            X, y, n_classes, nominal, n_categories, cols, self.var_smoothing, self.alpha
        )


@search_docs
class ClassifierEvaluator(_SubsetEvaluator):
    """Score subsets by the cross-validated predictions of any scikit-learn classifier.

    Each subset costs one ``cross_val_predict`` (one fit per fold,
    :class:`CrossValidationEvaluator`): the slow path, for classifiers without a
    closed-form leave-one-out. A subset's classifier is the estimator refitted on it
    (:class:`SubsetClassifier`). Nominal columns reach the estimator as category codes.

    Parameters
    ----------
    estimator : classifier
        Cloned for every fit.
    cv : int, cross-validation generator or iterable, default=5
        The folds of ``cross_val_predict``; an int means stratified k-fold, capped by the
        smallest class (at least 2). ``LeaveOneOut()`` gives leave-one-out predictions.
    %(evaluator_params)s

    %(evaluator_see_also)s

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> X = np.array([[0.0, 3], [0.1, 1], [0.2, 2], [1.0, 1], [1.1, 3], [1.2, 2]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> evaluator = ClassifierEvaluator(KNeighborsClassifier(1), cv=3)
    >>> evaluator.leave_one_out(X, y, n_classes=2).predict_subset(np.array([True, False])).tolist()
    [0, 0, 0, 1, 1, 1]
    """

    _parameter_constraints: dict = {
        **_SubsetEvaluator._parameter_constraints,
        "estimator": [HasMethods(["fit", "predict"])],
        "cv": ["cv_object"],
    }

    def __init__(
        self,
        estimator,
        *,
        cv=5,
        target_class=None,
        class_criterion="recall",
        categorical_features="from_dtype",
        n_jobs=None,
    ):
        self.estimator = estimator
        self.cv = cv
        self.target_class = target_class
        self.class_criterion = class_criterion
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs

    def _engine(self, X, y, n_classes, nominal, n_categories, rows):
        return CrossValidationEvaluator(self.estimator, X, y, rows, cv=self.cv)

    def _model(self, X, y, n_classes, nominal, n_categories, cols):
        return SubsetClassifier(clone(self.estimator).fit(X[:, cols], y), cols)
