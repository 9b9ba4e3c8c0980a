"""Exact bounds of the untied rank null's p-values with two classes.

References computed here without the module's programme: subset sums counted over every
subset (``itertools.combinations``, Python integers); the exact p-values of the combined
score over every labelling of up to 14 examples (both class splits, with and without the
spread part); Monte Carlo estimates at n = 100 (fixed seed, 3 standard errors); the settle
check with bounds against the inversion of every interval cut down to them; and the screen
with and without stopping on colon-like data and on the fresh-process benchmark's data.
"""

import warnings
from collections import Counter
from itertools import chain, combinations
from math import comb

import numpy as np
import pytest

import widefs.univariate._rank_null as rank_null
from widefs.univariate import ClassDifferenceScreen
from widefs.univariate._rank_exact import _labellings, exact_bounds, subset_sum_counts
from widefs.univariate._rank_settle import clopper_pearson, untied_decision

from .rank_data import colon_like


def _log_w(w):
    with np.errstate(divide="ignore"):
        return np.log([1.0 - w, w])


def _all_labellings(n0, n1):
    """Every labelling with n0 examples of class 0 among n0 + n1 (class 0 on a subset)."""
    n = n0 + n1
    labels = np.ones((comb(n, n0), n), np.uint8)
    rows = np.repeat(np.arange(labels.shape[0]), n0)
    labels[rows, np.fromiter(chain.from_iterable(combinations(range(n), n0)), np.intp)] = 0
    return labels


def _bounds(n0, n1, obs, w):
    codes = np.repeat(np.array([0, 1], np.uint8), [n0, n1])
    counts = np.array([n0, n1], float)
    return exact_bounds(obs, codes, counts, _log_w(w), rank_null._scores)


def _null(labels, n0, n1, w):
    R = np.arange(1.0, n0 + n1 + 1.0)[:, None]
    counts = np.array([n0, n1], float)
    return rank_null._scores(R, labels, 2, counts, _log_w(w))[0].ravel()


@pytest.mark.parametrize("n", range(1, 13))
def test_subset_sum_counts_are_those_of_every_subset(n):
    for m in range(n + 1):
        sums = Counter(sum(s) for s in combinations(range(1, n + 1), m))
        low = m * (m + 1) // 2
        expected = [sums[t] for t in range(low, low + m * (n - m) + 1)]
        assert subset_sum_counts(n, m).tolist() == expected, m


def test_subset_sum_counts_at_n_100_total_and_mirror():
    counts = subset_sum_counts(100, 30)
    assert counts.size == 30 * 70 + 1 and counts[0] == counts[-1] == 1.0 == counts[1]
    np.testing.assert_allclose(counts.sum(), float(comb(100, 30)), rtol=1e-13)
    np.testing.assert_allclose(counts, counts[::-1], rtol=1e-13)


def test_one_labelling_per_sum_of_the_smaller_class():
    labels = _labellings(9, 4, 1)
    members = labels == 1
    assert (members.sum(axis=1) == 4).all() and ((labels == 0).sum(axis=1) == 5).all()
    sums = (members * np.arange(1, 10)).sum(axis=1)
    assert sums.tolist() == list(range(10, 31))


@pytest.mark.parametrize("sizes", [(7, 7), (4, 10), (10, 4), (1, 13), (3, 5)])
@pytest.mark.parametrize("w", [0.0, 0.35])
def test_the_bounds_hold_the_exact_p_values_of_every_labelling(sizes, w):
    n0, n1 = sizes
    null = _null(_all_labellings(n0, n1), n0, n1, w)
    values = np.unique(null)
    # Every attainable score, points between them and beyond both ends.
    obs = np.concatenate([values, (values[1:] + values[:-1]) / 2, [values[0] - 1, values[-1] + 1]])
    exact = np.mean(null[:, None] >= obs[None, :], axis=0)
    lower, upper = _bounds(n0, n1, obs, w)
    assert np.all(lower <= exact) and np.all(exact <= upper)
    if w == 0:  # the score is its location part: the bounds are the exact p-value
        np.testing.assert_allclose(lower, exact, rtol=2e-9, atol=0)
        np.testing.assert_allclose(upper, exact, rtol=2e-9, atol=0)
    else:
        assert np.all(upper == 1.0)
        # Not vacuous: beyond the top the bound is 0, and within most are far from 0.
        assert lower[-1] == 0 and np.median(lower[:-2] / exact[:-2]) > 0.3


