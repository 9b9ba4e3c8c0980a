"""The threshold-scan kernel shared by every stump-based method.

A decision stump on feature j puts a threshold between two consecutive distinct values of
that feature. Everything a stump learner needs about all candidate thresholds of all
features is a prefix sum, along each feature's sorted order, of a few per-sample channels
(class indicators, example weights, weighted values). widefs sorts each feature once
(feature-major layout) and reads those prefix sums in feature blocks, so one streaming
pass scores every threshold of every feature:

- :class:`SortedFeatures` holds the per-feature sort order and sorted values;
- :func:`prefix_sums` gives the cumulative channel sums at every cut position;
- :func:`cut_thresholds` turns cut positions into scale-free thresholds;
- :func:`fit_error_stumps` / :func:`predict_stumps` are the one-feature classifiers used by
  the univariate stump scorer (fewest training errors, majority class on each side).

Users: ``widefs.univariate`` (stump scorer), ``widefs.scm`` (greedy covering) and
``widefs.rules`` (numeric conditions ``a <= t`` / ``a > t`` of CN2).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "SortedFeatures",
    "StumpTable",
    "ThresholdCounts",
    "cut_thresholds",
    "feature_blocks",
    "fit_error_stumps",
    "predict_stumps",
    "prefix_sums",
    "threshold_class_counts",
]

# Default working-set size of one feature block (bytes of the largest temporary).
DEFAULT_BLOCK_BYTES = 64 * 2**20


def feature_blocks(
    n_features: int, bytes_per_feature: int, max_bytes: int = DEFAULT_BLOCK_BYTES
) -> Iterator[slice]:
    """Slices of consecutive features whose temporaries fit in ``max_bytes``.

    Examples
    --------
    >>> list(feature_blocks(5, 100, max_bytes=250))
    [slice(0, 2, None), slice(2, 4, None), slice(4, 5, None)]
    """
    step = max(1, int(max_bytes // max(1, bytes_per_feature)))
    for start in range(0, n_features, step):
        yield slice(start, min(start + step, n_features))


@dataclass(frozen=True)
class SortedFeatures:
    """Per-feature ascending sort of a sample-by-feature matrix, stored feature-major.

    Attributes
    ----------
    order : ndarray of shape (n_features, n_samples)
        ``order[j]`` lists sample indices by increasing value of feature j (stable, so
        equal values keep sample order).
    values : ndarray of shape (n_features, n_samples)
        ``values[j] = X[order[j], j]``.
    """

    order: NDArray[np.intp]
    values: NDArray[np.floating]

    @classmethod
    def from_matrix(cls, X: ArrayLike) -> SortedFeatures:
        """Sort every column of ``X`` (n_samples, n_features) once.

        Examples
        --------
        >>> s = SortedFeatures.from_matrix([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]])
        >>> s.order.tolist()
        [[1, 2, 0], [2, 0, 1]]
        """
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError("X must be two-dimensional (n_samples, n_features).")
        XT = np.ascontiguousarray(X.T)
        order = np.argsort(XT, axis=1, kind="stable")
        values = np.take_along_axis(XT, order, axis=1)
        return cls(order=order, values=values)

    @property
    def n_features(self) -> int:
        return self.order.shape[0]

    @property
    def n_samples(self) -> int:
        return self.order.shape[1]

    def subset(self, sample_mask: ArrayLike) -> SortedFeatures:
        """Restrict to the samples in ``sample_mask`` without re-sorting.

        Sample indices in ``order`` are renumbered to positions within the subset, so
        the result describes ``X[sample_mask]``.
        """
        mask = np.asarray(sample_mask, dtype=bool)
        if mask.shape != (self.n_samples,):
            raise ValueError("sample_mask must have one entry per sample.")
        keep = mask[self.order]
        n_keep = int(mask.sum())
        renumber = np.cumsum(mask) - 1
        order = renumber[self.order[keep].reshape(self.n_features, n_keep)]
        values = self.values[keep].reshape(self.n_features, n_keep)
        return SortedFeatures(order=order, values=values)

    def valid_cuts(self, block: slice = slice(None)) -> NDArray[np.bool_]:
        """``(F, n-1)`` mask: a threshold fits between sorted positions i and i+1."""
        v = self.values[block]
        return v[:, 1:] > v[:, :-1]


def prefix_sums(
    sorted_features: SortedFeatures, channels: ArrayLike, block: slice = slice(None)
) -> NDArray:
    """Cumulative sums of per-sample channels along each feature's sorted order.

    Parameters
    ----------
    sorted_features : SortedFeatures
    channels : array_like of shape (n_samples,) or (n_samples, n_channels)
        Per-sample quantities (class indicators, weights, ``w * x``, ...).
    block : slice, default=slice(None)
        The features to scan (see :func:`feature_blocks`).

    Returns
    -------
    ndarray of shape (n_block, n_samples + 1[, n_channels])
        ``out[j, i]`` is the sum of the channels over the ``i`` samples with the
        smallest values of feature j; ``out[j, 0] = 0`` and ``out[j, -1]`` is the total.

    Examples
    --------
    >>> s = SortedFeatures.from_matrix([[3.0], [1.0], [2.0]])
    >>> prefix_sums(s, [1, 0, 1])[0].tolist()
    [0, 0, 1, 2]
    """
    ch = np.asarray(channels)
    order = sorted_features.order[block]
    gathered = ch[order]  # (F, n[, K])
    out = np.zeros((order.shape[0], order.shape[1] + 1, *ch.shape[1:]), dtype=gathered.dtype)
    np.cumsum(gathered, axis=1, out=out[:, 1:])
    return out


def cut_thresholds(sorted_features: SortedFeatures, block: slice = slice(None)) -> NDArray:
    """Thresholds between consecutive sorted values, ``(F, n-1)``; NaN where values tie.

    The midpoint is used, pulled back to the lower value when rounding would reach the
    upper one, so ``x <= t`` separates the two values for any scale (no tolerances).
    """
    v = sorted_features.values[block].astype(float, copy=False)
    lo, hi = v[:, :-1], v[:, 1:]
    mid = lo + (hi - lo) / 2
    mid = np.where(mid >= hi, lo, mid)
    return np.where(hi > lo, mid, np.nan)


@dataclass(frozen=True)
class StumpTable:
    """One fitted stump per feature: predict ``left_class`` if ``x <= threshold`` else ``right_class``."""

    threshold: NDArray[np.floating]
    left_class: NDArray[np.intp]
    right_class: NDArray[np.intp]
    train_errors: NDArray[np.intp]


def fit_error_stumps(X: ArrayLike, y_codes: ArrayLike, n_classes: int) -> StumpTable:
    """Fit, for every feature at once, the stump with the fewest training errors.

    Each side of the threshold predicts its majority class (ties to the lower class
    code). Among equally good thresholds the smallest wins; a feature without any valid
    threshold (constant) predicts the overall majority everywhere (threshold ``+inf``).

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y_codes : array_like of int, shape (n_samples,)
        Class codes ``0..n_classes-1``.
    n_classes : int

    Examples
    --------
    >>> t = fit_error_stumps([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0], [3.0, 5.0]], [0, 0, 1, 1], 2)
    >>> t.threshold.tolist(), t.train_errors.tolist()
    ([1.5, inf], [0, 2])
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y_codes, dtype=np.intp)
    sf = SortedFeatures.from_matrix(X)
    n, F = X.shape
    onehot = np.eye(n_classes, dtype=np.int32)[y]
    total = onehot.sum(axis=0)
    threshold = np.full(F, np.inf)
    left = np.full(F, int(np.argmax(total)), dtype=np.intp)
    right = left.copy()
    errors = np.full(F, n - int(total.max()), dtype=np.intp)
    for block in feature_blocks(F, 8 * (n + 1) * n_classes * 3):
        cum = prefix_sums(sf, onehot, block)[:, 1:-1]  # (B, n-1, C): left-side counts
        right_counts = total - cum
        correct = cum.max(axis=2) + right_counts.max(axis=2)
        correct = np.where(sf.valid_cuts(block), correct, -1)
        best = np.argmax(correct, axis=1)  # first maximum = smallest threshold
        rows = np.arange(best.size)
        ok = correct[rows, best] > (n - errors[block])
        idx = np.flatnonzero(ok) + (block.start or 0)
        thr = cut_thresholds(sf, block)[rows, best]
        threshold[idx] = thr[ok]
        left[idx] = np.argmax(cum[rows, best], axis=1)[ok]
        right[idx] = np.argmax(right_counts[rows, best], axis=1)[ok]
        errors[idx] = n - correct[rows, best][ok]
    return StumpTable(threshold=threshold, left_class=left, right_class=right, train_errors=errors)


