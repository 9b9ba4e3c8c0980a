"""Leave-one-out evaluators for wrapper feature-subset search.

A wrapper search scores many subsets that differ from the current one by a single
feature. Refitting a classifier per subset and per left-out example (what
``SequentialFeatureSelector(cv=LeaveOneOut())`` does) costs ``n`` fits per candidate;
the evaluators here never refit:

* :class:`KNNLeaveOneOut` keeps the pairwise squared-distance matrix ``D`` of the
  current subset. Adding (removing) feature ``f`` adds (subtracts) its contribution
  ``c_f(i, j)``, so every candidate's leave-one-out predictions come from one compiled
  pass over ``D +- c_f`` (``_kernels.knn_candidates``).
* :class:`NaiveBayesLeaveOneOut` removes each example's contribution from the class
  sufficient statistics (counts, means, centred sums of squares, category counts) in
  closed form; the joint log-likelihood is additive over features, so a candidate's
  predictions are the current sums plus (minus) one precomputed column.
* :class:`CrossValidationEvaluator` is the fallback for any scikit-learn classifier:
  ``cross_val_predict`` per candidate, clearly slower.

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

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.model_selection import check_cv, cross_val_predict

from widefs.search._kernels import (
    cross_distances,
    knn_candidates,
    knn_from_distances,
    knn_loo_batch,
    pairwise_distances,
    update_distances,
)

__all__ = [
    "CLASS_K_GRID",
    "Criterion",
    "CrossValidationEvaluator",
    "KNNLeaveOneOut",
    "KNNModel",
    "NaiveBayesLeaveOneOut",
    "NaiveBayesModel",
    "argmax_ties",
    "dissertation_k_grid",
]

#: k values tried for class-specific members (Soares 2010, Section 5.2.5.2: larger k made
#: members "recallers").
CLASS_K_GRID = tuple(range(1, 11))
_POSTERIOR_RTOL = 1e-10
_BLOCK_ELEMENTS = 4_000_000  # floats per temporary block in the naive Bayes moves


def dissertation_k_grid(n_samples: int) -> tuple[int, ...]:
    """The k grid of Soares (2010), Section 5.2.5.2, restricted to ``k < n_samples``.

    ``{1, ..., 10, 15, 25, 0.25 n, 0.5 n, 0.75 n}`` (fractions rounded down), where
    ``n`` is the number of training examples; with leave-one-out there are ``n - 1``
    possible neighbours, so ``k <= n - 1``.

    Examples
    --------
    >>> dissertation_k_grid(36)
    (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 18, 25, 27)
    >>> dissertation_k_grid(4)
    (1, 2, 3)
    """
    ks = [*range(1, 11), 15, 25, int(0.25 * n_samples), int(0.5 * n_samples), int(0.75 * n_samples)]
    return tuple(sorted({k for k in ks if 1 <= k < n_samples}))


def argmax_ties(jll: NDArray[np.float64], axis: int = -1) -> NDArray[np.int64]:
    """Index of the largest value; values within a relative 1e-10 of it tie to the lowest index.

    Examples
    --------
    >>> argmax_ties(np.array([[-3.0, -1.0, -1.0 + 1e-14], [0.0, -np.inf, 1.0]]))
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
    target : int or None
        Class code whose instances are scored (CEFS); ``None`` for all instances.
    kind : {"recall", "balanced"}
        With a target: ``"recall"`` is the accuracy on the target class's instances
        (Soares 2010, Chapter 4: the class-specific criterion); ``"balanced"`` is the
        mean of that recall and the specificity ``P(pred != c | y != c)``, so a member
        predicting its class for everything (a "recaller") scores only 1/2. Without a
        target both are the plain accuracy.

    Attributes
    ----------
    rows : ndarray of int
        Rows whose predictions the score needs.
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

    def score(self, pred: NDArray[np.int64]) -> NDArray[np.float64]:
        """Scores of prediction rows ``pred`` of shape ``(m, len(rows))`` (or one row)."""
        pred = np.asarray(pred)
        if self.target is None or self.kind == "recall":
            return np.mean(pred == self._truth, axis=-1)
        pos = self._truth == self.target
        recall = np.mean(pred[..., pos] == self.target, axis=-1)
        specificity = np.mean(pred[..., ~pos] != self.target, axis=-1)
        return 0.5 * (recall + specificity)


def _split(n: int, n_jobs: int) -> list[np.ndarray]:
    n_chunks = max(1, min(n, n_jobs))
    return [c for c in np.array_split(np.arange(n), n_chunks) if c.size]


def _effective_jobs(n_jobs) -> int:
    return effective_n_jobs(n_jobs)


