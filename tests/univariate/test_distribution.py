"""The class-distribution statistic and its pooled permutation null.

Oracles: scipy's one-way ANOVA refitted per feature (on the values and on the absolute
deviations from the mean), scipy's F distribution, a brute-force count of the pooled
draws, and Monte Carlo uniformity of null p-values (rates within a few binomial standard
errors).
"""

import warnings

import numpy as np
import pytest
from scipy import stats

from widefs.exceptions import NothingSelectedWarning
from widefs.univariate import DiscriminativeSelector, class_difference_scores
from widefs.univariate._distribution import LOCATION_WEIGHT
from widefs.univariate._distribution_kernels import block_sums
from widefs.univariate._pooled_null import second_stage_draws

# The deprecated continuous statistics of DiscriminativeSelector are still tested here.
pytestmark = pytest.mark.filterwarnings("ignore:DiscriminativeSelector.*deprecated:FutureWarning")


def oracle(X, y, weight=LOCATION_WEIGHT):
    """Per-feature refit: location F, spread F, combined score (log10 units)."""
    classes = np.unique(y)
    n, C = y.size, classes.size
    loc, spr, score = [], [], []
    for x in X.T:
        if np.ptp(x) == 0:
            loc.append(0.0), spr.append(0.0), score.append(0.0)
            continue
        d = np.abs(x - x.mean())
        f1 = stats.f_oneway(*[x[y == c] for c in classes]).statistic
        f2 = stats.f_oneway(*[d[y == c] for c in classes]).statistic if np.ptp(d) else 0.0
        a = np.log(weight) - stats.f.logsf(f1, C - 1, n - C)
        b = np.log(1 - weight) - stats.f.logsf(f2, C - 1, n - C) if weight < 1 else -np.inf
        loc.append(f1), spr.append(f2), score.append(max(a, b) / np.log(10))
    return np.array(loc), np.array(spr), np.array(score)


def planted(n_per_class, F, seed=0, dist="normal"):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    X = rng.standard_t(3, (y.size, F)) if dist == "t3" else rng.normal(size=(y.size, F))
    return X, y


@pytest.mark.parametrize("n_per_class", [[7, 9], [5, 6, 8]])
def test_statistics_equal_a_per_feature_refit(n_per_class):
    X, y = planted(n_per_class, 40, seed=1)
    X[:, 0] += 3 * (y == 1)
    X[:, 1] *= 1 + 3 * (y == 0)
    X[:, 2] = 5.0  # constant
    X[:, 3] = np.round(X[:, 3])  # ties
    sel = DiscriminativeSelector("all", statistic="distribution", random_state=0).fit(X, y)
    loc, spr, score = oracle(X, y)
    eligible = ~sel.constant_features_
    assert sel.constant_features_.tolist() == [j == 2 for j in range(40)]
    np.testing.assert_allclose(sel.location_statistics_[eligible], loc[eligible], rtol=1e-10)
    np.testing.assert_allclose(sel.spread_statistics_[eligible], spr[eligible], rtol=1e-10)
    # The F distribution's log tail comes from a table: interpolation error below 1e-8.
    np.testing.assert_allclose(sel.scores_[eligible], score[eligible], atol=1e-8)
    scores, pvalues = class_difference_scores(X, y)
    np.testing.assert_array_equal(scores, sel.scores_)
    np.testing.assert_allclose(pvalues[eligible], np.minimum(1, 10 ** -score[eligible]), rtol=1e-5)
    assert pvalues[2] == 1.0 and scores[2] == 0.0


def test_location_alone_is_the_f_test():
    X, y = planted([8, 8, 9], 30, seed=2)
    sel = DiscriminativeSelector("all", statistic="location", random_state=0).fit(X, y)
    f, p = stats.f_oneway(*[X[y == c] for c in range(3)])
    np.testing.assert_allclose(sel.location_statistics_, f, rtol=1e-10)
    np.testing.assert_allclose(10**-sel.scores_, p, rtol=1e-5)


