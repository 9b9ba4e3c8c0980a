"""The screen's wiring, each piece against an independent computation.

The gaussian features' p-values against the moderated F computed on those features alone
(the weighted Bonferroni written out), the pooled variances against ``np.var``, the shares of
the spread test at the median rule's boundary, the two-valued features' exact p-values
against an enumeration of every labelling, and the fitted attributes and messages.
"""

import itertools

import numpy as np
import pytest
from scipy import sparse, stats

import widefs.univariate._screen as screen_module
import widefs.univariate._screen_moderated as shares_module
from widefs.exceptions import NothingSelectedWarning
from widefs.stats import fit_f_dist, linear_model_fit, moderated_f
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._kinds import CONSTANT, GAUSSIAN, RANKED, TWO_VALUED, class_design
from widefs.univariate._screen import pooled_variances
from widefs.univariate._screen_moderated import spread_shares

pytestmark = pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")


def _fit(X, y, **kw):
    return ClassDifferenceScreen(random_state=0, **kw).fit(X, y)


def test_pooled_variances_are_the_sample_variances():
    rng = np.random.default_rng(31)
    codes = np.repeat([0, 1, 2], [3, 5, 8])
    X = rng.normal(size=(16, 6)) * [1, 2, 3, 4, 5, 6] + 10 * codes[:, None]
    fit = linear_model_fit(X, class_design(codes, 3))
    pooled = pooled_variances(fit, np.bincount(codes))
    np.testing.assert_allclose(pooled, X.var(axis=0, ddof=1), rtol=1e-12)
    # The fit is not changed.
    np.testing.assert_allclose(fit.coefficients[:, 0], X[codes == 0].mean(axis=0), rtol=1e-12)


def test_spread_shares_follow_the_median_rule_at_its_boundary():
    wide, narrow = shares_module.SPREAD_WEIGHT_WIDE, shares_module.SPREAD_WEIGHT_NARROW
    k = shares_module.WIDE_VARIANCE
    # ref is the median pooled variance of the modelled features (the caller's): here 2.
    pooled = np.array([1.0, 2.0, 3.0, 2.0 * k, 2.0 * k - 1e-9, 100.0])
    expected = [narrow, narrow, narrow, wide, narrow, wide]
    np.testing.assert_array_equal(spread_shares(pooled, 2.0), expected)
    # A reference of 0 (no modelled feature, or a median of 0): no wide feature.
    np.testing.assert_array_equal(spread_shares(pooled, 0.0), [narrow] * 6)
    zeros = np.array([0.0, 0.0, 0.0, 5.0])
    np.testing.assert_array_equal(spread_shares(zeros, float(np.median(zeros))), [narrow] * 4)
    # Any positive reference counts, however small (variances below 1).
    small = np.array([0.1, 0.2, 0.3, 0.2 * k, 0.2 * k - 1e-12])
    np.testing.assert_array_equal(spread_shares(small, 0.2), [narrow, narrow, narrow, wide, narrow])


def test_spread_weights_use_the_median_of_the_modelled_features_only():
    # Two gaussian features of pooled variance 1 and 4, one two-valued feature: the wide
    # rule compares with the median over the two gaussian ones (2.5), so the feature of
    # variance 4 < 2 x 2.5 is narrow; a median taken over every feature would differ.
    rng = np.random.default_rng(5)
    codes = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 3)) * np.array([1.0, 2.0, 1.0])
    X[:, 2] = codes[rng.permutation(30)]
    screen = ClassDifferenceScreen().fit(X, codes)
    assert screen.kinds_.tolist()[:2] == [GAUSSIAN, GAUSSIAN] and screen.kinds_[2] == TWO_VALUED
    pooled = np.array(
        [
            sum(((X[codes == c, j] - X[codes == c, j].mean()) ** 2).sum() for c in (0, 1))
            / (30 - 2)
            for j in (0, 1)
        ]
    )
    ref = float(np.median(pooled))
    expected = np.where(pooled >= shares_module.WIDE_VARIANCE * ref, 0.5, 0.02)
    np.testing.assert_allclose(screen.spread_weights_[:2], expected)