class KNNLeaveOneOut:
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
    nominal : ndarray of bool, shape (n_features,)
    rows : ndarray of int
        Held-out rows whose predictions are returned.
    n_neighbors : int, default=1

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
        self.XT = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
        self.y = np.ascontiguousarray(y, dtype=np.int64)
        self.n_classes = int(n_classes)
        self.nominal = np.ascontiguousarray(nominal, dtype=np.bool_)
        self.rows = np.ascontiguousarray(rows, dtype=np.int64)
        self.n_neighbors = int(n_neighbors)

    @property
    def n_samples(self) -> int:
        return self.XT.shape[1]

    def distances(self, cols) -> NDArray[np.float64]:
        """Squared distances on ``cols`` (accumulated in that order)."""
        n = self.n_samples
        D = np.empty((n, n), dtype=np.float64)
        pairwise_distances(self.XT, self.nominal, np.asarray(cols, dtype=np.int64), D)
        return D

    def initial_state(self, mask) -> NDArray[np.float64]:
        return self.distances(np.flatnonzero(mask))

    def state_from(self, D_ref, ref_mask, mask) -> NDArray[np.float64]:
        """Distances on ``mask`` from those on ``ref_mask``, updating only the features
        that differ (from scratch when that is cheaper)."""
        ref_mask = np.asarray(ref_mask, dtype=bool)
        mask = np.asarray(mask, dtype=bool)
        add = np.flatnonzero(mask & ~ref_mask)
        remove = np.flatnonzero(ref_mask & ~mask)
        if add.size + remove.size == 0:
            return D_ref
        if add.size + remove.size >= mask.sum():
            return self.initial_state(mask)
        D = np.empty_like(D_ref)
        update_distances(D_ref, self.XT, self.nominal, add, remove, D)
        return D

    def contribution(self, f: int) -> NDArray[np.float64]:
        """``c_f(i, j)``: squared difference, or 0/1 mismatch for a nominal column."""
        x = self.XT[f]
        diff = x[:, None] - x[None, :]
        return (diff != 0.0).astype(np.float64) if self.nominal[f] else diff * diff

    def apply_move(self, D, f: int, add: bool) -> NDArray[np.float64]:
        # The same floating-point operations as the kernel, so the accepted state equals
        # the one that was scored.
        sign = 1.0 if add else -1.0
        return D + sign * self.contribution(f)

    def predict_state(self, D, n_neighbors: int | None = None) -> NDArray[np.int64]:
        k = self.n_neighbors if n_neighbors is None else int(n_neighbors)
        return self.predict_state_ks(D, [k])[0]

    def predict_state_ks(self, D, ks) -> NDArray[np.int64]:
        """Predictions for each k of ``ks`` (sorted internally), shape ``(len(ks), rows)``."""
        ks = np.asarray(ks, dtype=np.int64)
        order = np.argsort(ks, kind="stable")
        out = np.empty((ks.size, self.rows.size), dtype=np.int64)
        knn_from_distances(
            np.ascontiguousarray(D), self.rows, True, self.y, ks[order], self.n_classes, out
        )
        result = np.empty_like(out)
        result[order] = out
        return result

    def predict_states(self, Ds) -> NDArray[np.int64]:
        """Predictions for a stack of distance matrices ``(m, n, n)``, shape ``(m, rows)``."""
        Ds = np.ascontiguousarray(Ds)
        out = np.empty((Ds.shape[0], self.rows.size), dtype=np.int64)
        ks = np.array([self.n_neighbors], dtype=np.int64)
        knn_loo_batch(Ds, self.rows, self.y, ks, self.n_classes, out)
        return out

    def predict_moves(self, D, candidates, add: bool, n_jobs=None) -> NDArray[np.int64]:
        """Predictions after adding (removing) each candidate, shape ``(m, len(rows))``."""
        cands = np.ascontiguousarray(candidates, dtype=np.int64)
        out = np.empty((cands.size, self.rows.size), dtype=np.int64)
        if cands.size == 0:
            return out
        D = np.ascontiguousarray(D)
        sign = 1.0 if add else -1.0
        k = max(1, self.n_neighbors)

        def work(idx):
            part = np.empty((idx.size, self.rows.size), dtype=np.int64)
            knn_candidates(
                D, self.XT, self.nominal, cands[idx], sign, self.rows, self.y, k,
                self.n_classes, part,
            )  # fmt: skip
            return idx, part

        chunks = _split(cands.size, _effective_jobs(n_jobs))
        if len(chunks) == 1:
            _, out[:] = work(chunks[0])
            return out
        for idx, part in Parallel(n_jobs=len(chunks), backend="threading")(
            delayed(work)(c) for c in chunks
        ):
            out[idx] = part
        return out

    def predict_masks(self, masks, n_jobs=None) -> NDArray[np.int64]:
        """Predictions for arbitrary subsets (rows of the boolean ``masks``)."""
        masks = np.asarray(masks, dtype=bool)
        out = np.empty((masks.shape[0], self.rows.size), dtype=np.int64)

        def one(m):
            return self.predict_state(self.initial_state(masks[m]))

        jobs = _effective_jobs(n_jobs)
        if jobs == 1 or masks.shape[0] <= 1:
            for m in range(masks.shape[0]):
                out[m] = one(m)
            return out
        results = Parallel(n_jobs=jobs, backend="threading")(
            delayed(one)(m) for m in range(masks.shape[0])
        )
        for m, pred in enumerate(results):
            out[m] = pred
        return out


