"""The untied rank null stops once the screen's selection is settled.

References computed here without the module's code: the labellings replayed from the seed
(one block, no chunks) and scored by the branch's scores, pooled by
``pooled_permutation_pvalues`` (the full count); Clopper-Pearson limits from
``scipy.stats.beta.ppf``; Benjamini-Hochberg from ``widefs.stats.benjamini_hochberg`` on the
whole vector of p-values; the stopping check found by brute force over the check rounds.
"""

from itertools import chain, combinations
from math import comb

import numpy as np
import pytest
from scipy import stats

import widefs.univariate._rank_null as rank_null
import widefs.univariate._rank_settle as settle
from widefs.stats import benjamini_hochberg, pooled_permutation_pvalues
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._kinds import tie_factor
from widefs.univariate._rank_settle import UntiedDecision, clopper_pearson, untied_decision
from widefs.univariate._screen_select import _MARGIN, bh_cut

ALPHA = 0.05


def _data(n_per=10, n_null=30, shifts=(0.0, 1.2, 1.6, 2.0, 2.5, 3.0, 4.0), seed=0):
    """Continuous untied features: ``n_null`` noise ones, then one per shift."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n_per)
    X = rng.normal(size=(y.size, n_null + len(shifts)))
    X[:, n_null:] += np.outer(y, shifts)
    return X, y


def _branch(X, y, untied_draws, decision=None, seed=0, w=0.0):
    columns = np.arange(X.shape[1])
    return rank_null.rank_branch(
        X,
        columns,
        tie_factor(X),
        y,
        2,
        w,
        np.random.RandomState(seed),
        untied_draws=untied_draws,
        decision=decision,
    )


def _full_count(X, y, draws, seed=0, w=0.0):
    """The untied p-values over ``draws`` labellings replayed in one block."""
    gen = np.random.default_rng(np.random.RandomState(seed).randint(np.iinfo(np.int32).max))
    labels = gen.permuted(np.tile(y.astype(np.uint8), (draws, 1)), axis=1)
    counts = np.bincount(y).astype(float)
    with np.errstate(divide="ignore"):
        log_w = np.log([1.0 - w, w])
    R = np.arange(1.0, y.size + 1.0)[:, None]
    null = rank_null._scores(R, labels, 2, counts, log_w)[0].ravel()
    obs = rank_null._scores(stats.rankdata(X, axis=0), y[None, :], 2, counts, log_w)[0][0]
    return pooled_permutation_pvalues(obs, null), null, obs


def _fixed_decision(fixed_p, n_untied, alpha=ALPHA):
    """A decision with these fixed (testable) p-values beside ``n_untied`` untied ones."""
    m = fixed_p.size + n_untied
    return untied_decision("fdr", alpha, fixed_p, np.ones(fixed_p.size, bool), m, m)


def test_the_chunks_end_doubling_from_the_first_and_reach_the_draws():
    assert rank_null.untied_chunk_ends(200_000) == [
        2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 114_000, 164_000, 200_000,
    ]  # fmt: skip
    assert rank_null.untied_chunk_ends(100_000)[-2:] == [64_000, 100_000]
    assert rank_null.untied_chunk_ends(2_000) == [2_000]
    assert rank_null.untied_chunk_ends(1_500) == [1_500]
    assert rank_null.untied_chunk_ends(2_001) == [2_000, 2_001]


@pytest.mark.parametrize("w", [0.0, 0.35])
def test_without_a_decision_the_p_values_are_the_full_count_bit_for_bit(w):
    # 9,000 draws in chunks of 2,000, 2,000, 4,000 and 1,000: the one-block pool's p-values.
    X, y = _data()
    branch = _branch(X, y, 9_000, w=w)
    expected, _, _ = _full_count(X, y, 9_000, w=w)
    assert branch.untied_drawn == 9_000
    np.testing.assert_array_equal(branch.pvalues, expected)
    np.testing.assert_array_equal(branch.min_pvalues, np.full(X.shape[1], 1 / 9_001))


def test_a_decision_that_never_settles_draws_them_all(monkeypatch):
    X, y = _data()
    monkeypatch.setattr(UntiedDecision, "settled", lambda self, *a: False)
    branch = _branch(X, y, 9_000, decision=_fixed_decision(np.array([0.5]), X.shape[1]))
    assert branch.untied_drawn == 9_000
    np.testing.assert_array_equal(branch.pvalues, _full_count(X, y, 9_000)[0])


def test_the_last_chunk_is_not_checked(monkeypatch):
    # At the cap the full count is the answer: no check there.
    X, y = _data()
    seen = []

    def spy(self, b, draws, error):
        seen.append(draws)
        return False

    monkeypatch.setattr(UntiedDecision, "settled", spy)
    _branch(X, y, 9_000, decision=_fixed_decision(np.array([0.5]), X.shape[1]))
    assert seen == [2_000, 4_000, 8_000]


def _enumerated_bounds(y, obs, w):
    """Exact bounds of the untied p-values from all the labellings with y's class sizes:
    ``P(location part >= obs)`` below, and the exact p-value above without a spread part."""
    n, n0 = y.size, int(np.sum(y == 0))
    labels = np.ones((comb(n, n0), n), np.uint8)
    rows = np.repeat(np.arange(labels.shape[0]), n0)
    labels[rows, np.fromiter(chain.from_iterable(combinations(range(n), n0)), np.intp)] = 0
    counts = np.bincount(y).astype(float)
    R = np.arange(1.0, n + 1.0)[:, None]
    with np.errstate(divide="ignore"):
        log_w = np.log([1.0 - w, w])
    loc = rank_null._scores(R, labels, 2, counts, (log_w[0], -np.inf))[0].ravel()
    lower = np.mean(loc[:, None] >= obs[None, :], axis=0)
    return lower, lower if w == 0 else np.ones(obs.size)


def _brute_force_stop(null, obs, fixed_p, draws, alpha=ALPHA, exact=None):
    """The first check at which BH's and Bonferroni's rejections over all the features are
    the same with every untied p-value at either end of its Clopper-Pearson interval (cut
    down to the ``exact`` bounds, when given, then widened to hold the estimate)."""
    exact_lo, exact_hi = (0.0, 1.0) if exact is None else exact
    ends = rank_null.untied_chunk_ends(draws)
    m = fixed_p.size + obs.size
    error = rank_null.SETTLE_ERROR / ((len(ends) - 1) * obs.size)
    for end in ends[:-1]:
        b = np.sum(null[:end, None] >= obs[None, :], axis=0)
        lo = np.where(b > 0, stats.beta.ppf(error / 2, np.maximum(b, 1), end - b + 1), 0.0)
        hi = np.where(b < end, stats.beta.ppf(1 - error / 2, b + 1, np.maximum(end - b, 1)), 1.0)
        p_hat = (1.0 + b) / (1.0 + end)
        lo, hi = np.maximum(lo, exact_lo), np.minimum(hi, exact_hi)
        ends_p = [np.minimum(lo, p_hat), np.maximum(hi, p_hat)]
        bh = [benjamini_hochberg(np.concatenate([fixed_p, e])) <= alpha for e in ends_p]
        bonf = [e <= alpha / m for e in ends_p]
        if np.array_equal(*bh) and np.array_equal(*bonf):
            return end, p_hat
    b = np.sum(null[:, None] >= obs[None, :], axis=0)
    return draws, (1.0 + b) / (1.0 + draws)


# Noise only, nothing near the cuts; strong features (p about 2.5e-5), settled once their
# upper ends pass both cuts; fixed p-values and a third untied feature near the cuts.
CASES = [
    ((), np.array([0.3, 0.6])),
    ((2.5, 3.0, 4.0), np.array([0.3, 0.6])),
    ((1.5, 2.0, 3.0), np.array([0.003, 0.004, 0.3])),
]


@pytest.mark.parametrize("w", [0.0, 0.35])
def test_the_draws_stop_at_the_first_settled_check(monkeypatch, w):
    # With the exact bounds of all 184,756 labellings of 10 + 10 examples.
    monkeypatch.setattr(rank_null, "FIRST_UNTIED_DRAWS", 500)
    draws, stops, unbounded = 40_000, [], []
    for shifts, fixed_p in CASES:
        X, y = _data(shifts=shifts)
        branch = _branch(X, y, draws, decision=_fixed_decision(fixed_p, X.shape[1]), w=w)
        _, null, obs = _full_count(X, y, draws, w=w)
        exact = _enumerated_bounds(y, obs, w)
        end, p_hat = _brute_force_stop(null, obs, fixed_p, draws, exact=exact)
        assert branch.untied_drawn == end
        np.testing.assert_allclose(branch.pvalues, p_hat, rtol=1e-15)
        np.testing.assert_array_equal(branch.min_pvalues, np.full(X.shape[1], 1 / (end + 1)))
        stops.append(end)
        unbounded.append(_brute_force_stop(null, obs, fixed_p, draws)[0])
    # The first check, a later one, and later still (the cases are not all alike).
    assert stops[0] == 500 < stops[1] < stops[2], stops
    # The exact bounds never delay a stop; without a spread part (the exact p-values) they
    # settle the strong features long before their intervals do: 16,000 and all the draws
    # without them; with one, the upper ends decide here and the bounds do not help.
    assert all(s <= u for s, u in zip(stops, unbounded))
    assert (stops == unbounded) == (w > 0), (stops, unbounded)


def test_clopper_pearson_matches_the_beta_quantiles_and_the_ends():
    b = np.array([0, 1, 7, 99, 100])
    lo, hi = clopper_pearson(b, 100, 1e-3)
    ref_lo = stats.beta.ppf(5e-4, np.maximum(b, 1), 100 - b + 1)
    ref_hi = stats.beta.ppf(1 - 5e-4, b + 1, np.maximum(100 - b, 1))
    np.testing.assert_allclose(lo[1:], ref_lo[1:], rtol=1e-9)
    np.testing.assert_allclose(hi[:-1], ref_hi[:-1], rtol=1e-9)
    assert lo[0] == 0.0 and hi[-1] == 1.0
    # Coverage at the ends: P(Bin(100, lo) >= b) = P(Bin(100, hi) <= b) = error / 2.
    np.testing.assert_allclose(stats.binom.sf(b[1:] - 1, 100, lo[1:]), 5e-4, rtol=1e-6)
    np.testing.assert_allclose(stats.binom.cdf(b[:-1], 100, hi[:-1]), 5e-4, rtol=1e-6)


def test_the_decision_s_cut_is_the_screen_s_cut_over_all_the_p_values():
    rng = np.random.default_rng(4)
    for _ in range(200):
        fixed_p = np.round(rng.random(40) ** 3, 3)  # rounded: ties, some at the cut
        untied = np.round(rng.random(15) ** 3, 3)
        all_p = np.concatenate([fixed_p, untied])
        testable = rng.random(all_p.size) < 0.9
        testable[40:] = True
        m = int(testable.sum())
        d = untied_decision("fdr", ALPHA, fixed_p, testable[:40], m, m)
        cut, n = d.cut(untied)
        assert cut == bh_cut(all_p, testable, ALPHA)
        assert n == int(np.sum(testable & (all_p <= cut)))
        masks = d.rejected(untied)
        adjusted = np.ones(all_p.size)
        adjusted[testable] = benjamini_hochberg(all_p[testable])
        np.testing.assert_array_equal(masks[0], adjusted[40:] <= ALPHA)
        np.testing.assert_array_equal(masks[1], untied <= ALPHA / m)


def test_the_tied_features_join_the_fixed_ones():
    d = _fixed_decision(np.array([0.01, 0.2]), 3).including(np.array([0.002, 0.5, 0.04]))
    np.testing.assert_array_equal(d.fixed, [0.002, 0.01, 0.04])
    assert d.n_testable == 5 and d.bonferroni_cut == pytest.approx(ALPHA / 5)


def test_the_fixed_p_values_reach_a_hair_above_alpha_inclusive():
    # Every p-value up to alpha (1 + margin), that one included, can be the screen's cut
    # (its arithmetic may pass a hair above alpha): none above it.
    low = ALPHA * (1.0 + _MARGIN)
    above = np.nextafter(low, 1.0)
    d = _fixed_decision(np.array([0.01, low, above, 0.3]), 2)
    np.testing.assert_array_equal(d.fixed, [0.01, low])
    joined = d.including(np.array([above, low, 0.02]))
    np.testing.assert_array_equal(joined.fixed, [0.01, 0.02, low, low])


def test_a_feature_no_null_draw_reached_is_never_settled_outside_the_selection():
    # b = 0: its exact p-value may be 0, below any threshold, however few the draws and
    # however small the threshold (here 5e-8, where a binomial tail of 100 draws is 5e-6,
    # below error / 2): the necessary conditions must fail without a tail.
    d = untied_decision("fdr", ALPHA, np.zeros(0), np.zeros(0, bool), 10**6, 10**6)
    assert not d._may_settle(np.array([0.0]), 100, 1e-3)
    assert not d.settled(np.array([0.0]), 100, 1e-3)
    # One null draw at least as large on 10^6 draws: its lower end is above 5e-8 (settled).
    assert d._may_settle(np.array([1.0e4]), 10**6, 1e-3)


def _one_feature(lower, upper):
    """One testable feature, untied, at alpha 0.05 (m = K = 1), with exact bounds."""
    d = untied_decision("fdr", ALPHA, np.zeros(0), np.zeros(0, bool), 1, 1)
    return d.bounded(np.array([lower]), np.array([upper]))


def test_the_necessary_conditions_at_their_ends_follow_their_definition():
    # Nothing drawn beats the observed score in 19 draws: the estimate 1 / 20 is alpha, the
    # cut of both rules, and rejected (p <= cut). Exact p-values in [0, alpha], or up to
    # the ends alpha (1 + margin) an upper end may reach, keep it rejected: settled.
    b = np.array([0.0])
    assert _one_feature(0.0, ALPHA)._may_settle(b, 19, 1e-3)
    assert _one_feature(0.0, ALPHA * 1 / 1 * (1.0 + _MARGIN))._may_settle(b, 19, 1e-3)
    # Nine draws: the estimate 0.1 is above the cut, and an exact lower bound exactly at the
    # cut's lower end, alpha (1 - margin), may still be rejected: not settled.
    assert not _one_feature(ALPHA * 1 / 1 * (1.0 - _MARGIN), 1.0)._may_settle(b, 9, 1e-3)
    assert _one_feature(np.nextafter(ALPHA * (1.0 - _MARGIN), 1.0), 1.0)._may_settle(b, 9, 1e-3)


def test_an_int_threshold_or_no_feature_has_no_bonferroni_cut_or_no_decision():
    assert untied_decision(5, ALPHA, np.ones(3), np.ones(3, bool), 3, 3) is None
    d = untied_decision("bonferroni", ALPHA, np.ones(3), np.ones(3, bool), 3, 0)
    assert d.bonferroni_cut == -1.0 and d.fixed.size == 0


def _settled_by_inverting_all(d, b, draws, error):
    lo, hi = clopper_pearson(b, draws, error)
    est = (1.0 + b) / (1.0 + draws)
    return np.array_equal(d.rejected(np.minimum(lo, est)), d.rejected(np.maximum(hi, est)))


def test_the_shortcuts_do_not_change_the_answer():
    # The necessary conditions and the inversion of the near intervals only: the same answer
    # as inverting every interval, on counts around the cut (both answers occur).
    rng = np.random.default_rng(5)
    answers = []
    for trial in range(400):
        draws = int(rng.choice([2_000, 16_000, 64_000]))
        fixed_p = rng.random(rng.integers(0, 30)) ** 4
        p = rng.random(20) ** rng.choice([2, 6, 12])
        b = rng.binomial(draws, p).astype(float)
        d = _fixed_decision(fixed_p, b.size)
        # (an error of 0.9: intervals narrower than the estimate's distance from b / draws)
        error = float(rng.choice([0.9, 1e-2, 1e-6]))
        expected = _settled_by_inverting_all(d, b, draws, error)
        assert d.settled(b, draws, error) == expected, trial
        answers.append(expected)
    assert 0.2 < np.mean(answers) < 0.8


def test_a_feature_at_the_cut_never_settles():
    # Its count is exactly at BH's first cut alpha / m: no number of draws settles it.
    d = _fixed_decision(np.array([0.5]), 2)
    for draws in (2_000, 64_000, 10**7):
        b = np.array([round(ALPHA / 3 * draws), draws // 2], dtype=float)
        assert not d.settled(b, draws, 1e-4)
    assert d.settled(np.array([0.0, 1000.0]), 10**6, 1e-4)  # far below and above


@pytest.mark.parametrize("threshold", ["fdr", "bonferroni"])
def test_the_screen_stops_with_its_selection_and_full_resolution_on_request(threshold):
    X, y = _data(n_per=15, n_null=200, shifts=(3.0,) * 5 + (0.0,) * 5)
    X[:, :100] = np.exp(2 * X[:, :100])  # skewed: ranked, untied
    fits = {
        r: ClassDifferenceScreen(threshold, random_state=0, rank_draws=r).fit(X, y)
        for r in ("settled", "all")
    }
    ranked = fits["all"].kinds_ == 3
    assert ranked.sum() >= 90
    floor = fits["settled"].min_pvalues_[ranked].max()
    assert floor > fits["all"].min_pvalues_[ranked].max() == 1 / 100_001
    np.testing.assert_array_equal(fits["settled"].get_support(), fits["all"].get_support())
    for rule in ("fdr", "bonferroni"):
        np.testing.assert_array_equal(
            fits["settled"].select_under(rule)[1], fits["all"].select_under(rule)[1]
        )
    # The others' p-values do not move.
    np.testing.assert_array_equal(fits["settled"].pvalues_[~ranked], fits["all"].pvalues_[~ranked])


def test_an_int_threshold_draws_them_all():
    X, y = _data(n_per=15, n_null=60)
    X[:, :60] = np.exp(2 * X[:, :60])
    k = ClassDifferenceScreen(3, random_state=0).fit(X, y)
    full = ClassDifferenceScreen(3, random_state=0, rank_draws="all").fit(X, y)
    np.testing.assert_array_equal(k.pvalues_, full.pvalues_)
    ranked = k.kinds_ == 3
    assert ranked.any() and k.min_pvalues_[ranked].max() == 1 / 100_001


def test_a_p_value_equal_to_alpha_is_rejected_when_every_p_value_passes():
    # All three testable p-values at most alpha, the largest exactly alpha (a fixed one, or a
    # tied ranked one joining them): Benjamini-Hochberg rejects all three, as bh_cut does
    # (alpha = 0.25 and p-values in quarters and eighths: p m / j is exact in floats).
    a = 0.25
    d = untied_decision("fdr", a, np.array([0.0625, a]), np.ones(2, bool), 3, 3)
    assert d.cut(np.array([0.125])) == (a, 3)
    d = untied_decision("fdr", a, np.array([0.0625]), np.ones(1, bool), 3, 3)
    assert d.including(np.array([a])).cut(np.array([0.125])) == (a, 3)
    assert d.cut(np.array([0.125, a])) == (a, 3)
    assert bh_cut(np.array([0.0625, 0.125, a]), np.ones(3, bool), a) == a


def _may_settle_reference(fixed_p, b, draws, error, alpha=ALPHA):
    """The necessary conditions from their definition: Clopper-Pearson ends from the beta
    quantiles, Benjamini-Hochberg's rejections from ``benjamini_hochberg`` on every p-value."""
    m = fixed_p.size + b.size
    lo = np.where(b > 0, stats.beta.ppf(error / 2, np.maximum(b, 1), draws - b + 1), 0.0)
    hi = np.where(b < draws, stats.beta.ppf(1 - error / 2, b + 1, np.maximum(draws - b, 1)), 1.0)
    est = (1.0 + b) / (1.0 + draws)
    adjusted = benjamini_hochberg(np.concatenate([fixed_p, est]))
    n = int(np.sum(adjusted <= alpha))
    inside = adjusted[fixed_p.size :] <= alpha
    if np.any(lo[~inside] <= alpha * (n + 1) / m) or np.any(hi[inside] > alpha * n / m):
        return False
    inside = est <= alpha / m
    return not (np.any(lo[~inside] <= alpha / m) or np.any(hi[inside] > alpha / m))


