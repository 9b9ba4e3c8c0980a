"""Moderated t and F against an independent per-feature loop (lstsq, scipy root finding)."""

import numpy as np
import pytest
from scipy import optimize, special, stats

from widefs.stats import (
    fit_f_dist,
    linear_model_fit,
    moderated_f,
    moderated_t,
    squeeze_var,
    trigamma_inverse,
)


def _design(y, covariate=None):
    classes = np.unique(y)
    cols = [np.ones(y.size)] + [(y == c).astype(float) for c in classes[1:]]
    if covariate is not None:
        cols.append(covariate)
    return np.column_stack(cols)


def _loop_fit(X, D, W=None):
    """One weighted least-squares fit per feature by lstsq on sqrt(w)-scaled rows."""
    n, m = X.shape
    out = []
    for j in range(m):
        w = np.ones(n) if W is None else W[:, j]
        sw = np.sqrt(w)
        beta = np.linalg.lstsq(D * sw[:, None], X[:, j] * sw, rcond=None)[0]
        rss = np.sum(w * (X[:, j] - D @ beta) ** 2)
        df = np.sum(w > 0) - D.shape[1]
        cov = np.linalg.inv(D.T @ (w[:, None] * D))
        out.append((beta, rss / df, df, cov))
    return out


def _loop_prior(s2, df):
    """Smyth's moment equations solved by brentq on trigamma (not Newton)."""
    x = np.maximum(s2, 1e-5 * np.median(s2))
    e = np.log(x) - special.digamma(df / 2) + np.log(df / 2)
    target = np.var(e, ddof=1) - np.mean(special.polygamma(1, df / 2))
    if target <= 0:
        return np.mean(x), np.inf
    half = optimize.brentq(lambda h: special.polygamma(1, h) - target, 1e-8, 1e8, xtol=1e-14)
    d0 = 2 * half
    return np.exp(np.mean(e) + special.digamma(half) - np.log(half)), d0


def _loop_tests(X, D, coefs, W=None):
    fits = _loop_fit(X, D, W)
    s2 = np.array([f[1] for f in fits])
    df = np.array([f[2] for f in fits], dtype=float)
    s0, d0 = _loop_prior(s2, df)
    t, pt, F, pF = [], [], [], []
    for beta, v, d, cov in fits:
        post = s0 if np.isinf(d0) else (d0 * s0 + d * v) / (d0 + d)
        dt = min(d + d0, df.sum())
        tj = beta[coefs[0]] / np.sqrt(post * cov[coefs[0], coefs[0]])
        t.append(tj)
        pt.append(2 * stats.t.sf(abs(tj), dt))
        b = beta[coefs]
        Fj = b @ np.linalg.inv(cov[np.ix_(coefs, coefs)]) @ b / (len(coefs) * post)
        F.append(Fj)
        pF.append(stats.f.sf(Fj, len(coefs), dt))
    return (s0, d0), np.array(t), np.array(pt), np.array(F), np.array(pF)


@pytest.mark.parametrize(
    ("sizes", "weighted", "covariate"),
    [
        ((4, 4), False, False),
        ((3, 5, 6), False, True),
        ((4, 4), True, False),
        ((5, 3, 4), True, True),
    ],
)
def test_moderated_statistics_equal_a_per_feature_loop(sizes, weighted, covariate):
    rng = np.random.default_rng(sum(sizes) + 10 * weighted + covariate)
    y = np.repeat(np.arange(len(sizes)), sizes)
    n, m = y.size, 120
    # Variances drawn from a scaled inverse chi-square prior: d0 finite and estimable.
    sigma2 = 0.7 * 6 / rng.chisquare(6, m)
    X = rng.normal(size=(n, m)) * np.sqrt(sigma2)
    X[:, :5] += 2.0 * (y[:, None] == 1)
    D = _design(y, rng.normal(size=n) if covariate else None)
    W = rng.uniform(0.3, 2.0, size=(n, m)) if weighted else None
    coefs = list(range(1, len(sizes)))
    (s0, d0), t, pt, F, pF = _loop_tests(X, D, coefs, W)
    fit = linear_model_fit(X, D, weights=W)
    mt, mf = moderated_t(fit, coefs[0]), moderated_f(fit, coefs)
    assert np.isfinite(d0)
    np.testing.assert_allclose([mt.prior_variance, mt.prior_df], [s0, d0], rtol=1e-9)
    np.testing.assert_allclose(mt.statistics, t, rtol=1e-9)
    np.testing.assert_allclose(mt.pvalues, pt, rtol=1e-8)
    np.testing.assert_allclose(mf.statistics, F, rtol=1e-9)
    np.testing.assert_allclose(mf.pvalues, pF, rtol=1e-8)


