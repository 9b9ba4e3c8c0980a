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
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["GramLinearSVC"]

# Columns per block of the Gram product: bounds the float64 copies to n x this many.
_BLOCK = 8192


def _gram(A, B) -> np.ndarray:
    """``A @ B.T`` in float64 (libsvm's precision), a block of columns at a time."""
    K = np.zeros((A.shape[0], B.shape[0]))
    for start in range(0, A.shape[1], _BLOCK):
        cols = slice(start, start + _BLOCK)
        K += np.asarray(A[:, cols], dtype=np.float64) @ np.asarray(B[:, cols], dtype=np.float64).T
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
        self.scaler_ = StandardScaler().fit(X)
        A = self.scaler_.transform(X)
        self.svc_ = SVC(kernel="precomputed", C=self.C).fit(_gram(A, A), y)
        self.classes_ = self.svc_.classes_
        self.support_vectors_ = A[self.svc_.support_]
        return self

    def _kernel(self, X) -> np.ndarray:
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        # libsvm reads only the support vectors' columns of a precomputed kernel.
        K = np.zeros((X.shape[0], self.svc_.shape_fit_[0]))
        K[:, self.svc_.support_] = _gram(self.scaler_.transform(X), self.support_vectors_)
        return K

    def decision_function(self, X):
        """The SVM's decision values, as :meth:`sklearn.svm.SVC.decision_function`."""
        K = self._kernel(X)
        return self.svc_.decision_function(K)

    def predict(self, X):
        """The predicted classes, as :meth:`sklearn.svm.SVC.predict`."""
        K = self._kernel(X)
        return self.svc_.predict(K)