def test_the_necessary_conditions_follow_their_definition():
    rng = np.random.default_rng(6)
    answers = []
    for trial in range(300):
        draws = int(rng.choice([500, 2_000, 16_000]))
        fixed_p = np.sort(rng.random(rng.integers(0, 20)) ** 4)
        b = rng.binomial(draws, rng.random(12) ** rng.choice([2, 6, 12])).astype(float)
        error = float(rng.choice([0.5, 1e-2, 1e-6]))
        d = _fixed_decision(fixed_p, b.size)
        expected = _may_settle_reference(fixed_p, b, draws, error)
        assert d._may_settle(b, draws, error) == expected, trial
        answers.append(expected)
    assert 0.2 < np.mean(answers) < 0.8


def test_only_intervals_that_may_reach_alpha_are_inverted(monkeypatch):
    # Lower ends at most alpha iff the count is at most 19 here (200 draws, error 0.01):
    # exactly those counts reach the inversion.
    seen = []
    invert = settle.clopper_pearson

    def spy(count, trials, error):
        seen.append(np.array(count))
        return invert(count, trials, error)

    monkeypatch.setattr(settle, "clopper_pearson", spy)
    monkeypatch.setattr(UntiedDecision, "_may_settle", lambda self, *a: True)
    b = np.arange(0.0, 40.0)
    _fixed_decision(np.array([0.5]), b.size).settled(b, 200, 0.01)
    lo = stats.beta.ppf(0.005, np.maximum(b, 1), 200 - b + 1)
    expected = b[(b == 0) | (lo <= ALPHA)]
    np.testing.assert_array_equal(seen[0], expected)
    assert expected.tolist() == list(range(20))


