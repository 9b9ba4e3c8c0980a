"""One-feature classifiers scored on validation parts, vectorized over features and splits.

Discriminative feature selection (Section 5 of Palatucci & Carlson 2008) trains one
classifier per feature on a training part and counts its errors on a validation part.
Here one call handles R splits at once: the training masks form an (R, n) matrix, so
the per-class sufficient statistics of every feature in every split are two matrix
products, and no Python loop runs over features or over the rounds of a leave-one-out
protocol.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state

from widefs._utils import feature_blocks, refuse_sparse
from widefs.stumps import SortedFeatures, fit_error_stumps, predict_stumps

__all__ = [
    "GaussianMoments",
    "gaussian_nb_log_likelihoods",
    "gaussian_nb_split_errors",
    "halves_masks",
    "stump_split_errors",
]

_LOG_2PI = np.log(2.0 * np.pi)


def halves_masks(
    y_codes: ArrayLike, n_classes: int, random_state=None, *, available: ArrayLike | None = None
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Stratified equal halves of the available examples: ``(train_mask, val_mask)``.

    Each class is shuffled and split in half. Odd class counts leave one example over;
    those extras go alternately to validation and training (in class order, validation
    first), so the training part has ``floor(n/2)`` examples and the validation part
    ``ceil(n/2)``: 61 examples give 30 for training and 31 for validation.

    Parameters
    ----------
    y_codes : array_like of int, shape (n_samples,)
        Class codes ``0..n_classes-1``.
    n_classes : int
        Number of classes.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffle within each class.
    available : array_like of bool, shape (n_samples,), optional
        Examples that may be used (for example all but a held-out one); default all.

    Returns
    -------
    train_mask, val_mask : ndarray of bool, shape (n_samples,)
        Disjoint masks covering the available examples.

    See Also
    --------
    DiscriminativeSelector : uses these halves for ``cv="halves"``.
    split_cells : the cells label permutations stay within.

    Examples
    --------
    >>> tr, va = halves_masks([0] * 39 + [1] * 22, 2, random_state=0)
    >>> int(tr.sum()), int(va.sum()), bool((tr & va).any())
    (30, 31, False)
    """
    y = np.asarray(y_codes)
    rng = check_random_state(random_state)
    avail = np.ones(y.shape[0], dtype=bool) if available is None else np.asarray(available, bool)
    train = np.zeros(y.shape[0], dtype=bool)
    val = np.zeros(y.shape[0], dtype=bool)
    extra_to_val = True
    for c in range(n_classes):
        idx = np.flatnonzero(avail & (y == c))
        idx = idx[rng.permutation(idx.size)]
        n_train = idx.size // 2
        if idx.size % 2:
            n_train += 0 if extra_to_val else 1
            extra_to_val = not extra_to_val
        train[idx[:n_train]] = True
        val[idx[n_train:]] = True
    return train, val


