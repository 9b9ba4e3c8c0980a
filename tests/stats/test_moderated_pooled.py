"""``moderated_f``'s ``pooled_df`` and its one-value degrees of freedom, against hand formulas.

References: the full fit of every feature (a part of the features with the full fit's
pooled residual degrees of freedom must give the full fit's numbers), limma's cap
``min(d_j + d0, pooled)`` written out, F's upper tail from ``scipy.stats.f``. The
boundaries: the cap below, at and above ``d_j + d0``, an infinite prior, degrees of freedom
stored once for all features (a broadcast view, as the screen's fits hold them), features
with different degrees of freedom (zero weights) and a fit of no feature.
"""

import numpy as np
import pytest
from scipy import optimize, special, stats

from widefs.stats import LinearModelFit, fit_f_dist, linear_model_fit, moderated_f, squeeze_var


def _three_classes(m=300, seed=3):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], [4, 5, 6])
    design = np.column_stack([np.ones(15), y == 1, y == 2]).astype(float)
    X = rng.normal(size=(15, m))
    X[:, :5] += 2.0 * (y == 2)[:, None]
    return X, design


def _f_by_hand(fit, post):
    # F of the two class coefficients: b' V^-1 b / (2 v), V the unscaled covariance block.
    b = fit.coefficients[:, 1:]
    V = np.linalg.inv(fit.unscaled_covariance[1:, 1:])
    return np.einsum("jp,pq,jq->j", b, V, b) / (2 * post)


@pytest.mark.parametrize("prior", [(0.8, 6.0), (1.0, np.inf), (1.2, 1e6)])
def test_a_part_with_the_pooled_df_gives_the_full_fit(prior):
    X, design = _three_classes()
    full = linear_model_fit(X, design)
    rows = np.random.default_rng(4).random(X.shape[1]) < 0.3
    part = linear_model_fit(X[:, rows], design)  # each feature's fit is its own
    ref = moderated_f(full, [1, 2], prior=prior)
    got = moderated_f(part, [1, 2], prior=prior, pooled_df=float(full.df_residual.sum()))
    np.testing.assert_allclose(got.statistics, ref.statistics[rows], rtol=1e-12)
    np.testing.assert_allclose(got.pvalues, ref.pvalues[rows], rtol=1e-10)
    assert got.df_total.tolist() == ref.df_total[rows].tolist()
    # limma's cap written out: the full fit's 12 residual df per feature, 12 * 300 in all.
    assert got.df_total.tolist() == [min(12 + prior[1], 12.0 * 300)] * rows.sum()
    if prior[1] > 12 * rows.sum():  # the part's own cap would bind: pooled_df matters
        alone = moderated_f(part, [1, 2], prior=prior)
        assert alone.df_total.tolist() == [12.0 * rows.sum()] * rows.sum()
        assert (alone.pvalues[:5] > got.pvalues[:5]).all()  # fewer df, heavier tail


@pytest.mark.parametrize("cap", [20.0, 22.0, 30.0, 1e9])
def test_the_cap_on_each_side_of_the_total(cap):
    # d_j + d0 = 12 + 10 = 22: a cap below it binds, at or above it does not.
    X, design = _three_classes(m=40)
    fit = linear_model_fit(X, design)
    test = moderated_f(fit, [1, 2], prior=(1.0, 10.0), pooled_df=cap)
    expected = min(22.0, cap)
    assert test.df_total.tolist() == [expected] * 40
    post = (10.0 * 1.0 + 12.0 * fit.variances) / 22.0
    F = _f_by_hand(fit, post)
    np.testing.assert_allclose(test.statistics, F, rtol=1e-12)
    np.testing.assert_allclose(test.pvalues, stats.f.sf(F, 2, expected), rtol=1e-10)


def test_the_fitted_prior_with_a_pooled_df():
    X, design = _three_classes(m=200)
    # Variances drawn from a scaled inverse chi-square with 4 df: a finite prior df.
    X *= np.sqrt(4.0 / np.random.default_rng(5).chisquare(4, 200))
    fit = linear_model_fit(X, design)
    scale, d0 = fit_f_dist(fit.variances, fit.df_residual)
    assert 1.0 < d0 < 20.0
    test = moderated_f(fit, [1, 2], pooled_df=13.0)  # below 12 + d0: the cap is the df
    assert test.df_total.tolist() == [13.0] * 200
    assert (test.prior_variance, test.prior_df) == (scale, d0)
    post = (d0 * scale + 12.0 * fit.variances) / (d0 + 12.0)
    np.testing.assert_allclose(test.posterior_variances, post, rtol=1e-12)
    np.testing.assert_allclose(test.pvalues, stats.f.sf(_f_by_hand(fit, post), 2, 13.0), rtol=1e-9)


def _broadcast(fit):
    """The same fit with its degrees of freedom stored once (a read-only view of stride 0)."""
    df = np.broadcast_to(fit.df_residual[:1], fit.df_residual.shape)
    assert df.strides == (0,)
    return LinearModelFit(fit.coefficients, fit.unscaled_covariance, fit.variances, df)


