"""Leave-one-out evaluators for wrapper feature-subset search.

A wrapper search scores many subsets that differ from the current one by a single
feature. Refitting a classifier per subset and per left-out example (what
``SequentialFeatureSelector(cv=LeaveOneOut())`` does) costs ``n`` fits per candidate;
the evaluators here never refit:

* :class:`KNNLeaveOneOut` keeps the pairwise squared-distance matrix ``D`` of the
  current subset. Adding (removing) feature ``f`` adds (subtracts) its contribution
  ``c_f(i, j)``, so every candidate's leave-one-out predictions come from one compiled
  pass over ``D +- c_f`` (``_kernels.knn_candidate_neighbours``, then a vote).
* :class:`NaiveBayesLeaveOneOut` removes each example's contribution from the class
  sufficient statistics (counts, means, centred sums of squares, category counts) in
  closed form; the joint log-likelihood is additive over features, so a candidate's
  predictions are the current sums plus (minus) one precomputed column.
* :class:`CrossValidationEvaluator` is the fallback for any scikit-learn classifier:
  ``cross_val_predict`` per candidate, clearly slower.

:class:`EvaluatorFactory` is the one place that maps a classifier kind (``"knn"``,
``"naive_bayes"`` or a scikit-learn classifier) and its settings to these evaluators and to
the matching classifier fitted on a subset (:class:`KNNModel`, :class:`NaiveBayesModel`,
:class:`SubsetClassifier`); the searches of this package and CEFS (:mod:`widefs.ensemble`)
both build theirs through it.

All evaluators return *predictions* (class codes) for a fixed set of held-out rows; a
:class:`Criterion` turns predictions into a score (overall accuracy, the accuracy on one
class's instances as CEFS uses, or a class-balanced variant).

Rules (Soares 2010, Section 5.2.5.1, made exact):

* kNN distance: squared Euclidean on numeric columns plus 1 per mismatching nominal
  column (nominal values are category codes). Neighbours are ranked by distance, equal
  distances by the lower row index; a vote tie goes to the tied class whose nearest
  member comes first in that ranking (for two classes: the nearest neighbour's class).
* Naive Bayes: Gaussian on numeric columns (population variance of the class plus
  ``var_smoothing`` times the largest variance of any numeric column of the training
  data, fixed once so that subset scores stay additive), categorical with Laplace
  smoothing ``alpha`` over the categories seen in the training data (a missing value is
  a category), class priors from the training counts. Class posteriors within a relative
  ``1e-10`` of the best are ties, won by the lowest class code.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from widefs.utils import array_key

__all__ = [
    "CLASS_K_GRID",
    "Criterion",
    "CrossValidationEvaluator",
    "EvaluatorFactory",
    "KNNLeaveOneOut",
    "KNNModel",
    "NaiveBayesLeaveOneOut",
    "NaiveBayesModel",
    "SubsetClassifier",
    "dissertation_k_grid",
]

#: k values tried for class-specific members (Soares 2010, Section 5.2.5.2: larger k made
#: members "recallers").
CLASS_K_GRID = tuple(range(1, 11))
_POSTERIOR_RTOL = 1e-10
_BLOCK_ELEMENTS = 4_000_000  # floats per temporary block in the naive Bayes moves
# Neighbour lists shared across relabellings hold at least this many neighbours, so that
# searches whose k was chosen per relabelling (from CLASS_K_GRID, say) share them.
_SHARED_MIN_K = 10
# Up to this many neighbours the leave-one-out vote finds them by insertion; beyond, numpy
# sorts each row of the distances first.
_INSERTION_MAX_K = 32


def _kernels():
    """The compiled kNN kernels, imported (and compiled) on first use."""
    from widefs.search import _kernels

    return _kernels


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


def _argmax_ties(jll: NDArray[np.float64], axis: int = -1) -> NDArray[np.int64]:
    """Index of the largest value; values within a relative 1e-10 of it tie to the lowest index.

    >>> _argmax_ties(np.array([[-3.0, -1.0, -1.0 + 1e-14], [0.0, -np.inf, 1.0]]))
    array([1, 2])
    """
    top = np.max(jll, axis=axis, keepdims=True)
    with np.errstate(invalid="ignore"):
        tol = _POSTERIOR_RTOL * (1.0 + np.abs(top))
        near = jll >= top - tol
    return np.argmax(near, axis=axis)


class Criterion:
    """Turns leave-one-out predictions into a subset score.

    Parameters
    ----------
    y : ndarray of int, shape (n_samples,)
        Class codes of the training examples.
    target : int or None, default=None
        Class code whose instances are scored (CEFS); ``None`` for all instances.
    kind : {"recall", "balanced"}, default="recall"
        With a target: ``"recall"`` is the accuracy on the target class's instances
        (Soares 2010, Chapter 4: the class-specific criterion); ``"balanced"`` is the
        mean of that recall and the specificity ``P(pred != c | y != c)``, so a member
        predicting its class for everything (a "recaller") scores only 1/2. Without a
        target both are the plain accuracy.

    Attributes
    ----------
    rows : ndarray of int
        Rows whose predictions the score needs.

    See Also
    --------
    EvaluatorFactory.leave_one_out : Evaluators predicting ``rows``.

    Examples
    --------
    >>> crit = Criterion(np.array([0, 0, 1, 1]), target=1)
    >>> crit.rows.tolist(), float(crit.score(np.array([1, 0])))
    ([2, 3], 0.5)
    """

    def __init__(self, y: NDArray[np.int64], target: int | None = None, kind: str = "recall"):
        self.y = np.asarray(y, dtype=np.int64)
        self.target = target
        self.kind = kind
        if target is None or kind == "recall":
            self.rows = (
                np.arange(self.y.size) if target is None else np.flatnonzero(self.y == target)
            )
        else:
            self.rows = np.arange(self.y.size)
        self._truth = self.y[self.rows]

    def row_weights(self):
        """The score as a weighted count of successful rows, for bounding a partial count.

        Row r (of ``rows``) succeeds when its prediction equals ``want[r]`` (differs from
        it, when ``negate[r]``); the score is an increasing function of the sum of
        ``weight`` over the successes, and two sums that differ give scores that differ
        by far more than rounding (the accuracy is ``sum / len(rows)``; the balanced score
        is ``sum / (2 n_pos n_neg)``).

        Returns
        -------
        weight, want : ndarray of int64, shape (len(rows),)
        negate : ndarray of bool, shape (len(rows),)
            All three empty when no such form exists (a balanced score with one of its
            two groups empty).

        See Also
        --------
        KNNLeaveOneOut.score_moves : Abandons candidates with this count.

        Examples
        --------
        >>> crit = Criterion(np.array([0, 0, 0, 1]), target=1, kind="balanced")
        >>> weight, want, negate = crit.row_weights()
        >>> weight.tolist(), want.tolist(), negate.tolist()
        ([1, 1, 1, 3], [1, 1, 1, 1], [True, True, True, False])
        >>> pred = np.array([0, 1, 0, 1])  # rows 0, 2 and 3 succeed: 1 + 1 + 3 = 5 of 6
        >>> round(float(crit.score(pred)), 4)  # (recall 1 + specificity 2/3) / 2 = 5/6
        0.8333
        """
        r = self.rows.size
        if self.target is None or self.kind == "recall":
            return np.ones(r, dtype=np.int64), self._truth.copy(), np.zeros(r, dtype=bool)
        pos = self._truth == self.target
        n_pos, n_neg = int(pos.sum()), int((~pos).sum())
        if n_pos == 0 or n_neg == 0:
            return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, bool)
        # recall / 2 + specificity / 2 = (n_neg * hits_pos + n_pos * hits_neg) / (2 n_pos n_neg)
        weight = np.where(pos, n_neg, n_pos).astype(np.int64)
        return weight, np.full(r, self.target, dtype=np.int64), ~pos

    def score(self, pred: NDArray[np.int64]) -> NDArray[np.float64]:
        """Scores of prediction rows.

        Parameters
        ----------
        pred : ndarray of int, shape (m, len(rows)) or (len(rows),)
            Predicted class codes of ``rows``, one row per subset.

        Returns
        -------
        scores : ndarray of float, shape (m,) or scalar
        """
        pred = np.asarray(pred)
        if self.target is None or self.kind == "recall":
            return np.mean(pred == self._truth, axis=-1)
        pos = self._truth == self.target
        recall = np.mean(pred[..., pos] == self.target, axis=-1)
        specificity = np.mean(pred[..., ~pos] != self.target, axis=-1)
        return 0.5 * (recall + specificity)


# The ``weight, want, negate, floor, visit`` of an unbounded kNN kernel pass: every row voted.
_NO_BOUND = (
    np.empty(0, np.int64),
    np.empty(0, np.int64),
    np.empty(0, bool),
    np.int64(-1),
    np.empty(0, np.int64),
)
_EMPTY_ORDER = np.empty((0, 0), dtype=np.int64)  # no scan order: every example in index order
_LISTS_GIVEN = np.empty((0, 0), dtype=np.float64)  # no distances: the kernel votes given lists


def _split(n: int, n_jobs) -> list[np.ndarray]:
    """Index chunks of ``range(n)``, one per effective job."""
    from joblib import effective_n_jobs

    n_chunks = max(1, min(n, effective_n_jobs(n_jobs)))
    return [c for c in np.array_split(np.arange(n), n_chunks) if c.size]


def _chunk_order(visit, idx) -> np.ndarray:
    """The positions of chunk ``idx`` (a range of a :func:`_split`) in the order ``visit``
    gives them, counted from the chunk's start; empty stays empty (natural order)."""
    if visit.size == 0:
        return visit
    inside = visit[(visit >= idx[0]) & (visit <= idx[-1])]
    return np.ascontiguousarray(inside - idx[0])


