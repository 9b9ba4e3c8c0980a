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

from widefs.stumps import feature_blocks, fit_error_stumps, predict_stumps

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
    weights = train[:, None, :] * onehot.T[None, :, :]  # (R, C, n)
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
    y_codes : array_like of int, shape (n_samples,)
    n_classes : int
    train_masks, val_masks : array_like of bool, shape (n_splits, n_samples)
    var_smoothing : float, default=1e-9
        As in :class:`sklearn.naive_bayes.GaussianNB` (relative to the feature's variance).

    Returns
    -------
    ndarray of int, shape (n_splits, n_features)
        ``errors[r, j]``: misclassified validation examples of split r by the classifier
        trained on feature j alone; the same as fitting ``GaussianNB`` on
        ``X[train, [j]]`` and counting mistakes on ``X[val, [j]]`` (ties go to the first
        class in both, up to rounding at exact ties).

    Notes
    -----
    Each class's joint log-likelihood is a quadratic ``(a x + b) x + c`` in the feature
    value, so after the moments (two matrix products) scoring a validation example
    costs a few multiply-adds per feature; with two classes only the difference of the
    two quadratics is evaluated.
    """
    Xc = _centred(X)
    y = np.asarray(y_codes, dtype=np.intp)
    n, F = Xc.shape
    train = _as_masks(train_masks, n, "train_masks")
    val = _as_masks(val_masks, n, "val_masks").astype(bool)
    onehot = np.eye(n_classes)[y]
    R = train.shape[0]
    rows, valid = _padded_rows(val)
    y_rows = y[rows]
    errors = np.empty((R, F), dtype=np.int64)
    per_feature = 8 * R * (n * n_classes + 3 * rows.shape[1] * max(n_classes, 2))
    for block in feature_blocks(F, per_feature):
        Xb = Xc[:, block]
        mom = _moments(Xb, onehot, train, var_smoothing)
        inv = 1.0 / mom.var
        qa = -0.5 * inv
        qb = mom.mean * inv
        qc = mom.log_prior[:, :, None] - 0.5 * np.log(mom.var) - 0.5 * mom.mean * qb
        x = Xb[rows]  # (R, V, B)
        if n_classes == 2:
            d = ((qa[:, 1] - qa[:, 0])[:, None] * x + (qb[:, 1] - qb[:, 0])[:, None]) * x
            d += (qc[:, 1] - qc[:, 0])[:, None]
            pred_one = d > 0  # argmax picks class 0 on a tie
            wrong = pred_one != (y_rows == 1)[:, :, None]
        else:
            jll = (qa[:, None] * x[:, :, None] + qb[:, None]) * x[:, :, None] + qc[:, None]
            wrong = np.argmax(jll, axis=2) != y_rows[:, :, None]
        errors[:, block] = (wrong & valid[:, :, None]).sum(axis=1)
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

    Returns
    -------
    log_prior : ndarray of shape (n_splits, n_classes)
    terms : ndarray of shape (n_splits, n_classes, n_features)
    """
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
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y_codes, dtype=np.intp)
    n = X.shape[0]
    train = _as_masks(train_masks, n, "train_masks").astype(bool)
    val = _as_masks(val_masks, n, "val_masks").astype(bool)
    errors = np.empty((train.shape[0], X.shape[1]), dtype=np.int64)
    for r in range(train.shape[0]):
        stumps = fit_error_stumps(X[train[r]], y[train[r]], n_classes)
        pred = predict_stumps(X[val[r]], stumps)
        errors[r] = (pred != y[val[r], None]).sum(axis=0)
    return errors
