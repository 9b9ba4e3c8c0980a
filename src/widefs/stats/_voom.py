"""Counts to log-CPM with precision weights: voom (Law, Chen, Shi & Smyth 2014).

RNA-seq counts have a variance that falls with their mean: a gene seen 5 times is far noisier
on the log scale than one seen 5,000 times. voom estimates that trend once across genes and
turns it into a precision weight for every observation, so that a weighted linear model on
the log counts-per-million (:func:`widefs.stats.linear_model_fit` with ``weights``) and the
moderated statistics on it behave as they do on microarray data:

1. ``log-CPM = log2((count + 0.5) / (library size + 1) * 1e6)``;
2. an unweighted linear fit of every gene; its residual standard deviation ``s``;
3. a lowess curve (span 0.5) of ``sqrt(s)`` against the gene's mean log-count;
4. every observation's weight ``1 / trend(fitted log-count)^4`` (the trend predicts
   ``sqrt(sd)``, so its fourth power is the variance).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from widefs._utils import (
    ComputedColumns,
    block_width,
    column_major,
    is_sparse_matrix,
    iter_column_blocks,
    load_columns,
)
from widefs.stats._moderated import linear_model_fit

__all__ = ["looks_like_counts", "lowess", "voom"]

#: Largest value a matrix of counts must reach: sequencing counts span orders of magnitude,
#: while 8-bit images (0..255), genotypes (0/1/2), scores and quantised features (madelon,
#: 0..999) stay below it.
COUNT_RANGE = 1000
_COUNT_BLOCK = 4096  # columns checked at a time by looks_like_counts


def looks_like_counts(X) -> bool:
    """Whether ``X`` looks like a matrix of raw counts (RNA-seq reads, k-mer or OTU tallies).

    True when every value is a non-negative integer, some value is 0 and the largest reaches
    1000: counts of reads start at zero and span orders of magnitude. Log values, normalised
    values, binary or genotype (0/1/2) matrices, 8-bit images, quantised features (0..999)
    and microarray intensities thresholded from below (integers from 20 to 16000, no zero, as
    the bundled ``medulloblastoma_b``) are not counts. The screen (``counts="auto"``) and
    ``widefs run`` decide by this rule.

    Parameters
    ----------
    X : array_like or scipy sparse matrix of shape (n_samples, n_features)
        A sparse matrix is judged by its stored values (its implicit zeros are counts).

    Returns
    -------
    bool

    See Also
    --------
    voom : what a screen does with counts.

    Examples
    --------
    >>> looks_like_counts(np.array([[0, 12, 530], [3, 0, 1200]]))
    True
    >>> looks_like_counts([[0, 1], [2, 1]]), looks_like_counts([[20, 16000], [35, 110]])
    (False, False)
    """
    if is_sparse_matrix(X):
        return _sparse_counts(X)
    X = np.asarray(X)
    if X.size == 0 or not np.issubdtype(X.dtype, np.number) or np.iscomplexobj(X):
        return False
    # The minimum first: a negative value (most non-count data) ends the check in one pass;
    # a NaN makes it NaN (!= 0).
    if X.min() != 0:
        return False
    if not X.max() >= COUNT_RANGE:  # NaN and inf end here too (inf passes: checked below)
        return False
    # A block of columns at a time: no temporary the size of the data on the screen's path.
    for j in range(0, X.shape[-1] if X.ndim else 1, _COUNT_BLOCK):
        block = X[..., j : j + _COUNT_BLOCK] if X.ndim else X
        if not _integral(block):
            return False
    return True


def _sparse_counts(X) -> bool:
    """:func:`looks_like_counts` of a sparse matrix from its stored values and whether it
    has implicit zeros (whole numbers below the range), as on the dense matrix."""
    if X.format not in ("csr", "csc") or not X.has_canonical_format:
        X = X.tocsc(copy=True)  # repeated entries summed, as densifying does
        X.sum_duplicates()
    data = X.data
    if data.size == 0 or data.dtype.kind not in "biuf":
        return False  # every value 0 (or no value): not counts
    low = data.min()
    if X.nnz < X.shape[0] * X.shape[1]:
        low = min(low, 0)
    if not (low == 0 and data.max() >= COUNT_RANGE):
        return False
    step = _COUNT_BLOCK * 256
    return all(_integral(data[i : i + step]) for i in range(0, data.size, step))


def _integral(values) -> bool:
    """Every value finite and a whole number."""
    return bool(np.isfinite(values).all() and np.array_equal(np.round(values), values))


def _window_fit(x, y, rw, xs, left, right, n):
    """Cleveland's local linear fit at xs from points left..(right and ties beyond it)."""
    h = max(xs - x[left], x[right] - xs)
    stop = max(int(np.searchsorted(x, xs + 0.999 * h, side="right")), right + 1)
    xw, yw = x[left:stop], y[left:stop]
    r = np.abs(xw - xs)
    w = np.where(r <= 0.001 * h, 1.0, (1.0 - (r / h) ** 3) ** 3) if h > 0 else np.ones(r.size)
    w = np.where(r <= 0.999 * h, w, 0.0) * rw[left:stop] if h > 0 else w * rw[left:stop]
    total = w.sum()
    if total <= 0:
        return None
    w = w / total
    if h > 0:
        a = np.dot(w, xw)
        c = np.dot(w, (xw - a) ** 2)
        if np.sqrt(c) > 0.001 * (x[n - 1] - x[0]):
            w = w * ((xs - a) / c * (xw - a) + 1.0)
    return float(np.dot(w, yw))


