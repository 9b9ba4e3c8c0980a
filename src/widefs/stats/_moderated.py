"""Moderated t and F statistics: linear models per feature with empirical-Bayes variances.

The machinery of limma (Smyth 2004, "Linear models and empirical Bayes methods for assessing
differential expression in microarray experiments"), written from the paper:

1. every feature j gets the same linear model ``x_j = D beta_j + e_j`` (optionally with
   per-observation precision weights), giving coefficients, a residual variance ``s_j^2`` on
   ``d_j`` degrees of freedom and the unscaled covariance ``V_j`` of the coefficients;
2. the residual variances are modelled as ``s_j^2 ~ sigma_j^2 chi2(d_j) / d_j`` with
   ``1 / sigma_j^2 ~ chi2(d0) / (d0 s0^2)``; ``s0^2`` and ``d0`` are estimated from the moments
   of ``log s_j^2`` (:func:`fit_f_dist`: mean and variance matched with digamma / trigamma, the
   variance inverted by Newton's method, :func:`trigamma_inverse`);
3. the posterior variance ``(d0 s0^2 + d_j s_j^2) / (d0 + d_j)`` (:func:`squeeze_var`) replaces
   ``s_j^2``, and the t and F statistics built on it follow t and F distributions with
   ``d_j + d0`` denominator degrees of freedom under the null (:func:`moderated_t`,
   :func:`moderated_f`).

Everything is vectorized over features; :func:`linear_model_fit` reads the matrix one block
of columns at a time (float32, memmaps, zarr and dask arrays), keeping O(features) state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from widefs._utils import block_width, is_lazy_matrix, iter_column_blocks, load_columns
from widefs._utils._spill import SpilledArray
from widefs._utils._streaming import median, pairwise_sum

__all__ = [
    "LinearModelFit",
    "ModeratedTest",
    "fit_f_dist",
    "linear_model_fit",
    "moderated_f",
    "moderated_t",
    "squeeze_var",
    "trigamma_inverse",
]

# Features of a block of the prior's passes over the variances (a few float64 temporaries).
_BLOCK = 65_536


@dataclass(frozen=True)
class LinearModelFit:
    """Per-feature least-squares fits of one design (the input of the moderated tests).

    A frozen dataclass; its fields are the constructor's parameters.

    Parameters
    ----------
    coefficients : ndarray of shape (n_features, n_coefficients)
        Least-squares (or weighted least-squares) coefficients.
    unscaled_covariance : ndarray of shape (n_coefficients, n_coefficients) or
        (n_features, n_coefficients, n_coefficients)
        ``(D' W_j D)^-1``: one matrix without weights, one per feature with weights.
    variances : ndarray of shape (n_features,)
        Residual variances ``s_j^2`` (residual sum of squares over ``df_residual``; 0 when
        the residual degrees of freedom are 0).
    df_residual : ndarray of shape (n_features,)
        Observations with positive weight minus the number of coefficients.

    See Also
    --------
    linear_model_fit : computes it.

    Examples
    --------
    >>> design = np.column_stack([np.ones(4), [0, 0, 1, 1]])
    >>> fit = linear_model_fit(np.array([[1.0], [3.0], [5.0], [7.0]]), design)
    >>> fit.coefficients.tolist(), fit.variances.tolist(), fit.df_residual.tolist()
    ([[2.0, 4.0]], [2.0], [2.0])
    """

    coefficients: NDArray[np.float64]
    unscaled_covariance: NDArray[np.float64]
    variances: NDArray[np.float64]
    df_residual: NDArray[np.float64]


@dataclass(frozen=True)
class ModeratedTest:
    """Moderated statistics of every feature and the prior they were moderated with.

    A frozen dataclass; its fields are the constructor's parameters.

    Parameters
    ----------
    statistics : ndarray of shape (n_features,)
        Moderated t (:func:`moderated_t`) or F (:func:`moderated_f`).
    pvalues : ndarray of shape (n_features,)
        Two-sided t or upper F tail probabilities on ``df_total`` degrees of freedom.
    df_total : ndarray of shape (n_features,)
        ``df_residual + prior_df``, capped at the pooled residual degrees of freedom.
    posterior_variances : ndarray of shape (n_features,)
        The squeezed variances.
    prior_variance, prior_df : float
        ``s0^2`` and ``d0`` (``d0`` may be ``inf``).

    See Also
    --------
    moderated_t, moderated_f : produce it.

    Examples
    --------
    >>> test = ModeratedTest(np.zeros(1), np.ones(1), np.full(1, 6.0), np.ones(1), 1.0, 4.0)
    >>> test.prior_df
    4.0
    """

    statistics: NDArray[np.float64]
    pvalues: NDArray[np.float64]
    df_total: NDArray[np.float64]
    posterior_variances: NDArray[np.float64]
    prior_variance: float
    prior_df: float


def _check_design(design: ArrayLike, n_samples: int) -> NDArray[np.float64]:
    D = np.asarray(design, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] != n_samples:
        raise ValueError(
            f"design must be a 2-D matrix with one row per sample ({n_samples}); got shape "
            f"{D.shape}."
        )
    if not np.isfinite(D).all():
        raise ValueError("design contains NaN or infinity.")
    if np.linalg.matrix_rank(D) < D.shape[1]:
        raise ValueError(
            f"design has {D.shape[1]} columns but rank {np.linalg.matrix_rank(D)}: its "
            "coefficients are not estimable; drop the redundant columns."
        )
    return D


def _block(X, columns: slice, lazy: bool) -> NDArray[np.float64]:
    block = load_columns(X, columns) if lazy else np.asarray(X[:, columns], dtype=np.float64)
    if not np.isfinite(block).all():
        bad = columns.start + np.flatnonzero(~np.isfinite(block).all(axis=0))
        raise ValueError(f"The data contain NaN or infinity (columns {bad[:5].tolist()}).")
    return block


def _unweighted_block(Xb, D, pinv):
    beta = pinv @ Xb  # (p, m)
    resid = Xb - D @ beta
    return beta.T, np.einsum("ij,ij->j", resid, resid), np.full(Xb.shape[1], float(D.shape[0]))


def _weighted_block(Xb, Wb, D):
    """Weighted least squares of every column: ``(D' W_j D) b_j = D' W_j x_j``, batched."""
    gram = np.einsum("nj,np,nq->jpq", Wb, D, D)
    rhs = np.einsum("nj,np,nj->jp", Wb, D, Xb)
    cov = np.linalg.inv(gram)
    beta = np.einsum("jpq,jq->jp", cov, rhs)
    resid = Xb - D @ beta.T
    return beta, np.einsum("ij,ij,ij->j", Wb, resid, resid), (Wb > 0).sum(axis=0), cov


def _check_weights(weights, shape):
    if weights is None:
        return None
    if not is_lazy_matrix(weights):
        weights = np.asarray(weights, dtype=np.float64)
    if tuple(weights.shape) != tuple(shape):
        raise ValueError(f"weights must have the shape of X {tuple(shape)}; got {weights.shape}.")
    return weights


def linear_model_fit(X, design: ArrayLike, weights=None) -> LinearModelFit:
    """Fit ``x_j = design @ beta_j + e_j`` to every feature (column) j of ``X``.

    limma's ``lmFit`` for samples in rows. Without weights one pseudo-inverse of the design
    serves every feature; with precision weights (``voom``) each feature gets its own
    weighted least-squares fit, batched over a block of features.

    Parameters
    ----------
    X : array_like, memmap, zarr or dask array of shape (n_samples, n_features)
        Finite data; read one block of columns at a time in float64.
    design : array_like of shape (n_samples, n_coefficients)
        Full-rank design matrix (intercept, class indicators, covariates).
    weights : array_like of shape (n_samples, n_features), optional
        Non-negative precision weights of every observation; an observation of weight 0
        does not count in the residual degrees of freedom.

    Returns
    -------
    LinearModelFit

    See Also
    --------
    moderated_t, moderated_f : the tests on the fit.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(6, 3))
    >>> design = np.column_stack([np.ones(6), [0, 0, 0, 1, 1, 1]])
    >>> fit = linear_model_fit(X, design)
    >>> fit.coefficients.shape, fit.unscaled_covariance.round(3).tolist()
    ((3, 2), [[0.333, -0.333], [-0.333, 0.667]])
    """
    lazy = is_lazy_matrix(X)
    if not lazy:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (samples x features); got shape {X.shape}.")
    n, m = X.shape
    D = _check_design(design, n)
    p = D.shape[1]
    weights = _check_weights(weights, (n, m))
    beta = np.empty((m, p))
    rss = np.empty(m)
    n_obs = np.empty(m)
    if weights is None:
        cov = np.linalg.inv(D.T @ D)
        pinv = cov @ D.T
    else:
        cov = np.empty((m, p, p))
    width = block_width(n, 8 * (2 + (0 if weights is None else 2 + p * p)))
    for cols in iter_column_blocks(m, width):
        Xb = _block(X, cols, lazy)
        if weights is None:
            beta[cols], rss[cols], n_obs[cols] = _unweighted_block(Xb, D, pinv)
            continue
        Wb = _block(weights, cols, is_lazy_matrix(weights))
        if (Wb < 0).any():
            raise ValueError("weights must be non-negative.")
        beta[cols], rss[cols], n_obs[cols], cov[cols] = _weighted_block(Xb, Wb, D)
    df = np.maximum(n_obs - p, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        variances = np.where(df > 0, rss / np.where(df > 0, df, 1.0), 0.0)
    return LinearModelFit(beta, cov, variances, df)


def trigamma_inverse(x: ArrayLike) -> NDArray[np.float64]:
    """The y > 0 with ``trigamma(y) = x``, by Newton's method on ``1 / trigamma``.

    As limma's ``trigammaInverse``: start at ``0.5 + 1/x``, which the iteration improves
    monotonically; ``1/sqrt(x)`` beyond ``x = 1e7`` and ``1/x`` below ``1e-6``, where the
    asymptotic forms are exact to double precision.

    Parameters
    ----------
    x : array_like of float
        Positive values.

    Returns
    -------
    ndarray of float
        Same shape as ``x``.

    See Also
    --------
    fit_f_dist : its use.

    Examples
    --------
    >>> from scipy.special import polygamma
    >>> float(polygamma(1, trigamma_inverse(2.5)).round(12))
    2.5
    """
    from scipy.special import polygamma

    x = np.asarray(x, dtype=np.float64)
    if np.any(~(x > 0)):
        raise ValueError("trigamma_inverse needs positive values.")
    y = 0.5 + 1.0 / x
    big, small = x > 1e7, x < 1e-6
    for _ in range(50):
        tri = polygamma(1, y)
        step = tri * (1.0 - tri / x) / polygamma(2, y)
        y = y + step
        if np.all(-step / y < 1e-8):
            break
    y = np.where(big, 1.0 / np.sqrt(x), y)
    return np.where(small, 1.0 / x, y)


def fit_f_dist(variances: ArrayLike, df: ArrayLike) -> tuple[float, float]:
    """Scale ``s0^2`` and degrees of freedom ``d0`` of the prior of the variances.

    Fits ``s_j^2 ~ s0^2 F(d_j, d0)`` by the moments of ``z_j = log s_j^2`` (Smyth 2004,
    Section 6.2): ``e_j = z_j - digamma(d_j / 2) + log(d_j / 2)`` has mean
    ``log s0^2 - digamma(d0 / 2) + log(d0 / 2)`` and variance
    ``trigamma(d0 / 2) + mean(trigamma(d_j / 2))``. When the observed variance of ``e`` does
    not exceed what the sampling noise explains, the variances are consistent with one
    common value: ``d0 = inf`` and ``s0^2 = mean(s_j^2)``. Variances of 0 (constant
    features) are raised to ``1e-5`` times the median for the fit only, as limma does;
    features with ``d_j = 0`` or a non-finite variance are left out. The variances are read a
    block at a time, without a temporary per feature; the means, variance and median are
    numpy's (pairwise sums, ``np.median``) on the whole arrays, bit for bit with numpy 2.

    Parameters
    ----------
    variances : array_like of shape (n_features,)
        Residual variances ``s_j^2 >= 0``.
    df : array_like of shape (n_features,) or scalar
        Their degrees of freedom ``d_j``.

    Returns
    -------
    scale : float
        ``s0^2`` (NaN when fewer than two features can be used).
    df_prior : float
        ``d0``, possibly ``inf`` (NaN as above).

    See Also
    --------
    squeeze_var : the posterior variances.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s2 = 0.5 * rng.chisquare(4, 20000) / 4 / (rng.chisquare(10, 20000) / 10)
    >>> scale, d0 = fit_f_dist(s2, 4)
    >>> round(scale, 1), bool(8 < d0 < 12)
    (0.5, True)
    """
    from scipy.special import digamma, polygamma

    used = _UsedVariances(variances, df)
    n = used.count
    if n < 2:
        return float("nan"), float("nan")
    mid = median(lambda: (xb for xb, _ in used.blocks()), n)
    floor = 1e-5 * (mid if mid > 0 else 1.0)
    half = used.df_values / 2
    shift = digamma(half) - np.log(half)
    trigamma = polygamma(1, half)

    def per_feature(values, db):
        """``values`` of each feature's degrees of freedom (one value for all: no lookup)."""
        if values.size == 1:
            return values[0]
        return values[np.searchsorted(used.df_values, db)]

    def e_blocks():
        for xb, db in used.blocks():
            e = np.maximum(xb, floor)
            np.log(e, out=e)
            e -= per_feature(shift, db)
            yield e

    # np.mean and np.var(ddof=1) of e, and the mean of the trigammas, as numpy computes
    # them on the whole arrays (pairwise sums), from blocks: no temporary per feature.
    e_mean = pairwise_sum(e_blocks(), n) / n
    e_var = pairwise_sum((_squared(e - e_mean) for e in e_blocks()), n) / (n - 1)
    trigammas = (np.broadcast_to(per_feature(trigamma, db), db.shape) for db in used.df_blocks())
    e_var -= pairwise_sum(trigammas, n) / n
    if e_var > 0:
        d0 = 2.0 * float(trigamma_inverse(e_var))
        return float(np.exp(e_mean + digamma(d0 / 2) - np.log(d0 / 2))), d0
    # One common variance: its maximum-likelihood estimate is the plain mean (limma's choice).
    return pairwise_sum((np.maximum(xb, floor) for xb, _ in used.blocks()), n) / n, float("inf")


def _squared(v: np.ndarray) -> np.ndarray:
    return np.multiply(v, v, out=v)


class _UsedVariances:
    """The variances :func:`fit_f_dist` uses (finite, ``d_j > 0``, not negative beyond
    rounding; raised to 0) and their degrees of freedom, read a block at a time: views of the
    input when every variance is used as it is, compressed copies of a block otherwise."""

    def __init__(self, variances, df):
        if isinstance(variances, SpilledArray):  # in a file: read a block at a time
            self.x = variances
        else:
            x = np.asarray(variances)
            self.x = x.ravel() if x.dtype == np.float64 else x.astype(np.float64).ravel()
        self.d = np.broadcast_to(np.asarray(df, dtype=np.float64), self.x.shape)
        self.count, self.as_is, distinct = 0, True, [np.zeros(0)]
        for b in iter_column_blocks(self.x.size, _BLOCK):
            xb = self.x[b]  # read once (a spilled array's values come from its file)
            ok = self._ok(xb, self.d[b])
            self.count += int(np.count_nonzero(ok))
            self.as_is &= bool(ok.all()) and not bool((xb < 0).any())
            distinct.append(np.unique(self.d[b][ok]))
        # Degrees of freedom take few distinct values: the special functions once per value.
        self.df_values = np.unique(np.concatenate(distinct))

    @staticmethod
    def _ok(xb, db) -> np.ndarray:
        return np.isfinite(xb) & np.isfinite(db) & (db > 1e-15) & (xb > -1e-15)

    def blocks(self):
        """``(variances, df)`` of the used features, a block at a time (in order)."""
        for b in iter_column_blocks(self.x.size, _BLOCK):
            xb = self.x[b]
            if self.as_is:
                yield xb, self.d[b]
                continue
            ok = self._ok(xb, self.d[b])
            xb = xb[ok]
            np.maximum(xb, 0.0, out=xb)
            yield xb, self.d[b][ok]

    def df_blocks(self):
        """The degrees of freedom of :meth:`blocks` (the variances read only when some are
        left out)."""
        if not self.as_is:
            yield from (db for _, db in self.blocks())
            return
        for b in iter_column_blocks(self.x.size, _BLOCK):
            yield self.d[b]


def squeeze_var(
    variances: ArrayLike, df: ArrayLike, *, prior: tuple[float, float] | None = None
) -> tuple[NDArray[np.float64], float, float]:
    """Posterior variances ``(d0 s0^2 + d_j s_j^2) / (d0 + d_j)`` (``s0^2`` when d0 is inf).

    Parameters
    ----------
    variances : array_like of shape (n_features,)
        Residual variances.
    df : array_like of shape (n_features,) or scalar
        Their degrees of freedom.
    prior : (scale, df_prior), optional
        The prior; by default :func:`fit_f_dist` of ``variances``. With fewer than two usable
        features (NaN prior) the variances are returned unchanged with ``d0 = 0``.

    Returns
    -------
    posterior : ndarray of shape (n_features,)
    scale, df_prior : float
        The prior used.

    See Also
    --------
    fit_f_dist : the prior.

    Examples
    --------
    >>> squeeze_var([1.0, 4.0], 2, prior=(2.0, 2.0))[0].tolist()
    [1.5, 3.0]
    """
    s2 = np.asarray(variances, dtype=np.float64)
    d = np.broadcast_to(np.asarray(df, dtype=np.float64), s2.shape)
    scale, d0 = fit_f_dist(s2, d) if prior is None else (float(prior[0]), float(prior[1]))
    if not np.isfinite(scale):
        return s2.copy(), scale, 0.0
    if np.isinf(d0):
        return np.full(s2.shape, scale), scale, d0
    return (d0 * scale + d * s2) / (d0 + d), scale, d0


def _moderate(fit: LinearModelFit, prior, pooled_df=None):
    """Posterior variances, prior and total degrees of freedom of a fit (limma's eBayes)."""
    post, scale, d0 = squeeze_var(fit.variances, fit.df_residual, prior=prior)
    # limma caps the total at the pooled residual degrees of freedom: the prior cannot carry
    # more information than all the features' residuals together.
    df = fit.df_residual
    cap = df.sum() if pooled_df is None else pooled_df
    if df.ndim == 1 and df.size and df.strides[0] == 0:  # one value for all: a view, as df
        return post, scale, d0, np.broadcast_to(np.minimum(df[0] + d0, cap), df.shape)
    df_total = np.minimum(df + d0, cap)
    return post, scale, d0, df_total


def moderated_t(fit: LinearModelFit, contrast, *, prior=None) -> ModeratedTest:
    """Moderated t of one contrast ``c' beta_j`` of every feature (limma's ``eBayes`` t).

    ``t_j = c' beta_j / sqrt(v_j c' V_j c)`` with ``v_j`` the posterior variance, on
    ``d_j + d0`` degrees of freedom; p-values two-sided.

    Parameters
    ----------
    fit : LinearModelFit
    contrast : int or array_like of shape (n_coefficients,)
        A coefficient's index or a contrast vector.
    prior : (scale, df_prior), optional
        Default: fitted to ``fit.variances`` by :func:`fit_f_dist`.

    Returns
    -------
    ModeratedTest

    See Also
    --------
    moderated_f : several coefficients at once.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(8, 500)); X[4:, 0] += 4
    >>> design = np.column_stack([np.ones(8), np.repeat([0, 1], 4)])
    >>> test = moderated_t(linear_model_fit(X, design), 1)
    >>> bool(test.pvalues[0] < 1e-3), bool(np.median(test.pvalues) > 0.3)
    (True, True)
    """
    from scipy import stats

    p = fit.coefficients.shape[1]
    c = np.zeros(p)
    if np.ndim(contrast) == 0:
        c[int(contrast)] = 1.0
    else:
        c = np.asarray(contrast, dtype=np.float64)
        if c.shape != (p,):
            raise ValueError(f"contrast must have {p} entries, one per coefficient.")
    post, scale, d0, df_total = _moderate(fit, prior)
    V = fit.unscaled_covariance
    unscaled = c @ V @ c if V.ndim == 2 else np.einsum("p,jpq,q->j", c, V, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (fit.coefficients @ c) / np.sqrt(post * unscaled)
    t = np.where(np.isnan(t), 0.0, t)  # 0 / 0: a constant feature
    pvalues = 2.0 * stats.t.sf(np.abs(t), df_total)
    return ModeratedTest(t, pvalues, df_total, post, scale, d0)


def moderated_f(
    fit: LinearModelFit, coefficients, *, prior=None, pooled_df=None, only_below=None
) -> ModeratedTest:
    """Moderated F that the coefficients ``coefficients`` are all zero, for every feature.

    ``F_j = b_j' V_j^-1 b_j / (q v_j)`` for the q tested coefficients ``b_j``, their unscaled
    covariance block ``V_j`` and the posterior variance ``v_j``, on ``(q, d_j + d0)`` degrees
    of freedom. Without weights this is limma's F (``classifyTestsF`` on the moderated t's
    with the coefficients' correlation matrix, as ``topTableF`` reports); with weights it
    uses each feature's own covariance, where limma uses the unweighted design's.

    Parameters
    ----------
    fit : LinearModelFit
    coefficients : sequence of int
        Indices of the tested coefficients (for a one-way design, the class indicators).
    prior : (scale, df_prior), optional
        Default: fitted to ``fit.variances`` by :func:`fit_f_dist`.
    pooled_df : float, optional
        The cap on the total degrees of freedom (limma's: the residual degrees of freedom
        of all the features fitted together). Default: ``fit.df_residual.sum()``; give it
        when ``fit`` holds only some of the fitted features.
    only_below : ndarray of shape (n_features,), optional
        For a caller that uses a feature's p-value only when it is below this level: with
        one tested coefficient, a p-value whose lower bound, the normal tail
        ``erfc(sqrt(F / 2))`` (the F(1, d) tail exceeds it for every d: the t density is
        below the normal's up to one crossing, above it beyond), is at least
        ``only_below * (1 + 1e-3)`` (the margin covers scipy 1.12's ``fdtrc``, 4e-4 low at
        d >= 1e5) and 1e-280 is given as ``inf``; the others as without it. Default: all.

    Returns
    -------
    ModeratedTest

    See Also
    --------
    moderated_t : one contrast.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(9, 400)); X[:3, 0] += 5
    >>> design = np.column_stack([np.ones(9), np.repeat(np.eye(3)[:, 1:], 3, axis=0)])
    >>> test = moderated_f(linear_model_fit(X, design), [1, 2])
    >>> bool(test.pvalues[0] < 1e-4), bool(np.median(test.pvalues) > 0.3)
    (True, True)
    """
    from scipy import special

    idx = np.asarray(coefficients, dtype=np.intp).ravel()
    if idx.size == 0 or np.unique(idx).size != idx.size:
        raise ValueError("coefficients must list at least one coefficient, each once.")
    post, scale, d0, df_total = _moderate(fit, prior, pooled_df)
    b = fit.coefficients[:, idx]
    V = fit.unscaled_covariance
    if V.ndim == 2:
        quad = np.einsum("jp,pq,jq->j", b, np.linalg.inv(V[np.ix_(idx, idx)]), b)
    else:
        block = V[:, idx[:, None], idx[None, :]]
        quad = np.einsum("jp,jp->j", b, np.linalg.solve(block, b[:, :, None])[:, :, 0])
    del b
    # In place (quad becomes F): one array per feature fewer at the peak of a wide fit.
    with np.errstate(divide="ignore", invalid="ignore"):
        F = np.divide(quad, idx.size * post, out=quad)
    F[np.isnan(F)] = 0.0  # 0 / 0: a constant feature
    # scipy.stats.f.sf's own kernel, without its argument handling (a tenth of the time).
    F0 = np.maximum(F, 0.0)
    if only_below is None or idx.size != 1:
        return ModeratedTest(
            F, special.fdtrc(float(idx.size), df_total, F0), df_total, post, scale, d0
        )
    # The bound costs a twentieth of the survival function (measured).
    bound = np.multiply(F0, 0.5)
    np.sqrt(bound, out=bound)
    special.erfc(bound, out=bound)
    need = bound < np.maximum(only_below * (1.0 + 1e-3), 1e-280)  # F0 is never NaN
    pvalues = np.full(F.shape, np.inf)
    df = np.broadcast_to(df_total, F.shape)
    pvalues[need] = special.fdtrc(1.0, df[need], F0[need])
    return ModeratedTest(F, pvalues, df_total, post, scale, d0)
