"""Moderated statistics at their boundaries, each against an independent computation.

References: per-feature ``lstsq`` loops, Smyth's moment equations solved by ``brentq``
(not Newton), the closed forms of the posterior variance, t and F. The boundaries: saturated
designs (no residual degree of freedom), weights that remove observations, features left
out of the prior (no degrees of freedom, negative or non-finite variances), exactly two
usable features, a majority of zero variances, an infinite or a given prior, the cap of the
total degrees of freedom, blocks of columns and the messages of every validator.
"""

import numpy as np
import pytest
from scipy import optimize, special, stats

import widefs.stats._moderated as moderated
from widefs.stats import (
    fit_f_dist,
    linear_model_fit,
    moderated_f,
    moderated_t,
    squeeze_var,
    trigamma_inverse,
)


def _design(y):
    return np.column_stack([np.ones(y.size)] + [(y == c).astype(float) for c in np.unique(y)[1:]])


def _loop_prior(s2, df):
    """Smyth's moment equations for the usable features, solved by brentq on trigamma."""
    s2, df = np.asarray(s2, float), np.broadcast_to(np.asarray(df, float), np.shape(s2))
    keep = np.isfinite(s2) & np.isfinite(df) & (df > 0) & (s2 >= 0)
    s2, df = s2[keep], df[keep]
    if s2.size < 2:
        return np.nan, np.nan
    med = np.median(s2)
    x = np.maximum(s2, 1e-5 * (med if med > 0 else 1.0))
    e = np.log(x) - special.digamma(df / 2) + np.log(df / 2)
    target = np.var(e, ddof=1) - np.mean(special.polygamma(1, df / 2))
    if target <= 0:
        return np.mean(x), np.inf
    half = optimize.brentq(lambda h: special.polygamma(1, h) - target, 1e-10, 1e10, xtol=1e-15)
    return np.exp(np.mean(e) + special.digamma(half) - np.log(half)), 2 * half


def test_prior_leaves_out_unusable_features():
    rng = np.random.default_rng(0)
    s2 = rng.chisquare(4, 300) / 4 * (3 / rng.chisquare(3, 300))
    df = np.full(300, 4.0)
    s2_bad, df_bad = s2.copy(), df.copy()
    df_bad[:5] = 0.0  # no residual degree of freedom
    s2_bad[5:8] = [np.nan, np.inf, -1.0]
    df_bad[8] = np.inf
    ref = _loop_prior(s2_bad, df_bad)
    assert np.isfinite(ref[1])
    np.testing.assert_allclose(fit_f_dist(s2_bad, df_bad), ref, rtol=1e-9)
    # The same as fitting the usable features alone.
    np.testing.assert_allclose(fit_f_dist(s2[9:], df[9:]), ref, rtol=1e-12)


def test_prior_on_exactly_two_features_and_on_one():
    assert np.isfinite(fit_f_dist([1.0, 9.0], 3)).all()
    np.testing.assert_allclose(fit_f_dist([1.0, 9.0], 3), _loop_prior([1.0, 9.0], 3), rtol=1e-9)
    assert np.isnan(fit_f_dist([1.0, 9.0, 2.0], [3, 0, 0])).all()
    assert np.isnan(fit_f_dist([], 3)).all()


def test_prior_when_most_variances_are_zero():
    # The median is 0: zeros are raised to 1e-5 (1e-5 times 1), not to 0.
    s2 = np.array([0.0, 0.0, 0.0, 0.5, 2.0])
    np.testing.assert_allclose(fit_f_dist(s2, 2), _loop_prior(s2, 2), rtol=1e-9)
    s2 = np.array([0.0, 0.0, 3.0, 0.5, 2.0])  # median 0.5: raised to 5e-6
    np.testing.assert_allclose(fit_f_dist(s2, 2), _loop_prior(s2, 2), rtol=1e-9)


def test_prior_df_per_feature():
    rng = np.random.default_rng(1)
    df = rng.integers(1, 9, size=400).astype(float)
    s2 = rng.chisquare(df) / df * (5 / rng.chisquare(5, 400))
    np.testing.assert_allclose(fit_f_dist(s2, df), _loop_prior(s2, df), rtol=1e-9)