def test_far_tail_follows_the_power_law():
    # F beyond the table's end (P < 1e-300): the score keeps growing with the F statistic.
    y = np.repeat([0, 1], 50)
    noise = np.random.default_rng(0).normal(size=100)
    X = np.column_stack([y * s + noise for s in (1e3, 1e6, 1e7)])  # F about 2.5e7, e13, e15
    scores, _ = class_difference_scores(X, y)
    assert np.all(np.diff(scores) > 10) and scores[1] > 300


@pytest.mark.parametrize("n", [1, 2, 5, 6, 31])
def test_block_sums_equal_numpy(n):
    rng = np.random.default_rng(n)
    X = np.column_stack([rng.normal(size=(n, 20)), rng.integers(0, 3, (n, 20))]).astype(float)
    indicators = rng.integers(0, 2, (3, n)).astype(float)
    sums, ss, constant = block_sums(X, indicators)
    a = X - X.mean(axis=0)
    d = np.abs(a) - np.abs(a).mean(axis=0)
    np.testing.assert_allclose(sums[:40], (indicators @ a).T, atol=1e-12)
    np.testing.assert_allclose(sums[40:], (indicators @ d).T, atol=1e-12)
    np.testing.assert_allclose(ss, [(a**2).sum(axis=0), (d**2).sum(axis=0)], atol=1e-12)
    assert constant.tolist() == (np.ptp(X, axis=0) == 0).tolist()


def test_pooled_pvalues_equal_a_brute_force_count():
    X, y = planted([7, 7], 12, seed=3)
    X[:, 0] += 2 * y
    X[:, 5] = 1.0
    # Six permutations: the floor 1/7 lets nothing pass, as the warning says.
    with pytest.warns(NothingSelectedWarning, match="the floor, not the data, decided"):
        sel = DiscriminativeSelector(
            "fdr", statistic="distribution", n_permutations=6, random_state=4
        ).fit(X, y)
    eligible = ~sel.constant_features_
    draws = np.concatenate([oracle(X[:, eligible], y[p])[2] for p in sel.permutations_])
    observed = oracle(X, y)[2]
    tol = 1e-8  # the table's interpolation error: count draws within it either way
    assert sel.n_null_draws_[0] == draws.size == 6 * 11
    for j in np.flatnonzero(eligible):
        low = (1 + np.sum(draws >= observed[j] + tol)) / (1 + draws.size)
        high = (1 + np.sum(draws >= observed[j] - tol)) / (1 + draws.size)
        if high > 1 / (1 + draws.size):
            assert low <= sel.pvalues_[j] <= high
        else:  # beyond every first-stage draw: resolved by the second stage
            assert sel.pvalues_[j] <= high and sel.n_null_draws_[1] >= 11 / 0.05
    assert sel.pvalues_[5] == 1.0