def _map_chunks(work, chunks) -> list:
    """``[work(c) for c in chunks]``, in threads when there is more than one chunk."""
    if len(chunks) <= 1:  # none: nothing to do (no candidates)
        return [work(c) for c in chunks]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=len(chunks), backend="threading")(delayed(work)(c) for c in chunks)


def _threaded(work, chunks, out):
    """Fill ``out[idx] = rows`` from ``work(idx) -> (idx, rows)`` over index chunks."""
    for idx, part in _map_chunks(work, chunks):
        out[idx] = part
    return out


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


class _KNNData:
    """The training data of a kNN classifier: features transposed, codes, nominal columns."""

    def __init__(self, X, y, n_classes, nominal, n_neighbors):
        self.XT = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
        self.y = np.ascontiguousarray(y, dtype=np.int64)
        self.n_classes = int(n_classes)
        self.nominal = np.ascontiguousarray(nominal, dtype=np.bool_)
        self.n_neighbors = int(n_neighbors)

    @property
    def n_samples(self) -> int:
        """Training examples."""
        return self.XT.shape[1]

    def distances_to(self, QT, cols) -> NDArray[np.float64]:
        """Distances from queries to the training rows on ``cols``, summed in that order.

        numpy, not a compiled kernel: a first fit then compiles one kernel less (a cold CEFS
        fit on colon executes ~7% fewer instructions), and distances are computed once per
        subset, not per candidate. Each column's terms are added one at a time in the order
        of ``cols`` (a reduction over the first axis of a C-ordered block adds its slices
        in order), as the kNN kernels do, so integer-valued data give exact distances and
        exact ties.

        Parameters
        ----------
        QT : ndarray of float64, shape (n_features, n_queries)
            The queries, transposed.
        cols : array-like of int
            Feature indices.

        Returns
        -------
        D : ndarray of float64, shape (n_queries, n_samples)
            Squared differences on numeric columns plus a 0/1 mismatch on nominal ones.

        Examples
        --------
        >>> data = _KNNData(np.array([[0.0, 1.0], [3.0, 1.0]]), [0, 1], 2, [False, True], 1)
        >>> data.distances_to(np.array([[1.0], [2.0]]), [0, 1])
        array([[2., 5.]])
        """
        from widefs.utils import DEFAULT_BLOCK_BYTES, feature_blocks

        cols = np.asarray(cols, dtype=np.int64)
        D = np.zeros((QT.shape[1], self.n_samples))
        for part in feature_blocks(cols.size, 8 * D.size, max_bytes=DEFAULT_BLOCK_BYTES):
            block = cols[part]
            terms = QT[block][:, :, None] - self.XT[block][:, None, :]  # (columns, q, n)
            np.multiply(terms, terms, out=terms)
            nominal = self.nominal[block]
            if nominal.any():  # category codes: a square is 0 exactly when the codes agree
                terms[nominal] = terms[nominal] != 0.0
            terms[0] += D  # D + the first term (addition commutes exactly), then the rest
            D = np.add.reduce(terms, axis=0)
        return D

    def _vote_queries(self, D, k) -> NDArray[np.int64]:
        """kNN predictions of queries from their distances ``D`` to the training rows.

        Each query's k nearest (equal distances: the lower index first) vote; a vote tie
        goes to the tied class met first in that order.
        """
        nq = D.shape[0]
        k = max(1, min(int(k), D.shape[1]))
        nearest = np.argsort(D, axis=1, kind="stable")[:, :k]
        labels = self.y[nearest]
        counts = np.zeros((nq, self.n_classes), dtype=np.int64)
        np.add.at(counts, (np.arange(nq)[:, None], labels), 1)
        met = np.take_along_axis(counts, labels, axis=1)  # each neighbour's class count
        first_top = np.argmax(met == counts.max(axis=1, keepdims=True), axis=1)
        return labels[np.arange(nq), first_top]