def _gaussian_data(seed, sizes):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(sizes)), sizes)
    n = y.size
    z = stats.norm.ppf((np.arange(n) + 0.5) / n)  # exactly symmetric: gaussian kind
    gauss = np.column_stack([rng.permutation(z) * s for s in rng.uniform(0.5, 3, 12)])
    gauss[:, :3] += 1.5 * (y[:, None] == 1)
    gauss[:, 3:5] *= np.where(y == 0, 3.0, 1.0)[:, None]
    others = np.column_stack(
        [
            np.where(rng.random(n) < 0.5, 4.0, 1.0),  # two-valued
            np.exp(3 * z)[rng.permutation(n)],  # skewed: ranked
            np.full(n, 1.5),  # constant
        ]
    )
    return np.column_stack([gauss, others]), y


def _moderated(X, y, C):
    """The moderated F of the location and of the absolute deviations, priors on X alone."""
    design = class_design(y, C)
    means = np.stack([X[y == c].mean(axis=0) for c in range(C)])
    out = []
    for data in (X, np.abs(X - means[y])):
        fit = linear_model_fit(data, design)
        prior = fit_f_dist(fit.variances, fit.df_residual)
        test = moderated_f(fit, list(range(1, C)), prior=prior)
        out.append((test.pvalues, test.statistics, prior))
    return out


@pytest.mark.parametrize(
    "sizes, weight", [((13, 14), 0.3), ((12, 12, 14), "auto"), ((6, 7), "auto")]
)
def test_gaussian_pvalues_are_the_weighted_bonferroni_of_the_moderated_f(sizes, weight):
    X, y = _gaussian_data(sum(sizes), sizes)
    sel = _fit(X, y, spread_weight=weight)
    assert sel.kinds_[12:].tolist() == [TWO_VALUED, RANKED, CONSTANT]
    # A spread difference can make the pooled values heavy-tailed: ranked.
    g = np.flatnonzero(sel.kinds_ == GAUSSIAN)
    assert g.size >= 10
    (p, F, prior), (q, F_s, prior_s) = _moderated(X[:, g], y, len(sizes))
    if weight == "auto":
        if min(sizes) < screen_module.SPREAD_MIN_CLASS:
            w = np.zeros(g.size)
        else:
            pooled = X[:, g].var(axis=0, ddof=1)
            wide = pooled >= shares_module.WIDE_VARIANCE * np.median(pooled)
            assert wide.any() and not wide.all()
            w = np.where(wide, shares_module.SPREAD_WEIGHT_WIDE, shares_module.SPREAD_WEIGHT_NARROW)
    else:
        w = np.full(g.size, weight)
    with np.errstate(divide="ignore"):
        expected = np.minimum(1.0, np.minimum(p / (1 - w), np.where(w > 0, q / w, np.inf)))
    np.testing.assert_allclose(sel.pvalues_[g], expected, rtol=1e-10)
    np.testing.assert_allclose(sel.location_statistics_[g], F, rtol=1e-10, atol=1e-12)
    assert sel.prior_["location"] == pytest.approx(prior, rel=1e-10)
    np.testing.assert_array_equal(sel.min_pvalues_[g], 0.0)
    np.testing.assert_array_equal(sel.spread_weights_[g], w)
    np.testing.assert_array_equal(sel.spread_weights_[[12, 14]], 0.0)
    if w.any():
        np.testing.assert_allclose(sel.spread_statistics_[g], F_s, rtol=1e-10, atol=1e-12)
        assert sel.prior_["spread"] == pytest.approx(prior_s, rel=1e-10)
        assert sel.spread_statistics_[12] == 0.0 and sel.spread_statistics_[14] == 0.0
        assert sel.spread_weights_[13] == sel.spread_weight_ > 0
    else:
        assert sel.prior_["spread"] is None
        np.testing.assert_array_equal(sel.spread_statistics_, 0.0)
    assert sel.pvalues_[14] == 1.0 and sel.min_pvalues_[14] == 1.0
    assert sel.location_statistics_[14] == 0.0


