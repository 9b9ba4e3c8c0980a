"""limma's moderated t/F and limma-voom for the FDR benchmark, in two independent versions.

``limma_pvalues`` runs inmoose (the Python port of limma): ``lmFit`` + moderation on a
one-way design, the moderated t of the class difference for two classes and limma's
moderated F of all class differences (``topTableF`` on coefficients 2..k) for more.

``moderated_pvalues`` is written here from Smyth (2004): the scaled-F prior fitted to the
residual variances by moments of log s^2 (trigamma inversion), posterior variances
``(d0 s0^2 + d s^2) / (d0 + d)`` and statistics on ``d + d0`` degrees of freedom. It takes
precision weights, so it also carries limma-voom: ``voom`` (Law et al. 2014: log-CPM, a
lowess trend of sqrt residual SD against mean log-count, weights ``1 / trend^4`` at each
fitted count). inmoose 0.9 has no ``voom`` and its weighted ``lmFit`` uses the unweighted
``(X'X)^-1`` for the coefficients' standard errors, so limma-voom here is this module's voom
and weighted fit, moderated by inmoose. inmoose 0.9's ``eBayes`` raises when the prior
degrees of freedom are infinite (its B-statistic negates a Python bool), which happens on
data whose variances are all alike, so ``ebayes`` forms the moderated t exactly as ``eBayes``
does, from inmoose's ``squeezeVar``. ``self_check`` compares every piece with the other
version or with statsmodels' weighted least squares.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats


def _trigamma_inverse(x):
    """Solve trigamma(y) = x by Newton's method (Smyth 2004, section 6.2)."""
    if x > 1e7:
        return 1.0 / np.sqrt(x)
    if x < 1e-6:
        return 1.0 / x
    y = 0.5 + 1.0 / x
    for _ in range(50):
        tri = special.polygamma(1, y)
        step = tri * (1.0 - tri / x) / special.polygamma(2, y)
        y += step
        if -step / y < 1e-8:
            break
    return y


def fit_f_prior(s2, df):
    """Prior degrees of freedom d0 and scale s0^2 from residual variances on ``df`` df."""
    s2 = np.maximum(s2, 1e-5 * np.median(s2))  # as limma: a zero variance has no log
    e = np.log(s2) - special.digamma(df / 2) + np.log(df / 2)
    emean = e.mean()
    evar = e.var(ddof=1) - special.polygamma(1, df / 2)
    if evar <= 0:  # no detectable spread of the variances: the pooled variance (limma >= 3.30)
        return np.inf, float(np.mean(s2))
    d0 = 2 * _trigamma_inverse(evar)
    return d0, float(np.exp(emean + special.digamma(d0 / 2) - np.log(d0 / 2)))


def group_fit(E, y, weights=None):
    """Weighted one-way fit of every row of ``E`` (genes x samples) on the classes ``y``.

    Returns the class means (genes x k), the class weight sums, residual variances and
    their degrees of freedom n - k.
    """
    classes = np.unique(y)
    W = np.ones_like(E) if weights is None else weights
    onehot = (y[:, None] == classes[None, :]).astype(float)
    wsum = W @ onehot
    means = (W * E) @ onehot / wsum
    resid = E - means @ onehot.T
    df = y.size - classes.size
    return means, wsum, (W * resid**2).sum(axis=1) / df, df


def moderated_pvalues(E, y, weights=None):
    """Moderated t (two classes) or F (more) p-values of every gene, from Smyth (2004)."""
    means, wsum, s2, df = group_fit(E, y, weights)
    d0, s02 = fit_f_prior(s2, df)
    post = s02 * np.ones_like(s2) if np.isinf(d0) else (d0 * s02 + df * s2) / (d0 + df)
    df_total = min(df + d0, df * E.shape[0])  # limma caps it at the pooled df
    k = means.shape[1]
    grand = (wsum * means).sum(axis=1, keepdims=True) / wsum.sum(axis=1, keepdims=True)
    between = (wsum * (means - grand) ** 2).sum(axis=1) / (k - 1)
    return stats.f.sf(between / post, k - 1, df_total)


def voom(counts):
    """limma's voom: log-CPM (genes x samples) and precision weights (Law et al. 2014)."""
    from statsmodels.nonparametric.smoothers_lowess import lowess

    counts = np.asarray(counts, dtype=float)
    lib = counts.sum(axis=0)
    E = np.log2((counts + 0.5) / (lib + 1) * 1e6)
    return E, lib, lowess


def voom_weights(E, lib, y, counts, lowess):
    """The voom weights of ``E``: a lowess of sqrt(sigma) on mean log-count, at fitted counts."""
    means, _, s2, _ = group_fit(E, y)
    sx = E.mean(axis=1) + np.log2(lib + 1).mean() - np.log2(1e6)
    sy = np.sqrt(np.sqrt(s2))
    keep = counts.sum(axis=1) > 0
    sx, sy = sx[keep], sy[keep]
    trend = lowess(sy, sx, frac=0.5, it=3, delta=0.01 * np.ptp(sx), return_sorted=True)
    classes = np.unique(y)
    fitted = means[:, np.searchsorted(classes, y)]  # the fitted log-CPM of every sample
    fitted_logcount = np.log2(1e-6 * 2.0**fitted * (lib + 1))
    return 1.0 / np.interp(fitted_logcount, trend[:, 0], trend[:, 1]) ** 4