class KNNLeaveOneOut(_KNNData, _Evaluator):
    """Leave-one-out k-nearest-neighbour predictions with incremental distances.

    The search state is the ``(n, n)`` matrix of squared distances on the current
    subset. Scoring all m candidate moves costs ``O(m * len(rows) * n)`` with no
    ``(m, n, n)`` temporary.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Numeric values and nominal category codes (see ``nominal``).
    y : ndarray of int, shape (n_samples,)
        Class codes ``0 .. n_classes - 1``.
    n_classes : int
        Number of classes.
    nominal : ndarray of bool, shape (n_features,)
        Nominal columns (0/1 mismatch distance).
    rows : ndarray of int
        Held-out rows whose predictions are returned.
    n_neighbors : int, default=1
        k.

    See Also
    --------
    EvaluatorFactory : Builds this evaluator for ``estimator="knn"``.
    KNNModel : The same classifier fitted on all rows, for new examples.

    Examples
    --------
    >>> X = np.array([[0.0, 5.0], [0.1, 0.0], [1.0, 5.0], [1.1, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> ev = KNNLeaveOneOut(X, y, 2, np.zeros(2, bool), np.arange(4), n_neighbors=1)
    >>> D = ev.initial_state(np.array([False, False]))
    >>> ev.predict_moves(D, np.array([0, 1]), add=True)  # feature 0 separates, 1 does not
    array([[0, 0, 1, 1],
           [1, 1, 0, 0]])
    """

    def __init__(self, X, y, n_classes, nominal, rows, n_neighbors=1):
        from widefs.utils import data_digest, label_free_cache

        super().__init__(X, y, n_classes, nominal, n_neighbors)
        self.rows = np.ascontiguousarray(rows, dtype=np.int64)
        # Inside widefs.utils.sharing_label_free_work (a search certificate), distance
        # matrices and candidate neighbour lists, which do not depend on y, are shared
        # with the evaluators of the other relabellings.
        self._shared = label_free_cache()
        self._data_id = data_digest(self.XT, self.nominal) if self._shared is not None else b""
        self._no_change = None  # _unchanged_pass' constant column, built on first use
        self._shared_k = 0  # the largest k of choose_k's grid (shared list length)
        # Each feature's last score from score_moves (-inf: abandoned), to scan the likely
        # best first next time (a bounded pass then abandons the others sooner).
        self._last_scores = np.full(self.XT.shape[0], -np.inf)

    def distances(self, cols) -> NDArray[np.float64]:
        """Squared distances between all training rows on ``cols`` (summed in that order).

        Parameters
        ----------
        cols : array-like of int
            Feature indices.

        Returns
        -------
        D : ndarray of float64, shape (n_samples, n_samples)
        """
        D = self.distances_to(self.XT, cols)
        # (a - b)^2 == (b - a)^2 exactly, so D is symmetric; its diagonal is 0 by definition.
        np.fill_diagonal(D, 0.0)
        return D

    def initial_state(self, mask) -> NDArray[np.float64]:
        cols = np.flatnonzero(mask)
        if self._shared is None:
            return self.distances(cols)
        key = (b"distances", self._data_id, array_key(cols))
        return self._shared.get_or_compute(key, lambda: self.distances(cols))

    def state_from(self, D_ref, ref_mask, mask) -> NDArray[np.float64]:
        """Distances on ``mask`` from those on ``ref_mask``, updating only differing features.

        Computed from scratch when that is cheaper.

        Parameters
        ----------
        D_ref : ndarray of float64, shape (n_samples, n_samples)
            Distances on ``ref_mask``.
        ref_mask, mask : ndarray of bool, shape (n_features,)

        Returns
        -------
        D : ndarray of float64, shape (n_samples, n_samples)
            ``D_ref`` itself when the masks are equal.
        """
        ref_mask = np.asarray(ref_mask, dtype=bool)
        mask = np.asarray(mask, dtype=bool)
        add = np.flatnonzero(mask & ~ref_mask)
        remove = np.flatnonzero(ref_mask & ~mask)
        if add.size + remove.size == 0:
            return D_ref
        if add.size + remove.size >= mask.sum():
            return self.initial_state(mask)

        def update():
            D = np.empty_like(D_ref)
            _kernels().update_distances(D_ref, self.XT, self.nominal, add, remove, D)
            return D

        if self._shared is None:
            return update()
        key = (b"update", self._data_id, array_key(D_ref), array_key(add), array_key(remove))
        return self._shared.get_or_compute(key, update)

    def contribution(self, f: int) -> NDArray[np.float64]:
        """``c_f(i, j)``: squared difference, or 0/1 mismatch for a nominal column.

        Parameters
        ----------
        f : int
            Feature index.

        Returns
        -------
        c : ndarray of float64, shape (n_samples, n_samples)
        """
        x = self.XT[f]
        diff = x[:, None] - x[None, :]
        return (diff != 0.0).astype(np.float64) if self.nominal[f] else diff * diff

    def apply_move(self, state, f: int, add: bool) -> NDArray[np.float64]:
        # The same floating-point operations as the kernel, so the accepted state equals
        # the one that was scored.
        sign = 1.0 if add else -1.0
        return state + sign * self.contribution(f)

    def predict_state(self, D, n_neighbors: int | None = None) -> NDArray[np.int64]:
        """Leave-one-out predictions of ``rows`` from a state.

        Parameters
        ----------
        D : ndarray of float64, shape (n_samples, n_samples)
        n_neighbors : int, default=None
            k (default: ``self.n_neighbors``).

        Returns
        -------
        pred : ndarray of int, shape (len(rows),)
        """
        k = self.n_neighbors if n_neighbors is None else int(n_neighbors)
        return self.predict_state_ks(D, [k])[0]

    def predict_state_ks(self, D, ks) -> NDArray[np.int64]:
        """Leave-one-out predictions of ``rows`` for several k at once.

        Parameters
        ----------
        D : ndarray of float64, shape (n_samples, n_samples)
        ks : array-like of int
            Any order.

        Returns
        -------
        pred : ndarray of int, shape (len(ks), len(rows))
        """
        return self._loo_votes(np.ascontiguousarray(D), np.asarray(ks, dtype=np.int64))

    def predict_states(self, Ds) -> NDArray[np.int64]:
        """Predictions for a stack of states.

        Parameters
        ----------
        Ds : ndarray of float64, shape (m, n_samples, n_samples)

        Returns
        -------
        pred : ndarray of int, shape (m, len(rows))
        """
        R = self.rows.size
        if self.n_samples < 2 or R == 0:
            return np.zeros((len(Ds), R), dtype=np.int64)  # no other example votes: class 0
        # The genetic algorithm's hot path: one kernel call per state, votes written in place.
        out = np.empty((len(Ds), R), dtype=np.int64)
        K = min(max(self.n_neighbors, 1), self.n_samples - 1)
        no_lists = np.empty((0, R, K), dtype=np.int32)
        for b, D in enumerate(Ds):
            self._unchanged_pass(np.ascontiguousarray(D), K, no_lists, out[b : b + 1])
        return out

    def _unchanged_pass(self, D, K, lists, votes):
        """The candidate kernel on the move that changes nothing (``sign`` 0): the K nearest
        on ``D`` itself of each row, listed (``lists`` of shape ``(1, R, K)``) or voted
        (``votes`` of shape ``(1, R)``). The kernels of the search's moves, so a run compiles
        no third one. Beyond ``_INSERTION_MAX_K`` neighbours the rows of ``D`` are sorted
        first, so that the kernel's scan stops after the K nearest."""
        if self._no_change is None:  # a constant column, as XT, nominal and cands
            self._no_change = (
                np.zeros((1, self.n_samples)),
                np.zeros(1, dtype=bool),
                np.zeros(1, dtype=np.int64),
            )
        order = np.argsort(D, axis=1, kind="stable") if K > _INSERTION_MAX_K else _EMPTY_ORDER
        _kernels().knn_candidate_neighbours(
            D, order, *self._no_change, 0.0, self.rows, K, self.y, self.n_classes, *_NO_BOUND,
            lists, votes,
        )  # fmt: skip

    def _loo_votes(self, D, ks) -> NDArray[np.int64]:
        """Leave-one-out votes of ``rows`` on ``D`` for each k of ``ks``."""
        n = self.n_samples
        R = self.rows.size
        if n < 2 or R == 0:
            return np.zeros((ks.size, R), dtype=np.int64)  # no other example votes: class 0
        K = int(np.clip(ks.max(initial=1), 1, n - 1))
        if ks.size == 1:
            out = np.empty((1, R), dtype=np.int64)
            self._unchanged_pass(D, K, np.empty((0, R, K), dtype=np.int32), out)
            return out
        lists = np.empty((1, R, K), dtype=np.int32)
        self._unchanged_pass(D, K, lists, np.empty((0, R), dtype=np.int64))
        out = np.empty((ks.size, R), dtype=np.int64)
        positions = np.arange(R, dtype=np.int64)
        for j, k in enumerate(ks):
            kk = int(np.clip(k, 1, n - 1))
            self._vote_lists(lists, self._no_change, positions, kk, _NO_BOUND, out[j : j + 1])
        return out

    def _vote_lists(self, lists, features, positions, kk, bound, out):
        """The kernel on given neighbour lists (``D`` empty): ``out[t, r]``, the vote of the
        kk nearest of ``lists[t, positions[r]]``, with ``bound``. ``features``: the
        ``(XT, nominal, cands)`` the lists were made for (only their count is used)."""
        _kernels().knn_candidate_neighbours(
            _LISTS_GIVEN, _EMPTY_ORDER, *features, 1.0, positions, kk, self.y, self.n_classes,
            *bound, lists, out,
        )  # fmt: skip

    def predict_moves(self, state, candidates, add: bool, n_jobs=None) -> NDArray[np.int64]:
        return self._moves(state, candidates, add, n_jobs)

    def score_moves(self, state, candidates, add: bool, criterion, n_jobs=None, baseline=None):
        # Voted row by row with a bound (see the kernel): a candidate that can no longer be
        # the first best (or beat the baseline's count of successes) is abandoned. The
        # candidates that scored best last time are scanned first: the bound then tightens
        # sooner (same results, ~10% less kernel time in a CEFS certificate).
        cands = np.ascontiguousarray(candidates, dtype=np.int64)
        bound = _NO_BOUND
        if np.array_equal(criterion.rows, self.rows):
            weight, want, negate = (np.ascontiguousarray(a) for a in criterion.row_weights())
            floor = -1
            if baseline is not None and weight.size:
                floor = int(weight[(np.asarray(baseline) == want) != negate].sum()) + 1
            visit = np.argsort(-self._last_scores[cands], kind="stable")
            bound = (weight, want, negate, np.int64(floor), visit)
        pred = self._moves(state, cands, add, n_jobs, bound)
        scores = np.asarray(criterion.score(pred), dtype=np.float64)
        if pred.size:
            scores[pred[:, 0] < 0] = -np.inf  # abandoned (class codes are >= 0)
        if bound is not _NO_BOUND:
            self._last_scores[cands] = scores
        return scores

    def _moves(self, state, candidates, add: bool, n_jobs, bound=_NO_BOUND):
        cands = np.ascontiguousarray(candidates, dtype=np.int64)
        out = np.empty((cands.size, self.rows.size), dtype=np.int64)
        if cands.size == 0:
            return out
        D = np.ascontiguousarray(state)
        sign = 1.0 if add else -1.0
        k = max(1, self.n_neighbors)
        kk = min(k, self.n_samples - 1)
        if self._shared is not None:
            # The neighbour lists depend on D and the candidates only (the K nearest start
            # with the k nearest, so one list serves every k <= K): found in the shared
            # cache, or computed for every row and stored the third time this position is
            # reached (in any relabelling, with any k); then only the vote uses y. Lists
            # for every row cost several bounded passes (50x at k = 10 on colon), so a
            # position two relabellings reach, deep in a search, is not worth them; the
            # start of a search, which every relabelling reaches, is. They hold the
            # largest k a search's grid may choose (``_shared_k``), so that relabellings
            # whose k differs do not recompute them for each larger k.
            key = (b"moves", self._data_id, array_key(D), array_key(cands), array_key([sign]))
            neighbours = self._shared.lookup(key)
            if neighbours is not None and neighbours.shape[2] < kk:
                neighbours = None  # stored for a smaller k: replaced by a longer list
            if neighbours is None and self._shared.wanted(key, after=2):
                K = self._shared_list_length(k, cands.size)
                neighbours = self.candidate_neighbours(D, cands, add, K, n_jobs=n_jobs)
                self._shared.store(key, neighbours)
            if neighbours is not None:
                features = (self.XT, self.nominal, cands)
                self._vote_lists(neighbours, features, self.rows, kk, bound, out)
                return out
        # Needed once: the kernel votes as it goes, no lists written.
        return self._candidate_pass(D, cands, add, kk, self.rows, n_jobs, votes=True, bound=bound)

    def _shared_list_length(self, k: int, n_candidates: int) -> int:
        """Neighbours per shared list: k, at least ``_SHARED_MIN_K`` and the largest k of
        the grid ``choose_k`` saw, within an eighth of the sharing budget."""
        n = self.n_samples
        K = min(max(k, _SHARED_MIN_K, self._shared_k), n - 1)
        fits = self._shared.budget_bytes // 8 // max(4 * n_candidates * n, 1)
        return max(min(K, fits), k)

    def candidate_neighbours(self, D, candidates, add, k, rows=None, n_jobs=None):
        """Leave-one-out neighbours after each candidate move (no labels involved).

        Parameters
        ----------
        D : ndarray of float64, shape (n_samples, n_samples)
            Current distances.
        candidates : ndarray of int, shape (m,)
        add : bool
            Add (True) or remove each candidate.
        k : int
            Neighbours (at most ``n_samples - 1`` are listed).
        rows : ndarray of int, default=None
            Rows whose neighbours are listed (``None``: all).
        n_jobs : int, default=None
            Threads over candidates.

        Returns
        -------
        neighbours : ndarray of int32, shape (m, len(rows), min(k, n_samples - 1))
            Nearest first, equal distances to the lower index.
        """
        cands = np.ascontiguousarray(candidates, dtype=np.int64)
        n = self.n_samples
        rows = np.arange(n) if rows is None else np.ascontiguousarray(rows, dtype=np.int64)
        return self._candidate_pass(
            np.ascontiguousarray(D), cands, add, min(int(k), n - 1), rows, n_jobs
        )

    def _candidate_pass(self, D, cands, add, kk, rows, n_jobs, votes=False, bound=_NO_BOUND):
        """The kernel over candidate chunks: neighbour lists, or (``votes``) predictions
        (with ``bound = (weight, want, negate)``: abandoned candidates start with -1)."""
        # Adding to a non-empty subset: rows of D in increasing order, ties by index, so
        # that the kernel's scan stops early (from the empty subset every distance is 0).
        if add and np.any(D):
            order = np.argsort(D, axis=1, kind="stable")
        else:
            order = np.empty((0, 0), dtype=np.int64)
        sign = 1.0 if add else -1.0
        kernel = _kernels().knn_candidate_neighbours
        if votes:
            out = np.empty((cands.size, rows.size), dtype=np.int64)
        else:
            out = np.empty((cands.size, rows.size, kk), dtype=np.int32)
        no_lists = np.empty((0, rows.size, kk), dtype=np.int32)
        no_votes = np.empty((0, rows.size), dtype=np.int64)
        weight, want, negate, floor, visit = bound

        def work(idx):
            # Chunks are consecutive ranges: each thread writes its own rows of ``out``.
            part = out[idx[0] : idx[-1] + 1]
            lists, preds = (no_lists, part) if votes else (part, no_votes)
            # This chunk's candidates in the order ``visit`` gives them (positions in it).
            sub = visit if idx.size == cands.size else _chunk_order(visit, idx)
            kernel(
                D, order, self.XT, self.nominal, cands[idx], sign, rows, kk, self.y,
                self.n_classes, weight, want, negate, floor, sub, lists, preds,
            )  # fmt: skip

        _map_chunks(work, _split(cands.size, n_jobs))
        return out

    def predict_masks(self, masks, n_jobs=None) -> NDArray[np.int64]:
        masks = np.asarray(masks, dtype=bool)
        out = np.empty((masks.shape[0], self.rows.size), dtype=np.int64)
        if masks.shape[0] == 0:
            return out

        def work(idx):
            return idx, np.array([self.predict_subset(masks[m]) for m in idx])

        return _threaded(work, _split(masks.shape[0], n_jobs), out)

    def choose_k(self, criterion: Criterion, grid, mask) -> tuple[int, dict]:
        """Pick k by the criterion's leave-one-out score on the features of ``mask``.

        Soares (2010), Section 5.2.3: k is tuned once, before the search, by leave-one-out
        on the training set (for class-specific members, on that class's criterion). Ties
        go to the smaller k; k outside ``1 .. n_samples - 1`` is dropped.

        Parameters
        ----------
        criterion : Criterion
        grid : iterable of int
        mask : ndarray of bool, shape (n_features,)

        Returns
        -------
        k : int
        scores : dict {k: score}
        """
        grid = sorted({int(k) for k in grid if 1 <= int(k) <= self.n_samples - 1}) or [1]
        self._shared_k = grid[-1]  # the longest neighbour list worth sharing (see _moves)
        scores = criterion.score(self.predict_state_ks(self.initial_state(mask), grid))
        best = int(np.argmax(scores))  # first maximum: the smallest k
        return grid[best], dict(zip(grid, scores.tolist()))