def _exact_two_valued(x, y):
    """P(S >= S_obs) over every labelling, S = sum_c a_c^2 / n_c (a_c: carriers in class c),
    and the smallest such tail over the labellings."""
    top = x == x.max()
    sizes = np.bincount(y)

    def stat(lab):
        return sum(np.sum(top[lab == c]) ** 2 / sizes[c] for c in range(sizes.size))

    labellings = {tuple(p) for p in itertools.permutations(y.tolist())}
    null = np.array([stat(np.array(lab)) for lab in labellings])
    obs = stat(y)
    p = np.mean(null >= obs - 1e-12)
    floor = np.mean(null >= null.max() - 1e-12)
    return p, floor


def test_two_valued_pvalues_equal_every_labelling():
    y = np.array([0, 0, 0, 1, 1, 2, 2, 2])
    X = np.column_stack(
        [
            [1, 1, 1, 0, 0, 0, 0, 0],
            [0, 1, 0, 1, 0, 1, 1, 0],
            [5, 5, 2, 2, 2, 2, 2, 5],
            [0, 0, 0, 0, 0, 0, 0, 1],
        ]
    ).astype(float)
    sel = _fit(X, y)
    assert (sel.kinds_ == TWO_VALUED).all()
    for j in range(4):
        p, floor = _exact_two_valued(X[:, j], y)
        assert sel.pvalues_[j] == pytest.approx(p, rel=1e-10)
        assert sel.min_pvalues_[j] == pytest.approx(floor, rel=1e-10)
        f = stats.f_oneway(*[X[y == c, j] for c in range(3)]).statistic
        assert sel.location_statistics_[j] == pytest.approx(f, rel=1e-10)
    np.testing.assert_array_equal(sel.spread_weights_, 0.0)


def test_fitted_summaries_count_and_score_every_kind():
    X, y = _gaussian_data(40, (6, 7))
    sel = _fit(X, y)
    assert sel.kind_counts_ == {
        "constant": 1,
        "two_valued": 1,
        "gaussian": 12,
        "ranked": 1,
        "counts": 0,
    }
    assert sel.kind_names_ == ("constant", "two_valued", "gaussian", "ranked", "counts")
    assert sel.n_scored_ == 14
    assert sel.constant_features_.tolist() == [False] * 14 + [True]
    np.testing.assert_allclose(sel.scores_, -np.log10(sel.pvalues_), rtol=1e-15)
    assert sel.scores_[14] == 0.0
    assert sel.search_score_ == sel.scores_[:14].max()
    assert sel.counts_ is False and sel.note_ == ""
    assert sel.design_["case"] == "independent"
    assert sel.n_features_in_ == 15 and sel.classes_.tolist() == [0, 1]


def test_a_p_value_of_zero_scores_300():
    # A perfect split of many examples: the moderated F's p-value underflows to 0.
    y = np.repeat([0, 1], 200)
    z = stats.norm.ppf((np.arange(400) + 0.5) / 400)
    X = np.column_stack([z + 1e4 * y, z])
    sel = _fit(X, y)
    assert sel.pvalues_[0] == 0.0 and sel.scores_[0] == 300.0


def test_nothing_selected_warns_with_the_rule_and_level():
    X, y = _gaussian_data(41, (6, 6))
    X[:, :5] = X[:, 5:10]  # no signal left
    with pytest.warns(NothingSelectedWarning) as record:
        sel = ClassDifferenceScreen(alpha=1e-9, random_state=0).fit(X, y)
    assert str(record[0].message) == (
        "No feature passed the 'fdr' threshold at alpha=1e-09; "
        "transform will return an empty matrix."
    )
    assert record[0].filename == __file__
    assert sel.threshold_ == 0.0


