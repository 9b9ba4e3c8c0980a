"""The comparison's naive Bayes baseline, fitted on the rows of a fold in place.

scikit-learn's ``GaussianNB`` fitted on a fold's copy of its training rows holds that copy,
a copy of every class's rows and the temporaries of their variances: about twice the
training matrix, per worker (1.3 GB on 80 x 1,000,000 float64). Its statistics are those of
each column on its own, so a block of columns at a time gives the same floats.
"""

from __future__ import annotations

import numpy as np
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.validation import check_is_fitted

__all__ = ["BlockGaussianNB"]

# Columns per block: bounds a fit's copies to the training rows of this many columns.
_BLOCK = 8192


class BlockGaussianNB(GaussianNB):
    """:class:`sklearn.naive_bayes.GaussianNB` that also fits on rows of a matrix in place.

    ``fit`` and ``predict`` are GaussianNB's. A fold of a cross-validation (which holds the
    whole matrix and its row indices) calls ``_fit_rows`` and ``_predict_rows`` instead: the
    same fitted attributes and predictions, bit for bit, with copies of one block of columns
    of the training rows, or of one test row, at a time.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        As in :class:`~sklearn.naive_bayes.GaussianNB`.
    var_smoothing : float, default=1e-9
        As in :class:`~sklearn.naive_bayes.GaussianNB`.

    Attributes
    ----------
    classes_, class_count_, class_prior_, epsilon_, theta_, var_, n_features_in_
        As in :class:`~sklearn.naive_bayes.GaussianNB`.

    Examples
    --------
    >>> import numpy as np
    >>> from widefs.analysis._naive_bayes import BlockGaussianNB
    >>> X = np.array([[0.0, 1.0], [0.2, 0.9], [1.0, 0.1], [0.9, 0.0]])
    >>> BlockGaussianNB()._fit_rows(X, [0, 1], np.array([0, 2])).theta_.tolist()
    [[0.0, 1.0], [1.0, 0.1]]
    """

    def _fit_rows(self, X, y, rows):
        """``fit(X[rows], y)`` of a C-ordered numpy ``X``, a block of columns at a time."""
        rows = np.asarray(rows, dtype=np.intp)
        blocks = [slice(s, s + _BLOCK) for s in range(0, max(X.shape[1], 1), _BLOCK)]
        # Each block fitted without smoothing (its variances exactly), the smoothing of the
        # whole matrix added after, as GaussianNB adds it.
        parts, largest = [], None
        for cols in blocks:
            block = X[rows, cols]
            parts.append(GaussianNB(priors=self.priors, var_smoothing=0.0).fit(block, y))
            top = np.max(np.var(block, axis=0))
            largest = top if largest is None else max(largest, top)
        first = parts[0]
        self.classes_ = first.classes_
        self.class_count_ = first.class_count_
        self.class_prior_ = first.class_prior_
        self.n_features_in_ = X.shape[1]
        self.epsilon_ = self.var_smoothing * largest
        self.theta_ = np.concatenate([p.theta_ for p in parts], axis=1)
        self.var_ = np.concatenate([p.var_ for p in parts], axis=1)
        self.var_[:, :] += self.epsilon_
        return self

    def _predict_rows(self, X, rows):
        """``predict(X[rows])`` of a C-ordered numpy ``X``, one row at a time."""
        check_is_fitted(self)
        jll = np.array([self._joint_log_likelihood(X[r : r + 1])[0] for r in rows])
        return self.classes_[np.argmax(jll, axis=1)]
