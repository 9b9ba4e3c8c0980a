"""The rank branch's p-values against every labelling of 6 + 6 examples, and its draw counts.

The reference enumerates the C(12, 6) = 924 labellings and computes the one-way F of the
mid-ranks and of their absolute deviations from the class means with numpy (no code of the
branch); the branch's Monte Carlo p-value must lie in the exact band within 5 standard errors.
Each test also checks that the band is far (more than 10 standard errors) from what a wrong
null or wrong weights would give, so that it can fail. The untied null's labellings are
replayed from the branch's seed and must be the ones it scored, in order (after the tied
strata's, none drawn for the untied ones' stratum); the labellings' integer type, the
kernel rule's work, the reading of sparse input and the blocks' width are checked directly.
"""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats

import widefs.univariate._rank_null as rank_null
from widefs.univariate._kinds import tie_factor
from widefs.univariate._rank_null import rank_branch

Y = np.repeat([0, 1], 6)
DRAWS = 20_000


def _all_labellings(n=12, k=6):
    rows = []
    for zeros in itertools.combinations(range(n), k):
        lab = np.ones(n, np.intp)
        lab[list(zeros)] = 0
        rows.append(lab)
    return np.array(rows)


def _oneway(values, labels):
    """One-way F of ``values`` (B, n) under ``labels`` (B, n), two classes."""
    n = values.shape[1]
    means = [np.sum(values * (labels == c), axis=1) / np.sum(labels == c, axis=1) for c in (0, 1)]
    fitted = np.where(labels == 0, means[0][:, None], means[1][:, None])
    within = np.sum((values - fitted) ** 2, axis=1)
    between = np.sum((fitted - values.mean(axis=1, keepdims=True)) ** 2, axis=1)
    return between / (within / (n - 2)), fitted


def _exact(x, labels, w_loc, w_spr, d2=10):
    """Combined score of every labelling (the first row of ``labels`` is the observed one),
    on F tails with 1 and ``d2`` degrees of freedom (n - C = 10)."""
    r = np.broadcast_to(stats.rankdata(x), labels.shape)
    F_loc, fitted = _oneway(r, labels)
    score = np.log(w_loc) - stats.f.logsf(F_loc, 1, d2)
    F_spr = np.zeros_like(F_loc)
    if w_spr > 0:
        F_spr = _oneway(np.abs(r - fitted), labels)[0]
        score = np.maximum(score, np.log(w_spr) - stats.f.logsf(F_spr, 1, d2))
    return score, F_loc, F_spr


def _band(obs, null):
    eps = 1e-9 * max(1.0, abs(obs))
    return np.mean(null > obs + eps), np.mean(null >= obs - eps)


def _assert_in_band(p, lo, hi):
    se = np.sqrt(max(lo * (1 - lo), hi * (1 - hi)) / DRAWS)
    assert lo - 5 * se - 1 / DRAWS <= p <= hi + 5 * se + 1 / DRAWS, (p, lo, hi)
    return se


def _branch(x, w, **kw):
    X = x[:, None]
    return rank_branch(
        X, np.array([0]), tie_factor(X), Y, 2, w, np.random.RandomState(0), draws=DRAWS, **kw
    )


# Class 0 in the middle of the ranks, class 1 at both ends: a spread difference, no shift
# (p about 0.25; 0.46 with a location share of 1 + w).
SPREAD_ONLY = np.array([2.0, 5, 6, 7, 8, 9, 0, 1, 3, 4, 10, 11])
# A smaller spread difference and a small shift (p about 0.25; 0.37 with 1 + w).
SHIFT_AND_SPREAD = np.array([3.0, 4, 5, 7, 8, 10, 0, 1, 2, 6, 9, 11])
# A moderate shift with three zeros tied (tie factor 24 / 1716 = 0.014).
TIED_SHIFT = np.array([0.0, 0, 2, 3, 5, 7, 0, 4, 6, 8, 9, 10])


def test_a_tied_stratum_is_scored_against_its_own_scores():
    labels = np.vstack([Y, _all_labellings()])
    score, F_loc, _ = _exact(TIED_SHIFT, labels, 1.0, 0.0)
    lo, hi = _band(score[0], score[1:])
    branch = _branch(TIED_SHIFT, 0.0)
    assert branch.strata.tolist() == [1]
    assert branch.location[0] == pytest.approx(F_loc[0], rel=1e-12)
    se = _assert_in_band(branch.pvalues[0], lo, hi)
    assert 0.02 < lo <= hi < 0.5
    # The draws' location F against the observed score (two scales): far outside the band.
    wrong = np.mean(F_loc[1:] >= score[0])
    assert abs(wrong - hi) > 10 * se


