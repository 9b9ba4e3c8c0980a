"""The interfaces of the leave-one-out evaluators and of the classifiers fitted on a subset.

A search keeps a *state* for its current subset and asks an evaluator (:class:`_Evaluator`)
for the held-out predictions after candidate moves; a classifier fitted on a subset
(:class:`_SubsetModel`) predicts class codes of new rows. Both interfaces are documented
once here; a method an implementation leaves without a docstring inherits the interface's.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__: list[str] = []


def _inherit_docs(cls, interface) -> None:
    """Give the methods of ``cls`` that have no docstring the one of ``interface``."""
    for name, member in vars(cls).items():
        shared = getattr(interface, name, None)
        if callable(member) and member.__doc__ is None and shared is not None:
            member.__doc__ = shared.__doc__


class _SubsetModel:
    """The interface of a classifier fitted on a feature subset, documented once."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _inherit_docs(cls, _SubsetModel)

    def predict_codes(self, X) -> NDArray[np.int64]:
        """Class codes for the rows of ``X`` (all columns; the model reads its subset).

        Parameters
        ----------
        X : ndarray of shape (n_queries, n_features)
            Encoded like the training data.

        Returns
        -------
        codes : ndarray of int, shape (n_queries,)
        """
        raise NotImplementedError


class _Evaluator:
    """The interface of the leave-one-out evaluators, documented once.

    A search keeps a *state* for its current subset (the kNN distance matrix, the naive
    Bayes joint log-likelihoods, or the mask itself for cross-validation) and asks for the
    predictions after every candidate move. A method a subclass implements without a
    docstring gets the one written here.
    """

    rows: NDArray[np.int64]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _inherit_docs(cls, _Evaluator)

    def initial_state(self, mask):
        """The search state of the subset ``mask``.

        Parameters
        ----------
        mask : ndarray of bool, shape (n_features,)

        Returns
        -------
        state : ndarray
            Distances (kNN), joint log-likelihoods of ``rows`` (naive Bayes) or the mask.
        """
        raise NotImplementedError

    def apply_move(self, state, f: int, add: bool):
        """The state after adding (``add=True``) or removing feature ``f``.

        Parameters
        ----------
        state : ndarray
            The current state.
        f : int
            Feature index.
        add : bool

        Returns
        -------
        new_state : ndarray
        """
        raise NotImplementedError

    def predict_state(self, state) -> NDArray[np.int64]:
        """Leave-one-out (or cross-validated) predictions of ``rows`` from a state.

        Parameters
        ----------
        state : ndarray

        Returns
        -------
        pred : ndarray of int, shape (len(rows),)
            Predicted class codes.
        """
        raise NotImplementedError

    def predict_moves(self, state, candidates, add: bool, n_jobs=None) -> NDArray[np.int64]:
        """Predictions of ``rows`` after adding (removing) each candidate feature.

        Parameters
        ----------
        state : ndarray
            The current state.
        candidates : array-like of int, shape (m,)
        add : bool
        n_jobs : int, default=None
            Threads (kNN) or processes (a scikit-learn classifier); naive Bayes is one
            vectorized pass. The result does not depend on it.

        Returns
        -------
        pred : ndarray of int, shape (m, len(rows))
        """
        raise NotImplementedError

    def score_moves(self, state, candidates, add: bool, criterion, n_jobs=None, baseline=None):
        """Criterion scores after adding (removing) each candidate, for a greedy step.

        ``criterion.score(predict_moves(...))``, except that a move that provably cannot be
        the *first* best (its score is below another's, or equal to an earlier one's) may
        get ``-inf`` without being fully evaluated: ``np.argmax`` of the result, and the
        score there, are exact.

        Parameters
        ----------
        state : ndarray
            The current state.
        candidates : array-like of int, shape (m,)
        add : bool
        criterion : Criterion
            Scores predictions of ``rows``.
        n_jobs : int, default=None
            As for :meth:`predict_moves`.
        baseline : ndarray of int, shape (len(rows),), optional
            Predictions to beat (for example the current subset's). A move that provably
            does not beat them (no more of ``criterion``'s weighted successes, see
            :meth:`Criterion.row_weights`) may then get ``-inf`` even when no move does
            better: the argmax and its score are exact whenever some move scores higher
            than the baseline. For a step taken only when it improves the score.

        Returns
        -------
        scores : ndarray of float64, shape (m,)

        Examples
        --------
        >>> from widefs.search import Criterion, KNNLeaveOneOut
        >>> X = np.array([[0.0, 5.0], [0.1, 0.0], [1.0, 5.1], [1.1, 0.1]])
        >>> y = np.array([0, 0, 1, 1])
        >>> crit = Criterion(y)
        >>> ev = KNNLeaveOneOut(X, y, 2, np.zeros(2, bool), crit.rows, n_neighbors=1)
        >>> D = ev.initial_state(np.zeros(2, bool))
        >>> ev.score_moves(D, np.array([0, 1]), True, crit)  # feature 1 cannot win: abandoned
        array([  1., -inf])
        """
        return np.asarray(
            criterion.score(self.predict_moves(state, candidates, add, n_jobs)), dtype=np.float64
        )

    def predict_masks(self, masks, n_jobs=None) -> NDArray[np.int64]:
        """Predictions of ``rows`` for arbitrary subsets.

        Parameters
        ----------
        masks : ndarray of bool, shape (m, n_features)
        n_jobs : int, default=None
            As for :meth:`predict_moves`.

        Returns
        -------
        pred : ndarray of int, shape (m, len(rows))
        """
        raise NotImplementedError

    def predict_subset(self, mask) -> NDArray[np.int64]:
        """Predictions of ``rows`` with the features of ``mask``.

        Parameters
        ----------
        mask : ndarray of bool, shape (n_features,)

        Returns
        -------
        pred : ndarray of int, shape (len(rows),)
        """
        return self.predict_state(self.initial_state(mask))