class KNNModel(_KNNData, _SubsetModel):
    """kNN classifier on a feature subset with the evaluator's distance and tie rules.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Encoded training data.
    y : ndarray of int, shape (n_samples,)
        Class codes.
    n_classes : int
    nominal : ndarray of bool, shape (n_features,)
    cols : array-like of int
        The subset's features.
    n_neighbors : int

    See Also
    --------
    KNNLeaveOneOut : Its leave-one-out counterpart.
    EvaluatorFactory.fit_model : Builds it for ``estimator="knn"``.

    Examples
    --------
    >>> X = np.array([[0.0, 9.0], [1.0, 9.0], [5.0, 0.0], [6.0, 0.0]])
    >>> model = KNNModel(X, np.array([0, 0, 1, 1]), 2, np.zeros(2, bool), [0], 1)
    >>> model.predict_codes(np.array([[0.4, 0.0], [5.2, 9.0]])).tolist()
    [0, 1]
    """

    def __init__(self, X, y, n_classes, nominal, cols, n_neighbors):
        super().__init__(X, y, n_classes, nominal, n_neighbors)
        self.cols = np.ascontiguousarray(cols, dtype=np.int64)

    def predict_codes(self, X) -> NDArray[np.int64]:
        QT = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
        D = self.distances_to(QT, self.cols)
        return self._vote_queries(D, self.n_neighbors)


