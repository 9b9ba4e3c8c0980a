"""The wrapper selectors' template: ``fit`` validates, searches, stores a typed result."""

from __future__ import annotations

import logging
from dataclasses import dataclass, fields

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from widefs._compat import HasMethods, fit_context
from widefs._utils import (
    SupervisedSelectorMixin,
    check_classes,
    encode_fit,
    refuse_sparse,
    sharing_label_free_work,
)
from widefs.search._chunks import _map_chunks, _split
from widefs.search._criterion import Criterion
from widefs.search._evaluators import KNNEvaluator
from widefs.search._params import _CachedParamNames

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
    n_jobs : int or None
        Threads for scoring candidates (the evaluator object's ``n_jobs``).
    """

    X: np.ndarray
    evaluator: object
    criterion: Criterion
    n_jobs: int | None = None

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


class WrapperSelector(_CachedParamNames, SupervisedSelectorMixin, SelectorMixin, BaseEstimator):
    """Base of the wrapper selectors (not public).

    ``fit`` is a template: validate and encode the input, check the search's own parameters
    (``_check_search_params``), build the criterion and the engine through the
    ``evaluator`` object (choosing k), run the subclass's ``_search`` and store the fields
    of the :class:`SearchResult` it returns.
    """

    _parameter_constraints: dict = {
        "evaluator": [HasMethods(["leave_one_out", "fit_model"]), None],
        "verbose": ["verbose"],
    }

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Run the search.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Numeric and nominal columns (see the evaluator's ``categorical_features``).
        y : array_like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted selector.
        """
        refuse_sparse(self, X)  # before any work: one line saying what to do
        return self._finish(self._search(self._prepare(X, y)))

    def _finish(self, result: SearchResult):
        """Store the fields of ``result`` as fitted attributes."""
        for name, value in result.fitted_attributes().items():
            setattr(self, name, value)
        self.search_score_ = float(result.score)
        return self

    def _fit_encoded(self, Xe, y_codes, classes, encoding):
        """``fit`` on data ``encode_fit`` already validated and encoded (what
        :class:`widefs.ensemble.ClassSpecificEnsemble` does once for its searches).

        The same fitted attributes as ``fit(Xe, classes[y_codes])`` where the encoding of
        ``Xe`` by this selector is ``encoding`` (the caller makes sure of it): the
        parameters are validated, the data not again.
        """
        self._validate_params()
        self._check_search_params(Xe.shape[1])
        self.n_features_in_ = Xe.shape[1]
        self.classes_ = classes
        self.categorical_features_ = encoding.nominal.copy()
        return self._finish(self._search(self._problem(Xe, y_codes, encoding)))

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
        search, in threads, inside :func:`widefs._utils.sharing_label_free_work`, so that
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

        base = clone(self)
        spec = base._evaluator()
        Xe, y, encoding = encode_fit(
            base, X, y, spec.categorical_features, missing="category", ensure_min_samples=2
        )
        base._check_search_params(Xe.shape[1])
        classes, y_codes = check_classes(base, y)
        permutations = np.asarray(permutations)
        serial = spec.set_params(n_jobs=None)  # each search serial: threads over permutations

        def work(idx):
            out = np.empty(idx.size)
            for t, i in enumerate(idx):
                est = clone(self).set_params(evaluator=clone(serial))
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

    def _evaluator(self):
        """A validated copy of the ``evaluator`` object (``None``: :class:`KNNEvaluator`)."""
        from sklearn.base import clone

        spec = KNNEvaluator() if self.evaluator is None else clone(self.evaluator)
        spec._validate_params()
        return spec

    def _prepare(self, X, y) -> SearchProblem:
        """Validate and encode, check parameters, then the label-dependent part."""
        Xe, y, encoding = encode_fit(
            self,
            X,
            y,
            self._evaluator().categorical_features,
            missing="category",
            ensure_min_samples=2,
        )
        self._check_search_params(Xe.shape[1])
        self.classes_, y_codes = check_classes(self, y)
        self.categorical_features_ = encoding.nominal.copy()
        return self._problem(Xe, y_codes, encoding)

    def _problem(self, Xe, y_codes, encoding) -> SearchProblem:
        """Build criterion and engine for these class codes and choose k."""
        spec = self._evaluator()
        criterion = spec._criterion(self.classes_, y_codes)
        engine = spec.leave_one_out(
            Xe, y_codes, n_classes=self.classes_.size, encoding=encoding, rows=criterion.rows
        )
        all_features = np.ones(Xe.shape[1], dtype=bool)
        self.evaluator_, self.k_scores_ = spec._tune(engine, criterion, all_features)
        knn = isinstance(self.evaluator_, KNNEvaluator)
        self.n_neighbors_ = int(self.evaluator_.n_neighbors) if knn else None
        logger.info(
            "%s: %d x %d, evaluator %s, k=%s",
            type(self).__name__,
            *Xe.shape,
            type(engine).__name__,
            self.n_neighbors_,
        )
        return SearchProblem(Xe, engine, criterion, n_jobs=spec.n_jobs)

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
