"""Design matrices and the covariate-adjusted moderated F against statsmodels + limma's formulas."""

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special, stats

from widefs.stats import build_design, design_moderated_f


def test_columns_numeric_and_categorical_with_reference_levels():
    cov = pd.DataFrame(
        {
            "age": [30.0, 41, 35, 52, 47, 38],
            "batch": pd.Categorical(["b2", "b1", "b3", "b1", "b2", "b3"]),
            "sex": ["F", "M", "M", "F", "F", "M"],
        }
    )
    cov12 = pd.concat([cov, cov.iloc[[3, 0, 5, 1, 4, 2]]], ignore_index=True)
    d = build_design(["ctl", "ctl", "trt", "trt", "ko", "ko"] * 2, covariates=cov12)
    assert d.column_names == (
        "intercept",
        "class[ko]",
        "class[trt]",
        "age",
        "batch[b2]",
        "batch[b3]",
        "sex[M]",
    )
    assert d.class_coefficients == (1, 2)
    assert list(d.classes) == ["ctl", "ko", "trt"]
    expected = np.array(
        [
            [1, 0, 0, 30, 1, 0, 0],
            [1, 0, 0, 41, 0, 0, 1],
            [1, 0, 1, 35, 0, 1, 1],
            [1, 0, 1, 52, 0, 0, 0],
            [1, 1, 0, 47, 1, 0, 0],
            [1, 1, 0, 38, 0, 1, 1],
        ],
        float,
    )
    # on 6 samples the design runs out of residual degrees of freedom at the batch: refused
    with pytest.raises(ValueError, match="6 coefficients for 6 samples: no residual"):
        build_design(["ctl", "ctl", "trt", "trt", "ko", "ko"], covariates=cov)
    assert np.array_equal(d.matrix[:6], expected)
    assert d.covariate_names == ("age", "batch", "sex")
    assert np.array_equal(d.reduced_matrix, np.delete(d.matrix, [1, 2], axis=1))


def test_array_covariates_and_blocks():
    d = build_design([0, 1, 0, 1, 0, 1], np.arange(6.0) ** 2, groups=[5, 5, 6, 6, 7, 7])
    assert d.column_names == ("intercept", "class[1]", "covariate 0", "group[6]", "group[7]")
    assert np.array_equal(d.matrix[:, 3:], [[0, 0], [0, 0], [1, 0], [1, 0], [0, 1], [0, 1]])


@pytest.mark.parametrize(
    ("covariates", "groups", "message"),
    [
        ({"age": [1.0, np.nan, 3, 4, 5, 6]}, None, "covariate 'age' has missing values"),
        ({"site": ["a", None, "b", "a", "b", "a"]}, None, "covariate 'site' has missing"),
        ({"rin": [7.0] * 6}, None, "covariate 'rin' is constant"),
        ({"site": ["a"] * 6}, None, "covariate 'site' is constant"),
        ({"batch": ["x", "x", "x", "y", "y", "y"]}, None, "'batch' is confounded with the classes"),
        ({"dose": [0.0, 0, 0, 2, 2, 2]}, None, "'dose' is confounded with the classes"),
        (
            {"age": [1.0, 2, 3, 4, 5, 7], "age2": [2.0, 4, 6, 8, 10, 14]},
            None,
            "covariate 'age2' is redundant",
        ),
        (None, ["p", "p", "q", "r", "r", "r"], "'groups' is confounded with the classes"),
        ({"n": [1.0, 2, 3]}, None, "covariate 'n' has 3 values for 6 samples"),
    ],
)
def test_one_clear_error_naming_the_column(covariates, groups, message):
    with pytest.raises(ValueError, match=message):
        build_design([0, 0, 0, 1, 1, 1], covariates, groups=groups)


def test_single_class_refused():
    with pytest.raises(ValueError, match="single class"):
        build_design([1, 1, 1])


# ---------------------------------------------------------------- independent reference
def _limma_reference(X, D, tested):
    """Per-feature statsmodels OLS, then limma's eBayes written out (Smyth 2004, sec. 6)."""
    import statsmodels.api as sm

    m = X.shape[1]
    s2, coefs, covs = np.empty(m), [], []
    for j in range(m):
        res = sm.OLS(X[:, j], D).fit()
        s2[j] = res.scale
        coefs.append(res.params)
        covs.append(res.normalized_cov_params)
    d = D.shape[0] - np.linalg.matrix_rank(D)
    z = np.log(s2)
    e = z - special.digamma(d / 2) + np.log(d / 2)
    target = np.var(e, ddof=1) - special.polygamma(1, d / 2)
    assert target > 0
    half_d0 = optimize.brentq(lambda x: special.polygamma(1, x) - target, 1e-8, 1e8)
    d0 = 2 * half_d0
    s02 = np.exp(e.mean() + special.digamma(d0 / 2) - np.log(d0 / 2))
    post = (d0 * s02 + d * s2) / (d0 + d)
    idx = np.asarray(tested)
    F = np.array(
        [
            b[idx] @ np.linalg.solve(V[np.ix_(idx, idx)], b[idx]) / (idx.size * v)
            for b, V, v in zip(coefs, covs, post, strict=True)
        ]
    )
    return F, stats.f.sf(F, idx.size, d + d0), d0, s02