@dataclass(frozen=True)
class GaussianMoments:
    """Per-split, per-class Gaussian parameters of a block of features.

    ``mean`` and ``var`` have shape (R, C, B); ``log_prior`` (R, C), ``-inf`` for a class
    absent from a split's training part. Features constant on a training part get equal
    means and unit variances for every class, so that their classifier predicts the
    training majority instead of dividing by zero.
    """

    mean: NDArray[np.float64]
    var: NDArray[np.float64]
    log_prior: NDArray[np.float64]

    def log_likelihood_terms(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Per-feature Gaussian log-densities of samples ``x`` of shape (R or 1, k, B).

        Returns shape (R, k, C, B).
        """
        mean, var = self.mean[:, None], self.var[:, None]
        return -0.5 * (_LOG_2PI + np.log(var)) - (x[:, :, None, :] - mean) ** 2 / (2.0 * var)


def _moments(Xb: NDArray, onehot: NDArray, train: NDArray, var_smoothing: float) -> GaussianMoments:
    """Gaussian naive Bayes parameters for R training masks at once (two matmuls per moment).

    ``Xb`` must be centred (see :func:`_centred`): the variance is ``E[x^2] - E[x]^2``,
    which stays accurate when the feature mean is small next to its spread.
    """
    return _weighted_moments(Xb, train[:, None, :] * onehot.T[None, :, :], var_smoothing)


def _weighted_moments(
    Xb: NDArray, weights: NDArray, var_smoothing: float, counts: NDArray | None = None
) -> GaussianMoments:
    """Moments from class-membership weights of shape (S, C, n): one (C, n) matmul per row S.

    A row is one training part (a split) or one label vector on a fixed training part
    (a label permutation); the arithmetic per row is the same either way, so a batch of
    label vectors reproduces the one-at-a-time fits exactly. ``counts``, the weights summed
    over samples, may be given by a caller that reuses the weights for many blocks.
    """
    if counts is None:
        counts = weights.sum(axis=2)  # (R, C)
    n_train = counts.sum(axis=1)  # (R,)
    s1 = weights @ Xb  # (R, C, B)
    s2 = weights @ (Xb * Xb)
    safe = np.maximum(counts, 1)[:, :, None]
    mean = s1 / safe
    var = np.maximum(s2 / safe - mean**2, 0.0)
    # sklearn's GaussianNB smooths with var_smoothing times the feature's training variance.
    tot_mean = s1.sum(axis=1) / n_train[:, None]
    tot_var = np.maximum(s2.sum(axis=1) / n_train[:, None] - tot_mean**2, 0.0)  # (R, B)
    var = var + var_smoothing * tot_var[:, None, :]
    constant = (tot_var <= 0)[:, None, :] | (var <= 0)
    if constant.any():  # (rarely: a constant feature or class on a training part)
        mean = np.where(constant, 0.0, mean)
        var = np.where(constant, 1.0, var)
    with np.errstate(divide="ignore"):
        log_prior = np.log(counts / n_train[:, None])
    return GaussianMoments(mean=mean, var=var, log_prior=log_prior)


def _centred(X: NDArray) -> NDArray[np.float64]:
    # Naive Bayes is shift-invariant per feature; centring keeps E[x^2] - E[x]^2 accurate.
    X = np.asarray(X, dtype=float)
    return X - X.mean(axis=0)


def _as_masks(masks: ArrayLike, n: int, name: str) -> NDArray[np.float64]:
    arr = np.atleast_2d(np.asarray(masks, dtype=bool))
    if arr.shape[1] != n:
        raise ValueError(f"{name} must have shape (n_splits, n_samples).")
    return arr.astype(float)


def _padded_rows(masks: NDArray[np.bool_]) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """Row indices of each mask, padded to equal length: ``(index (R, V), valid (R, V))``."""
    sizes = masks.sum(axis=1)
    width = max(int(sizes.max(initial=0)), 1)
    valid = np.arange(width)[None, :] < sizes[:, None]
    index = np.zeros(valid.shape, dtype=np.intp)
    # Stable argsort of ~mask puts each row's selected indices first, in increasing order.
    index[valid] = np.argsort(~masks, axis=1, kind="stable")[:, :width][valid]
    return index, valid


def _label_matrix(y_codes: ArrayLike, n: int, n_classes: int) -> NDArray[np.intp]:
    """Class codes as an int array of shape (n,) or (L, n), checked against n and n_classes."""
    y = np.asarray(y_codes)
    if y.ndim not in (1, 2) or y.shape[-1] != n:
        raise ValueError(
            f"y_codes must have shape (n_samples,) or (n_label_vectors, n_samples) with "
            f"n_samples = {n}; got {y.shape}."
        )
    y = y.astype(np.intp)
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"y_codes must lie in 0..{n_classes - 1}.")
    return y


def _gnb_decisions(
    mom: GaussianMoments, x: NDArray, y_val: NDArray, scratch: NDArray | None = None
) -> NDArray[np.bool_]:
    """Misclassified validation entries, ``(S, V, B)``, from moments of S rows and x of
    shape (S or 1, V, B) with labels ``y_val`` of shape (S, V); ``scratch``, an (S, V, B)
    float array, holds the binary decision values (else a new array does)."""
    inv = 1.0 / mom.var
    qa = -0.5 * inv
    qb = mom.mean * inv
    qc = mom.log_prior[:, :, None] - 0.5 * np.log(mom.var) - 0.5 * mom.mean * qb
    if mom.mean.shape[1] == 2:
        # ((a x + b) x) + c, in this order, in place
        d = np.multiply((qa[:, 1] - qa[:, 0])[:, None], x, out=scratch)
        d += (qb[:, 1] - qb[:, 0])[:, None]
        d *= x
        d += (qc[:, 1] - qc[:, 0])[:, None]
        pred_one = d > 0  # argmax picks class 0 on a tie
        return pred_one != (y_val == 1)[:, :, None]
    xx = x[:, :, None]
    jll = (qa[:, None] * xx + qb[:, None]) * xx + qc[:, None]
    return np.argmax(jll, axis=2) != y_val[:, :, None]


def gaussian_nb_split_errors(
    X: ArrayLike,
    y_codes: ArrayLike,
    n_classes: int,
    train_masks: ArrayLike,
    val_masks: ArrayLike,
    *,
    var_smoothing: float = 1e-9,
) -> NDArray[np.int64]:
    """Validation errors of a one-feature Gaussian naive Bayes, for every feature and split.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y_codes : array_like of int, shape (n_samples,) or (n_label_vectors, n_samples)
        Class codes ``0..n_classes-1``. A matrix scores every feature against each of
        its rows (for example label permutations) on the same splits, in one batch:
        what does not depend on the labels (centring, squares, validation rows) is
        computed once.
    n_classes : int
    train_masks, val_masks : array_like of bool, shape (n_splits, n_samples)
    var_smoothing : float, default=1e-9
        As in :class:`sklearn.naive_bayes.GaussianNB` (relative to the feature's variance).

    Returns
    -------
    ndarray of int, shape (n_splits, n_features) or (n_label_vectors, n_splits, n_features)
        ``errors[r, j]``: misclassified validation examples of split r by the classifier
        trained on feature j alone; the same as fitting ``GaussianNB`` on
        ``X[train, [j]]`` and counting mistakes on ``X[val, [j]]`` (ties go to the first
        class in both, up to rounding at exact ties). For a label matrix,
        ``errors[l]`` equals the call with ``y_codes[l]``.

    See Also
    --------
    stump_split_errors : the same for a decision stump.
    DiscriminativeSelector : sums these over splits and thresholds them.

    Notes
    -----
    Each class's joint log-likelihood is a quadratic ``(a x + b) x + c`` in the feature
    value, so after the moments (two matrix products) scoring a validation example
    costs a few multiply-adds per feature; with two classes only the difference of the
    two quadratics is evaluated.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 10)
    >>> X = rng.normal(size=(20, 3)); X[:, 0] += 3 * y
    >>> tr, va = halves_masks(y, 2, random_state=0)
    >>> gaussian_nb_split_errors(X, y, 2, tr[None], va[None]).shape
    (1, 3)
    >>> perms = np.stack([y, y[::-1]])  # the labels and one relabelling
    >>> gaussian_nb_split_errors(X, perms, 2, tr[None], va[None]).shape
    (2, 1, 3)
    """
    refuse_sparse("gaussian_nb_split_errors", X)
    Xc = _centred(X)
    n = Xc.shape[0]
    y = _label_matrix(y_codes, n, n_classes)
    train = _as_masks(train_masks, n, "train_masks")
    val = _as_masks(val_masks, n, "val_masks").astype(bool)
    if y.ndim == 2:
        return _gnb_label_batch_errors(Xc, y, n_classes, train, val, var_smoothing)
    return _gnb_errors(Xc, y, n_classes, train, val, var_smoothing)


def _gnb_errors(Xc, y, n_classes, train, val, var_smoothing) -> NDArray[np.int64]:
    """:func:`gaussian_nb_split_errors` for one label vector, a block of features at a time."""
    F = Xc.shape[1]
    onehot = np.eye(n_classes)[y]
    R = train.shape[0]
    rows, valid = _padded_rows(val)
    y_rows = y[rows]
    errors = np.empty((R, F), dtype=np.int64)
    # Bytes per feature of a block: a dozen (R, C) moment arrays and, per validation entry,
    # its value, decision and masks (binary) or its C log-likelihoods (the (R, C, n)
    # weights are the same for every block).
    per_entry = 19 if n_classes == 2 else 16 * n_classes + 10
    blocks = list(feature_blocks(F, R * (96 * n_classes + rows.shape[1] * per_entry)))
    # The two (R, V, B) arrays live in buffers every block reuses: megabyte-sized arrays
    # made anew per block are mapped and unmapped by malloc each time (page faults: 20% of
    # the scores on colon).
    size = rows.size * max(b.stop - b.start for b in blocks)
    x_buf = np.empty(size)
    d_buf = np.empty(size) if n_classes == 2 else None  # (only binary decisions use it)
    for block in blocks:
        Xb = Xc[:, block]
        mom = _moments(Xb, onehot, train, var_smoothing)
        shape = (*rows.shape, block.stop - block.start)
        n_buf = rows.size * shape[2]
        x = np.take(Xb, rows, axis=0, out=x_buf[:n_buf].reshape(shape), mode="clip")
        d = None if d_buf is None else d_buf[:n_buf].reshape(shape)
        wrong = _gnb_decisions(mom, x, y_rows, d)
        errors[:, block] = (wrong & valid[:, :, None]).sum(axis=1)
    return errors


# Blocks of the batched path small enough that its (L, C, B) moments stay in cache from the
# products through the moments kernel, the logarithm and the errors kernel (6% less CPU in
# colon's chance analysis than blocks of DEFAULT_BLOCK_BYTES); features are scored
# independently, so the counts do not depend on the block.
_LABEL_BATCH_BYTES = 1 << 20


def _gnb_label_batch_errors(
    Xc: NDArray, Y: NDArray, n_classes: int, train: NDArray, val: NDArray, var_smoothing: float
) -> NDArray[np.int64]:
    """Batched path of :func:`gaussian_nb_split_errors`: L label vectors, one split at a time.

    The weighted sums are the same per-row matrix products as the one-label path; the
    moments, the class quadratics and the validation predictions run in compiled loops
    that repeat the one-label path's operations in the same order (the logarithm stays
    numpy's), so every count equals the one-at-a-time result.
    """
    from widefs.univariate import _kernels

    L, F = Y.shape[0], Xc.shape[1]
    errors = np.empty((L, train.shape[0], F), dtype=np.int64)
    onehot_t = np.eye(n_classes)[Y].transpose(0, 2, 1)  # (L, C, n)
    blocks = list(feature_blocks(F, 8 * L * n_classes * 4, max_bytes=_LABEL_BATCH_BYTES))
    widest = max((b.stop - b.start for b in blocks), default=0)
    out = np.empty(L * widest, dtype=np.int64)  # the two-class errors, reused by every block
    for r in range(train.shape[0]):
        rows = np.flatnonzero(val[r])
        # The split's training rows only: the other rows' weights are 0, terms that leave
        # each sum unchanged (half the work of the products on the halves' splits).
        fit = np.flatnonzero(train[r])
        weights = np.ascontiguousarray(onehot_t[:, :, fit])  # (L, C, n_fit), every labelling
        counts = weights.sum(axis=2)  # the same for every block
        with np.errstate(divide="ignore"):
            log_prior = np.log(counts / counts.sum(axis=1)[:, None])
        y_val = np.ascontiguousarray(Y[:, rows])
        # The split's rows taken once (label-free), a block of their columns at a time below.
        X_fit, X_val = Xc[fit], Xc[rows]
        for block in blocks:
            width = block.stop - block.start
            Xb = X_fit[:, block]
            mean = weights @ Xb  # (L, C, B), made the means in place
            var = weights @ (Xb * Xb)
            _kernels.gnb_batch_moments(mean, var, counts, var_smoothing)
            x_v = np.ascontiguousarray(X_val[:, block])  # (V, B)
            if n_classes == 2:  # the difference of two quadratics: a kernel of its own
                wrong = out[: L * width].reshape(L, width)
                _kernels.gnb_batch_errors(mean, var, np.log(var), log_prior, x_v, y_val, wrong)
            else:
                wrong = _kernels.gnb_batch_errors_multi(
                    mean, var, np.log(var), log_prior, x_v, y_val
                )
            errors[:, r, block] = wrong
    return errors


def gaussian_nb_log_likelihoods(
    X: ArrayLike,
    y_codes: ArrayLike,
    n_classes: int,
    train_masks: ArrayLike,
    eval_rows: ArrayLike,
    *,
    var_smoothing: float = 1e-9,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-feature naive Bayes log-likelihood terms of one evaluation row per split.

    A Gaussian naive Bayes on a feature subset S predicts
    ``argmax_c log_prior[r, c] + sum_{j in S} terms[r, c, j]``, so any selection (for
    example every error threshold of Figure 3) is scored by masked sums of ``terms``
    without refitting. Smoothing is per feature (``var_smoothing`` times that feature's
    variance), where sklearn uses the largest variance among the fitted features.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        Data.
    y_codes : array_like of int, shape (n_samples,)
        Class codes ``0..n_classes-1``.
    n_classes : int
        Number of classes.
    train_masks : array_like of bool, shape (n_splits, n_samples)
        Training examples of each split.
    eval_rows : array_like of int, shape (n_splits,)
        The example evaluated in each split.
    var_smoothing : float, default=1e-9
        Variance smoothing relative to each feature's variance.

    Returns
    -------
    log_prior : ndarray of shape (n_splits, n_classes)
        Log class priors of each split's training part.
    terms : ndarray of shape (n_splits, n_classes, n_features)
        Per-feature Gaussian log-densities of the evaluated example.

    See Also
    --------
    leave_one_out_threshold_curve : scores every threshold with these terms.

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [0.2, 3.0], [2.0, 1.5], [2.2, 2.5]])
    >>> train = np.array([[True, True, True, True]])
    >>> log_prior, terms = gaussian_nb_log_likelihoods(X, [0, 0, 1, 1], 2, train, [0])
    >>> bool(terms[0, 0, 0] > terms[0, 1, 0])  # example 0 looks like class 0 on feature 0
    True
    """
    refuse_sparse("gaussian_nb_log_likelihoods", X)
    Xc = _centred(X)
    y = np.asarray(y_codes, dtype=np.intp)
    n, F = Xc.shape
    train = _as_masks(train_masks, n, "train_masks")
    rows = np.asarray(eval_rows, dtype=np.intp)
    onehot = np.eye(n_classes)[y]
    R = train.shape[0]
    terms = np.empty((R, n_classes, F))
    log_prior = np.zeros((R, n_classes))
    for block in feature_blocks(F, 8 * R * (n + 4 * n_classes)):
        Xb = Xc[:, block]
        mom = _moments(Xb, onehot, train, var_smoothing)
        terms[:, :, block] = mom.log_likelihood_terms(Xb[rows][:, None, :])[:, 0]
        log_prior = mom.log_prior
    return log_prior, terms


def stump_split_errors(
    X: ArrayLike,
    y_codes: ArrayLike,
    n_classes: int,
    train_masks: ArrayLike,
    val_masks: ArrayLike,
) -> NDArray[np.int64]:
    """Validation errors of a one-feature decision stump, for every feature and split.

    The stump minimizes training errors (see :func:`widefs.stumps.fit_error_stumps`).
    Each split is one vectorized pass over all features.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
    y_codes : array_like of int, shape (n_samples,) or (n_label_vectors, n_samples)
        Class codes. A matrix scores every row (for example label permutations) on the
        same splits in one batch: each feature's training part is sorted once and only
        the cumulative class counts along that order are recomputed per label vector.
    n_classes : int
    train_masks, val_masks : array_like of bool, shape (n_splits, n_samples)

    Returns
    -------
    ndarray of int, shape (n_splits, n_features) or (n_label_vectors, n_splits, n_features)
        For a label matrix, ``errors[l]`` equals the call with ``y_codes[l]``.

    See Also
    --------
    gaussian_nb_split_errors : the same for Gaussian naive Bayes.
    widefs.stumps.fit_error_stumps : the stump fitted on each training part.

    Examples
    --------
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> tr = np.array([[1, 1, 0, 0, 1, 0]], bool)
    >>> stump_split_errors(X, y, 2, tr, ~tr).tolist()
    [[0]]
    >>> stump_split_errors(X, np.stack([y, y[::-1]]), 2, tr, ~tr).tolist()
    [[[0]], [[0]]]
    """
    refuse_sparse("stump_split_errors", X)
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    y = _label_matrix(y_codes, n, n_classes)
    train = _as_masks(train_masks, n, "train_masks").astype(bool)
    val = _as_masks(val_masks, n, "val_masks").astype(bool)
    if y.ndim == 2:
        return _stump_label_batch_errors(X, y, n_classes, train, val)
    errors = np.empty((train.shape[0], X.shape[1]), dtype=np.int64)
    for r in range(train.shape[0]):
        stumps = fit_error_stumps(X[train[r]], y[train[r]], n_classes)
        pred = predict_stumps(X[val[r]], stumps)
        errors[r] = (pred != y[val[r], None]).sum(axis=0)
    return errors


def _stump_label_batch_errors(
    X: NDArray, Y: NDArray, n_classes: int, train: NDArray, val: NDArray
) -> NDArray[np.int64]:
    """Batched path of :func:`stump_split_errors`: L label vectors on shared presorts.

    Each feature's training values are sorted once per split (label-free); a compiled
    loop then accumulates the class counts along that order for every label vector with
    the rules of :func:`widefs.stumps.fit_error_stumps` and
    :func:`widefs.stumps.predict_stumps`.
    """
    from widefs.univariate._kernels import stump_errors

    L, F = Y.shape[0], X.shape[1]
    errors = np.empty((L, train.shape[0], F), dtype=np.int64)
    for r in range(train.shape[0]):
        tr, va = np.flatnonzero(train[r]), np.flatnonzero(val[r])
        y_train = np.ascontiguousarray(Y[:, tr])
        y_val = np.ascontiguousarray(Y[:, va])
        total = np.stack([(y_train == c).sum(axis=1) for c in range(n_classes)], axis=1)
        for block in feature_blocks(F, 8 * tr.size * 4 + 8 * va.size):
            Xt = X[tr, block]
            sf = SortedFeatures.from_matrix(Xt)  # label-free, once per split and block
            if tr.size < 2:  # no cut at all: every stump predicts the training majority
                valid = np.zeros((Xt.shape[1], 0), bool)
                thr = np.zeros((Xt.shape[1], 0))
            else:
                valid, thr = sf.valid_cuts(), sf.cut_thresholds()
            errors[:, r, block] = stump_errors(
                sf.order,
                valid,
                np.ascontiguousarray(thr),
                y_train,
                total,
                np.ascontiguousarray(X[va, block].T),
                y_val,
                n_classes,
            )
    return errors