def test_each_check_gets_an_equal_share_of_the_error(monkeypatch):
    X, y = _data()
    errors = []

    def spy(self, b, draws, error):
        errors.append(error)
        return False

    monkeypatch.setattr(UntiedDecision, "settled", spy)
    _branch(X, y, 9_000, decision=_fixed_decision(np.array([0.5]), X.shape[1]))
    # Three checks (2,000, 4,000 and 8,000 draws) of 37 features.
    assert errors == [rank_null.SETTLE_ERROR / (3 * 37)] * 3


def test_observed_scores_must_not_be_nan():
    with pytest.raises(ValueError, match=r"^observed and null must not contain NaN\.$"):
        rank_null._untied_pvalues(
            np.array([1.0, np.nan]), np.array([0, 0, 1, 1], np.uint8), 2,
            np.array([2.0, 2.0]), np.array([0.0, -np.inf]), 100, np.random.default_rng(0), None,
        )  # fmt: skip


def test_one_check_or_one_feature_gets_the_whole_error(monkeypatch):
    errors = []
    monkeypatch.setattr(
        UntiedDecision, "settled", lambda self, b, draws, error: errors.append(error) or False
    )
    X, y = _data()
    _branch(X[:, :1], y, 2_001, decision=_fixed_decision(np.array([0.5]), 1))
    assert errors == [rank_null.SETTLE_ERROR]