@pytest.mark.parametrize("sizes", [(50, 50), (30, 70)])
@pytest.mark.parametrize("w", [0.0, 0.35])
def test_the_lower_bound_is_below_the_monte_carlo_estimate_at_n_100(sizes, w):
    n0, n1 = sizes
    gen = np.random.default_rng(3)
    draws = 40_000
    codes = np.repeat(np.array([0, 1], np.uint8), sizes)
    null = _null(gen.permuted(np.tile(codes, (draws, 1)), axis=1), n0, n1, w)
    obs = np.quantile(null, [0.0, 0.5, 0.9, 0.99, 0.999])
    p_hat = np.mean(null[:, None] >= obs[None, :], axis=0)
    se = np.sqrt(p_hat * (1 - p_hat) / draws)
    lower, upper = _bounds(n0, n1, obs, w)
    assert np.all(lower <= p_hat + 3 * se + 1e-12), (lower, p_hat, se)
    assert np.all(upper >= p_hat - 3 * se - 1e-12), (upper, p_hat, se)
    if w == 0:
        assert np.all(np.abs(lower - p_hat) <= 3 * se + 2e-9), (lower, p_hat, se)
    else:
        assert np.all(lower >= 0.3 * p_hat)  # not vacuous


def test_no_bounds_when_the_programme_costs_too_much():
    codes = np.repeat(np.array([0, 1], np.uint8), 500)
    counts = np.array([500.0, 500.0])
    assert exact_bounds(np.zeros(3), codes, counts, _log_w(0.0), rank_null._scores) is None
    # Nor without a location part.
    small = np.repeat(np.array([0, 1], np.uint8), 5)
    assert (
        exact_bounds(np.zeros(3), small, np.array([5.0, 5]), _log_w(1.0), rank_null._scores) is None
    )


def _settled_by_inverting_all(d, b, draws, error, lower, upper):
    lo, hi = clopper_pearson(b, draws, error)
    est = (1.0 + b) / (1.0 + draws)
    lo, hi = np.maximum(lo, lower), np.minimum(hi, upper)
    return np.array_equal(d.rejected(np.minimum(lo, est)), d.rejected(np.maximum(hi, est)))


def test_the_settle_check_with_bounds_is_the_inversion_of_every_cut_interval():
    # Counts around the cuts, exact bounds around each feature's p-value (some tight, some
    # loose, some absent): the shortcuts give the answer of inverting every interval.
    rng = np.random.default_rng(8)
    answers, helped = [], 0
    for trial in range(400):
        draws = int(rng.choice([2_000, 16_000, 64_000]))
        fixed_p = rng.random(rng.integers(0, 30)) ** 4
        p = rng.random(20) ** rng.choice([2, 6, 12])
        b = rng.binomial(draws, p).astype(float)
        slack = rng.choice([1.0, 1.5, 100.0], size=(2, p.size))
        lower = np.where(rng.random(p.size) < 0.2, 0.0, p / slack[0])
        upper = np.where(rng.random(p.size) < 0.2, 1.0, np.minimum(1.0, p * slack[1]))
        m = fixed_p.size + b.size
        d = untied_decision("fdr", 0.05, fixed_p, np.ones(fixed_p.size, bool), m, m)
        error = float(rng.choice([0.9, 1e-2, 1e-6]))
        expected = _settled_by_inverting_all(d, b, draws, error, lower, upper)
        assert d.bounded(lower, upper).settled(b, draws, error) == expected, trial
        helped += expected and not d.settled(b, draws, error)
        answers.append(expected)
    assert 0.2 < np.mean(answers) < 0.8 and helped >= 20, (np.mean(answers), helped)


@pytest.mark.slow
def test_with_bounds_colon_like_selections_equal_the_full_count_and_stop_earlier(monkeypatch):
    # Twelve seeds: the same selections as all the draws, and never more draws than the
    # intervals alone would make.
    warnings.simplefilter("ignore")
    earlier = 0
    for seed in range(12):
        X, y = colon_like(seed)
        fits = {}
        for name in ("bounded", "intervals", "all"):
            with monkeypatch.context() as patch:
                if name == "intervals":
                    patch.setattr(rank_null, "_exact_bounds_of", lambda *a: None)
                draws = "all" if name == "all" else "settled"
                fits[name] = ClassDifferenceScreen(random_state=seed, rank_draws=draws).fit(X, y)
        s, a = fits["bounded"], fits["all"]
        np.testing.assert_array_equal(s.get_support(), a.get_support())
        for rule in ("fdr", "bonferroni"):
            np.testing.assert_array_equal(s.select_under(rule)[1], a.select_under(rule)[1])
        floors = [fits[k].min_pvalues_[:150].max() for k in ("bounded", "intervals")]
        assert floors[0] >= floors[1], seed
        earlier += floors[0] > floors[1]
    assert earlier >= 2  # not vacuous: 2 of the 12 stop earlier (2,000 for 32,000 and 4,000)


def test_the_benchmark_s_fit_stops_at_the_first_check():
    # bench_fresh's data: one untied feature at p about 1.1e-4 took 64,000 draws to be
    # told from Bonferroni's cut by its interval; its exact lower bound tells it at once.
    X = np.random.default_rng(0).normal(size=(100, 20000))
    y = np.repeat([0, 1], 50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = ClassDifferenceScreen(random_state=0).fit(X, y)
    ranked = fit.kinds_ == 3
    assert ranked.sum() > 100
    assert fit.min_pvalues_[ranked].max() == 1 / (rank_null.FIRST_UNTIED_DRAWS + 1)
