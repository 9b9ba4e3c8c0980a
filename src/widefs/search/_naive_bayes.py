"""Closed-form leave-one-out naive Bayes (Gaussian on numeric, categorical on nominal columns).

:class:`NaiveBayesLeaveOneOut` removes each example's contribution from the class
sufficient statistics (counts, means, centred sums of squares, category counts) in closed
form; the joint log-likelihood is additive over features, so a candidate's predictions are
the current sums plus (minus) one precomputed column.

Gaussian on numeric columns (population variance of the class plus ``var_smoothing`` times
the largest variance of any numeric column of the training data, fixed once so that subset
scores stay additive), categorical with Laplace smoothing ``alpha`` over the categories
seen in the training data (a missing value is a category), class priors from the training
counts. Class posteriors within a relative ``1e-10`` of the best are ties, won by the
lowest class code.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from widefs.search._interface import _Evaluator, _SubsetModel

__all__ = ["NaiveBayesLeaveOneOut", "NaiveBayesModel"]

_POSTERIOR_RTOL = 1e-10
_BLOCK_ELEMENTS = 4_000_000  # floats per temporary block in the naive Bayes moves


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
    NaiveBayesEvaluator : Builds this engine.
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
    NaiveBayesEvaluator.fit_model : Builds it.

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