@pytest.mark.parametrize("pooled_df", [None, 15.0, 1e9])
@pytest.mark.parametrize("d0", [4.0, np.inf])
def test_degrees_of_freedom_stored_once_give_the_same_numbers(pooled_df, d0):
    X, design = _three_classes(m=30)
    fit = linear_model_fit(X, design)
    ref = moderated_f(fit, [1, 2], prior=(0.9, d0), pooled_df=pooled_df)
    got = moderated_f(_broadcast(fit), [1, 2], prior=(0.9, d0), pooled_df=pooled_df)
    cap = 12.0 * 30 if pooled_df is None else pooled_df
    assert got.df_total.shape == (30,)
    assert got.df_total.tolist() == ref.df_total.tolist() == [min(12.0 + d0, cap)] * 30
    assert got.pvalues.tolist() == ref.pvalues.tolist()
    assert got.statistics.tolist() == ref.statistics.tolist()
    # Stored once in, stored once out: no array per feature (a view of stride 0).
    assert got.df_total.strides == (0,) and ref.df_total.strides == (8,)


def test_one_feature_with_its_degrees_of_freedom_stored_once():
    X, design = _three_classes(m=1)
    fit = linear_model_fit(X, design)
    got = moderated_f(_broadcast(fit), [1, 2], prior=(0.9, 4.0), pooled_df=14.0)
    assert got.df_total.tolist() == [14.0]
    post = (4.0 * 0.9 + 12.0 * fit.variances) / 16.0
    np.testing.assert_allclose(got.pvalues, stats.f.sf(_f_by_hand(fit, post), 2, 14.0), rtol=1e-10)


def test_features_with_their_own_degrees_of_freedom_keep_them():
    # Zero weights remove observations: the features' residual df differ (12, 11, 10, ...),
    # so the total of each is its own df plus d0, not the first feature's.
    X, design = _three_classes(m=6)
    W = np.ones_like(X)
    for j in range(1, 6):
        W[-j:, j] = 0.0  # the last rows (class 2, six of them): every class keeps one
    fit = linear_model_fit(X, design, weights=W)
    assert fit.df_residual.tolist() == [12.0, 11.0, 10.0, 9.0, 8.0, 7.0]
    for cap in (None, 15.0):
        test = moderated_f(fit, [1, 2], prior=(1.0, 5.0), pooled_df=cap)
        expected = np.minimum(fit.df_residual + 5.0, 57.0 if cap is None else cap)
        assert test.df_total.tolist() == expected.tolist()


def test_a_fit_of_no_feature():
    X, design = _three_classes(m=4)
    fit = linear_model_fit(X[:, :0], design)
    empty = LinearModelFit(
        fit.coefficients, fit.unscaled_covariance, fit.variances, np.broadcast_to(12.0, (0,))
    )
    for f in (fit, empty):
        test = moderated_f(f, [1, 2], prior=(1.0, 4.0), pooled_df=100.0)
        assert test.df_total.shape == test.pvalues.shape == test.statistics.shape == (0,)


def _limma_prior(s2, df):
    """limma's fitFDist step by step: clip at 0, floor at 1e-5 x the median (1 if the median
    is 0), then the moment equations, solved by brentq on trigamma."""
    x = np.maximum(np.asarray(s2, float), 0.0)
    med = np.median(x)
    x = np.maximum(x, 1e-5 * (med if med > 0 else 1.0))
    e = np.log(x) - special.digamma(df / 2) + np.log(df / 2)
    target = np.var(e, ddof=1) - special.polygamma(1, df / 2)
    half = optimize.brentq(lambda h: special.polygamma(1, h) - target, 1e-8, 1e8, xtol=1e-14)
    d0 = 2 * half
    return np.exp(np.mean(e) + special.digamma(half) - np.log(half)), d0


def test_roundoff_negatives_are_zeros_before_the_median():
    # Variances a hair below 0 (roundoff, within the -1e-15 tolerance) count as 0: here the
    # two middle values are -1e-16 and 1e-16, so the median is 5e-17 (not 0) and the floor
    # 5e-22; reading the negatives as they are would give a median of 0 and a floor of 1e-5.
    s2 = np.array([-5e-16, -1e-16, 1e-16, 2.0])
    scale, d0 = fit_f_dist(s2, 4.0)
    ref_scale, ref_d0 = _limma_prior(s2, 4.0)
    assert d0 == pytest.approx(ref_d0, rel=1e-8)
    assert scale == pytest.approx(ref_scale, rel=1e-8)
    floor = _limma_prior(np.array([0.0, 0.0, 1e-5, 2.0]), 4.0)  # what a 1e-5 floor gives
    assert abs(d0 - floor[1]) > 0.01


def test_integer_variances_and_degrees_of_freedom():
    rng = np.random.default_rng(8)
    s2 = rng.integers(1, 40, size=50)
    df = rng.integers(2, 6, size=50)
    assert fit_f_dist(s2, df) == fit_f_dist(s2.astype(float), df.astype(float))
    assert fit_f_dist(s2, 4) == fit_f_dist(s2.astype(float), 4.0)
    # Posterior variances are floats, also when no prior applies (they are then the input).
    for prior in ((np.nan, np.nan), (3.0, 2.0), (3.0, np.inf)):
        post = squeeze_var(s2[:3], df[:3], prior=prior)[0]
        assert post.dtype == np.float64
    assert squeeze_var(s2[:3], 4, prior=(np.nan, np.nan))[0].tolist() == s2[:3].tolist()
