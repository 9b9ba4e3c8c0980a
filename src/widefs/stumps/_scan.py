"""Threshold scans on a presort: every candidate threshold of every feature in one pass.

A decision stump on feature j puts a threshold between two consecutive distinct values of
that feature. Everything a stump learner needs about all candidate thresholds of all
features is a prefix sum, along each feature's sorted order (:class:`SortedFeatures`), of a
few per-sample channels (class indicators, example weights). One streaming pass, in
feature blocks, scores every threshold of every feature:

- :func:`fit_error_stumps` / :func:`predict_stumps` are the one-feature classifiers used by
  the univariate stump scorer (fewest training errors, majority class on each side);
- :func:`run_layout` numbers the runs of tied values of a presort, the bins of the numeric
  conditions ``a <= t`` / ``a > t`` of CN2 (``widefs.rules``);
- ``threshold_class_counts`` / ``threshold_class_counts_many`` (private) give the class
  counts of both sides of every observed-value threshold; the rule search's compiled
  kernel is tested against them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from widefs._utils import column_major, feature_blocks, is_sparse_matrix
from widefs.stumps._presort import SortedFeatures

__all__ = ["RunLayout", "StumpTable", "fit_error_stumps", "predict_stumps", "run_layout"]


def _prefix_sums(
    sorted_features: SortedFeatures, channels: ArrayLike, block: slice = slice(None)
) -> NDArray:
    """Cumulative sums of per-sample channels along each feature's sorted order.

    Parameters
    ----------
    sorted_features : SortedFeatures
    channels : array_like of shape (n_samples,) or (n_samples, n_channels)
        Per-sample quantities (class indicators, weights, ``w * x``, ...).
    block : slice, default=slice(None)
        The features to scan (see :func:`widefs._utils.feature_blocks`).

    Returns
    -------
    ndarray of shape (n_block, n_samples + 1[, n_channels])
        ``out[j, i]`` is the sum of the channels over the ``i`` samples with the
        smallest values of feature j; ``out[j, 0] = 0`` and ``out[j, -1]`` is the total.

    Examples
    --------
    >>> s = SortedFeatures.from_matrix([[3.0], [1.0], [2.0]])
    >>> _prefix_sums(s, [1, 0, 1])[0].tolist()
    [0, 0, 1, 2]
    """
    ch = np.asarray(channels)
    order = sorted_features.order[block]
    gathered = ch[order]  # (F, n[, K])
    out = np.zeros((order.shape[0], order.shape[1] + 1, *ch.shape[1:]), dtype=gathered.dtype)
    np.cumsum(gathered, axis=1, out=out[:, 1:])
    return out


@dataclass(frozen=True)
class StumpTable:
    """One fitted stump per feature: predict ``left_class`` if ``x <= threshold`` else ``right_class``.

    Parameters
    ----------
    threshold : ndarray of float, shape (n_features,)
        ``+inf`` for a feature without a useful threshold.
    left_class, right_class : ndarray of int, shape (n_features,)
        Class codes predicted on each side.
    train_errors : ndarray of int, shape (n_features,)
        Training errors of each stump.

    Attributes
    ----------
    threshold, left_class, right_class, train_errors
        As given.

    See Also
    --------
    fit_error_stumps : Fits the table.
    predict_stumps : Applies it.

    Examples
    --------
    >>> t = StumpTable(np.array([0.5]), np.array([0]), np.array([1]), np.array([0]))
    >>> predict_stumps([[0.0], [1.0]], t).tolist()
    [[0], [1]]
    """

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
    X : array_like or scipy sparse matrix of shape (n_samples, n_features)
        A sparse matrix is densified one feature block at a time.
    y_codes : array_like of int, shape (n_samples,)
        Class codes ``0..n_classes-1``.
    n_classes : int

    Returns
    -------
    StumpTable

    See Also
    --------
    predict_stumps : Applies the table.
    widefs.univariate.DiscriminativeSelector : Scores features by these stumps.

    Examples
    --------
    >>> t = fit_error_stumps([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0], [3.0, 5.0]], [0, 0, 1, 1], 2)
    >>> t.threshold.tolist(), t.train_errors.tolist()
    ([1.5, inf], [0, 2])
    """
    X = column_major(X) if is_sparse_matrix(X) else np.asarray(X, dtype=float)
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
        cum = _prefix_sums(sf, onehot, block)[:, 1:-1]  # (B, n-1, C): left-side counts
        right_counts = total - cum
        correct = cum.max(axis=2) + right_counts.max(axis=2)
        correct = np.where(sf.valid_cuts(block), correct, -1)
        best = np.argmax(correct, axis=1)  # first maximum = smallest threshold
        rows = np.arange(best.size)
        ok = correct[rows, best] > (n - errors[block])
        idx = np.flatnonzero(ok) + (block.start or 0)
        thr = sf.cut_thresholds(block)[rows, best]
        threshold[idx] = thr[ok]
        left[idx] = np.argmax(cum[rows, best], axis=1)[ok]
        right[idx] = np.argmax(right_counts[rows, best], axis=1)[ok]
        errors[idx] = n - correct[rows, best][ok]
    return StumpTable(threshold=threshold, left_class=left, right_class=right, train_errors=errors)