def test_select_under_equals_a_refit_and_checks_its_arguments():
    X, y = _gaussian_data(42, (6, 7))
    base = _fit(X, y, alpha=0.2)
    for threshold, alpha in (("fdr", None), ("bonferroni", 0.3), ("fdr", 0.01), (3, None)):
        refit = _fit(X, y, threshold=threshold, alpha=base.alpha if alpha is None else alpha)
        cut, support = base.select_under(threshold, alpha)
        assert cut == refit.threshold_
        assert support.tolist() == refit.get_support().tolist()
    for bad in ("x", 0, True, 1.5, None):
        message = f"threshold must be 'fdr', 'bonferroni' or an int >= 1; got {bad!r}."
        with pytest.raises(ValueError, match=f"^{__import__('re').escape(message)}$"):
            base.select_under(bad)
    for bad in (0, 1, 1.5, "0.1", -0.1):
        message = f"alpha must be a number in (0, 1); got {bad!r}."
        with pytest.raises(ValueError, match=f"^{__import__('re').escape(message)}$"):
            base.select_under("fdr", bad)
    assert base.select_under(1, 0.5)[1].sum() == 1
    with pytest.raises(Exception, match="not fitted"):
        ClassDifferenceScreen().select_under("fdr")


def test_counts_are_noted_and_get_no_spread_test():
    rng = np.random.default_rng(43)
    y = np.repeat([0, 1], 13)
    counts = rng.poisson(rng.gamma(0.6, 3000, size=30), size=(26, 30)).astype(float)
    counts[0, 0] = 0.0
    counts[:, 5] = 40.0  # equal counts: constant (its log-CPM still varies with the library)
    sel = _fit(counts, y)
    assert sel.kinds_[5] == CONSTANT and sel.pvalues_[5] == 1.0
    assert sel.location_statistics_[5] == 0.0
    assert sel.counts_ and sel.note_ == (
        "The data were read as counts: log-CPM with voom precision weights "
        "(Law et al. 2014), then the weighted moderated F."
    )
    assert sel.spread_weight_ == 0.0 and sel.prior_["spread"] is None
    np.testing.assert_array_equal(sel.spread_weights_, 0.0)
    np.testing.assert_array_equal(sel.min_pvalues_[sel.kinds_ != CONSTANT], 0.0)
    # A sparse matrix of counts is in memory: read as counts, by the rule or on request.
    for switch in ("auto", True):
        sparse_fit = _fit(sparse.csc_matrix(counts), y, counts=switch)
        assert sparse_fit.counts_
        np.testing.assert_allclose(sparse_fit.pvalues_, sel.pvalues_, rtol=1e-10)


def test_float32_input_is_screened_as_float32():
    rng = np.random.default_rng(44)
    y = np.repeat([0, 1], 6)
    X = (rng.normal(size=(12, 5)) + 0.1).astype(np.float32)
    sel = _fit(X, y)
    ref = _fit(X.astype(np.float64), y)
    np.testing.assert_allclose(sel.pvalues_, ref.pvalues_, rtol=1e-12)
    with pytest.raises(ValueError, match="ClassDifferenceScreen needs at least 2 classes"):
        _fit(X, np.zeros(12))
    with pytest.raises(ValueError, match="minimum of 2 is required"):
        _fit(X[:1], [0])


def test_an_untestable_fit_warns_at_the_callers_line_and_fills_every_attribute():
    X = np.array([[0.0, 1.0, 2.0], [1.0, 3.0, 2.0]])
    with pytest.warns(UserWarning) as record:
        sel = ClassDifferenceScreen().fit(X, [0, 1])
    assert [type(r.message) for r in record] == [UserWarning, NothingSelectedWarning]
    assert record[0].filename == __file__
    assert str(record[0].message) == (
        "With 2 examples for 2 classes no feature can be tested (no within-class variation): "
        "every p-value is 1."
    )
    assert sel.kinds_.dtype == np.int8 and sel.kinds_.tolist() == [0, 0, 0]
    for name in ("pvalues_", "min_pvalues_"):
        assert getattr(sel, name).tolist() == [1.0] * 3
    for name in ("location_statistics_", "spread_statistics_", "spread_weights_"):
        assert getattr(sel, name).tolist() == [0.0] * 3