def test_second_stage_resolves_features_beyond_every_first_stage_draw(monkeypatch):
    monkeypatch.setattr("widefs.univariate._pooled_null.MIN_NULL_DRAWS", 10)
    X, y = planted([10, 10], 400, seed=6)
    X[:, :3] += 4 * y[:, None]  # three features beyond every first-stage draw (2 x 400)
    sel = DiscriminativeSelector("bonferroni", random_state=0).fit(X, y)
    assert sel.n_null_draws_ == (800, 400 * (-(-second_stage_draws(400, 0.05) // 400)))
    assert sel.min_pvalue_ < 0.05 / 400 < 1 / 801
    assert sel.get_support()[:3].all() and sel.get_support().sum() <= 4
    # Without the second stage the floor (1 / 801 > 0.05 / 400) would have kept them out.
    assert (sel.pvalues_[:3] < 1 / 801).all()


REGIMES = {
    "gaussian 15/15": ([15, 15], "normal", lambda X: X),
    "t3 45/15": ([45, 15], "t3", lambda X: X),
    "3 classes": ([10, 10, 10], "normal", lambda X: X),
    "ties (0..3)": ([12, 18], "normal", lambda X: np.clip(np.round(X + 1.5), 0, 3)),
}


@pytest.mark.parametrize("regime", REGIMES)
def test_null_pvalues_are_uniform(regime):
    sizes, dist, transform = REGIMES[regime]
    rates = {a: [] for a in (0.001, 0.01, 0.05, 0.2)}
    n_sets, F = 40, 150
    for seed in range(n_sets):
        X, y = planted(sizes, F, seed=seed, dist=dist)
        sel = DiscriminativeSelector(
            "all", statistic="distribution", n_permutations=100, random_state=seed
        ).fit(transform(X), y)
        assert sel.null_heterogeneity_ < 0.3
        for a in rates:
            rates[a].append(np.mean(sel.pvalues_[~sel.constant_features_] <= a))
    for a, per_set in rates.items():
        # Features of one data set share the labels: the standard error comes from the
        # spread of the per-set rates, not from a binomial over all features.
        se = max(np.std(per_set, ddof=1), np.sqrt(a * (1 - a) / F)) / np.sqrt(n_sets)
        assert abs(np.mean(per_set) - a) < 4 * se + 1e-4, (regime, a, np.mean(per_set))


def test_heterogeneous_features_are_flagged():
    # Where exchangeability fails: continuous features pooled with nearly constant binary
    # ones (one 1 in 40); the heterogeneity shows it and the fit says so.
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 20)
    sparse = np.zeros((40, 100))
    sparse[rng.integers(0, 40, 100), np.arange(100)] = 1.0
    X = np.hstack([rng.normal(size=(40, 100)), sparse])
    with pytest.warns(UserWarning, match="nulls differ"):
        sel = DiscriminativeSelector("all", statistic="distribution", random_state=0).fit(X, y)
    assert sel.null_heterogeneity_ > 0.3


def test_floor_never_decides_by_default():
    X, y = planted([10, 10], 400, seed=6)
    X[:, :3] += 4 * y[:, None]  # three features beyond every null draw
    sel = DiscriminativeSelector("bonferroni", random_state=0).fit(X, y)
    assert sel.statistic_ == "distribution" and sel.min_pvalue_ < 0.05 / 400
    assert sel.get_support()[:3].all() and sel.get_support().sum() <= 4


@pytest.mark.parametrize("rule", ["fdr", "bonferroni"])
def test_two_stage_null_pvalues_are_uniform(monkeypatch, rule):
    # Small first stages (2 x 60 draws) so that the second stage runs on most null data sets.
    monkeypatch.setattr("widefs.univariate._pooled_null.MIN_NULL_DRAWS", 10)
    rates = {a: [] for a in (0.001, 0.01, 0.05)}
    ran = 0
    for seed in range(300):
        X, y = planted([8, 8], 60, seed=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NothingSelectedWarning)
            sel = DiscriminativeSelector(rule, random_state=seed).fit(X, y)
        ran += sel.n_null_draws_[1] > 0
        for a in rates:
            rates[a].append(np.mean(sel.pvalues_ <= a))
    assert ran > 100
    for a, per_set in rates.items():
        se = max(np.std(per_set, ddof=1), np.sqrt(a * (1 - a) / 60)) / np.sqrt(300)
        assert np.mean(per_set) < a + 4 * se + 1e-4, (a, np.mean(per_set))


def test_floor_is_named_when_it_decides():
    X, y = planted([10, 10], 400, seed=6)
    X[:, :3] += 4 * y[:, None]
    # The errors statistic on halves of 20: no count of errors is rare enough for Bonferroni.
    with pytest.warns(NothingSelectedWarning, match="floor, not the data, decided"):
        DiscriminativeSelector(
            "bonferroni", statistic="errors", null="analytic", random_state=0
        ).fit(X, y)


def test_variance_only_difference_is_found_where_the_f_test_is_blind():
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 30)
    X = rng.normal(size=(60, 300))
    X[:, :10] *= np.where(y == 1, 3.0, 1.0)[:, None]
    sel = DiscriminativeSelector("fdr", random_state=0).fit(X, y)
    f_p = stats.f_oneway(X[y == 0], X[y == 1]).pvalue
    assert sel.get_support()[:10].sum() >= 5 and sel.get_support()[10:].sum() <= 1
    assert (f_p[:10] < 0.05 / 300).sum() == 0


def test_search_scores_fast_path_equals_refits():
    from sklearn.base import clone

    X, y = planted([9, 11], 50, seed=8)
    X[:, 0] += y
    perms = np.array([np.random.default_rng(k).permutation(20) for k in range(5)])
    for statistic in ("distribution", "location"):
        sel = DiscriminativeSelector("fdr", statistic=statistic, random_state=0)
        fast = sel.permutation_search_scores(X, y, perms)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NothingSelectedWarning)
            slow = [clone(sel).fit(X, y[p]).search_score_ for p in perms]
        np.testing.assert_array_equal(fast, slow)


