"""What a prediction got right, class by class, and how sure we can be of it.

With imbalanced classes accuracy alone hides failure: 50 healthy and 6 diseased samples give
89 % accuracy to a model that never recognises a diseased one. The nested evaluation and the
cross-validated certificates therefore report, beside accuracy, the recall of every class
and balanced accuracy (their mean), against the majority-class baseline stated both ways.
This module is the one home of those numbers and of their intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MajorityBaseline", "majority_baseline"]

#: Classes count as imbalanced when the smallest holds fewer than this share of the largest's
#: examples (two classes: the majority above 5/9 = 55.6 %).
IMBALANCE_RATIO = 0.8


@dataclass(frozen=True)
class MajorityBaseline:
    """What always predicting the most frequent class scores on labels ``y``.

    Parameters
    ----------
    classes : ndarray, shape (n_classes,)
        The sorted class labels.
    counts : ndarray of int, shape (n_classes,)
        Examples of each class.

    Attributes
    ----------
    accuracy : float
        The largest class's share: the accuracy a classifier must beat.
    balanced_accuracy : float
        ``1 / n_classes``: the majority class has recall 1, every other class 0. Any
        label-blind classifier has this balanced accuracy in expectation, so it is the
        baseline of balanced accuracy whatever the class sizes.
    imbalanced : bool
        True when the smallest class has fewer than ``IMBALANCE_RATIO`` (0.8) times the
        largest class's examples: then reports show balanced accuracy and per-class recall
        beside accuracy.

    See Also
    --------
    majority_baseline : Builds it from labels.

    Examples
    --------
    >>> base = MajorityBaseline(np.array(["a", "b"]), np.array([50, 6]))
    >>> round(base.accuracy, 3), base.balanced_accuracy, base.imbalanced
    (0.893, 0.5, True)
    """

    classes: np.ndarray
    counts: np.ndarray

    @property
    def accuracy(self) -> float:
        return float(self.counts.max() / self.counts.sum())

    @property
    def balanced_accuracy(self) -> float:
        return 1.0 / self.counts.size

    @property
    def imbalanced(self) -> bool:
        return bool(self.counts.min() < IMBALANCE_RATIO * self.counts.max())


def majority_baseline(y) -> MajorityBaseline:
    """The majority-class baseline of labels ``y``, in accuracy and in balanced accuracy.

    Parameters
    ----------
    y : array_like of shape (n_samples,)
        Class labels (at least one).

    Returns
    -------
    MajorityBaseline
        ``classes``, ``counts``, ``accuracy``, ``balanced_accuracy`` and ``imbalanced``.

    See Also
    --------
    nested_evaluate : Reports balanced accuracy and per-class recall beside accuracy.

    Examples
    --------
    >>> base = majority_baseline(["tumor"] * 40 + ["normal"] * 22)
    >>> base.classes.tolist(), round(base.accuracy, 3), base.balanced_accuracy
    (['normal', 'tumor'], 0.645, 0.5)
    """
    classes, counts = np.unique(np.asarray(y), return_counts=True)
    if classes.size == 0:
        raise ValueError("y is empty: the majority-class baseline needs at least one label.")
    return MajorityBaseline(classes, counts)


def recall_counts(y_true, y_pred, classes) -> tuple[np.ndarray, np.ndarray]:
    """Per class of ``classes`` (sorted): examples predicted correctly, and examples.

    ``hits[c] / support[c]`` is class c's recall. Labels of ``y_true`` must be in
    ``classes``; a class absent from ``y_true`` has support 0.
    """
    y_true = np.asarray(y_true)
    codes = np.searchsorted(classes, y_true)
    support = np.bincount(codes, minlength=len(classes))
    hits = np.bincount(codes[np.asarray(y_pred) == y_true], minlength=len(classes))
    return hits, support


def balanced_accuracy(y_true, y_pred, classes) -> float:
    """Mean recall over the classes present in ``y_true`` (scikit-learn's definition)."""
    hits, support = recall_counts(y_true, y_pred, classes)
    present = support > 0
    return float(np.mean(hits[present] / support[present]))


def recall_interval(hits, support, confidence: float) -> np.ndarray:
    """Two-sided Clopper-Pearson interval of each class's recall, shape (n_classes, 2).

    ``hits`` may be fractional (correct predictions averaged over repeats of the same
    examples): the beta quantiles below are the exact binomial interval for whole counts and
    interpolate between them otherwise. A class with no example gets ``(nan, nan)``.
    """
    from scipy.stats import beta

    hits = np.asarray(hits, dtype=float)
    n = np.asarray(support, dtype=float)
    a = (1.0 - confidence) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(hits > 0, beta.ppf(a, hits, n - hits + 1), 0.0)
        hi = np.where(hits < n, beta.ppf(1 - a, hits + 1, n - hits), 1.0)
    empty = n == 0
    lo[empty] = hi[empty] = np.nan
    return np.column_stack([lo, hi])


def corrected_t_interval(scores, n_train: float, n_test: float, confidence: float):
    """Mean, standard deviation and Nadeau-Bengio corrected t interval of per-fold scores.

    The folds' training sets overlap, so the naive variance of the mean, ``s^2 / k``, is too
    small; Nadeau & Bengio (2003) inflate it to ``(1/k + n_test/n_train) s^2``. The interval
    is clipped to [0, 1]; with a single fold it is ``(nan, nan)`` and the sd 0.
    """
    from scipy import stats

    scores = np.asarray(scores, dtype=float)
    k = scores.size
    mean = float(scores.mean())
    if k < 2:
        return mean, 0.0, (float("nan"), float("nan"))
    std = float(scores.std(ddof=1))
    se = np.sqrt((1.0 / k + n_test / n_train) * std**2)
    t = stats.t.ppf(0.5 + confidence / 2, df=k - 1)
    return mean, std, (max(0.0, mean - t * se), min(1.0, mean + t * se))