def test_strata_are_equal_count_bins_of_the_tie_factor(monkeypatch):
    # 1e-4 is negligible (not above NEGLIGIBLE_TIES); five tied features: one bin of 50.
    ties = np.array([0.0, 1e-4, 2e-4, 0.3, 0.1, 0.2, 5e-5, 0.25])
    assert rank_null.strata_of(ties).tolist() == [0, 0, 1, 1, 1, 1, 0, 1]
    # Bins of 2: two bins, the lower factors first (3 and 2 features).
    monkeypatch.setattr(rank_null, "STRATUM_FEATURES", 2)
    assert rank_null.strata_of(ties).tolist() == [0, 0, 1, 2, 1, 1, 0, 2]


def test_tied_strata_floors_count_their_pool_and_join_the_decision(monkeypatch):
    # Three features with ties (one stratum), two without: the stratum pools 34 labellings x 3
    # features (floor 1 / 103); the decision gets the tied features' p-values as fixed ones.
    X, y = _data(n_null=5, shifts=())
    X[:3, :3] = 0.0  # three tied zeros in class 0
    seen = []
    including = UntiedDecision.including

    def spy(self, pvalues):
        seen.append(pvalues.copy())
        return including(self, pvalues)

    monkeypatch.setattr(UntiedDecision, "including", spy)
    columns = np.arange(5)
    branch = rank_null.rank_branch(
        X, columns, tie_factor(X), y, 2, 0.0, np.random.RandomState(0), draws=100,
        untied_draws=3_000, decision=_fixed_decision(np.array([0.5]), 2),
    )  # fmt: skip
    assert branch.strata.tolist() == [1, 1, 1, 0, 0]
    np.testing.assert_array_equal(branch.min_pvalues[:3], 1 / 103)
    np.testing.assert_array_equal(seen[0], branch.pvalues[:3])
    assert branch.untied_drawn in (2_000, 3_000)


def test_no_untied_feature_draws_nothing():
    X, y = _data(n_null=3, shifts=())
    X[:3, :] = 0.0
    branch = _branch(X, y, 3_000, decision=_fixed_decision(np.array([0.5]), 0))
    assert (branch.strata > 0).all() and branch.untied_drawn == 0
