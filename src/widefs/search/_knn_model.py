"""The kNN classifier of the wrapper searches: its training data, distances and vote.

Distance: squared Euclidean on numeric columns plus 1 per mismatching nominal column
(nominal values are category codes), Soares (2010), Section 5.2.5.1, made exact.
Neighbours are ranked by distance, equal distances by the lower row index; a vote tie goes
to the tied class whose nearest member comes first in that ranking (for two classes: the
nearest neighbour's class). :class:`KNNModel` applies it to new rows;
:class:`widefs.search.KNNLeaveOneOut` to held-out training rows, incrementally.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from widefs.search._interface import _SubsetModel

__all__ = ["KNNModel"]


class _KNNData:
    """The training data of a kNN classifier: features transposed, codes, nominal columns."""

    def __init__(self, X, y, n_classes, nominal, n_neighbors, XT=None):
        # Read-only, always: it may be shared between fits (see KNNLeaveOneOut), and the
        # kernels then see one type of it (one compiled specialization).
        self.XT = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T) if XT is None else XT
        self.XT = self.XT.view()
        self.XT.setflags(write=False)
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
        from widefs._utils import DEFAULT_BLOCK_BYTES, feature_blocks

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
    KNNEvaluator.fit_model : Builds it.

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