def test_design_moderated_f_with_covariates_matches_statsmodels_and_limma_formulas():
    rng = np.random.default_rng(3)
    n, m = 14, 300
    y = np.repeat(["a", "b"], 7)
    cov = pd.DataFrame({"age": rng.normal(50, 10, n), "batch": np.tile(["x", "y"], 7)})
    sd = np.sqrt(rng.chisquare(5, m) / 5)
    X = rng.normal(size=(n, m)) * sd + 0.05 * cov["age"].to_numpy()[:, None]
    X[:, :10] += 2 * (y == "b")[:, None]
    res = design_moderated_f(X, y, covariates=cov)
    D = res.design.matrix
    F, p, d0, s02 = _limma_reference(X, D, res.design.class_coefficients)
    assert res.case == "independent"
    assert res.test.prior_df == pytest.approx(d0, rel=1e-6)
    assert res.test.prior_variance == pytest.approx(s02, rel=1e-6)
    np.testing.assert_allclose(res.test.statistics, F, rtol=1e-7)
    np.testing.assert_allclose(res.test.pvalues, p, rtol=1e-6)


def test_paired_design_is_limmas_block_fixed_effect():
    rng = np.random.default_rng(4)
    pairs = 8
    subject = np.repeat([f"s{k}" for k in range(pairs)], 2)
    y = np.tile(["pre", "post"], pairs)
    sd = np.sqrt(rng.chisquare(4, 200) / 4)
    X = rng.normal(size=(2 * pairs, 200)) * sd + 3 * rng.normal(size=(pairs, 200)).repeat(2, 0)
    res = design_moderated_f(X, y, groups=subject)
    assert res.case == "within groups"
    assert res.design.column_names[:2] == ("intercept", "class[pre]")
    _, p, _, _ = _limma_reference(X, res.design.matrix, [1])
    np.testing.assert_allclose(res.test.pvalues, p, rtol=1e-6)
    # the ordinary t of the block design's class coefficient is the paired t
    import statsmodels.api as sm

    t_block = sm.OLS(X[:, 0], res.design.matrix).fit().tvalues[1]
    diff = X[y == "pre", 0] - X[y == "post", 0]
    assert abs(t_block) == pytest.approx(abs(stats.ttest_1samp(diff, 0).statistic), rel=1e-9)


def test_groups_of_one_class_are_averaged_into_one_observation_each():
    rng = np.random.default_rng(5)
    patient = np.repeat(np.arange(8), 3)
    y = np.repeat([0, 1], 12)
    X = rng.normal(size=(24, 100))
    age = np.repeat(rng.normal(size=8), 3)
    res = design_moderated_f(X, y, covariates={"age": age}, groups=patient)
    assert res.case == "between groups"
    frame = pd.DataFrame(X).groupby(patient).mean().to_numpy()
    direct = design_moderated_f(frame, y[::3], covariates={"age": age[::3]})
    np.testing.assert_allclose(res.test.pvalues, direct.test.pvalues, rtol=1e-12)
    assert res.design.matrix.shape == (8, 3)
    with pytest.raises(ValueError, match="covariate 'rin' varies within groups"):
        design_moderated_f(X, y, covariates={"rin": rng.normal(size=24)}, groups=patient)


def test_batch_adjustment_removes_batch_false_positives():
    # Batches confounded with the classes (7 of 8 cases in batch 1), no class effect: the
    # screen without the batch selects the batch genes, with it it does not (rate at 0.05
    # over 200 batch genes: SE 0.015 at the nominal 0.05).
    rng = np.random.default_rng(6)
    y = np.repeat([0, 1], 8)
    batch = np.array([0] * 7 + [1] * 1 + [0] * 1 + [1] * 7)
    X = rng.normal(size=(16, 1000))
    X[:, :200] += 2.0 * batch[:, None]
    naive = design_moderated_f(X, y).test.pvalues
    adjusted = design_moderated_f(X, y, covariates={"batch": batch}).test.pvalues
    assert np.mean(naive[:200] < 0.05) > 0.5
    assert np.mean(adjusted[:200] < 0.05) < 0.05 + 3 * 0.015


