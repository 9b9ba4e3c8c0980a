"""The class-difference screen at its boundaries, each value against an independent computation.

References: the kinds from scipy's moments and ``np.unique`` counts in a loop over features;
rank p-values from the exact permutation distribution (every labelling enumerated, scipy's
one-way F), within a Monte Carlo band; tie factors from the tie groups; Tarone and
Benjamini-Hochberg as loops. Tuning constants are read from their modules, never copied.
"""

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

import widefs.stats._exact as exact_module
import widefs.univariate._kinds as kinds_module
import widefs.univariate._rank_null as rank_null
import widefs.univariate._screen as screen_module
from widefs.stats import looks_like_counts
from widefs.univariate import ClassDifferenceScreen, auto_spread_weight
from widefs.univariate._kinds import (
    CONSTANT,
    COUNTS,
    GAUSSIAN,
    RANKED,
    TWO_VALUED,
    shape_limits,
    tie_factor,
)
from widefs.univariate._rank_null import rank_branch, strata_of

pytestmark = pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")


def _fit(X, y, **kw):
    return ClassDifferenceScreen(random_state=0, **kw).fit(X, y)


# --- kinds -------------------------------------------------------------------------------


def _kinds_by_loop(X, spread):
    """Each column's kind from the rules, with scipy's moments and np.unique's counts."""
    n = X.shape[0]
    level = kinds_module.GATE_LEVEL_SPREAD if spread else kinds_module.GATE_LEVEL
    skew_limit, kurt_limit = shape_limits(n, level)
    out = []
    for x in X.T:
        values, counts = np.unique(x, return_counts=True)
        if values.size == 1:
            out.append(CONSTANT)
            continue
        if values.size == 2:
            out.append(TWO_VALUED)
            continue
        ties_at_ends = max(counts[0], counts[-1]) >= max(3, int(np.ceil(0.1 * n)))
        few_integers = bool(np.all(x == np.floor(x))) and values[-1] - values[0] < n / 2
        odd = abs(stats.skew(x)) > skew_limit or stats.kurtosis(x, fisher=False) > kurt_limit
        out.append(RANKED if ties_at_ends or few_integers or odd else GAUSSIAN)
    return out


def _skewed(n, target):
    """n values with skewness ``target`` (z + c z^2 on normal quantiles, c by bisection)."""
    z = stats.norm.ppf((np.arange(n) + 0.5) / n)
    lo, hi = 0.0, 1.0
    for _ in range(200):
        c = (lo + hi) / 2
        lo, hi = (c, hi) if stats.skew(z + c * z * z) < target else (lo, c)
    return z + lo * z * z


@pytest.mark.parametrize("n", [20, 21, 30, 41])
def test_kinds_equal_the_rules_at_every_threshold(n):
    rng = np.random.default_rng(n)
    y = np.arange(n) % 2
    z = stats.norm.ppf((np.arange(n) + 0.5) / n)
    need = max(3, int(np.ceil(0.1 * n)))  # examples sharing an extreme that make it tied
    cols = [z, -np.exp(1.5 * z), np.exp(1.5 * z), np.full(n, -2.0), np.where(z > 0, 3.0, -1.5)]
    for k in (need - 1, need):
        low, high = z.copy(), z.copy()
        low[:k] = z[0]
        high[-k:] = z[-1]
        cols += [low, high]
    half = n / 2
    for width in (np.ceil(half) - 1, np.ceil(half), np.floor(half)):
        cols.append(np.round(np.linspace(0, width, n)))  # integers over a range of `width`
    cols.append(np.round(np.linspace(0, np.ceil(half) - 1, n)) + 0.5)  # not integers
    lim_small = shape_limits(n, kinds_module.GATE_LEVEL)[0]
    lim_large = shape_limits(n, kinds_module.GATE_LEVEL_SPREAD)[0]
    mid = _skewed(n, (lim_small + lim_large) / 2)  # ranked with the spread test only
    cols += [mid, -mid]
    X = np.column_stack(cols)[rng.permutation(n)]
    for spread_weight in (0.0, 0.3):
        sel = _fit(X, y, spread_weight=spread_weight)
        assert sel.kinds_.tolist() == _kinds_by_loop(X, spread_weight > 0)
    assert _kinds_by_loop(X, False)[-2:] == [GAUSSIAN, GAUSSIAN]
    assert _kinds_by_loop(X, True)[-2:] == [RANKED, RANKED]