def voom_transform(counts, y):
    """``(E, weights)`` of limma-voom for the counts (genes x samples) and classes ``y``."""
    E, lib, lowess = voom(counts)
    return E, voom_weights(E, lib, y, np.asarray(counts), lowess)


def _design(y):
    classes = np.unique(y)
    return np.column_stack([np.ones(y.size)] + [(y == c).astype(float) for c in classes[1:]])


def ebayes(fit):
    """Moderated t (genes x coefficients) and its df from an inmoose MArrayLM, as ``eBayes``."""
    from inmoose.limma import squeezeVar

    df = np.asarray(fit.df_residual, dtype=float)
    out = squeezeVar(np.asarray(fit.sigma, dtype=float) ** 2, df)
    post = np.broadcast_to(np.asarray(out["var_post"], dtype=float), df.shape)
    t = np.asarray(fit.coefficients) / np.asarray(fit.stdev_unscaled) / np.sqrt(post)[:, None]
    return t, np.minimum(df + out["df_prior"], np.nansum(df))


def _inmoose_pvalues(fit, k):
    """p-values of an inmoose MArrayLM on coefficients 2..k (t for k = 2, F beyond)."""
    from inmoose.limma import classifyTestsF

    t, df_total = ebayes(fit)
    if k == 2:
        return 2 * stats.t.sf(np.abs(t[:, 1]), df_total)
    cov = np.asarray(fit.cov_coefficients)[1:, 1:]
    d = np.sqrt(np.diag(cov))
    F = classifyTestsF(t[:, 1:], cor_matrix=cov / np.outer(d, d), df=df_total, fstat_only=True)
    return stats.f.sf(np.asarray(F), k - 1, df_total)


def limma_pvalues(E, y):
    """inmoose ``lmFit`` + moderated p-values of every row of ``E`` (genes x samples)."""
    from inmoose.limma import lmFit

    fit = lmFit(np.array(E, dtype=float), _design(y))
    return _inmoose_pvalues(fit, np.unique(y).size)


def weighted_fit(E, y, weights):
    """An inmoose MArrayLM of the weighted two-class fit (intercept = class 0, slope = difference)."""
    import pandas as pd
    from inmoose.limma import MArrayLM

    if np.unique(y).size != 2:
        raise ValueError("the weighted fit here covers two classes")
    means, wsum, s2, df = group_fit(E, y, weights)
    coef = np.column_stack([means[:, 0], means[:, 1] - means[:, 0]])
    unscaled = np.column_stack([1 / np.sqrt(wsum[:, 0]), np.sqrt(1 / wsum[:, 0] + 1 / wsum[:, 1])])
    design = _design(y)
    return MArrayLM(
        pd.DataFrame(coef),
        pd.DataFrame(unscaled),
        pd.Series(np.sqrt(s2)),
        np.full(E.shape[0], float(df)),
        np.linalg.inv(design.T @ design),
    )


def limma_voom_pvalues(counts, y):
    """limma-voom p-values of every gene of ``counts`` (genes x samples), two classes."""
    E, w = voom_transform(counts, y)
    return _inmoose_pvalues(weighted_fit(E, y, w), 2)


def self_check(E, y_two, Em, y_multi, counts, y_counts) -> dict:
    """Largest differences between the two versions of each piece (relative, on p or log p)."""
    import statsmodels.api as sm

    out = {}
    p1, p2 = limma_pvalues(E, y_two), moderated_pvalues(E, y_two)
    out["moderated t: inmoose vs this module, max |log10 p diff|"] = _logdiff(p1, p2)
    p1, p2 = limma_pvalues(Em, y_multi), moderated_pvalues(Em, y_multi)
    out["moderated F: inmoose vs this module, max |log10 p diff|"] = _logdiff(p1, p2)
    Ev, w = voom_transform(counts, y_counts)
    fit = weighted_fit(Ev, y_counts, w)
    worst = 0.0
    for g in range(0, Ev.shape[0], max(1, Ev.shape[0] // 20)):
        wls = sm.WLS(Ev[g], _design(y_counts), weights=w[g]).fit()
        ours = np.r_[
            np.asarray(fit.coefficients)[g], np.asarray(fit.stdev_unscaled)[g] * fit.sigma[g]
        ]
        worst = max(worst, np.max(np.abs(ours / np.r_[wls.params, wls.bse] - 1)))
    out["voom weighted fit: coefficients and SEs vs statsmodels WLS, max rel diff"] = worst
    p1 = _inmoose_pvalues(fit, 2)
    p2 = moderated_pvalues(Ev, y_counts, w)
    out["limma-voom: inmoose's moderation vs this module, max |log10 p diff|"] = _logdiff(p1, p2)
    return {k: float(v) for k, v in out.items()}


def _logdiff(a, b):
    return np.max(np.abs(np.log10(np.maximum(a, 1e-300)) - np.log10(np.maximum(b, 1e-300))))