@pytest.mark.parametrize("x", [SPREAD_ONLY, SHIFT_AND_SPREAD])
def test_the_spread_weight_sets_the_combined_score_of_untied_features(x):
    labels = np.vstack([Y, _all_labellings()])
    w = 0.3
    score, F_loc, F_spr = _exact(x, labels, 1 - w, w)
    lo, hi = _band(score[0], score[1:])
    branch = _branch(x, w, untied_draws=DRAWS)
    assert branch.strata.tolist() == [0]
    assert branch.location[0] == pytest.approx(F_loc[0], rel=1e-12, abs=1e-12)
    assert branch.spread[0] == pytest.approx(F_spr[0], rel=1e-10)
    se = _assert_in_band(branch.pvalues[0], lo, hi)
    # The location share taken as 1 + w instead of 1 - w: another p-value.
    wrong, _, _ = _exact(x, labels, 1 + w, w)
    assert abs(np.mean(wrong[1:] >= wrong[0]) - hi) > 10 * se


def test_the_combined_score_takes_the_f_tails_on_n_minus_c_degrees_of_freedom():
    # Location and spread tails weigh differently on other degrees of freedom: with n + C
    # (14) this feature's p-value is 0.188 instead of 0.236.
    x = np.array([2.0, 3, 8, 5, 7, 4, 0, 9, 10, 6, 11, 1])
    labels = np.vstack([Y, _all_labellings()])
    score, _, _ = _exact(x, labels, 0.7, 0.3)
    lo, hi = _band(score[0], score[1:])
    se = _assert_in_band(_branch(x, 0.3, untied_draws=DRAWS).pvalues[0], lo, hi)
    wrong, _, _ = _exact(x, labels, 0.7, 0.3, d2=14)
    assert abs(np.mean(wrong[1:] >= wrong[0] - 1e-9) - hi) > 10 * se


def test_the_spread_weight_sets_the_combined_score_of_tied_features():
    x = SPREAD_ONLY.copy()
    x[[6, 7]] = 0.0  # a tied pair (class 1's two lowest): the feature's own stratum
    labels = np.vstack([Y, _all_labellings()])
    w = 0.3
    score, _, F_spr = _exact(x, labels, 1 - w, w)
    lo, hi = _band(score[0], score[1:])
    branch = _branch(x, w)
    assert branch.strata.tolist() == [1]
    assert branch.spread[0] == pytest.approx(F_spr[0], rel=1e-10)
    se = _assert_in_band(branch.pvalues[0], lo, hi)
    wrong, _, _ = _exact(x, labels, 1 + w, w)
    assert abs(np.mean(wrong[1:] >= wrong[0]) - hi) > 10 * se


def test_the_untied_null_draws_exactly_the_requested_labellings(monkeypatch):
    # Chunks of 7 labellings: 20 draws are 7 + 7 + 6 (a floor of 1 / 21), 14 are 7 + 7.
    monkeypatch.setattr(rank_null, "_UNTIED_CHUNK", 7)
    for draws in (20, 14, 1):
        branch = _branch(SPREAD_ONLY, 0.0, untied_draws=draws)
        assert branch.min_pvalues.tolist() == [1.0 / (draws + 1.0)]
        assert branch.pvalues[0] >= 1.0 / (draws + 1.0)


def test_scores_refuse_labels_of_another_length():
    # The compiled statistics do not check bounds: a labelling shorter than the ranks would
    # be read past its end.
    R = np.arange(1.0, 8.0)[:, None]
    counts = np.array([3.0, 3.0])
    labels = np.array([[0, 0, 0, 1, 1, 1]])
    with pytest.raises(ValueError, match=r"^6 labels for 7 ranks\.$"):
        rank_null._scores(R, labels, 2, counts, np.array([0.0, -np.inf]))


def test_the_draws_are_set_by_the_seed():
    x = np.column_stack([SHIFT_AND_SPREAD, TIED_SHIFT])
    ties = tie_factor(x)

    def run(seed):
        return rank_branch(
            x,
            np.arange(2),
            ties,
            Y,
            2,
            0.3,
            np.random.RandomState(seed),
            draws=500,
            untied_draws=500,
        ).pvalues

    np.testing.assert_array_equal(run(1), run(1))
    assert not np.array_equal(run(1), run(2))


def test_the_kernel_rule_sees_the_work_of_the_call(monkeypatch):
    # Labellings x examples x features: the rule picks numpy or the compiled kernels by it.
    import widefs.univariate._screen_numpy as screen_numpy

    seen = []
    rule = screen_numpy.rank_f_kernel

    def spy(work):
        seen.append(work)
        return rule(work)

    monkeypatch.setattr(screen_numpy, "rank_f_kernel", spy)
    R = np.argsort(np.random.default_rng(0).random((7, 3)), axis=0) + 1.0
    labels = np.array(
        [np.random.default_rng(s).permutation([0, 0, 0, 1, 1, 1, 1]) for s in range(5)]
    )
    rank_null._scores(R, labels, 2, np.array([3.0, 4.0]), np.array([0.0, -np.inf]))
    assert seen == [5 * 7 * 3]


