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
    "CutScan",
    "RunLayout",
    "SortedFeatures",
    "StumpTable",
    "ThresholdCounts",
    "compact_sorted_features",
    "cut_thresholds",
    "feature_blocks",
    "fit_error_stumps",
    "predict_stumps",
    "prefix_sums",
    "presort_features",
    "run_layout",
    "scan_best_cuts",
    "threshold_class_counts",
    "threshold_class_counts_many",
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


# ---------------------------------------------------------------------------------------
# Streaming best-cut scan (used by the Set Covering Machines of widefs.scm; generic enough
# for any learner whose score of a cut is a function of per-side channel sums).
# ---------------------------------------------------------------------------------------


def _kernels():
    """The numba kernels (:mod:`widefs.stumps._kernels`), imported on first use."""
    from widefs.stumps import _kernels

    return _kernels


def presort_features(
    X: ArrayLike, *, index_dtype=np.int32, max_bytes: int = DEFAULT_BLOCK_BYTES
) -> SortedFeatures:
    """Sort every column of ``X`` once, a feature block at a time, with compact indices.

    Same result as :meth:`SortedFeatures.from_matrix` (stable order) but faster and
    leaner: each float is mapped to an order-preserving 64-bit integer whose lowest bits
    are replaced by the sample index, so one integer sort (SIMD in numpy) gives a stable
    argsort; rows where two distinct values collide in the kept bits, or holding NaN, are
    re-sorted with ``argsort(kind="stable")``. There is no full transposed copy of ``X``
    and ``order`` is stored as ``index_dtype`` (int32 halves the memory of wide data).

    Examples
    --------
    >>> s = presort_features([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]])
    >>> s.order.tolist(), s.order.dtype.name
    ([[1, 2, 0], [2, 0, 1]], 'int32')
    """
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError("X must be two-dimensional (n_samples, n_features).")
    n, F = X.shape
    if n > np.iinfo(index_dtype).max:
        raise ValueError(f"{n} samples do not fit in {np.dtype(index_dtype).name} indices.")
    order = np.empty((F, n), dtype=index_dtype)
    values = np.empty((F, n), dtype=np.float64)
    if n == 0 or F == 0:
        return SortedFeatures(order=order, values=values)
    bits = max(1, int(n - 1).bit_length())
    kern = _kernels()
    for block in feature_blocks(F, 24 * n, max_bytes):
        cols = np.ascontiguousarray(X[:, block].T, dtype=np.float64)
        with kern.threads(cols.size):
            keys = kern.pack_keys(cols, bits)
            keys.sort(axis=1)
            bad = kern.unpack_keys(keys, cols, bits, order[block], values[block])
        for j in np.flatnonzero(bad):
            o = np.argsort(cols[j], kind="stable")
            order[block.start + j] = o
            values[block.start + j] = cols[j, o]
    return SortedFeatures(order=order, values=values)


@dataclass(frozen=True)
class CutScan:
    """Best cut of every feature found by :func:`scan_best_cuts`.

    Attributes
    ----------
    score, tiebreak : ndarray of shape (n_features,)
        Score of the best cut and its secondary key (``-inf`` when the feature has no
        valid cut among the active samples).
    position : ndarray of int, shape (n_features,)
        Index, in the feature's current sorted row, of the first sample right of the cut.
    side : ndarray of int8, shape (n_features,)
        0 when the score is that of the left part (``x <= t``), 1 for the right part.
    left_value, right_value : ndarray of shape (n_features,)
        ``a``: the largest active value left of the cut; ``b``: the smallest value right of
        it (active samples, or all samples with ``next_value="all"``). Every threshold
        ``a <= t < b`` makes the same split.
    """

    score: NDArray[np.float64]
    tiebreak: NDArray[np.float64]
    position: NDArray[np.int64]
    side: NDArray[np.int8]
    left_value: NDArray[np.float64]
    right_value: NDArray[np.float64]

    def best_feature(self) -> int:
        """The winning feature: highest score, then highest tiebreak, then lowest index (-1 if none)."""
        if not np.any(np.isfinite(self.score)):
            return -1
        # lexsort sorts ascending by the last key first; negate to prefer high values.
        ranked = np.lexsort((np.arange(self.score.size), -self.tiebreak, -self.score))
        return int(ranked[0])


