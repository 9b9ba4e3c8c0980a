"""The score a wrapper search maximizes, computed from leave-one-out predictions."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["Criterion"]


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
    KNNEvaluator.leave_one_out : Engines predicting ``rows``.

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