def _gaussian_loglik(x, mean, var):
    return -0.5 * np.log(2.0 * np.pi * var) - 0.5 * (x - mean) ** 2 / var


class _NaiveBayesStats:
    """Class sufficient statistics of a mixed Gaussian / categorical naive Bayes."""

    def __init__(self, X, y, n_classes, nominal, n_categories, var_smoothing, alpha):
        X = np.asarray(X, dtype=np.float64)
        self.n_classes = C = int(n_classes)
        self.nominal = np.asarray(nominal, dtype=bool)
        self.num = np.flatnonzero(~self.nominal)
        self.nom = np.flatnonzero(self.nominal)
        self.alpha = float(alpha)
        self.counts = np.bincount(y, minlength=C).astype(np.float64)
        self.n_samples = y.size
        Xn = X[:, self.num]
        self.epsilon = float(var_smoothing * np.var(Xn, axis=0).max()) if self.num.size else 0.0
        self.mean = np.zeros((C, self.num.size))
        self.m2 = np.zeros((C, self.num.size))
        for c in range(C):
            Xc = Xn[y == c]
            if Xc.shape[0]:
                self.mean[c] = Xc.mean(axis=0)
                self.m2[c] = ((Xc - self.mean[c]) ** 2).sum(axis=0)
        # Categorical counts, flattened over (feature, category) with per-feature offsets.
        K = np.asarray(n_categories, dtype=np.int64)[self.nom]
        self.K = np.maximum(K, 1).astype(np.float64)
        self.offsets = np.concatenate([[0], np.cumsum(np.maximum(K, 1))[:-1]]).astype(np.int64)
        total = int(np.maximum(K, 1).sum())
        self.cat_counts = np.zeros((C, total))
        if self.nom.size:
            codes = X[:, self.nom].astype(np.int64)
            flat = self.offsets[None, :] + codes
            np.add.at(self.cat_counts, (np.repeat(y, self.nom.size), flat.ravel()), 1.0)

    def loglik(self, Xq, leave_out=None):
        """Per-feature log-likelihoods ``(nq, C, p)`` of query rows; ``leave_out`` gives
        each query's own class code when the query is a training example to be left out."""
        Xq = np.asarray(Xq, dtype=np.float64)
        nq, C = Xq.shape[0], self.n_classes
        out = np.empty((nq, C, self.nominal.size))
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.num.size:
                xn = Xq[:, self.num]
                var = self.m2 / np.maximum(self.counts, 1.0)[:, None] + self.epsilon
                out[:, :, self.num] = _gaussian_loglik(xn[:, None, :], self.mean[None], var[None])
                if leave_out is not None:
                    # Remove x from its own class: n' = n - 1, mean' and the centred sum
                    # of squares downdated (Welford in reverse).
                    r = np.arange(nq)
                    n_own = self.counts[leave_out][:, None]
                    mean = self.mean[leave_out]
                    n1 = n_own - 1.0
                    mean1 = np.where(n1 > 0, (n_own * mean - xn) / np.maximum(n1, 1.0), 0.0)
                    m2 = np.maximum(self.m2[leave_out] - (xn - mean) * (xn - mean1), 0.0)
                    var1 = m2 / np.maximum(n1, 1.0) + self.epsilon
                    own = np.where(n1 > 0, _gaussian_loglik(xn, mean1, var1), 0.0)
                    block = out[r, leave_out]
                    block[:, self.num] = own
                    out[r, leave_out] = block
            if self.nom.size:
                codes = Xq[:, self.nom].astype(np.int64)
                unseen = codes < 0
                flat = self.offsets[None, :] + np.where(unseen, 0, codes)
                cnt = np.where(unseen[None], 0.0, self.cat_counts[:, flat])  # (C, nq, q)
                cnt = np.moveaxis(cnt, 0, 1)
                n_c = np.broadcast_to(self.counts[None, :, None], cnt.shape).copy()
                if leave_out is not None:
                    r = np.arange(nq)
                    cnt[r, leave_out] -= 1.0
                    n_c[r, leave_out] -= 1.0
                out[:, :, self.nom] = np.log(cnt + self.alpha) - np.log(
                    n_c + self.alpha * self.K[None, None, :]
                )
        return out

    def log_prior(self, leave_out=None, nq=None):
        with np.errstate(divide="ignore"):
            if leave_out is None:
                return np.broadcast_to(np.log(self.counts / self.n_samples), (nq, self.n_classes))
            own = np.arange(self.n_classes)[None, :] == np.asarray(leave_out)[:, None]
            return np.log(self.counts[None, :] - own) - np.log(self.n_samples - 1.0)