def test_blocks_and_float32_and_memmap_give_the_in_memory_fit(tmp_path):
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 5)
    X = rng.normal(size=(15, 40)).astype(np.float32)
    D = _design(y)
    mm = np.memmap(tmp_path / "x.dat", dtype=np.float32, mode="w+", shape=X.shape)
    mm[:] = X
    ref = linear_model_fit(X.astype(np.float64), D)
    for data in (X, mm):
        fit = linear_model_fit(data, D)
        np.testing.assert_allclose(fit.coefficients, ref.coefficients, rtol=1e-12)
        np.testing.assert_allclose(fit.variances, ref.variances, rtol=1e-12)


def test_common_variance_gives_infinite_prior_df_and_the_mean():
    # Residual variances less spread than chi2 noise alone: d0 = inf, s0^2 = their mean.
    s2 = np.array([1.0, 1.01, 0.99, 1.02, 0.98])
    scale, d0 = fit_f_dist(s2, 4)
    assert np.isinf(d0) and scale == pytest.approx(s2.mean())
    post, _, _ = squeeze_var(s2, 4)
    np.testing.assert_allclose(post, s2.mean())


def test_zero_variances_are_offset_for_the_fit_only():
    rng = np.random.default_rng(0)
    s2 = rng.chisquare(3, 500) / 3
    s2[:3] = 0.0
    scale, d0 = fit_f_dist(s2, 3)
    x = np.maximum(s2, 1e-5 * np.median(s2))
    assert (scale, d0) == pytest.approx(_loop_prior(x, np.full(500, 3.0)), rel=1e-9)
    post, _, _ = squeeze_var(s2, 3)
    assert post[0] == pytest.approx(d0 * scale / (d0 + 3))  # the zero itself is kept


def test_too_few_features_leave_variances_unmoderated():
    scale, d0 = fit_f_dist([2.0], 3)
    assert np.isnan(scale) and np.isnan(d0)
    post, _, d0 = squeeze_var([2.0], 3)
    assert post.tolist() == [2.0] and d0 == 0.0


def test_trigamma_inverse_inverts_trigamma_on_every_regime():
    x = np.array([1e-8, 1e-3, 0.5, 1.0, 7.0, 1e5, 1e8])
    y = trigamma_inverse(x)
    np.testing.assert_allclose(special.polygamma(1, y), x, rtol=1e-6)
    with pytest.raises(ValueError, match="positive"):
        trigamma_inverse([0.0])


def test_constant_feature_gets_statistic_zero_and_pvalue_one():
    y = np.repeat([0, 1], 4)
    X = np.column_stack([np.ones(8), np.random.default_rng(0).normal(size=(8, 30))])
    fit = linear_model_fit(X, _design(y))
    assert moderated_t(fit, 1).pvalues[0] == 1.0
    assert moderated_f(fit, [1]).statistics[0] == 0.0


def test_two_class_f_is_the_square_of_t():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 6)
    fit = linear_model_fit(rng.normal(size=(12, 50)), _design(y))
    t, F = moderated_t(fit, 1), moderated_f(fit, [1])
    np.testing.assert_allclose(F.statistics, t.statistics**2, rtol=1e-12)
    np.testing.assert_allclose(F.pvalues, t.pvalues, rtol=1e-10)