def test_equals_inmoose_limma_on_a_patsy_design():
    # The design built independently by patsy's formula (treatment coding), fitted by
    # inmoose's limma (lmFit, eBayes, the F of the class t's as topTableF computes it).
    limma = pytest.importorskip("inmoose.limma")
    patsy = pytest.importorskip("patsy")
    rng = np.random.default_rng(8)
    frame = pd.DataFrame(
        {
            "cls": np.tile(["ctl", "ko", "trt"], 6),
            "age": rng.normal(50, 8, 18),
            "batch": np.repeat(["b1", "b2", "b3"], 6),
        }
    )
    X = rng.normal(size=(18, 250)) * np.exp(0.5 * rng.normal(size=250))
    D = np.asarray(patsy.dmatrix("C(cls) + age + C(batch)", frame))
    fit = limma.eBayes(limma.lmFit(X.T.copy(), pd.DataFrame(D, columns=list("abcdef"))))
    t = np.asarray(fit.t)[:, 1:3]
    cov = np.asarray(fit.cov_coefficients)[1:3, 1:3]
    cor = cov / np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
    F_limma = np.einsum("jp,pq,jq->j", t, np.linalg.inv(cor), t) / 2
    ours = design_moderated_f(X, frame["cls"], covariates=frame[["age", "batch"]])
    # same coding; patsy puts the categorical terms before the numeric ones
    assert np.allclose(ours.design.matrix[:, [0, 1, 2, 4, 5, 3]], D)
    np.testing.assert_allclose(ours.test.statistics, F_limma, rtol=1e-9)
    np.testing.assert_allclose(ours.test.prior_df, float(np.asarray(fit.df_prior)), rtol=1e-9)


def test_repeated_samples_without_groups_inflate_and_with_groups_do_not():
    # 12 patients x 3 samples, classes by patient, no class effect, a patient effect twice
    # the sample noise. Rate of p <= 0.05 over 2000 features: SE 0.005 at the nominal rate.
    rng = np.random.default_rng(9)
    patient = np.repeat(np.arange(12), 3)
    y = np.repeat(np.repeat([0, 1], 6), 3)
    X = 2.0 * rng.normal(size=(12, 2000))[patient] + rng.normal(size=(36, 2000))
    naive = design_moderated_f(X, y).test.pvalues
    grouped = design_moderated_f(X, y, groups=patient).test.pvalues
    assert np.mean(naive <= 0.05) > 0.2
    assert abs(np.mean(grouped <= 0.05) - 0.05) < 3 * 0.005


def test_resolve_design_checks_every_case_up_front():
    from widefs.stats import resolve_design

    y = np.repeat([0, 1], 6)
    design, scheme = resolve_design(y, {"age": np.arange(12.0) ** 1.5})
    assert scheme.case == "independent" and design.matrix.shape == (12, 3)
    pairs = np.repeat(np.arange(6), 2)
    design, scheme = resolve_design(np.tile([0, 1], 6), groups=pairs)
    assert scheme.case == "within groups" and design.column_names[-1] == "group[5]"
    patient = np.repeat(np.arange(4), 3)
    design, scheme = resolve_design(y, {"sex": np.repeat(list("FMFM"), 3)}, groups=patient)
    assert scheme.case == "between groups" and design.matrix.shape == (4, 3)
    with pytest.raises(ValueError, match="covariate 'age' varies within groups"):
        resolve_design(y, {"age": np.arange(12.0)}, groups=patient)
    with pytest.raises(ValueError, match="'site' is confounded with the classes"):
        resolve_design(y, {"site": np.repeat(list("ab"), 6)}, groups=patient)


def test_lazy_float32_matrix_is_read_by_blocks_with_the_same_result(tmp_path):
    rng = np.random.default_rng(10)
    X = rng.normal(size=(12, 300)).astype(np.float32)
    np.save(tmp_path / "x.npy", X)
    lazy = np.load(tmp_path / "x.npy", mmap_mode="r")
    cov = {"age": np.arange(12.0)}
    a = design_moderated_f(lazy, [0, 1] * 6, covariates=cov).test.pvalues
    b = design_moderated_f(X.astype(np.float64), [0, 1] * 6, covariates=cov).test.pvalues
    np.testing.assert_allclose(a, b, rtol=1e-6)
    with pytest.raises(ValueError, match="one row per label"):
        design_moderated_f(X[:5], [0, 1] * 6)