class NaiveBayesLeaveOneOut(_Evaluator):
    """Closed-form leave-one-out naive Bayes (Gaussian numeric, categorical nominal).

    The state is the ``(len(rows), n_classes)`` matrix of joint log-likelihoods of the
    held-out rows on the current subset; moves add or subtract one precomputed column
    of the ``(len(rows), n_classes, n_features)`` per-feature leave-one-out
    log-likelihoods (memory: 8 bytes times that product).

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Numeric values and nominal category codes.
    y : ndarray of int, shape (n_samples,)
        Class codes.
    n_classes : int
    nominal : ndarray of bool, shape (n_features,)
    n_categories : ndarray of int, shape (n_features,)
        Categories of each nominal column (ignored for numeric ones).
    rows : ndarray of int
        Held-out rows whose predictions are returned.
    var_smoothing : float, default=1e-9
        Added to every variance, times the largest variance of any numeric column.
    alpha : float, default=1.0
        Laplace smoothing of the category counts.

    See Also
    --------
    EvaluatorFactory : Builds this evaluator for ``estimator="naive_bayes"``.
    NaiveBayesModel : The same classifier fitted on all rows.

    Examples
    --------
    >>> X = np.array([[0.0, 1], [0.2, 0], [0.1, 1], [1.0, 1], [1.2, 0], [1.1, 0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> ev = NaiveBayesLeaveOneOut(X, y, 2, np.array([False, True]), [0, 2], np.arange(6))
    >>> T = ev.initial_state(np.array([False, False]))
    >>> ev.predict_moves(T, np.array([0, 1]), add=True)  # column 1 misleads without its own row
    array([[0, 0, 0, 1, 1, 1],
           [1, 1, 1, 0, 0, 0]])
    """

    def __init__(self, X, y, n_classes, nominal, n_categories, rows, var_smoothing=1e-9, alpha=1.0):
        y = np.asarray(y, dtype=np.int64)
        self.rows = np.asarray(rows, dtype=np.int64)
        self.y = y
        self.n_classes = int(n_classes)
        self.stats = _NaiveBayesStats(X, y, n_classes, nominal, n_categories, var_smoothing, alpha)
        own = y[self.rows]
        self.L = self.stats.loglik(np.asarray(X, dtype=np.float64)[self.rows], leave_out=own)
        self.prior = self.stats.log_prior(leave_out=own)

    def initial_state(self, mask) -> NDArray[np.float64]:
        cols = np.flatnonzero(mask)
        return self.prior + self.L[:, :, cols].sum(axis=2)

    def apply_move(self, state, f: int, add: bool) -> NDArray[np.float64]:
        return state + self.L[:, :, f] if add else state - self.L[:, :, f]

    def predict_state(self, state) -> NDArray[np.int64]:
        return _argmax_ties(state, axis=1)

    def predict_moves(self, state, candidates, add: bool, n_jobs=None) -> NDArray[np.int64]:
        cands = np.asarray(candidates, dtype=np.int64)
        out = np.empty((cands.size, self.rows.size), dtype=np.int64)
        step = max(1, _BLOCK_ELEMENTS // max(1, self.L.shape[0] * self.L.shape[1]))
        for s in range(0, cands.size, step):
            block = self.L[:, :, cands[s : s + step]]
            J = state[:, :, None] + block if add else state[:, :, None] - block
            out[s : s + step] = _argmax_ties(J, axis=1).T
        return out

    def predict_masks(self, masks, n_jobs=None) -> NDArray[np.int64]:
        masks = np.asarray(masks, dtype=np.float64)
        J = self.prior[None] + np.einsum("rcp,mp->mrc", self.L, masks)
        return _argmax_ties(J, axis=2)


class NaiveBayesModel(_SubsetModel):
    """Naive Bayes on a feature subset, fitted on all training rows (no leave-out).

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Encoded training data.
    y : ndarray of int, shape (n_samples,)
        Class codes.
    n_classes : int
    nominal : ndarray of bool, shape (n_features,)
    n_categories : ndarray of int, shape (n_features,)
    cols : array-like of int
        The subset's features.
    var_smoothing : float, default=1e-9
    alpha : float, default=1.0

    See Also
    --------
    NaiveBayesLeaveOneOut : Its leave-one-out counterpart.
    EvaluatorFactory.fit_model : Builds it for ``estimator="naive_bayes"``.

    Examples
    --------
    >>> X = np.array([[0.0], [0.2], [1.0], [1.2]])
    >>> model = NaiveBayesModel(X, np.array([0, 0, 1, 1]), 2, [False], [0], [0])
    >>> model.predict_codes(np.array([[0.1], [1.1]])).tolist()
    [0, 1]
    """

    def __init__(self, X, y, n_classes, nominal, n_categories, cols, var_smoothing=1e-9, alpha=1.0):
        y = np.asarray(y, dtype=np.int64)
        self.cols = np.asarray(cols, dtype=np.int64)
        self.stats = _NaiveBayesStats(X, y, n_classes, nominal, n_categories, var_smoothing, alpha)

    def predict_codes(self, X) -> NDArray[np.int64]:
        X = np.asarray(X, dtype=np.float64)
        L = self.stats.loglik(X)
        J = self.stats.log_prior(nq=X.shape[0]) + L[:, :, self.cols].sum(axis=2)
        return _argmax_ties(J, axis=1)


class SubsetClassifier(_SubsetModel):
    """A fitted scikit-learn classifier applied to a column subset, predicting class codes.

    Parameters
    ----------
    estimator : fitted classifier
        Trained on ``X[:, cols]`` with class codes as labels.
    cols : array-like of int

    See Also
    --------
    EvaluatorFactory.fit_model : Builds it for a scikit-learn ``estimator``.

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
    EvaluatorFactory : Builds this evaluator for a scikit-learn ``estimator``.

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
        from widefs.utils import parallel_calls

        masks = list(masks)
        out = np.empty((len(masks), self.rows.size), dtype=np.int64)
        preds = parallel_calls(self._predict, [(m,) for m in masks], n_jobs=n_jobs)
        for i, p in enumerate(preds):
            out[i] = p
        return out


@dataclass(frozen=True)
class EvaluatorFactory:
    """The classifier a wrapper search scores subsets with, and the one place that builds it.

    The selectors of :mod:`widefs.search` score subsets with ``leave_one_out`` and report
    the factory they used (with the chosen k) as ``evaluator_factory_``; CEFS
    (:class:`widefs.ensemble.ClassSpecificEnsemble`) fits its members with ``fit_model``.

    Parameters
    ----------
    estimator : {"knn", "naive_bayes"} or classifier, default="knn"
        ``"knn"``: :class:`KNNLeaveOneOut` / :class:`KNNModel`; ``"naive_bayes"``:
        :class:`NaiveBayesLeaveOneOut` / :class:`NaiveBayesModel`; a scikit-learn
        classifier: :class:`CrossValidationEvaluator` / :class:`SubsetClassifier`.
    n_neighbors : int, default=1
        k of ``"knn"``.
    var_smoothing : float, default=1e-9
        Variance smoothing of ``"naive_bayes"``.
    alpha : float, default=1.0
        Laplace smoothing of ``"naive_bayes"``.
    cv : int, cross-validation generator or iterable, default=5
        Folds for a scikit-learn classifier.

    See Also
    --------
    SequentialSelector : Sequential search on these evaluators.
    GeneticSelector : Genetic search on these evaluators.

    Examples
    --------
    >>> X = np.array([[0.0, 5.0], [0.1, 0.0], [1.0, 5.0], [1.1, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> factory = EvaluatorFactory("knn", n_neighbors=1)
    >>> ev = factory.leave_one_out(X, y, n_classes=2)
    >>> ev.predict_subset(np.array([True, False])).tolist()
    [0, 0, 1, 1]
    >>> model = factory.fit_model(X, y, n_classes=2, support=np.array([True, False]))
    >>> model.predict_codes(np.array([[0.05, 0.0], [1.05, 5.0]])).tolist()
    [0, 1]
    """

    estimator: object = "knn"
    n_neighbors: int = 1
    var_smoothing: float = 1e-9
    alpha: float = 1.0
    cv: object = 5

    @property
    def kind(self) -> str:
        """``"knn"``, ``"naive_bayes"`` or ``"estimator"`` (a scikit-learn classifier)."""
        if isinstance(self.estimator, str):
            if self.estimator not in ("knn", "naive_bayes"):
                raise ValueError(
                    f"estimator must be 'knn', 'naive_bayes' or a classifier; got {self.estimator!r}."
                )
            return self.estimator
        return "estimator"

    def leave_one_out(self, X, y, *, n_classes, encoding=None, rows=None) -> _Evaluator:
        """The evaluator that predicts held-out ``rows`` of any feature subset.

        Parameters
        ----------
        X : ndarray of float64, shape (n_samples, n_features)
            Numeric values and nominal category codes.
        y : ndarray of int, shape (n_samples,)
            Class codes ``0 .. n_classes - 1``.
        n_classes : int
        encoding : FeatureEncoding, default=None
            Which columns are nominal and their category counts (``None``: all numeric);
            see :func:`widefs.utils.encode_fit`.
        rows : array-like of int, default=None
            Rows to predict (``None``: all).

        Returns
        -------
        evaluator : KNNLeaveOneOut, NaiveBayesLeaveOneOut or CrossValidationEvaluator
        """
        nominal, n_categories = _kinds(encoding, X)
        rows = np.arange(len(y)) if rows is None else rows
        kind = self.kind
        if kind == "knn":
            return KNNLeaveOneOut(X, y, n_classes, nominal, rows, self.n_neighbors)
        if kind == "naive_bayes":
            return NaiveBayesLeaveOneOut(
                X, y, n_classes, nominal, n_categories, rows, self.var_smoothing, self.alpha
            )
        return CrossValidationEvaluator(self.estimator, X, y, rows, cv=self.cv)

    def fit_model(self, X, y, *, n_classes, support, encoding=None):
        """The classifier fitted on all rows with the features of ``support``.

        Parameters
        ----------
        X : ndarray of float64, shape (n_samples, n_features)
            Numeric values and nominal category codes.
        y : ndarray of int, shape (n_samples,)
            Class codes ``0 .. n_classes - 1``.
        n_classes : int
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
        kind = self.kind
        if kind == "knn":
            return KNNModel(X, y, n_classes, nominal, cols, self.n_neighbors)
        if kind == "naive_bayes":
            return NaiveBayesModel(
                X, y, n_classes, nominal, n_categories, cols, self.var_smoothing, self.alpha
            )
        from sklearn.base import clone

        return SubsetClassifier(clone(self.estimator).fit(X[:, cols], y), cols)


def _kinds(encoding, X):
    """``(nominal, n_categories)`` of an encoding (all numeric without one)."""
    if encoding is None:
        p = np.shape(X)[1]
        return np.zeros(p, dtype=bool), np.zeros(p, dtype=np.int64)
    return encoding.nominal, encoding.n_categories
