"""ClassDifferenceScreen with a study design: covariates, blocks, repeated samples, routing."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import config_context
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline

from widefs.exceptions import NothingSelectedWarning
from widefs.model_selection import nested_evaluate
from widefs.stats import design_moderated_f, voom
from widefs.univariate import ClassDifferenceScreen

RANKED, TWO_VALUED, GAUSSIAN = 3, 1, 2


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        yield


def _varied(rng, n, m):
    """Gaussian features whose variances vary (a finite prior df, as in real data)."""
    return rng.normal(size=(n, m)) * np.sqrt(8.0 / rng.chisquare(8, size=m))


def test_covariate_adjusted_pvalues_equal_design_moderated_f():
    rng = np.random.default_rng(3)
    y = np.repeat(["ctl", "trt"], 12)
    cov = pd.DataFrame({"age": rng.normal(50, 10, 24), "batch": rng.choice(["a", "b", "c"], 24)})
    X = _varied(rng, 24, 600) + 0.05 * cov["age"].to_numpy()[:, None]
    X[:, :20] += 1.5 * (y == "trt")[:, None]
    screen = ClassDifferenceScreen(random_state=0).fit(X, y, covariates=cov)
    g = screen.kinds_ == GAUSSIAN
    assert g.sum() > 580
    ref = design_moderated_f(X[:, g], y, covariates=cov)
    np.testing.assert_allclose(screen.pvalues_[g], ref.test.pvalues, rtol=1e-9)
    np.testing.assert_allclose(screen.location_statistics_[g], ref.test.statistics, rtol=1e-9)
    assert np.isfinite(screen.prior_["location"][1])
    assert screen.design_["case"] == "independent"
    assert screen.design_["covariates"] == ("age", "batch")
    assert screen.design_["columns"] == ref.design.column_names
    assert "moderated F" in screen.design_["statement"]
    assert screen.spread_weight_ == 0.0


def test_gaussian_pvalues_equal_statsmodels_ols_with_limma_moderation():
    """The moderated F written out from per-feature statsmodels OLS fits and the screen's prior."""
    sm = pytest.importorskip("statsmodels.api")
    from scipy import stats

    rng = np.random.default_rng(5)
    y = np.tile([0, 1], 10)
    age = rng.normal(size=20)
    X = _varied(rng, 20, 300) + age[:, None]
    screen = ClassDifferenceScreen(random_state=0).fit(X, y, covariates={"age": age})
    s0, d0 = screen.prior_["location"]
    design = np.column_stack([np.ones(20), y, age])
    for j in np.flatnonzero(screen.kinds_ == GAUSSIAN)[:25]:
        fit = sm.OLS(X[:, j], design).fit()
        post = (d0 * s0 + fit.df_resid * fit.mse_resid) / (d0 + fit.df_resid)
        t2 = fit.params[1] ** 2 / (post * fit.normalized_cov_params[1, 1])
        p = stats.f.sf(t2, 1, d0 + fit.df_resid)
        assert screen.pvalues_[j] == pytest.approx(p, rel=1e-7)


def test_counts_with_covariates_equal_voom_on_the_design():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 8)
    batch = np.array(["x", "y"] * 8)
    X = rng.poisson(rng.gamma(0.7, 300, size=400), size=(16, 400))
    screen = ClassDifferenceScreen(counts=True, random_state=0).fit(X, y, covariates={"b": batch})
    modelled = screen.kinds_ == 4
    log_cpm, w = voom(X, design_moderated_f(X, y, covariates={"b": batch}).design.matrix)
    ref = design_moderated_f(
        log_cpm[:, modelled], y, covariates={"b": batch}, weights=w[:, modelled]
    )
    np.testing.assert_allclose(screen.pvalues_[modelled], ref.test.pvalues, rtol=1e-9)


def test_paired_gaussian_is_the_block_design_and_repeated_samples_are_group_means():
    rng = np.random.default_rng(2)
    subject = np.repeat(np.arange(8), 2)
    y = np.tile(["pre", "post"], 8)
    X = _varied(rng, 16, 300) + 2 * rng.normal(size=(8, 300))[subject]
    paired = ClassDifferenceScreen(random_state=0).fit(X, y, groups=subject)
    g = paired.kinds_ == GAUSSIAN
    ref = design_moderated_f(X[:, g], y, groups=subject)
    np.testing.assert_allclose(paired.pvalues_[g], ref.test.pvalues, rtol=1e-9)
    assert paired.design_["groups"] == "blocks (labels exchanged within groups)"

    patient = np.repeat(np.arange(8), 3)
    y3 = np.repeat([0, 1], 12)
    X3 = _varied(rng, 24, 300) + rng.normal(size=(8, 300))[patient]
    rep = ClassDifferenceScreen(random_state=0).fit(X3, y3, groups=patient)
    g = rep.kinds_ == GAUSSIAN
    ref = design_moderated_f(X3[:, g], y3, groups=patient)
    np.testing.assert_allclose(rep.pvalues_[g], ref.test.pvalues, rtol=1e-9)
    assert rep.design_["groups"] == "repeated samples (whole groups exchanged)"
    assert rep.design_["case"] == "between groups"