def test_squeeze_var_closed_forms():
    s2, d = np.array([0.5, 2.0, 8.0]), np.array([2.0, 4.0, 6.0])
    post, scale, d0 = squeeze_var(s2, d, prior=(3.0, 5.0))
    np.testing.assert_allclose(post, (5.0 * 3.0 + d * s2) / (5.0 + d), rtol=1e-15)
    assert (scale, d0) == (3.0, 5.0)
    post, scale, d0 = squeeze_var(s2, d, prior=(3.0, np.inf))
    assert post.tolist() == [3.0, 3.0, 3.0] and np.isinf(d0)
    post, scale, d0 = squeeze_var(s2, d, prior=(np.nan, np.nan))
    assert post.tolist() == s2.tolist() and post is not s2 and d0 == 0.0 and np.isnan(scale)


def test_total_df_is_capped_at_the_pooled_residual_df():
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 3)
    X = rng.normal(size=(6, 3))
    fit = linear_model_fit(X, _design(y))  # 4 residual df each, 12 in all
    for d0, expected in ((5.0, 9.0), (8.0, 12.0), (20.0, 12.0), (np.inf, 12.0)):
        t = moderated_t(fit, 1, prior=(1.0, d0))
        assert t.df_total.tolist() == [expected] * 3
        post = (d0 * 1.0 + 4 * fit.variances) / (d0 + 4) if np.isfinite(d0) else np.ones(3)
        diff = X[3:].mean(axis=0) - X[:3].mean(axis=0)
        ref_t = diff / np.sqrt(post * (1 / 3 + 1 / 3))
        np.testing.assert_allclose(t.statistics, ref_t, rtol=1e-12)
        np.testing.assert_allclose(t.pvalues, 2 * stats.t.sf(np.abs(ref_t), expected), rtol=1e-10)
        F = moderated_f(fit, [1], prior=(1.0, d0))
        np.testing.assert_allclose(F.pvalues, stats.f.sf(ref_t**2, 1, expected), rtol=1e-10)


def test_saturated_design_has_no_residual_df():
    # As many coefficients as samples: variances 0 on 0 df (not negative df, not NaN).
    X = np.array([[1.0, 2.0], [3.0, 5.0]])
    fit = linear_model_fit(X, _design(np.array([0, 1])))
    assert fit.df_residual.tolist() == [0.0, 0.0] and fit.variances.tolist() == [0.0, 0.0]
    np.testing.assert_allclose(fit.coefficients, [[1.0, 2.0], [2.0, 3.0]])
    # Zero weights that leave fewer observations than coefficients: 0 df too.
    W = np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 1.0]])
    X3 = np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0]])
    fit = linear_model_fit(X3, np.column_stack([np.ones(3), [0, 1, 1]]), weights=W)
    assert fit.df_residual.tolist() == [0.0, 1.0]
    assert fit.variances[0] == 0.0 and fit.variances[1] == pytest.approx(0.5)


def test_weights_equal_to_one_give_the_unweighted_fit():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 4)
    X = rng.normal(size=(12, 20))
    D = _design(y)
    plain, ones = linear_model_fit(X, D), linear_model_fit(X, D, weights=np.ones((12, 20)))
    np.testing.assert_allclose(ones.coefficients, plain.coefficients, rtol=1e-12)
    np.testing.assert_allclose(ones.variances, plain.variances, rtol=1e-12)
    np.testing.assert_allclose(ones.unscaled_covariance[7], plain.unscaled_covariance, rtol=1e-12)
    for j in range(20):
        beta = np.linalg.lstsq(D, X[:, j], rcond=None)[0]
        assert plain.coefficients[j] == pytest.approx(beta, rel=1e-10)
        rss = np.sum((X[:, j] - D @ beta) ** 2)
        assert plain.variances[j] == pytest.approx(rss / 9, rel=1e-10)