def test_contrast_vector_equals_a_difference_of_coefficients():
    rng = np.random.default_rng(6)
    y = np.repeat([0, 1, 2], 4)
    X = rng.normal(size=(12, 60))
    fit = linear_model_fit(X, _design(y))
    diff = moderated_t(fit, [0.0, 1.0, -1.0])
    # Direct: class 1 mean minus class 2 mean over the posterior standard error.
    means = np.array([X[y == c].mean(axis=0) for c in (1, 2)])
    se = np.sqrt(diff.posterior_variances * (1 / 4 + 1 / 4))
    np.testing.assert_allclose(diff.statistics, (means[0] - means[1]) / se, rtol=1e-10)


def test_invalid_inputs_are_named():
    y = np.repeat([0, 1], 3)
    X = np.zeros((6, 2))
    with pytest.raises(ValueError, match="rank"):
        linear_model_fit(X, np.column_stack([np.ones(6), np.ones(6)]))
    with pytest.raises(ValueError, match="one row per sample"):
        linear_model_fit(X, np.ones((5, 1)))
    with pytest.raises(ValueError, match="shape of X"):
        linear_model_fit(X, _design(y), weights=np.ones((6, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        linear_model_fit(X, _design(y), weights=-np.ones((6, 2)))
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        linear_model_fit(X, _design(y))
    fit = linear_model_fit(np.ones((6, 2)), _design(y))
    with pytest.raises(ValueError, match="each once"):
        moderated_f(fit, [1, 1])
    with pytest.raises(ValueError, match="one per coefficient"):
        moderated_t(fit, [1.0, 0.0, 0.0])


def test_moderated_null_pvalues_are_uniform_by_monte_carlo():
    # Gaussian features with variances from the prior: P(p <= u) = u exactly (Smyth 2004).
    rng = np.random.default_rng(11)
    y = np.repeat([0, 1], 4)
    m = 40000
    sigma2 = 4 / rng.chisquare(4, m)
    X = rng.normal(size=(8, m)) * np.sqrt(sigma2)
    p = moderated_t(linear_model_fit(X, _design(y)), 1).pvalues
    for u in (0.01, 0.05, 0.2):
        se = np.sqrt(u * (1 - u) / m)
        assert abs(np.mean(p <= u) - u) < 4 * se


def test_equals_inmoose_limma():
    limma = pytest.importorskip("inmoose.limma")
    import pandas as pd

    rng = np.random.default_rng(2)
    y = np.arange(12) % 3
    X = rng.normal(size=(12, 200)) * np.exp(0.5 * rng.normal(size=200))
    D = _design(y)
    fit = limma.eBayes(limma.lmFit(X.T.copy(), pd.DataFrame(D, columns=["a", "b", "c"])))
    ours = moderated_t(linear_model_fit(X, D), 1)
    np.testing.assert_allclose(ours.statistics, np.asarray(fit.t)[:, 1], rtol=1e-10)
    np.testing.assert_allclose(ours.prior_df, float(np.asarray(fit.df_prior)), rtol=1e-10)
    t = np.asarray(fit.t)[:, 1:]
    cov = np.asarray(fit.cov_coefficients)[1:, 1:]
    cor = cov / np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
    F_limma = np.einsum("jp,pq,jq->j", t, np.linalg.inv(cor), t) / 2
    np.testing.assert_allclose(
        moderated_f(linear_model_fit(X, D), [1, 2]).statistics, F_limma, rtol=1e-10
    )


def test_zero_weights_leave_observations_out_of_the_residual_df():
    rng = np.random.default_rng(12)
    y = np.repeat([0, 1], 5)
    X = rng.normal(size=(10, 40))
    W = rng.uniform(0.5, 2.0, size=(10, 40))
    W[0, :10] = 0.0  # first observation dropped for ten features
    D = _design(y)
    fit = linear_model_fit(X, D, weights=W)
    loop = _loop_fit(X, D, W)
    np.testing.assert_array_equal(fit.df_residual, [f[2] for f in loop])
    np.testing.assert_allclose(fit.variances, [f[1] for f in loop], rtol=1e-10)
    assert fit.df_residual[:10].tolist() == [7.0] * 10 and fit.df_residual[10] == 8.0
