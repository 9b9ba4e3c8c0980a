"""The wrapper selectors' template: ``fit`` validates, searches, stores a typed result."""

from __future__ import annotations

import logging
import numbers
from dataclasses import dataclass, fields, replace

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs._compat import HasMethods, Interval, StrOptions, fit_context
from widefs.search._evaluators import Criterion, EvaluatorFactory, dissertation_k_grid
from widefs.utils import (
    SupervisedSelectorMixin,
    check_classes,
    encode_fit,
    sharing_label_free_work,
)

logger = logging.getLogger("widefs.search")

__all__ = ["SearchProblem", "SearchResult", "WrapperSelector"]


@dataclass(frozen=True)
class SearchProblem:
    """What a wrapper search works on, prepared once by :meth:`WrapperSelector.fit`.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Encoded training data (numeric values and nominal category codes).
    evaluator : KNNLeaveOneOut, NaiveBayesLeaveOneOut or CrossValidationEvaluator
        Predicts the criterion's rows for any subset.
    criterion : Criterion
        Turns predictions into the score the search maximizes.
    """

    X: np.ndarray
    evaluator: object
    criterion: Criterion

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    def score_subset(self, mask) -> float:
        """The criterion's score of one subset."""
        return float(self.criterion.score(self.evaluator.predict_subset(mask)))


@dataclass(frozen=True)
class SearchResult:
    """What every search returns; each field ``f`` becomes the fitted attribute ``f_``.

    Attributes
    ----------
    support : ndarray of bool
        The selected subset.
    score : float
        Its score.
    history : list of dict
        One entry per step or generation.
    """

    support: np.ndarray
    score: float
    history: list

    def fitted_attributes(self) -> dict:
        """``{"support_": ..., "score_": ..., ...}``."""
        return {f"{f.name}_": getattr(self, f.name) for f in fields(self)}


class WrapperSelector(SupervisedSelectorMixin, SelectorMixin, BaseEstimator):
    """Base of the wrapper selectors (not public).

    ``fit`` is a template: validate and encode the input, check the search's own parameters
    (``_check_search_params``), build the criterion and the evaluator through
    :class:`EvaluatorFactory` (choosing k), run the subclass's ``_search`` and store the
    fields of the :class:`SearchResult` it returns.
    """

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

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Run the search.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Numeric and nominal columns (see ``categorical_features``).
        y : array_like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted selector.
        """
        problem = self._prepare(X, y)
        result = self._search(problem)
        for name, value in result.fitted_attributes().items():
            setattr(self, name, value)
        self.search_score_ = float(result.score)
        return self

    def _check_search_params(self, n_features: int) -> None:
        """Checks of the subclass's parameters that need the number of features."""

    def _search(self, problem: SearchProblem) -> SearchResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def permutation_search_scores(self, X, y, permutations, n_jobs=None):
        """``search_score_`` of the search re-run on each permuted labelling, sharing label-free work.

        Equal to ``clone(self).fit(X, y[perm]).search_score_`` for every row ``perm`` of
        ``permutations`` (the plain refit loop is its test oracle): the validation and
        encoding of ``X``, which do not depend on the labels, are done once; each
        permutation then builds its criterion and evaluator (and chooses k) and runs the
        search, in threads, inside :func:`widefs.utils.sharing_label_free_work`, so that
        the kNN evaluators compute each distance matrix and each step's candidate
        neighbour lists once for all relabellings that reach the same position (forward
        selection's first step, k chosen on all features, a genetic algorithm's initial
        population) and only vote with each relabelling's y. Used by
        :func:`widefs.model_selection.search_certificate`.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Training data.
        y : array_like of shape (n_samples,)
            Class labels.
        permutations : ndarray of int, shape (n_permutations, n_samples)
            Index arrays; row ``i`` gives the labelling ``y[permutations[i]]``.
        n_jobs : int, default=None
            Threads over permutations (each search then runs serially). Results do not
            depend on it.

        Returns
        -------
        scores : ndarray of float, shape (n_permutations,)
        """
        from sklearn.base import clone

        from widefs.search._evaluators import _map_chunks, _split

        base = clone(self)
        Xe, y, encoding = encode_fit(
            base, X, y, base.categorical_features, missing="category", ensure_min_samples=2
        )
        base._check_search_params(Xe.shape[1])
        classes, y_codes = check_classes(base, y)
        permutations = np.asarray(permutations)

        def work(idx):
            out = np.empty(idx.size)
            for t, i in enumerate(idx):
                est = clone(self).set_params(n_jobs=None)
                est.classes_ = classes
                est.categorical_features_ = encoding.nominal.copy()
                problem = est._problem(Xe, y_codes[permutations[i]], encoding)
                out[t] = est._search(problem).score
            return idx, out

        scores = np.empty(permutations.shape[0])
        with sharing_label_free_work():
            for idx, part in _map_chunks(work, _split(permutations.shape[0], n_jobs)):
                scores[idx] = part
        return scores

    def _prepare(self, X, y) -> SearchProblem:
        """Validate and encode, check parameters, then the label-dependent part."""
        Xe, y, encoding = encode_fit(
            self, X, y, self.categorical_features, missing="category", ensure_min_samples=2
        )
        self._check_search_params(Xe.shape[1])
        self.classes_, y_codes = check_classes(self, y)
        self.categorical_features_ = encoding.nominal.copy()
        return self._problem(Xe, y_codes, encoding)

    def _problem(self, Xe, y_codes, encoding) -> SearchProblem:
        """Build criterion and evaluator for these class codes and choose k."""
        target = None
        if self.target_class is not None:
            hits = np.flatnonzero(self.classes_ == self.target_class)
            if hits.size != 1:
                raise ValueError(
                    f"target_class={self.target_class!r} is not one of the classes "
                    f"{self.classes_.tolist()}."
                )
            target = int(hits[0])
        criterion = Criterion(y_codes, target, self.class_criterion)
        factory = EvaluatorFactory(
            self.estimator,
            n_neighbors=1 if self.n_neighbors == "auto" else int(self.n_neighbors),
            var_smoothing=self.var_smoothing,
            alpha=self.alpha,
            cv=self.cv,
        )
        evaluator = factory.leave_one_out(
            Xe, y_codes, n_classes=self.classes_.size, encoding=encoding, rows=criterion.rows
        )
        self.n_neighbors_ = None
        self.k_scores_ = None
        if factory.kind == "knn":
            k = factory.n_neighbors
            if self.n_neighbors == "auto":
                grid = dissertation_k_grid(Xe.shape[0]) if self.k_grid is None else self.k_grid
                k, self.k_scores_ = evaluator.choose_k(
                    criterion, list(grid), np.ones(Xe.shape[1], dtype=bool)
                )
                evaluator.n_neighbors = k
                factory = replace(factory, n_neighbors=k)
            self.n_neighbors_ = k
        self.evaluator_factory_ = factory
        logger.info(
            "%s: %d x %d, evaluator %s, k=%s",
            type(self).__name__,
            *Xe.shape,
            type(evaluator).__name__,
            self.n_neighbors_,
        )
        return SearchProblem(Xe, evaluator, criterion)

    def transform(self, X):
        """Reduce X to the selected features (nominal columns may hold missing values).

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Data with the columns seen in ``fit``.

        Returns
        -------
        X_r : ndarray of shape (n_samples, n_selected_features)
            The selected columns, values unchanged.
        """
        check_is_fitted(self)
        if not self.categorical_features_.any():
            return super().transform(X)
        X = validate_data(self, X, dtype=None, ensure_all_finite=False, reset=False)
        return self._transform(X)