def test_the_untied_null_draws_bonferroni_over_every_scored_feature(monkeypatch):
    # ceil(n_scored / alpha) draws, n_scored counting two-valued but not constant features;
    # the ranked features' location statistics are the one-way F of their ranks.
    monkeypatch.setattr(screen_module, "STRATUM_DRAWS", 10)
    X, y = _gaussian_data(45, (6, 7))  # 12 gaussian, 1 two-valued, 1 ranked, 1 constant
    X = np.column_stack([X, X[:, 12], X[:, 12], X[:, 14]])  # 3 two-valued, 2 constant
    sel = _fit(X, y, alpha=0.5)
    assert sel.n_scored_ == 16 and sel.kind_counts_["two_valued"] == 3
    ranked = np.flatnonzero(sel.kinds_ == RANKED)
    assert sel.min_pvalues_[ranked].tolist() == [1 / 33]  # 16 / 0.5 = 32 draws
    r = stats.rankdata(X[:, ranked[0]])
    f = stats.f_oneway(r[y == 0], r[y == 1]).statistic
    assert sel.location_statistics_[ranked[0]] == pytest.approx(f, rel=1e-12)


def _tarone_by_loop(floors, alpha):
    """Tarone (1990): the smallest K with #{j : floor_j <= alpha / K} <= K, and that set."""
    for K in range(1, floors.size + 1):
        testable = floors <= alpha / K
        if testable.sum() <= K:
            return testable, K
    raise AssertionError("unreachable: K = m always qualifies")


def test_tarone_counts_out_only_two_valued_features_that_cannot_reach_the_level():
    rng = np.random.default_rng(46)
    y = np.repeat([0, 1], 6)
    z = stats.norm.ppf((np.arange(12) + 0.5) / 12)
    gauss = np.column_stack([rng.permutation(z) for _ in range(6)])
    gauss[:, 0] += 3.0 * y
    two = np.column_stack(
        [
            np.repeat([1.0, 0.0], 6),  # a perfect split: floor 2 / 924
            np.r_[1.0, np.zeros(11)],  # one carrier: floor 1
            np.r_[1.0, 1.0, np.zeros(10)],  # two carriers: floor 30 / 66
        ]
    )
    X = np.column_stack([gauss, two, np.exp(3 * z)[rng.permutation(12)]])
    for alpha in (0.05, 0.5):
        sel = _fit(X, y, threshold="bonferroni", alpha=alpha)
        assert sel.kinds_.tolist() == [GAUSSIAN] * 6 + [TWO_VALUED] * 3 + [RANKED]
        # Only the two-valued features' exact floors count; the others' floors are 0.
        floors = np.where(sel.kinds_ == TWO_VALUED, sel.min_pvalues_, 0.0)
        np.testing.assert_allclose(floors[6:9], [2 / 924, 1.0, 30 / 66], rtol=1e-12)
        testable, K = _tarone_by_loop(floors, alpha)
        assert sel.testable_.tolist() == testable.tolist()
        assert sel.get_support().tolist() == (testable & (sel.pvalues_ <= alpha / K)).tolist()


def test_fdr_selects_a_p_value_equal_to_its_step():
    # alpha equal to the largest p-value: its Benjamini-Hochberg step is alpha * m / m.
    rng = np.random.default_rng(47)
    y = np.repeat([0, 1], 6)
    z = stats.norm.ppf((np.arange(12) + 0.5) / 12)
    X = np.column_stack([rng.permutation(z) + s * y for s in (2.0, 1.5, 1.0, 0.5)])
    p = _fit(X, y).pvalues_
    sel = _fit(X, y, alpha=float(p.max()))
    assert (sel.kinds_ == GAUSSIAN).all() and p.max() < 1
    assert sel.get_support().all() and sel.threshold_ == p.max()


def test_the_seed_is_kept_and_sets_the_ranked_p_values():
    X, y = _gaussian_data(48, (6, 7))
    assert ClassDifferenceScreen(random_state=5).get_params()["random_state"] == 5
    a, b, c = (ClassDifferenceScreen(random_state=s).fit(X, y).pvalues_[13] for s in (0, 0, 1))
    ranked = _fit(X, y).kinds_[13] == RANKED
    assert ranked and a == b and a != c