@pytest.mark.parametrize("lazy", [False, True])
def test_blocks_of_columns_and_the_columns_named_in_errors(lazy, monkeypatch, tmp_path):
    # Three columns a block: the fit is the same, and a NaN is reported at its own column.
    monkeypatch.setattr(moderated, "block_width", lambda *a, **k: 3)
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 4)
    X = rng.normal(size=(8, 11))
    W = rng.uniform(0.5, 2.0, size=(8, 11))
    ref = [np.linalg.lstsq(_design(y), X[:, j], rcond=None)[0] for j in range(11)]

    def as_input(a):
        if not lazy:
            return a
        mm = np.memmap(tmp_path / f"{id(a)}.dat", dtype=np.float64, mode="w+", shape=a.shape)
        mm[:] = a
        return mm

    fit = linear_model_fit(as_input(X), _design(y))
    np.testing.assert_allclose(fit.coefficients, ref, rtol=1e-10)
    wfit = linear_model_fit(as_input(X), _design(y), weights=as_input(W))
    for j in (0, 4, 10):
        sw = np.sqrt(W[:, j])
        beta = np.linalg.lstsq(_design(y) * sw[:, None], X[:, j] * sw, rcond=None)[0]
        np.testing.assert_allclose(wfit.coefficients[j], beta, rtol=1e-10)
    X[2, 7] = np.nan
    X[5, 10] = np.inf
    with pytest.raises(ValueError, match=r"^The data contain NaN or infinity \(columns \[7\]\)\.$"):
        linear_model_fit(as_input(X), _design(y))
    X[2, 7] = 0.0
    with pytest.raises(ValueError, match=r"\(columns \[10\]\)"):
        linear_model_fit(as_input(X), _design(y))
    X[5, 10] = 0.0
    W[1, 9] = -0.5
    with pytest.raises(ValueError, match=r"^weights must be non-negative\.$"):
        linear_model_fit(as_input(X), _design(y), weights=as_input(W))
    W[1, 9] = 0.0  # zero is allowed: the observation leaves the fit
    fit = linear_model_fit(as_input(X), _design(y), weights=as_input(W))
    assert fit.df_residual[9] == 5.0 and fit.df_residual[8] == 6.0


def test_validator_messages():
    X = np.zeros((6, 2))
    D = _design(np.repeat([0, 1], 3))
    with pytest.raises(
        ValueError, match=r"^X must be 2-D \(samples x features\); got shape \(6,\)\.$"
    ):
        linear_model_fit(np.zeros(6), D)
    with pytest.raises(
        ValueError,
        match=r"^design must be a 2-D matrix with one row per sample \(6\); got shape \(6,\)\.$",
    ):
        linear_model_fit(X, np.ones(6))
    with pytest.raises(ValueError, match=r"one row per sample \(6\); got shape \(5, 1\)\.$"):
        linear_model_fit(X, np.ones((5, 1)))
    bad = D.copy()
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match=r"^design contains NaN or infinity\.$"):
        linear_model_fit(X, bad)
    bad[0, 1] = np.inf
    with pytest.raises(ValueError, match=r"^design contains NaN or infinity\.$"):
        linear_model_fit(X, bad)
    with pytest.raises(ValueError, match=r"^design has 3 columns but rank 2: its coefficients"):
        linear_model_fit(X, np.column_stack([D, D[:, 1]]))
    with pytest.raises(
        ValueError, match=r"^weights must have the shape of X \(6, 2\); got \(6, 3\)\.$"
    ):
        linear_model_fit(X, D, weights=np.ones((6, 3)))
    fit = linear_model_fit(np.random.default_rng(0).normal(size=(6, 4)), D)
    each = r"^coefficients must list at least one coefficient, each once\.$"
    for coefs in ([], [1, 1], [0, 1, 0]):
        with pytest.raises(ValueError, match=each):
            moderated_f(fit, coefs)
    with pytest.raises(ValueError, match=r"^contrast must have 2 entries, one per coefficient\.$"):
        moderated_t(fit, [1.0])
    for bad_x in ([0.0], [-1.0], [np.nan], [1.0, -2.0]):
        with pytest.raises(ValueError, match=r"^trigamma_inverse needs positive values\.$"):
            trigamma_inverse(bad_x)