def _anchors(x, ns, delta):
    """Indices where the fit is computed and each one's window ``(left, right)``."""
    n = x.size
    out, i, left, right = [], 0, 0, ns - 1
    while True:
        while right < n - 1 and x[i] - x[left] > x[right + 1] - x[i]:
            left, right = left + 1, right + 1
        out.append((i, left, right))
        if i >= n - 1:
            return out
        beyond = np.searchsorted(x, x[i] + delta, side="right")
        i = int(min(n - 1, max(i + 1, beyond - 1)))


def lowess(x: ArrayLike, y: ArrayLike, *, frac: float = 2 / 3, iterations: int = 3, delta=None):
    """Robust locally weighted linear regression (Cleveland 1979), as R's ``lowess``.

    Tricube weights on the ``frac * n`` nearest points, ``iterations`` robustness passes with
    bisquare weights at six median absolute residuals; the fit is computed at points spaced
    at least ``delta`` apart (default 1% of the range of x) and interpolated linearly
    between them.

    Parameters
    ----------
    x, y : array_like of shape (n,)
    frac : float, default=2/3
    iterations : int, default=3
    delta : float, optional

    Returns
    -------
    x_sorted, fitted : ndarray of shape (n,)
        x in increasing order and the smooth at each.

    See Also
    --------
    voom : its use.

    Examples
    --------
    >>> x = np.arange(10.0)
    >>> np.allclose(lowess(x, 2 * x + 1)[1], 2 * x + 1)
    True
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    order = np.argsort(x, kind="stable")
    x, y = x[order], y[order]
    n = x.size
    if n < 2:
        return x, y.copy()
    ns = max(min(int(frac * n + 1e-7), n), 2)
    delta = 0.01 * (x[-1] - x[0]) if delta is None else float(delta)
    anchors = _anchors(x, ns, delta)
    idx = np.array([a[0] for a in anchors])
    rw = np.ones(n)
    for step in range(iterations + 1):
        fits = [_window_fit(x, y, rw, x[i], left, right, n) for i, left, right in anchors]
        at = np.array(
            [y[i] if f is None else f for (i, _, _), f in zip(anchors, fits, strict=True)]
        )
        fitted = np.interp(x, x[idx], at)
        fitted[idx] = at
        if step == iterations:
            break
        res = np.abs(y - fitted)
        cmad = 6.0 * np.median(res)
        # <=: an exact fit (every residual 0) needs no robustness pass (its weights are all 1).
        if cmad <= 1e-7 * np.mean(res):
            break
        rw = np.where(
            res <= 0.001 * cmad,
            1.0,
            np.where(res <= 0.999 * cmad, (1 - (res / cmad) ** 2) ** 2, 0.0),
        )
    return x, fitted


def voom(counts, design: ArrayLike, *, lib_size=None, span: float = 0.5):
    """log-CPM and precision weights of a count matrix (limma's ``voom``).

    Parameters
    ----------
    counts : array_like of shape (n_samples, n_features)
        Non-negative counts, samples in rows.
    design : array_like of shape (n_samples, n_coefficients)
        The design of the linear model the weights are for.
    lib_size : array_like of shape (n_samples,), optional
        Library sizes (default: each sample's total count).
    span : float, default=0.5
        lowess span of the mean-variance trend.

    Returns
    -------
    log_cpm : ndarray of shape (n_samples, n_features)
    weights : ndarray of shape (n_samples, n_features)

    See Also
    --------
    linear_model_fit : takes both.
    looks_like_counts : when a screen applies it.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> mu = rng.gamma(0.5, 200, size=300)
    >>> counts = rng.poisson(mu, size=(6, 300))
    >>> design = np.column_stack([np.ones(6), [0, 0, 0, 1, 1, 1]])
    >>> log_cpm, weights = voom(counts, design)
    >>> bool(np.corrcoef(np.log(mu + 1), weights.mean(axis=0))[0, 1] > 0.5)
    True
    """
    C = _checked_counts(counts)
    lib = _row_sums(C) if lib_size is None else np.asarray(lib_size, dtype=np.float64)
    if lib.shape != (C.shape[0],) or np.any(~(lib > 0)):
        raise ValueError("Every sample needs a positive library size.")
    sparse = is_sparse_matrix(C)
    log_cpm = _LogCPM(C, lib) if sparse else _log_cpm(C, lib)
    D = np.asarray(design, dtype=np.float64)
    fit = linear_model_fit(log_cpm, D)
    offset = np.mean(np.log2(lib + 1.0)) - np.log2(1e6)
    sx = _column_means(log_cpm) + offset
    sy = np.sqrt(np.sqrt(fit.variances))
    seen = _column_sums(C) > 0
    xs, ys = lowess(sx[seen], sy[seen], frac=span)
    # Equal x: the mean of their fits (R's approxfun ties = mean); constant beyond the ends.
    ux, inverse = np.unique(xs, return_inverse=True)
    uy = np.bincount(inverse, weights=ys) / np.bincount(inverse)
    trend = _Trend(D, fit.coefficients, np.log2(lib + 1.0) - np.log2(1e6), ux, uy)
    if sparse:
        return log_cpm, _Weights(trend, C.shape)
    return log_cpm, trend.weights(slice(None))


def _checked_counts(counts):
    """Counts as float64 (a sparse matrix as CSC, values unchanged), finite and >= 0."""
    if is_sparse_matrix(counts):
        C = column_major(counts)
        values = C.data
    else:
        C = values = np.asarray(counts, dtype=np.float64)
    if len(C.shape) != 2 or not np.isfinite(values).all() or (values < 0).any():
        raise ValueError("counts must be a 2-D matrix of finite, non-negative values.")
    return C


def _row_sums(C) -> np.ndarray:
    if is_sparse_matrix(C):  # exact, as the dense sums, for whole counts below 2**53
        return np.asarray(C.sum(axis=1, dtype=np.float64)).ravel()
    return C.sum(axis=1)


def _column_sums(C) -> np.ndarray:
    return np.asarray(C.sum(axis=0, dtype=np.float64)).ravel()


def _log_cpm(block, lib):
    return np.log2((block + 0.5) / (lib[:, None] + 1.0) * 1e6)


def _column_means(X) -> np.ndarray:
    """Column means over contiguous blocks: the same sums whether X is dense or a view."""
    n, m = X.shape
    out = np.empty(m)
    for cols in iter_column_blocks(m, block_width(n)):
        block = load_columns(X, cols) if isinstance(X, ComputedColumns) else X[:, cols]
        out[cols] = np.ascontiguousarray(block).mean(axis=0)
    return out


class _Trend:
    """voom's weights of any columns: ``1 / trend(fitted log-count)^4``."""

    def __init__(self, D, coefficients, log_lib, ux, uy):
        self.D, self.coefficients, self.log_lib, self.ux, self.uy = (
            D, coefficients, log_lib, ux, uy,
        )  # fmt: skip

    def weights(self, cols) -> np.ndarray:
        beta = self.coefficients[cols]
        # The fitted values term by term (no matrix product): the same numbers for any
        # block of columns.
        fitted = self.log_lib[:, None] + self.D[:, :1] * beta[:, 0]
        for k in range(1, self.D.shape[1]):
            fitted = fitted + self.D[:, k : k + 1] * beta[:, k]
        return 1.0 / np.interp(fitted, self.ux, self.uy) ** 4


class _LogCPM(ComputedColumns):
    """The log-CPM of a sparse count matrix, never dense whole."""

    def __init__(self, C, lib):
        super().__init__(C.shape)
        self.C, self.lib = C, lib

    def columns(self, cols) -> np.ndarray:
        return _log_cpm(load_columns(self.C, cols), self.lib)


class _Weights(ComputedColumns):
    """voom's precision weights of a sparse count matrix, never dense whole."""

    def __init__(self, trend, shape):
        super().__init__(shape)
        self.trend = trend

    def columns(self, cols) -> np.ndarray:
        return self.trend.weights(cols)