class KNNModel:
    """kNN classifier on a feature subset with the evaluator's distance and tie rules."""

    def __init__(self, X, y, n_classes, nominal, cols, n_neighbors):
        self.XT = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
        self.y = np.ascontiguousarray(y, dtype=np.int64)
        self.n_classes = int(n_classes)
        self.nominal = np.ascontiguousarray(nominal, dtype=np.bool_)
        self.cols = np.ascontiguousarray(cols, dtype=np.int64)
        self.n_neighbors = int(n_neighbors)

    def predict_codes(self, X) -> NDArray[np.int64]:
        """Class codes for the rows of ``X`` (encoded like the training data)."""
        QT = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
        nq = QT.shape[1]
        D = np.empty((nq, self.XT.shape[1]), dtype=np.float64)
        cross_distances(QT, self.XT, self.nominal, self.cols, D)
        out = np.empty((1, nq), dtype=np.int64)
        knn_from_distances(
            D, np.arange(nq, dtype=np.int64), False, self.y,
            np.array([self.n_neighbors], dtype=np.int64), self.n_classes, out,
        )  # fmt: skip
        return out[0]


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


class NaiveBayesLeaveOneOut:
    """Closed-form leave-one-out naive Bayes (Gaussian numeric, categorical nominal).

    The state is the ``(len(rows), n_classes)`` matrix of joint log-likelihoods of the
    held-out rows on the current subset; moves add or subtract one precomputed column
    of the ``(len(rows), n_classes, n_features)`` per-feature leave-one-out
    log-likelihoods (memory: 8 bytes times that product).

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

    def apply_move(self, T, f: int, add: bool) -> NDArray[np.float64]:
        return T + self.L[:, :, f] if add else T - self.L[:, :, f]

    def predict_state(self, T) -> NDArray[np.int64]:
        return argmax_ties(T, axis=1)

    def predict_moves(self, T, candidates, add: bool, n_jobs=None) -> NDArray[np.int64]:
        cands = np.asarray(candidates, dtype=np.int64)
        out = np.empty((cands.size, self.rows.size), dtype=np.int64)
        step = max(1, _BLOCK_ELEMENTS // max(1, self.L.shape[0] * self.L.shape[1]))
        for s in range(0, cands.size, step):
            block = self.L[:, :, cands[s : s + step]]
            J = T[:, :, None] + block if add else T[:, :, None] - block
            out[s : s + step] = argmax_ties(J, axis=1).T
        return out

    def predict_masks(self, masks, n_jobs=None) -> NDArray[np.int64]:
        masks = np.asarray(masks, dtype=np.float64)
        J = self.prior[None] + np.einsum("rcp,mp->mrc", self.L, masks)
        return argmax_ties(J, axis=2)


class NaiveBayesModel:
    """Naive Bayes on a feature subset, fitted on all training rows (no leave-out)."""

    def __init__(self, X, y, n_classes, nominal, n_categories, cols, var_smoothing=1e-9, alpha=1.0):
        y = np.asarray(y, dtype=np.int64)
        self.cols = np.asarray(cols, dtype=np.int64)
        self.stats = _NaiveBayesStats(X, y, n_classes, nominal, n_categories, var_smoothing, alpha)

    def predict_codes(self, X) -> NDArray[np.int64]:
        X = np.asarray(X, dtype=np.float64)
        L = self.stats.loglik(X)
        J = self.stats.log_prior(nq=X.shape[0]) + L[:, :, self.cols].sum(axis=2)
        return argmax_ties(J, axis=1)


class CrossValidationEvaluator:
    """Cross-validated predictions of any scikit-learn classifier (the slow fallback).

    Each subset costs one ``cross_val_predict`` (one fit per fold); candidates are
    spread over ``n_jobs`` workers. With ``cv=LeaveOneOut()`` the predictions are
    leave-one-out ones, like the fast evaluators'.
    """

    def __init__(self, estimator, X, y, rows, cv=5):
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
        cols = np.flatnonzero(mask)
        pred = cross_val_predict(clone(self.estimator), self.X[:, cols], self.y, cv=self.cv)
        return np.asarray(pred, dtype=np.int64)[self.rows]

    def initial_state(self, mask):
        return np.asarray(mask, dtype=bool).copy()

    def apply_move(self, mask, f: int, add: bool):
        new = mask.copy()
        new[f] = add
        return new

    def predict_state(self, mask) -> NDArray[np.int64]:
        return self._predict(mask)

    def predict_moves(self, mask, candidates, add: bool, n_jobs=None) -> NDArray[np.int64]:
        masks = [self.apply_move(mask, int(f), add) for f in candidates]
        return self.predict_masks(masks, n_jobs=n_jobs)

    def predict_masks(self, masks, n_jobs=None) -> NDArray[np.int64]:
        masks = list(masks)
        out = np.empty((len(masks), self.rows.size), dtype=np.int64)
        preds = Parallel(n_jobs=n_jobs)(delayed(self._predict)(m) for m in masks)
        for i, p in enumerate(preds):
            out[i] = p
        return out