def predict_stumps(X: ArrayLike, stumps: StumpTable) -> NDArray[np.intp]:
    """Class codes predicted by each feature's stump for each sample.

    Parameters
    ----------
    X : array_like or scipy sparse matrix of shape (n_samples, n_features)
        A sparse matrix is densified (the predictions are as large).
    stumps : StumpTable
        From :func:`fit_error_stumps` on the same features.

    Returns
    -------
    ndarray of int, shape (n_samples, n_features)

    See Also
    --------
    fit_error_stumps : Fits the stumps.

    Examples
    --------
    >>> t = fit_error_stumps([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1], 2)
    >>> predict_stumps([[0.2], [2.7]], t).tolist()
    [[0], [1]]
    """
    X = X.toarray() if is_sparse_matrix(X) else X
    X = np.asarray(X, dtype=float)
    return np.where(stumps.threshold >= X, stumps.left_class, stumps.right_class)


@dataclass(frozen=True)
class ThresholdCounts:
    """Class counts on both sides of every observed-value threshold of every feature.

    Candidate ``k`` is the pair of conditions ``x[:, feature[k]] <= threshold[k]`` (counts
    ``left[k]``) and ``x[:, feature[k]] > threshold[k]`` (counts ``right[k]``). Missing
    values (NaN) satisfy neither condition; their class counts are ``missing[feature]``.
    Features are listed in increasing order and thresholds increase within a feature.
    From :func:`threshold_class_counts_many`, ``group[k]`` is the sample mask candidate
    ``k`` belongs to and ``missing`` has shape ``(n_masks, n_features, n_classes)``.
    """

    feature: NDArray[np.intp]
    threshold: NDArray[np.floating]
    left: NDArray[np.int64]
    right: NDArray[np.int64]
    missing: NDArray[np.int64]
    group: NDArray[np.intp] | None = None


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


def threshold_class_counts_many(
    sorted_features: SortedFeatures,
    y_codes: ArrayLike,
    n_classes: int,
    sample_masks: ArrayLike,
    layout: RunLayout | None = None,
) -> ThresholdCounts:
    """:func:`threshold_class_counts` for several sample masks at once (e.g. a rule beam).

    All masks share one presort. Each run of tied values along a feature's sorted order
    is one bin: a single ``bincount`` over the covered (mask, sample) pairs gives the class
    counts of every (mask, run), and a cumulative sum over runs gives the counts of
    ``x <= t`` at every run end. The cost is O(covered pairs + masks x runs x classes),
    with no per-threshold Python work. A run yields a threshold for a mask only when the
    mask covers one of its samples. Candidates are ordered by mask, then feature, then
    threshold, exactly as concatenating per-mask calls would give.

    ``layout`` (from :func:`run_layout`) may be passed when the same presort is scanned
    for many sets of masks, as a rule search does round after round.

    Examples
    --------
    >>> s = SortedFeatures.from_matrix([[3.0], [1.0], [np.nan], [1.0], [2.0]])
    >>> c = threshold_class_counts_many(s, [1, 0, 1, 1, 0], 2, [[1, 1, 1, 1, 1], [1, 0, 0, 0, 1]])
    >>> c.group.tolist(), c.threshold.tolist(), c.left.tolist()
    ([0, 0, 0, 1, 1], [1.0, 2.0, 3.0, 2.0, 3.0], [[1, 1], [2, 1], [2, 2], [1, 0], [1, 1]])
    """
    y = np.asarray(y_codes, dtype=np.intp)
    masks = np.atleast_2d(np.asarray(sample_masks, dtype=bool))
    lay = run_layout(sorted_features) if layout is None else layout
    order = sorted_features.order
    n_feat = order.shape[0]
    n_masks = masks.shape[0]
    n_runs = lay.n_runs
    bins = lay.run_id * n_classes + y[order]  # (F, n): (run, class) bin of each sample
    width = (n_runs + n_feat) * n_classes
    member, flat = np.nonzero(masks[:, order].reshape(n_masks, -1))
    counts = np.bincount(member * width + bins.ravel()[flat], minlength=n_masks * width)
    counts = counts.reshape(n_masks, n_runs + n_feat, n_classes)
    run_counts = counts[:, :n_runs]
    fe = lay.run_feature
    cum = np.cumsum(run_counts, axis=1)
    before = np.concatenate([np.zeros((n_masks, 1, n_classes), cum.dtype), cum], axis=1)
    base = before[:, lay.first_run]  # (M, F, C): counts of all runs of earlier features
    nonmissing = before[:, lay.end_run] - base  # (M, F, C)
    group, k = np.nonzero(run_counts.any(axis=2))
    left = cum[group, k] - base[group, fe[k]]
    missing = counts[:, n_runs:]
    return ThresholdCounts(
        feature=fe[k],
        threshold=lay.run_value[k],
        left=left,
        right=nonmissing[group, fe[k]] - left,
        missing=missing,
        group=group,
    )