def scan_best_cuts(
    sorted_features: SortedFeatures,
    channels: ArrayLike,
    scorer,
    params: ArrayLike = (),
    *,
    active: ArrayLike | None = None,
    n_positions: int | None = None,
    feature_range: tuple[ArrayLike, ArrayLike] | None = None,
    next_value: str = "active",
    feature_mask: ArrayLike | None = None,
    compact: bool = False,
) -> CutScan:
    """One streaming pass over every feature's sorted order, scoring every cut.

    A cut lies between two consecutive *active* samples of a feature whose values differ
    (values are compared exactly; no tolerance). At each cut the left-side sums of the
    per-sample ``channels`` are known, and ``scorer`` turns them into a score for the
    left part and one for the right part. Per feature the best cut is kept: higher
    score, then higher tiebreak, then the first cut in ascending order (left part
    before right part at the same cut).

    Parameters
    ----------
    sorted_features : SortedFeatures
        From :func:`presort_features`; its rows may have been compacted with
        :func:`compact_sorted_features` (then pass ``n_positions``).
    channels : array_like of shape (n_samples, n_channels)
        Per-sample weights summed on each side (class indicators, example weights...).
    scorer : numba-jitted function
        ``scorer(left, total, a, b, lo, hi, params) -> (score_left, tie_left,
        score_right, tie_right)`` where ``left`` / ``total`` are the channel sums of the
        left part / of all active samples, ``[a, b)`` the interval of equivalent
        thresholds and ``[lo, hi]`` the feature's range. Return ``-inf`` to reject.
    params : array_like of float
        Passed to ``scorer`` unchanged.
    active : array_like of bool, shape (n_samples,), optional
        Samples taking part (default all). Inactive samples are skipped: they neither
        contribute to sums nor create cuts.
    n_positions : int, optional
        Scan only the first ``n_positions`` entries of each row (after compaction).
    feature_range : (lo, hi) arrays of shape (n_features,), optional
        Passed to ``scorer`` per feature (default zeros).
    next_value : {"active", "all"}, default="active"
        Whether ``b`` is the next active value or the next value of any sample.
    feature_mask : array_like of bool, shape (n_features,), optional
        Features to scan (default all); the others get score ``-inf``.
    compact : bool, default=False
        Also compact the rows in place during the same pass (as
        :func:`compact_sorted_features`, for the scanned features); positions then refer to
        the compacted rows, whose length is the number of active samples. Rows of features
        excluded by ``feature_mask`` are not compacted, so only use this without a mask or
        when masked features are never scanned again.

    Returns
    -------
    CutScan

    Examples
    --------
    >>> import numba
    >>> @numba.njit
    ... def errors(left, total, a, b, lo, hi, params):
    ...     # left part predicts class 0, right part class 1: minus the errors; and the reverse
    ...     e = left[1] + (total[0] - left[0])
    ...     return -e, 0.0, -(total[0] + total[1] - e), 0.0
    >>> sf = presort_features([[0.0], [1.0], [2.0], [3.0]])
    >>> scan = scan_best_cuts(sf, [[1, 0], [1, 0], [0, 1], [0, 1]], errors)
    >>> scan.score.tolist(), scan.position.tolist(), scan.left_value.tolist()
    ([-0.0], [2], [1.0])
    """
    if next_value not in ("active", "all"):
        raise ValueError(f"next_value must be 'active' or 'all', got {next_value!r}.")
    if compact and next_value == "all":
        raise ValueError("compact=True drops inactive samples, which next_value='all' needs.")
    order, values = sorted_features.order, sorted_features.values
    F, n = order.shape
    ch = np.ascontiguousarray(np.asarray(channels, dtype=np.float64))
    if ch.ndim == 1:
        ch = ch[:, None]
    act = np.ones(n, np.bool_) if active is None else np.asarray(active, dtype=np.bool_)
    if act.shape[0] != ch.shape[0]:
        raise ValueError("active and channels must have one entry per sample.")
    if feature_range is None:
        lo = hi = np.zeros(F)
    else:
        lo = np.ascontiguousarray(np.broadcast_to(np.asarray(feature_range[0], float), (F,)))
        hi = np.ascontiguousarray(np.broadcast_to(np.asarray(feature_range[1], float), (F,)))
    npos = n if n_positions is None else int(n_positions)
    use = np.ones(F, np.bool_) if feature_mask is None else np.asarray(feature_mask, np.bool_)
    if use.shape != (F,):
        raise ValueError("feature_mask must have one entry per feature.")
    kern = _kernels()
    parallel = F * npos >= kern.PARALLEL_MIN_ENTRIES and kern.numba.get_num_threads() > 1
    if parallel not in kern.SCAN_KERNELS:
        kern.SCAN_KERNELS[parallel] = kern.make_scan_kernel(parallel)
    with kern.threads(F * npos):
        out = kern.SCAN_KERNELS[parallel](
            order,
            values,
            ch,
            act,
            npos,
            scorer,
            np.asarray(params, dtype=np.float64).reshape(-1),
            lo,
            hi,
            next_value == "all",
            use,
            bool(compact),
        )
    return CutScan(*out)


def compact_sorted_features(
    sorted_features: SortedFeatures, active: ArrayLike, n_positions: int | None = None
) -> int:
    """Move each row's active samples to its front, in place, keeping their order.

    Returns the new number of positions to scan (the number of active samples). Learners
    that remove samples step by step call this lazily (when enough were removed), so a
    scan never pays for long-gone samples and ``X`` is never copied.

    Examples
    --------
    >>> sf = presort_features([[3.0], [1.0], [2.0]])
    >>> compact_sorted_features(sf, [True, False, True])
    2
    >>> sf.order[0, :2].tolist(), sf.values[0, :2].tolist()
    ([2, 0], [2.0, 3.0])
    """
    act = np.asarray(active, dtype=np.bool_)
    npos = sorted_features.n_samples if n_positions is None else int(n_positions)
    kern = _kernels()
    with kern.threads(sorted_features.n_features * npos):
        return int(kern.compact_kernel(sorted_features.order, sorted_features.values, act, npos))


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

    ``run_id[j, i]`` numbers the run of sorted position i of feature j (runs are numbered
    feature by feature; missing values of feature j get ``n_runs + j``);
    ``run_feature``/``run_value`` give each run's feature and value; ``first_run[j]`` and
    ``end_run[j]`` delimit feature j's runs.
    """

    run_id: NDArray[np.intp]
    n_runs: int
    run_feature: NDArray[np.intp]
    run_value: NDArray[np.floating]
    first_run: NDArray[np.intp]
    end_run: NDArray[np.intp]


def run_layout(sorted_features: SortedFeatures) -> RunLayout:
    """The :class:`RunLayout` of a presort, for repeated :func:`threshold_class_counts_many`.

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