def test_shape_limits_equal_an_independent_monte_carlo():
    # Quantiles of |skewness| and kurtosis of n Gaussian values, by scipy on another seed:
    # equal within the Monte Carlo error of a tail quantile (a few percent).
    rng = np.random.default_rng(123)
    n = 15
    Z = rng.standard_normal((200_000, n))
    skew = np.abs(stats.skew(Z, axis=1))
    kurt = stats.kurtosis(Z, axis=1, fisher=False)
    for level in (kinds_module.GATE_LEVEL, kinds_module.GATE_LEVEL_SPREAD):
        s, k = shape_limits(n, level)
        assert s == pytest.approx(np.quantile(skew, 1 - level / 2), rel=0.05)
        assert k == pytest.approx(np.quantile(kurt, 1 - kinds_module.GATE_LEVEL / 2), rel=0.05)


def test_tie_factor_equals_the_tie_groups():
    X = np.column_stack(
        [np.arange(7.0), [1, 1, 2, 3, 3, 3, 9], [0, 0, 0, 0, 0, 0, 1], np.full(7, 4.0)]
    )
    expected = []
    for x in X.T:
        t = np.unique(x, return_counts=True)[1].astype(float)
        expected.append(np.sum(t**3 - t) / (7**3 - 7))
    np.testing.assert_allclose(tie_factor(X), expected, atol=1e-15)


