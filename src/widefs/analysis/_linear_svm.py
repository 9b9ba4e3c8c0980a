"""The comparison's linear SVM baseline, fitted through its n x n Gram matrix.

``make_pipeline(StandardScaler(), SVC(kernel="linear"))`` gives libsvm the standardized
matrix, and libsvm computes each kernel entry it needs as a dot product over every feature,
again and again as its cache turns over: about 10 s per fit on 80 x 200,000. The same SVM
fitted on the precomputed Gram matrix (one pass over the data, in blocks of columns) has the
same dual problem, so the same solution, at a cost that grows with the features only through
that one pass.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

__all__ = ["GramLinearSVC"]

# Columns per block of the Gram product: bounds the float64 copies to n x this many.
_BLOCK = 8192


def _standardized(block, mean, scale) -> np.ndarray:
    """``StandardScaler.transform`` of a block of columns (its operations, so its floats)."""
    out = np.array(block, dtype=block.dtype if block.dtype.kind == "f" else np.float64)
    out -= mean.astype(out.dtype)
    out /= scale.astype(out.dtype)
    return out


def _scaler(X, rows) -> StandardScaler:
    """``StandardScaler().fit(X[rows])``, fitted a block of columns at a time (the statistics
    of a column are its own: the same floats) without a copy of ``X[rows]``."""
    parts = [StandardScaler().fit(X[rows, cols]) for cols in _blocks(X.shape[1])]
    scaler = parts[0]
    if len(parts) > 1:
        for name in ("mean_", "var_", "scale_"):
            setattr(scaler, name, np.concatenate([getattr(part, name) for part in parts]))
        scaler.n_features_in_ = X.shape[1]
    return scaler


def _blocks(n_columns: int):
    return [slice(start, start + _BLOCK) for start in range(0, max(n_columns, 1), _BLOCK)]


def _gram(A, B) -> np.ndarray:
    """``A @ B.T`` in float64 (libsvm's precision), a block of columns at a time."""
    K = np.zeros((A.shape[0], B.shape[0]))
    for cols in _blocks(A.shape[1]):
        K += np.asarray(A[:, cols], dtype=np.float64) @ np.asarray(B[:, cols], dtype=np.float64).T
    return K


def _standardized_gram(scaler, X, rows, S, sv_rows) -> np.ndarray:
    """``_gram(scaler.transform(X[rows]), scaler.transform(S[sv_rows]))``, the same floats,
    standardizing one block of columns of each at a time."""
    K = np.zeros((len(rows), len(sv_rows)))
    for cols in _blocks(X.shape[1]):
        mean, scale = scaler.mean_[cols], scaler.scale_[cols]
        A = _standardized(X[rows, cols], mean, scale)
        B = A if S is X and sv_rows is rows else _standardized(S[sv_rows, cols], mean, scale)
        # As _gram converts them: one array twice when it is float64 (numpy's product of
        # an array with its transpose), two copies when it is float32.
        K += np.asarray(A, dtype=np.float64) @ np.asarray(B, dtype=np.float64).T
    return K


class GramLinearSVC(ClassifierMixin, BaseEstimator):
    """A standardized linear SVM (``SVC(kernel="linear")``) fitted on its Gram matrix.

    Parameters
    ----------
    C : float, default=1.0
        The SVM's penalty, as in :class:`sklearn.svm.SVC`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    scaler_ : StandardScaler
        The standardization fitted on the training samples.
    svc_ : SVC
        The SVM fitted on the precomputed kernel.
    support_vectors_ : ndarray of shape (n_support, n_features)
        The standardized training samples that are support vectors.

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.analysis._linear_svm import GramLinearSVC
    >>> X = np.array([[0.0, 1.0], [0.2, 0.9], [1.0, 0.1], [0.9, 0.0]])
    >>> GramLinearSVC(C=1.0).fit(X, [0, 0, 1, 1]).predict([[0.1, 1.0], [1.0, 0.0]])
    array([0, 1])
    """

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        """Standardize ``X`` and fit the SVM on the Gram matrix of the training samples."""
        X, y = validate_data(self, X, y, dtype=[np.float64, np.float32])
        check_classification_targets(y)
        # The support vectors' rows are copied: the caller may change X after the fit.
        return self._fit(X, y, np.arange(X.shape[0]), copy=True)

    def _fit_rows(self, X, y, rows):
        """``fit(X[rows], y)`` of a C-ordered float matrix without a copy of ``X[rows]``: the
        same SVM (a fold of a cross-validation holds the whole matrix and its rows)."""
        rows = np.asarray(rows, dtype=np.intp)
        y = column_or_1d(y, warn=True)
        check_consistent_length(rows, y)
        check_classification_targets(y)
        self.n_features_in_ = X.shape[1]
        return self._fit(X, y, rows, copy=False)

    def _fit(self, X, y, rows, *, copy: bool):
        self.scaler_ = _scaler(X, rows)
        K = _standardized_gram(self.scaler_, X, rows, X, rows)
        self.svc_ = SVC(kernel="precomputed", C=self.C).fit(K, y)
        self.classes_ = self.svc_.classes_
        # Where the support vectors' raw values are: their rows, or the matrix they index.
        sv_rows = rows[self.svc_.support_]
        self._sv = (X[sv_rows], np.arange(sv_rows.size)) if copy else (X, sv_rows)
        return self

    @property
    def support_vectors_(self) -> np.ndarray:
        check_is_fitted(self)
        source, sv_rows = self._sv
        return self.scaler_.transform(source[sv_rows])

    def _kernel(self, X, rows=None) -> np.ndarray:
        check_is_fitted(self)
        if rows is None:
            X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
            rows = np.arange(X.shape[0])
        # libsvm reads only the support vectors' columns of a precomputed kernel.
        K = np.zeros((len(rows), self.svc_.shape_fit_[0]))
        K[:, self.svc_.support_] = _standardized_gram(self.scaler_, X, rows, *self._sv)
        return K

    def _predict_rows(self, X, rows):
        """``predict(X[rows])`` of a C-ordered float matrix, a block of columns at a time."""
        return self.svc_.predict(self._kernel(X, np.asarray(rows, dtype=np.intp)))

    def decision_function(self, X):
        """The SVM's decision values, as :meth:`sklearn.svm.SVC.decision_function`."""
        K = self._kernel(X)
        return self.svc_.decision_function(K)

    def predict(self, X):
        """The predicted classes, as :meth:`sklearn.svm.SVC.predict`."""
        K = self._kernel(X)
        return self.svc_.predict(K)