def _ordinary_f(values, y, groups, block):
    """Ordinary F of the class coefficient, blocks as fixed effects when ``block``."""
    cols = [np.ones(len(y)), (y == y.max()).astype(float)]
    if block:
        cols += [(groups == g).astype(float) for g in np.unique(groups)[1:]]
    D = np.column_stack(cols)
    Z = np.delete(D, 1, axis=1)
    rss = lambda M: np.sum((values - M @ np.linalg.lstsq(M, values, rcond=None)[0]) ** 2)  # noqa: E731
    full, reduced = rss(D), rss(Z)
    if full < 1e-10 * np.sum((values - values.mean()) ** 2):  # a perfect fit
        return np.inf if reduced - full > 1e-9 else 0.0
    return (rss(Z) - full) / (full / (len(y) - D.shape[1]))


def _within_relabellings(y, groups):
    out = set()
    idx = [np.flatnonzero(groups == g) for g in np.unique(groups)]
    for perms in itertools.product(*(itertools.permutations(i) for i in idx)):
        lab = y.copy()
        for i, p in zip(idx, perms, strict=True):
            lab[i] = y[list(p)]
        out.add(tuple(lab))
    return [np.array(v) for v in out]


def _between_relabellings(y, groups):
    gs = np.unique(groups)
    cls = np.array([y[groups == g][0] for g in gs])
    out = set()
    for p in itertools.permutations(range(gs.size)):
        lab = np.empty_like(y)
        for g, src in zip(gs, p, strict=True):
            lab[groups == g] = cls[src]
        out.add(tuple(lab))
    return [np.array(v) for v in out]


@pytest.mark.parametrize("case", ["within", "between"])
def test_group_respecting_null_equals_brute_force_enumeration(case):
    """Ranked and two-valued features: the Monte Carlo p-value is the exact one of the design's
    relabellings (enumerated), within 4 Monte Carlo standard errors."""
    from scipy.stats import rankdata

    rng = np.random.default_rng(11)
    if case == "within":  # 5 pairs: 32 relabellings
        groups = np.repeat(np.arange(5), 2)
        y = np.tile([0, 1], 5)
        relabel = _within_relabellings(y, groups)
    else:  # 5 patients x 2 samples, 2 and 3 patients per class: 10 relabellings
        groups = np.repeat(np.arange(5), 2)
        y = np.repeat([0, 0, 1, 1, 1], 2)
        relabel = _between_relabellings(y, groups)
    n = y.size
    X = rng.integers(0, 4, size=(n, 30)).astype(float)  # tied integers: ranked
    X[:, 25:] = rng.integers(0, 2, size=(n, 5))  # two-valued
    X[:, 0] += 3 * y  # a class difference
    screen = ClassDifferenceScreen(random_state=0).fit(X, y, groups=groups)
    tested = np.flatnonzero(np.isin(screen.kinds_, [RANKED, TWO_VALUED]))
    assert tested.size >= 25
    draws = int(screen.design_["statement"].split(" draws")[0].rsplit("(", 1)[1])
    for j in tested:
        v = rankdata(X[:, j]) if screen.kinds_[j] == RANKED else X[:, j]
        block = case == "within"
        f_obs = _ordinary_f(v, y, groups, block)
        assert screen.location_statistics_[j] == pytest.approx(f_obs, rel=1e-8, abs=1e-9)
        fs = np.array([_ordinary_f(v, lab, groups, block) for lab in relabel])
        exact = np.mean(fs >= (f_obs - 1e-9 * max(1, f_obs) if np.isfinite(f_obs) else f_obs))
        se = np.sqrt(exact * (1 - exact) / draws) + 1 / draws
        assert abs(screen.pvalues_[j] - exact) <= 4 * se, (j, screen.pvalues_[j], exact)
    two = screen.kinds_ == TWO_VALUED
    assert np.allclose(screen.min_pvalues_[two], 1 / len(relabel))


def test_confounded_or_constant_covariate_is_one_error_naming_it():
    y = np.repeat([0, 1], 6)
    X = np.random.default_rng(0).normal(size=(12, 50))
    with pytest.raises(ValueError, match="covariate 'batch' is confounded with the classes"):
        ClassDifferenceScreen().fit(X, y, covariates={"batch": np.repeat(["a", "b"], 6)})
    with pytest.raises(ValueError, match="covariate 'age' is constant"):
        ClassDifferenceScreen().fit(X, y, covariates={"age": np.ones(12)})
    with pytest.raises(ValueError, match="groups must have one label per sample"):
        ClassDifferenceScreen().fit(X, y, groups=[1, 2])