def test_non_finite_values_of_an_out_of_core_matrix_name_their_column(monkeypatch, tmp_path):
    monkeypatch.setattr(kinds_module, "_KERNEL_COLUMNS", 3)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 11))
    X[4, 8] = np.nan
    mm = np.memmap(tmp_path / "x.dat", dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    with pytest.raises(ValueError, match=r"^Input X contains NaN or infinity \(columns \[8\]\)\.$"):
        _fit(mm, np.arange(10) % 2)
    mm[4, 8] = 0.0
    ref = _fit(np.array(mm), np.arange(10) % 2)
    np.testing.assert_allclose(_fit(mm, np.arange(10) % 2).pvalues_, ref.pvalues_, rtol=1e-12)


# --- rank branch ------------------------------------------------------------------------


def _rank_scores(r, labels, w):
    """Combined rank score of one labelling: scipy's one-way F of ranks and of |r - mean_c|."""
    groups = [r[labels == c] for c in np.unique(labels)]
    n, C = r.size, len(groups)
    f_loc = stats.f_oneway(*groups).statistic
    score = np.log(1 - w) - stats.f.logsf(f_loc, C - 1, n - C)
    f_spr = stats.f_oneway(*[np.abs(g - g.mean()) for g in groups]).statistic
    if w > 0:
        score = max(score, np.log(w) - stats.f.logsf(f_spr, C - 1, n - C))
    return score, f_loc, f_spr


def _exact_band(x, y, w):
    """Exact permutation tail of the combined score over every distinct labelling, as a
    band ``[P(score > s), P(score >= s)]`` with ties within rounding on either side."""
    r = stats.rankdata(x)
    obs = _rank_scores(r, y, w)[0]
    labellings = {tuple(p) for p in itertools.permutations(y.tolist())}
    null = np.array([_rank_scores(r, np.array(lab), w)[0] for lab in labellings])
    eps = 1e-9 * max(1.0, abs(obs))
    return np.mean(null > obs + eps), np.mean(null >= obs - eps)


@pytest.mark.parametrize("w", [0.0, 0.3])
def test_rank_pvalues_equal_the_exact_permutation_distribution(w):
    y = np.array([0, 0, 0, 1, 1, 1, 1])
    rng = np.random.default_rng(2)
    untied = np.column_stack([rng.lognormal(size=7) for _ in range(3)])
    untied[:, 0] = [0.1, 0.2, 0.3, 5.0, 6.0, 7.0, 8.0]  # the most extreme labelling
    tied = np.column_stack(
        [[0, 0, 0, 0, 2.5, 3.0, 9.0], [1, 1, 1, 4, 0, 0, 0], [0, 0, 0, 1, 2, 2, 3]]
    )
    X = np.column_stack([untied, tied])
    ties = tie_factor(X)
    assert (ties[:3] == 0).all() and (ties[3:] > rank_null.NEGLIGIBLE_TIES).all()
    draws = 30_000
    # A tied feature alone in its stratum: its pool is its own permutations (two tied
    # features in one stratum would pool their nulls, by design).
    for columns in ([0, 1, 2, 3], [4], [5]):
        columns = np.array(columns)
        branch = rank_branch(
            X,
            columns,
            ties[columns],
            y,
            2,
            w,
            np.random.RandomState(0),
            draws=draws,
            untied_draws=draws,
        )
        assert branch.strata.tolist() == strata_of(ties[columns]).tolist()
        assert branch.strata.tolist() == [0, 0, 0, 1] if columns.size == 4 else [1]
        for i, j in enumerate(columns):
            lo, hi = _exact_band(X[:, j], y, w)
            se = np.sqrt(max(hi * (1 - hi), lo * (1 - lo), 1 / 35) / draws)
            assert lo - 5 * se <= branch.pvalues[i] <= hi + 5 * se + 1 / draws, (j, lo, hi)
            _, f_loc, f_spr = _rank_scores(stats.rankdata(X[:, j]), y, w)
            assert branch.location[i] == pytest.approx(f_loc, rel=1e-10)
            assert branch.spread[i] == (pytest.approx(f_spr, rel=1e-10) if w > 0 else 0.0)
        # Floors: one over the pool of draws plus one; a stratum of one feature pools
        # max(2, draws) labellings of it.
        assert branch.min_pvalues[-1] == 1.0 / (draws + 1.0)
    assert rank_branch(
        X, np.array([3]), ties[[3]], y, 2, w, np.random.RandomState(0), draws=1
    ).min_pvalues.tolist() == [1.0 / 3.0]


def test_strata_equal_equal_count_bins_of_the_tie_factor():
    rng = np.random.default_rng(3)
    per = rank_null.STRATUM_FEATURES
    for n_tied in (1, per - 1, per, 2 * per + 1, 7 * per):
        ties = np.r_[np.zeros(5), rank_null.NEGLIGIBLE_TIES, rng.uniform(0.01, 0.5, n_tied)]
        ties = ties[rng.permutation(ties.size)]
        strata = strata_of(ties)
        tied = np.flatnonzero(ties > rank_null.NEGLIGIBLE_TIES)
        bins = min(rank_null.MAX_STRATA, max(1, tied.size // per))
        assert (strata[ties <= rank_null.NEGLIGIBLE_TIES] == 0).all()
        ranks = np.argsort(np.argsort(ties[tied], kind="stable"), kind="stable")
        expected = 1 + np.floor(ranks * bins / tied.size).astype(int)
        assert strata[tied].tolist() == expected.tolist()
        assert np.unique(strata[tied]).size == bins
    assert strata_of(np.zeros(4)).tolist() == [0, 0, 0, 0]


def test_untied_draws_follow_bonferroni_between_the_floor_and_the_cap(monkeypatch):
    # Draws of the untied null: ceil(n_scored / alpha), at least STRATUM_DRAWS, at most
    # MAX_UNTIED_DRAWS (both read from the module, set small here), so its floor is
    # 1 / (draws + 1).
    monkeypatch.setattr(screen_module, "STRATUM_DRAWS", 200)
    monkeypatch.setattr(screen_module, "MAX_UNTIED_DRAWS", 2000)
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 10)
    skewed = np.exp(3 * stats.norm.ppf((np.arange(20) + 0.5) / 20))
    X = np.column_stack([rng.permutation(skewed) for _ in range(3)] + [rng.normal(size=(20, 7))])
    for alpha, draws in ((0.2, 200), (0.01, 1000), (0.001, 2000), (0.05, 200), (0.04, 250)):
        sel = _fit(X, y, alpha=alpha)
        ranked = sel.kinds_ == RANKED
        assert int(np.sum(sel.kinds_ != CONSTANT)) == 10 and ranked[:3].all()
        assert sel.min_pvalues_[ranked].tolist() == [1.0 / (draws + 1.0)] * int(ranked.sum())


# --- screen -----------------------------------------------------------------------------


def test_spread_weight_starts_at_the_smallest_class_size():
    m = screen_module.SPREAD_MIN_CLASS
    assert auto_spread_weight([m - 1, 50]) == 0.0
    assert auto_spread_weight([m, 50]) == screen_module.SPREAD_WEIGHT
    assert auto_spread_weight([50, m, m + 3]) == screen_module.SPREAD_WEIGHT
    rng = np.random.default_rng(5)
    for size, expected in ((m - 1, 0.0), (m, screen_module.SPREAD_WEIGHT)):
        y = np.repeat([0, 1], [size, size + 2])
        sel = _fit(rng.normal(size=(y.size, 20)), y)
        assert sel.spread_weight_ == expected
        assert (sel.spread_statistics_ > 0).any() == (expected > 0)
    y = np.repeat([0, 1], [m, m])
    assert _fit(rng.normal(size=(2 * m, 20)), y, spread_weight=0.2).spread_weight_ == 0.2


def test_one_example_per_class_is_untestable_and_one_more_is_not():
    with pytest.warns(UserWarning, match="With 3 examples for 3 classes no feature can be tested"):
        sel = _fit(np.array([[0.0, 1.0], [1.0, 3.0], [4.0, 2.0]]), [0, 1, 2])
    assert sel.pvalues_.tolist() == [1.0, 1.0] and sel.kinds_.tolist() == [0, 0]
    assert sel.prior_["spread"] is None and np.isnan(sel.prior_["location"]).all()
    assert sel.search_score_ == -np.inf and sel.n_scored_ == 0 and sel.note_ == ""
    # Arrays set as a whole are read back as they are; the kinds keep their one-byte type.
    assert sel.min_pvalues_.tolist() == [1.0, 1.0] and sel.spread_weights_.tolist() == [0.0, 0.0]
    assert sel.kinds_.dtype == np.int8
    X = np.array([[0.0, 1.0], [1.0, 3.0], [4.0, 2.0], [2.0, 2.5]])
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*no feature can be tested")
        sel = _fit(X, [0, 1, 2, 2])
    assert sel.n_scored_ == 2 and (sel.pvalues_ < 1).all()


def test_the_untestable_warning_points_at_the_callers_fit():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _fit(np.array([[0.0, 1.0], [1.0, 3.0]]), [0, 1])
    (w,) = [w for w in caught if "no feature can be tested" in str(w.message)]
    assert w.category is UserWarning
    # The ``.fit(X, y)`` line of _fit above: where the user called the screen.
    assert (w.filename, w.lineno) == (__file__, _fit.__code__.co_firstlineno + 1)


def test_bonferroni_and_fdr_select_at_the_level_itself():
    # Four continuous features (Tarone's K = 4): alpha set so that alpha / 4 is exactly one
    # feature's p-value (dyadic scaling is exact): that feature is selected.
    rng = np.random.default_rng(6)
    y = np.repeat([0, 1], 6)
    X = rng.normal(size=(12, 4))
    X[:, 0] += 1.5 * y
    X[:, 1] += 1.0 * y
    p = _fit(X, y, threshold="bonferroni", alpha=0.5).pvalues_
    j = int(np.argsort(p)[1])
    sel = _fit(X, y, threshold="bonferroni", alpha=4 * p[j])
    assert sel.get_support().tolist() == (p <= p[j]).tolist()
    assert sel.threshold_ == p[j]
    # BH as a loop: the largest k with p_(k) <= k alpha / m; alpha at a step: included.
    order = np.argsort(p)
    k = 2
    alpha = p[order[k - 1]] * 4 / k
    sel = _fit(X, y, alpha=alpha)
    steps = [i + 1 for i in range(4) if p[order[i]] <= (i + 1) * alpha / 4]
    expected = np.zeros(4, bool)
    expected[order[: max(steps)]] = True
    assert sel.get_support().tolist() == expected.tolist() and expected.sum() >= k


def test_top_k_counts_only_testable_features_and_reports_its_threshold():
    rng = np.random.default_rng(7)
    y = np.repeat([0, 1], 8)
    X = np.column_stack([np.ones(16), rng.normal(size=(16, 5))])
    X[:, 3] += 2.0 * y
    sel = _fit(X, y, threshold=3)
    best = 1 + np.argsort(sel.pvalues_[1:], kind="stable")[:3]
    assert sorted(np.flatnonzero(sel.get_support())) == sorted(best)
    assert sel.threshold_ == sel.pvalues_[best].max()
    everything = _fit(X, y, threshold=10)  # more than there are: every non-constant one
    assert everything.get_support().tolist() == [False] + [True] * 5
    only_constant = _fit(np.ones((6, 2)), [0, 1] * 3, threshold=1)
    assert only_constant.threshold_ == 0.0 and not only_constant.get_support().any()
    assert only_constant.search_score_ == -np.inf


def test_scores_are_minus_log10_of_the_pvalues():
    sel = _fit(np.random.default_rng(8).normal(size=(10, 6)), [0, 1] * 5)
    np.testing.assert_allclose(sel.scores_, -np.log10(sel.pvalues_), rtol=1e-15)
    assert sel.search_score_ == sel.scores_.max()


def test_two_valued_features_get_the_one_way_f_of_their_values():
    rng = np.random.default_rng(9)
    y = np.repeat([0, 1, 2], [3, 4, 5])
    X = np.where(rng.random((12, 8)) < 0.4, 2.0, -1.0)
    X[:, 0] = [2, 2, 2, -1, -1, -1, -1, -1, -1, -1, -1, -1]
    sel = _fit(X, y)
    assert (sel.kinds_ == TWO_VALUED).all()
    for j in range(8):
        f = stats.f_oneway(*[X[y == c, j] for c in range(3)]).statistic
        assert sel.location_statistics_[j] == pytest.approx(f, rel=1e-10)
    # A perfect split has no within-class variation: F is infinite (not 0).
    X2 = np.column_stack([np.repeat([1.0, 0.0], [6, 6]), np.repeat([1.0, 0.0], [1, 11])])
    sel = _fit(X2, np.repeat([0, 1], 6))
    assert sel.location_statistics_[0] == np.inf and np.isfinite(sel.location_statistics_[1])


def test_two_valued_features_fall_back_to_ranks_when_tables_are_too_many(monkeypatch):
    monkeypatch.setattr(exact_module, "MAX_STATES", 1)
    rng = np.random.default_rng(10)
    y = np.repeat([0, 1], 6)
    X = np.column_stack([(rng.random((12, 3)) < 0.5).astype(float), rng.normal(size=12)])
    X[:, 0] = np.repeat([1.0, 0.0], 6)
    sel = _fit(X, y)
    two = (X[:, :3].max(axis=0) > X[:, :3].min(axis=0)).nonzero()[0]
    assert (sel.kinds_[two] == RANKED).all() and sel.kinds_[3] != TWO_VALUED
    # The rank branch got their tie factors: the first feature (perfect split) has the
    # smallest permutation p-value its stratum can give, the tie factor of a 6/6 split.
    assert sel.pvalues_[0] < 0.01
    monkeypatch.setattr(rank_null, "strata_of", _spy := _Spy(rank_null.strata_of))
    _fit(X, y)
    np.testing.assert_allclose(_spy.ties[: two.size], tie_factor(X[:, two]), rtol=1e-12)


class _Spy:
    def __init__(self, fn):
        self.fn, self.ties = fn, None

    def __call__(self, ties):
        self.ties = np.array(ties)
        return self.fn(ties)


def test_counts_switch(tmp_path):
    rng = np.random.default_rng(11)
    y = np.repeat([0, 1], 5)
    counts = rng.poisson(rng.gamma(0.6, 300, size=60), size=(10, 60)).astype(float)
    mm = np.memmap(tmp_path / "c.dat", dtype=np.float64, mode="w+", shape=counts.shape)
    mm[:] = counts
    with pytest.raises(ValueError, match=r"^counts=True needs X in memory \(voom uses every"):
        _fit(mm, y, counts=True)
    assert not _fit(mm, y).counts_  # auto: out-of-core data are never voomed
    assert _fit(counts, y).counts_
    forced = _fit(np.abs(rng.normal(size=(10, 30))), y, counts=True)
    assert forced.counts_ and set(forced.kinds_.tolist()) == {COUNTS}
    assert forced.spread_weight_ == 0.0
    big = np.repeat([0, 1], 12)
    counts24 = rng.poisson(rng.gamma(0.6, 3000, size=40), size=(24, 40)).astype(float)
    counts24[0, 0] = 0.0  # the counts rule: a zero and a range reaching 1000
    assert looks_like_counts(counts24)
    assert _fit(counts24, big, spread_weight=0.3).spread_weight_ == 0.0
    assert _fit(counts24, big, counts=False).spread_weight_ == screen_module.SPREAD_WEIGHT


def test_validation_messages():
    with pytest.raises(ValueError, match=r"needs at least 2 classes; got 1 class \('a'\)\.$"):
        _fit(np.ones((4, 2)), ["a"] * 4)
    for bad in ({"alpha": 0.0}, {"alpha": 1.0}, {"spread_weight": 1.0}, {"threshold": 0}):
        with pytest.raises(ValueError):
            _fit(np.random.default_rng(0).normal(size=(6, 3)), [0, 1] * 3, **bad)