def test_trigamma_inverse_at_its_regime_boundaries():
    # Between 1e-6 and 1e7 Newton's result inverts polygamma; outside, limma's asymptotic
    # forms 1/x and 1/sqrt(x) are the definition (trigamma(y) = 1/y + 1/(2y^2) + ...).
    inner = np.array([1e-6, 2e-6, 1e-4, 3.0, 5e6, 1e7])
    np.testing.assert_allclose(special.polygamma(1, trigamma_inverse(inner)), inner, rtol=1e-7)
    small, big = np.array([1e-9, 9.9e-7]), np.array([1.01e7, 1e9])
    assert trigamma_inverse(small).tolist() == (1.0 / small).tolist()
    assert trigamma_inverse(big).tolist() == (1.0 / np.sqrt(big)).tolist()
    np.testing.assert_allclose(special.polygamma(1, trigamma_inverse(small)), small, rtol=1e-6)
    np.testing.assert_allclose(special.polygamma(1, trigamma_inverse(big)), big, rtol=1e-6)
    assert trigamma_inverse(4.0).shape == ()
    assert trigamma_inverse([[1.0, 2.0]]).shape == (1, 2)


def test_contrast_as_an_index_and_as_a_vector_agree():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 4)
    fit = linear_model_fit(rng.normal(size=(12, 40)), _design(y))
    for k in range(3):
        by_index, by_vector = moderated_t(fit, k), moderated_t(fit, np.eye(3)[k])
        np.testing.assert_array_equal(by_index.statistics, by_vector.statistics)
    # numpy integer and negative indices are coefficients too (the last one).
    np.testing.assert_array_equal(moderated_t(fit, np.int64(2)).statistics, by_vector.statistics)


def test_constant_and_perfectly_fitted_features():
    # A feature equal to its class means: variance 0, moderated by the prior into a
    # finite t; a constant feature: t = 0, p = 1, F = 0.
    y = np.repeat([0, 1], 4)
    rng = np.random.default_rng(6)
    X = np.column_stack([np.full(8, 2.0), 3.0 * y, rng.normal(size=(8, 50))])
    fit = linear_model_fit(X, _design(y))
    t, F = moderated_t(fit, 1), moderated_f(fit, [1])
    assert t.statistics[0] == 0.0 and t.pvalues[0] == 1.0 and F.statistics[0] == 0.0
    assert F.pvalues[0] == 1.0
    scale, d0 = t.prior_variance, t.prior_df
    post = d0 * scale / (d0 + 6)
    assert t.statistics[1] == pytest.approx(3.0 / np.sqrt(post * 0.5), rel=1e-10)
    assert F.statistics[1] == pytest.approx(t.statistics[1] ** 2, rel=1e-10)


def test_a_zero_posterior_variance_gives_zero_or_infinite_statistics_silently():
    # Prior scale 0 (given) or too few features (no prior): a constant feature has 0 / 0
    # (t = F = 0, p = 1) and a perfectly fitted one c / 0 (t = F = inf, p = 0), no warning.
    import warnings

    y = np.repeat([0, 1], 3)
    X = np.column_stack([np.zeros(6), 2.0 * y])  # zeros: coefficients exactly 0
    both = linear_model_fit(X, _design(y))
    alone = [linear_model_fit(X[:, [j]], _design(y)) for j in (0, 1)]  # one feature: no prior
    for fits, prior in (((both,), (0.0, 4.0)), (alone, None)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            t = [moderated_t(fit, 1, prior=prior) for fit in fits]
            F = [moderated_f(fit, [1], prior=prior) for fit in fits]
        stat = lambda res: np.concatenate([r.statistics for r in res]).tolist()  # noqa: E731
        pval = lambda res: np.concatenate([r.pvalues for r in res]).tolist()  # noqa: E731
        assert stat(t) == [0.0, np.inf] and pval(t) == [1.0, 0.0]
        assert stat(F) == [0.0, np.inf] and pval(F) == [1.0, 0.0]
        assert all((r.posterior_variances == 0).all() for r in t)
    assert moderated_t(alone[0], 1).prior_df == 0.0


def test_f_reports_the_same_moderation_as_t():
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1, 2], 4)
    X = rng.normal(size=(12, 30)) * np.sqrt(3 / rng.chisquare(3, 30))
    fit = linear_model_fit(X, _design(y))
    t, F = moderated_t(fit, 1), moderated_f(fit, [1, 2])
    scale, d0 = _loop_prior(fit.variances, 9.0)
    np.testing.assert_allclose(F.posterior_variances, (d0 * scale + 9 * fit.variances) / (d0 + 9))
    np.testing.assert_allclose(F.df_total, np.minimum(9 + d0, 270.0))
    np.testing.assert_array_equal(F.df_total, t.df_total)
    np.testing.assert_array_equal(F.posterior_variances, t.posterior_variances)
    assert (F.prior_variance, F.prior_df) == (t.prior_variance, t.prior_df)