def predict_stumps(X: ArrayLike, stumps: StumpTable) -> NDArray[np.intp]:
    """Class codes predicted by each feature's stump for each sample, ``(n_samples, F)``."""
    X = np.asarray(X, dtype=float)
    return np.where(stumps.threshold >= X, stumps.left_class, stumps.right_class)


@dataclass(frozen=True)
class ThresholdCounts:
    """Class counts on both sides of every observed-value threshold of every feature.

    Candidate ``k`` is the pair of conditions ``x[:, feature[k]] <= threshold[k]`` (counts
    ``left[k]``) and ``x[:, feature[k]] > threshold[k]`` (counts ``right[k]``). Missing
    values (NaN) satisfy neither condition; their class counts are ``missing[feature]``.
    Features are listed in increasing order and thresholds increase within a feature.
    """

    feature: NDArray[np.intp]
    threshold: NDArray[np.floating]
    left: NDArray[np.int64]
    right: NDArray[np.int64]
    missing: NDArray[np.int64]


def threshold_class_counts(
    sorted_features: SortedFeatures,
    y_codes: ArrayLike,
    n_classes: int,
    sample_mask: ArrayLike | None = None,
) -> ThresholdCounts:
    """Class counts of ``x <= t`` and ``x > t`` for every distinct observed value ``t``.

    One sorted scan per call: the presorted order is restricted to the samples in
    ``sample_mask`` (no re-sort), the class indicators are accumulated along it, and the
    last position of each run of tied values gives the counts of ``x <= t``. NaN sorts
    last and is never counted on either side, so a missing value satisfies no condition.
    Used by ``widefs.rules`` for the numeric conditions of CN2.

    Parameters
    ----------
    sorted_features : SortedFeatures
        Presort of the full matrix (NaN last, as ``np.argsort`` puts it).
    y_codes : array_like of int, shape (n_samples,)
        Class codes ``0..n_classes-1`` of the full matrix's samples.
    n_classes : int
    sample_mask : array_like of bool, shape (n_samples,), optional
        Samples to count (e.g. those covered by a rule); all when omitted.

    Returns
    -------
    ThresholdCounts

    Examples
    --------
    >>> s = SortedFeatures.from_matrix([[3.0], [1.0], [np.nan], [1.0], [2.0]])
    >>> c = threshold_class_counts(s, [1, 0, 1, 1, 0], 2)
    >>> c.threshold.tolist(), c.left.tolist(), c.right.tolist(), c.missing.tolist()
    ([1.0, 2.0, 3.0], [[1, 1], [2, 1], [2, 2]], [[1, 1], [0, 1], [0, 0]], [[0, 1]])
    """
    y = np.asarray(y_codes, dtype=np.intp)
    sf = sorted_features if sample_mask is None else sorted_features.subset(sample_mask)
    if sample_mask is not None:
        y = y[np.asarray(sample_mask, dtype=bool)]
    n_feat, n = sf.order.shape
    cum = np.zeros((n_feat, n + 1, n_classes), dtype=np.int64)
    if n:
        onehot = np.eye(n_classes, dtype=np.int64)[y]
        np.cumsum(onehot[sf.order], axis=1, out=cum[:, 1:])
    v = sf.values.astype(float, copy=False)
    finite = ~np.isnan(v)
    n_finite = finite.sum(axis=1)
    # The last sample of each run of tied, non-missing values ends a candidate threshold.
    run_end = finite.copy()
    run_end[:, :-1] &= v[:, 1:] != v[:, :-1]
    feat, pos = np.nonzero(run_end)
    left = cum[feat, pos + 1]
    nonmissing = cum[np.arange(n_feat), n_finite]
    return ThresholdCounts(
        feature=feat.astype(np.intp),
        threshold=v[feat, pos],
        left=left,
        right=nonmissing[feat] - left,
        missing=cum[:, -1] - nonmissing,
    )