@dataclass(frozen=True)
class RunLayout:
    """Runs of tied non-missing values of a presort (independent of labels and masks).

    Each run of equal values along a feature's sorted order is one bin: the candidate
    thresholds ``x <= value`` of that feature are the run ends.

    Parameters
    ----------
    run_id : ndarray of int, shape (n_features, n_samples)
        ``run_id[j, i]`` numbers the run of sorted position i of feature j (runs are
        numbered feature by feature; missing values of feature j get ``n_runs + j``).
    n_runs : int
        Number of runs of non-missing values over all features.
    run_feature, run_value : ndarray of shape (n_runs,)
        Each run's feature and value.
    first_run, end_run : ndarray of int, shape (n_features,)
        Feature j's runs are ``first_run[j] <= r < end_run[j]``.

    Attributes
    ----------
    run_id, n_runs, run_feature, run_value, first_run, end_run
        As given.

    See Also
    --------
    run_layout : Builds it from a presort.

    Examples
    --------
    >>> lay = run_layout(SortedFeatures.from_matrix([[3.0, 1.0], [1.0, 1.0]]))
    >>> lay.n_runs, lay.run_feature.tolist(), lay.first_run.tolist(), lay.end_run.tolist()
    (3, [0, 0, 1], [0, 2], [2, 3])
    """

    run_id: NDArray[np.intp]
    n_runs: int
    run_feature: NDArray[np.intp]
    run_value: NDArray[np.floating]
    first_run: NDArray[np.intp]
    end_run: NDArray[np.intp]


def run_layout(sorted_features: SortedFeatures) -> RunLayout:
    """The :class:`RunLayout` of a presort (the bins of the numeric conditions of CN2).

    Parameters
    ----------
    sorted_features : SortedFeatures
        NaN last in each row, as ``SortedFeatures.from_matrix`` puts it.

    Returns
    -------
    RunLayout

    See Also
    --------
    SortedFeatures.from_matrix : The presort.

    Examples
    --------
    >>> lay = run_layout(SortedFeatures.from_matrix([[3.0], [1.0], [np.nan], [1.0]]))
    >>> lay.run_id.tolist(), lay.run_value.tolist()
    ([[0, 0, 1, 2]], [1.0, 3.0])
    """
    v = sorted_features.values.astype(float, copy=False)
    n_feat, n = v.shape
    finite = ~np.isnan(v)
    new_run = finite.copy()
    new_run[:, 1:] &= v[:, 1:] != v[:, :-1]
    n_runs = int(new_run.sum())
    run_id = np.cumsum(new_run.ravel()).reshape(n_feat, n) - 1
    run_id = np.where(finite, run_id, n_runs + np.arange(n_feat)[:, None])
    run_end = finite.copy()
    run_end[:, :-1] &= v[:, 1:] != v[:, :-1]
    fe, pe = np.nonzero(run_end)
    first_run = np.searchsorted(fe, np.arange(n_feat))
    return RunLayout(
        run_id=run_id.astype(np.intp),
        n_runs=n_runs,
        run_feature=fe.astype(np.intp),
        run_value=v[fe, pe],
        first_run=first_run.astype(np.intp),
        end_run=np.append(first_run[1:], n_runs).astype(np.intp),
    )