def _labellings_seen(monkeypatch, n_classes):
    seen = []
    scores = rank_null._scores

    def spy(R, labels, *args):
        if labels.shape[0] > 1:
            seen.append(labels)
        return scores(R, labels, *args)

    monkeypatch.setattr(rank_null, "_scores", spy)
    monkeypatch.setattr(rank_null, "_fused", lambda n, n_classes, work: False)  # labellings made
    y = np.repeat(np.arange(n_classes), 2)
    X = np.random.default_rng(1).normal(size=(y.size, 1))
    rank_branch(
        X, np.array([0]), tie_factor(X), y, n_classes, 0.0, np.random.RandomState(0), untied_draws=3
    )
    return seen, y


@pytest.mark.parametrize(("n_classes", "dtype"), [(256, np.uint8), (257, np.uint16)])
def test_labellings_are_held_in_the_narrowest_integers_that_hold_every_class(
    monkeypatch, n_classes, dtype
):
    seen, y = _labellings_seen(monkeypatch, n_classes)
    assert [labels.dtype for labels in seen] == [np.dtype(dtype)]
    # Every class keeps its code and its size in every labelling (no wrap-around).
    for row in seen[0]:
        np.testing.assert_array_equal(np.bincount(row, minlength=n_classes), np.bincount(y))


def _replayed_draws(n_draws, before=0, seed=0):
    """The untied null's labellings replayed from the seed, after ``before`` labellings
    drawn for a tied stratum."""
    gen = np.random.default_rng(np.random.RandomState(seed).randint(np.iinfo(np.int32).max))
    codes = Y.astype(np.uint8)
    if before:
        gen.permuted(np.tile(codes, (before, 1)), axis=1)
    return gen.permuted(np.tile(codes, (n_draws, 1)), axis=1)


@pytest.mark.parametrize("tied", [False, True])
def test_the_untied_null_is_the_draws_that_follow_the_strata_ones(monkeypatch, tied):
    # The untied null's labellings are the generator's next ones after the tied strata's
    # (none drawn for stratum 0), and its p-value is that of those draws scored by the
    # reference F.
    drawn = []
    scores = rank_null._scores

    def spy(R, labels, *args):
        if labels.shape[0] > 1 and np.array_equal(R[:, 0], np.arange(1.0, 13.0)):
            drawn.append(labels.copy())
        return scores(R, labels, *args)

    monkeypatch.setattr(rank_null, "_scores", spy)
    # The labellings as a matrix (the compiled path draws the same ones without one:
    # test_rank_kernels.py).
    monkeypatch.setattr(rank_null, "_fused", lambda n, n_classes, work: False)
    x = SHIFT_AND_SPREAD
    X = np.column_stack([x, TIED_SHIFT]) if tied else x[:, None]
    branch = rank_branch(
        X,
        np.arange(X.shape[1]),
        tie_factor(X),
        Y,
        2,
        0.3,
        np.random.RandomState(0),
        draws=300,
        untied_draws=2_000,
    )
    assert branch.strata.tolist() == ([0, 1] if tied else [0])
    labels = _replayed_draws(2_000, before=300 if tied else 0)
    np.testing.assert_array_equal(np.vstack(drawn), labels)
    null, _, _ = _exact(np.arange(1.0, 13.0), labels, 0.7, 0.3)
    obs = _exact(x, Y[None, :], 0.7, 0.3)[0][0]
    eps = 1e-9 * abs(obs)
    strict, loose = ((1 + np.sum(null >= obs + s * eps)) / 2_001 for s in (1, -1))
    assert strict <= branch.pvalues[0] <= loose


def test_a_sparse_matrix_is_read_through_its_blocks():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(12, 6)) * (rng.random((12, 6)) < 0.6)
    ties = tie_factor(X)
    dense = rank_branch(
        X, np.arange(6), ties, Y, 2, 0.3, np.random.RandomState(0), draws=200, untied_draws=200
    )
    sparse = rank_branch(
        sp.csc_array(X),
        np.arange(6),
        ties,
        Y,
        2,
        0.3,
        np.random.RandomState(0),
        draws=200,
        untied_draws=200,
    )
    np.testing.assert_array_equal(sparse.pvalues, dense.pvalues)
    np.testing.assert_array_equal(sparse.location, dense.location)


def test_blocks_hold_four_float64_temporaries_per_entry(monkeypatch):
    # With room for 3 columns of 12 examples x 32 bytes, the branch reads blocks of 3.
    widths = []
    width, read = rank_null.block_width, rank_null._read
    monkeypatch.setattr(
        rank_null, "block_width", lambda n, b=8: width(n, b, max_bytes=3 * 12 * 32 + 31)
    )

    def spy(X, columns, lazy):
        widths.append(columns.size)
        return read(X, columns, lazy)

    monkeypatch.setattr(rank_null, "_read", spy)
    X = np.random.default_rng(3).normal(size=(12, 7))
    rank_branch(
        X, np.arange(7), tie_factor(X), Y, 2, 0.0, np.random.RandomState(0), untied_draws=10
    )
    assert widths == [3, 3, 1]