def test_results_do_not_depend_on_jobs_blocks_or_storage(tmp_path, monkeypatch):
    X, y = planted([12, 13], 3000, seed=9)
    X = X.astype(np.float32)
    with pytest.warns(NothingSelectedWarning):  # pure noise: the same outcome every way
        ref = DiscriminativeSelector("fdr", random_state=0).fit(X, y)
    with pytest.warns(NothingSelectedWarning):
        par = DiscriminativeSelector("fdr", random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(ref.pvalues_, par.pvalues_)
    monkeypatch.setattr("widefs.univariate._distribution._BLOCK_BYTES", 8 * 1000 * 50)
    mm = np.memmap(tmp_path / "X.f32", dtype=np.float32, mode="w+", shape=X.shape)
    mm[:] = X
    with pytest.warns(NothingSelectedWarning):
        lazy = DiscriminativeSelector("fdr", random_state=0).fit(mm, y)
    np.testing.assert_array_equal(ref.pvalues_, lazy.pvalues_)
    np.testing.assert_array_equal(ref.scores_, lazy.scores_)


def test_float32_data_stay_close_to_float64():
    X, y = planted([20, 20], 200, seed=10)
    X[:, :5] += y[:, None]
    a = DiscriminativeSelector("fdr", random_state=0).fit(X, y)
    b = DiscriminativeSelector("fdr", random_state=0).fit(X.astype(np.float32), y)
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-4)
    assert (a.get_support() == b.get_support()).all()


@pytest.mark.parametrize("threshold", ["mgm", "max_chance", 0.3])
def test_error_thresholds_need_the_errors_statistic(threshold):
    X, y = planted([5, 5], 4)
    with pytest.raises(ValueError, match="needs statistic='errors'"):
        DiscriminativeSelector(threshold, statistic="distribution").fit(X, y)


def test_auto_statistic():
    X, y = planted([8, 8], 20, seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        for threshold, expected in [
            ("fdr", "distribution"),
            ("bonferroni", "distribution"),
            ("mgm", "errors"),
            ("all", "errors"),
            (3, "errors"),
        ]:
            assert DiscriminativeSelector(threshold).fit(X, y).statistic_ == expected


def test_needs_more_examples_than_classes():
    with pytest.raises(ValueError, match="more examples"):
        class_difference_scores(np.eye(3), [0, 1, 2])


def test_one_example_per_class_tests_nothing():
    with (
        pytest.warns(UserWarning, match="no feature can be tested"),
        pytest.warns(NothingSelectedWarning, match="the floor, not the data, decided"),
    ):
        sel = DiscriminativeSelector("fdr").fit([[0.0, 1.0], [1.0, 3.0]], [0, 1])
    assert sel.pvalues_.tolist() == [1.0, 1.0] and not sel.get_support().any()