def test_weights_as_nested_lists_and_many_bad_columns():
    y = np.repeat([0, 1], 3)
    rng = np.random.default_rng(8)
    X = rng.normal(size=(6, 9))
    W = rng.uniform(0.5, 2.0, size=(6, 9))
    listed = linear_model_fit(X.tolist(), _design(y), weights=W.tolist())
    np.testing.assert_allclose(listed.coefficients, linear_model_fit(X, _design(y), W).coefficients)
    X[0, 1:8] = np.nan  # seven bad columns: the message names the first five
    with pytest.raises(ValueError, match=r"\(columns \[1, 2, 3, 4, 5\]\)\.$"):
        linear_model_fit(X, _design(y))


def test_usable_features_at_the_tolerances_themselves():
    # d_j = 1e-15 counts as no degree of freedom and s_j^2 = -1e-15 as a negative variance:
    # both are left out of the prior, exactly as d_j = 0 or s_j^2 = -1.
    rng = np.random.default_rng(9)
    s2 = rng.chisquare(4, 200) / 4 * (6 / rng.chisquare(6, 200))
    df = np.full(200, 4.0)
    ref = fit_f_dist(s2[2:], df[2:])
    s2_edge, df_edge = s2.copy(), df.copy()
    df_edge[0], s2_edge[1] = 1e-15, -1e-15
    np.testing.assert_allclose(fit_f_dist(s2_edge, df_edge), ref, rtol=1e-12)
    np.testing.assert_allclose(ref, _loop_prior(s2[2:], 4.0), rtol=1e-9)
    # Just beyond the tolerances they are used (as a variance of 0 and a tiny df).
    df_edge[0], s2_edge[1] = 2e-15, -0.5e-15
    assert fit_f_dist(s2_edge, df_edge) != pytest.approx(ref, rel=1e-12)


def test_trigamma_inverse_just_above_the_large_argument_cut():
    x = np.array([1e7 + 1.0])
    assert trigamma_inverse(x).tolist() == (1.0 / np.sqrt(x)).tolist()


def test_saturated_fit_with_rounding_residuals_has_variance_exactly_zero():
    # Three samples, three coefficients: the residuals are rounding (about 1e-16), and with
    # no residual degree of freedom the variance is 0, not the rounding's square.
    y = np.array([0, 1, 2])
    X = np.random.default_rng(10).normal(size=(3, 20))
    fit = linear_model_fit(X, _design(y))
    assert (fit.df_residual == 0).all() and (fit.variances == 0).all()
    np.testing.assert_allclose(fit.coefficients[:, 0], X[0], rtol=1e-12)


def test_a_boolean_design_is_read_as_numbers():
    # Indicator columns often come as booleans: the fit equals the one of the float design
    # (a boolean D'D would be a logical product).
    rng = np.random.default_rng(11)
    y = np.repeat([0, 1, 2], 4)
    X = rng.normal(size=(12, 15))
    D = _design(y)
    as_bool = linear_model_fit(X, D.astype(bool))
    ref = linear_model_fit(X, D)
    np.testing.assert_allclose(as_bool.coefficients, ref.coefficients, rtol=1e-12)
    np.testing.assert_allclose(as_bool.unscaled_covariance, ref.unscaled_covariance, rtol=1e-12)
    np.testing.assert_allclose(as_bool.variances, ref.variances, rtol=1e-12)