def test_batch_confounded_with_classes_is_not_selected_with_the_batch():
    rng = np.random.default_rng(0)
    y = np.repeat(["control", "case"], 8)
    batch = np.array(["b1"] * 7 + ["b2"] + ["b1"] + ["b2"] * 7)
    X = rng.normal(size=(16, 2000))
    X[:, :300] += 2.0 * (batch == "b2")[:, None]
    naive = ClassDifferenceScreen(random_state=0).fit(X, y)
    adjusted = ClassDifferenceScreen(random_state=0).fit(X, y, covariates={"batch": batch})
    assert naive.get_support().sum() > 50
    assert adjusted.get_support().sum() == 0


def test_without_a_design_nothing_changes():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 6)
    X = rng.normal(size=(12, 200))
    a = ClassDifferenceScreen(random_state=0).fit(X, y)
    assert a.design_["case"] == "independent" and a.design_["statement"] == ""
    assert a.design_["columns"] == ("intercept", "class[1]")


class _Spy(ClassDifferenceScreen):
    """Records the design each fit received."""

    seen: list = []

    def fit(self, X, y, covariates=None, groups=None):
        _Spy.seen.append(
            (len(y), None if groups is None else np.asarray(groups).copy(), covariates)
        )
        return super().fit(X, y, covariates=covariates, groups=groups)


def _grouped_data():
    rng = np.random.default_rng(4)
    patient = np.repeat(np.arange(12), 3)
    y = np.repeat([0, 1], 18)
    X = rng.normal(size=(36, 80)) + rng.normal(size=(12, 80))[patient]
    X[:, :5] += 2 * y[:, None]
    return X, y, patient


def test_routing_through_a_pipeline_inside_nested_evaluate():
    X, y, patient = _grouped_data()
    age = {"age": np.repeat(np.random.default_rng(1).normal(size=12), 3)}
    _Spy.seen = []
    res = nested_evaluate(
        make_pipeline(_Spy(5, random_state=0), GaussianNB()),
        X, y, cv=3, random_state=0, groups=patient, covariates=age,
    )  # fmt: skip
    assert res["routed_params"] == ("covariates", "groups")
    assert res["design_case"] == "between groups"
    assert len(_Spy.seen) == 3
    for (train, _), (n, groups, cov) in zip(res["splits"], _Spy.seen, strict=True):
        assert n == train.size
        np.testing.assert_array_equal(groups, patient[train])
        np.testing.assert_array_equal(cov["age"], age["age"][train])


def test_routing_through_grid_search_cv():
    X, y, patient = _grouped_data()
    _Spy.seen = []
    pipe = make_pipeline(_Spy(5, random_state=0), GaussianNB())
    with config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            pipe, {"_spy__threshold": [3, 5]}, cv=GroupKFold(3).set_split_request(groups=True)
        )
        search.fit(X, y, groups=patient)
    # 2 candidates x 3 folds, then the refit on every sample
    assert len(_Spy.seen) == 7
    assert all(g is not None and np.unique(g).size == n // 3 for n, g, _ in _Spy.seen)
    best = search.best_estimator_[0]
    assert best.design_["case"] == "between groups"


def test_the_validation_error_selector_never_ignores_a_design_silently():
    """It takes groups but no covariates: covariates given directly, through a pipeline or to
    nested_evaluate are an error naming them, never a fit that ignores them."""
    from widefs.univariate import DiscriminativeSelector

    X, y, _ = _grouped_data()
    with pytest.raises(TypeError, match="covariates"):
        DiscriminativeSelector().fit(X, y, covariates={"age": np.arange(36.0)})
    pipe = make_pipeline(DiscriminativeSelector(random_state=0), GaussianNB())
    with config_context(enable_metadata_routing=True), pytest.raises(TypeError, match="covar"):
        pipe.fit(X, y, covariates={"age": np.arange(36.0)})
    with pytest.raises(ValueError, match="covariates were given but no step of Pipeline"):
        nested_evaluate(pipe, X, y, cv=3, covariates={"age": np.arange(36.0)})


def test_a_memmap_gives_the_same_p_values(tmp_path):
    rng = np.random.default_rng(8)
    y = np.repeat([0, 1], 10)
    X = _varied(rng, 20, 300)
    X[:, :10] = rng.exponential(size=(20, 10)) ** 2  # ranked: the permutation branch
    mm = np.lib.format.open_memmap(tmp_path / "x.npy", mode="w+", dtype=np.float64, shape=X.shape)
    mm[:] = X
    mm.flush()
    cov = {"rin": rng.uniform(6, 9, 20)}
    a = ClassDifferenceScreen(random_state=0).fit(X, y, covariates=cov)
    b = ClassDifferenceScreen(random_state=0).fit(mm, y, covariates=cov)
    np.testing.assert_allclose(a.pvalues_, b.pvalues_, rtol=1e-12)
    assert (a.kinds_ == RANKED).sum() >= 5
