"""The calibrated nulls: permutations, batched scorers and the selector's permutation path.

Oracles: one-label-vector calls of the scorers (themselves checked against scikit-learn
in test_scores.py), scikit-learn GaussianNB refits, and direct refits of the selector on
relabelled data.
"""

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.naive_bayes import GaussianNB

from widefs.exceptions import NothingSelectedWarning
from widefs.stats import benjamini_hochberg, binomial_tail, expected_min_errors
from widefs.univariate import (
    DiscriminativeSelector,
    gaussian_nb_split_errors,
    halves_masks,
    label_permutations,
    split_cells,
    stump_split_errors,
)

# The deprecated continuous statistics of DiscriminativeSelector are still tested here.
pytestmark = pytest.mark.filterwarnings("ignore:DiscriminativeSelector.*deprecated:FutureWarning")

SCORERS = {"gaussian_nb": gaussian_nb_split_errors, "stump": stump_split_errors}


def noise(n_per_class, F, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    return rng.normal(size=(y.size, F)), y


def block_correlated(n_per_class, n_blocks, block, rho, seed=0):
    """Pure noise with blocks of ``block`` features, within-block correlation ``rho``."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    shared = rng.normal(size=(y.size, n_blocks, 1))
    own = rng.normal(size=(y.size, n_blocks, block))
    X = np.sqrt(rho) * shared + np.sqrt(1 - rho) * own
    return X.reshape(y.size, n_blocks * block), y


# ---------------------------------------------------------------- cells and permutations


def test_split_cells_of_halves_folds_and_overlapping_splits():
    y = np.repeat([0, 1], [7, 5])
    tr, va = halves_masks(y, 2, 0)
    cells = split_cells(tr[None], va[None])
    assert set(cells[tr]) == {cells[tr][0]} and set(cells[va]) == {cells[va][0]}
    assert cells[tr][0] != cells[va][0]
    folds = list(KFold(4).split(np.zeros((12, 1))))
    train = np.array([np.isin(np.arange(12), a) for a, _ in folds])
    val = np.array([np.isin(np.arange(12), b) for _, b in folds])
    assert split_cells(train, val).tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    # Overlapping validation sets: examples with equal roles in every split share a cell.
    train = np.array([[1, 1, 0, 0, 1, 0], [1, 0, 1, 0, 1, 0]], bool)
    val = ~train
    assert split_cells(train, val).tolist() == [0, 1, 2, 3, 0, 3]


def test_permutations_stay_in_cells_and_keep_every_class_count():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 40)
    cells = rng.integers(0, 4, 40)
    perms = label_permutations(cells, 300, random_state=1)
    assert perms.shape == (300, 40)
    assert (np.sort(perms, axis=1) == np.arange(40)).all()  # each row is a permutation
    assert (cells[perms] == cells).all()
    for c in range(4):
        in_cell = cells == c
        for row in perms[:20]:
            assert (
                np.bincount(y[row][in_cell], minlength=3) == np.bincount(y[in_cell], minlength=3)
            ).all()


def test_permutations_are_uniform_within_a_cell():
    # A cell of 3 examples has 3! = 6 orderings; 6000 draws: chi-square against uniform.
    cells = np.array([0, 1, 0, 1, 0])
    perms = label_permutations(cells, 6000, random_state=2)
    sub = perms[:, [0, 2, 4]]
    index = {p: k for k, p in enumerate(itertools.permutations([0, 2, 4]))}
    counts = np.bincount([index[tuple(r)] for r in sub], minlength=6)
    assert stats.chisquare(counts).pvalue > 1e-3
    # The other cell's two orderings, independently of the first.
    swapped = perms[:, 1] == 3
    assert abs(swapped.mean() - 0.5) < 4 * np.sqrt(0.25 / 6000)


def test_permutations_reproducible_from_random_state():
    cells = np.repeat([0, 1], 10)
    a = label_permutations(cells, 5, random_state=3)
    np.testing.assert_array_equal(a, label_permutations(cells, 5, random_state=3))
    assert (a != label_permutations(cells, 5, random_state=4)).any()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"cells": np.zeros((2, 2)), "n_permutations": 3}, "one-dimensional"),
        ({"cells": np.zeros(4), "n_permutations": 0}, "positive integer"),
        ({"cells": np.zeros(4), "n_permutations": 2.5}, "positive integer"),
    ],
)
def test_permutation_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        label_permutations(**kwargs)


def test_split_cells_shape_mismatch():
    with pytest.raises(ValueError, match="same shape"):
        split_cells(np.ones((1, 4), bool), np.ones((2, 4), bool))


# ---------------------------------------------------------------- batched scorers


def awkward(seed, n=33, F=80, C=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F)) * rng.uniform(0.01, 100, F) + rng.uniform(-1e3, 1e3, F)
    X[:, 3] = 7.0  # constant
    X[:, 4] = np.round(X[:, 4] / 50)  # heavy ties
    X[:, 5] = X[:, 4] * 0  # constant zero
    y = np.arange(n) % C
    rng.shuffle(y)
    return X, y


@pytest.mark.parametrize("scorer", sorted(SCORERS))
@pytest.mark.parametrize("C", [2, 3])
def test_batched_scorer_equals_one_label_vector_at_a_time(scorer, C):
    X, y = awkward(C + (scorer == "stump"), C=C)
    folds = list(KFold(3, shuffle=True, random_state=0).split(X))
    train = np.array([np.isin(np.arange(y.size), a) for a, _ in folds])
    val = ~train
    perms = label_permutations(split_cells(train, val), 25, random_state=0)
    labels = y[perms]
    score = SCORERS[scorer]
    batch = score(X, labels, C, train, val)
    assert batch.shape == (25, 3, X.shape[1])
    loop = np.stack([score(X, labels[b], C, train, val) for b in range(25)])
    np.testing.assert_array_equal(batch, loop)


def test_batched_naive_bayes_equals_sklearn_refits():
    X, y = awkward(7, F=12)
    tr, va = halves_masks(y, 2, 0)
    perms = label_permutations(split_cells(tr[None], va[None]), 4, random_state=0)
    got = gaussian_nb_split_errors(X, y[perms], 2, tr[None], va[None])[:, 0]
    for b, j in itertools.product(range(4), range(X.shape[1])):
        if np.ptp(X[tr, j]) == 0:
            continue  # sklearn divides by zero on a constant training column
        yb = y[perms[b]]
        clf = GaussianNB().fit(X[tr][:, [j]], yb[tr])
        assert got[b, j] == (clf.predict(X[va][:, [j]]) != yb[va]).sum(), (b, j)


def test_label_matrix_validation():
    X, y = awkward(0, F=8)
    tr, va = halves_masks(y, 2, 0)
    with pytest.raises(ValueError, match="n_samples = 33"):
        gaussian_nb_split_errors(X, np.zeros((2, 5), int), 2, tr[None], va[None])
    with pytest.raises(ValueError, match=r"lie in 0\.\.1"):
        stump_split_errors(X, np.full((2, 33), 2), 2, tr[None], va[None])


# ---------------------------------------------------------------- the selector's null


def brute_force_null(X, y_codes, n_classes, train, val, perms, scorer):
    """Refit every feature on every permutation, one labelling at a time."""
    eligible = np.ptp(X, axis=0) > 0
    errs = np.stack(
        [SCORERS[scorer](X, y_codes[p], n_classes, train, val).sum(axis=0) for p in perms]
    )[:, eligible]
    return errs


@pytest.mark.parametrize(
    ("scorer", "C", "cv"),
    [("gaussian_nb", 2, "halves"), ("stump", 2, "halves"), ("gaussian_nb", 3, 3), ("stump", 3, 3)],
)
def test_permutation_null_equals_brute_force_refits(scorer, C, cv):
    X, y = awkward(11 + C, n=36, F=60, C=C)
    sel = DiscriminativeSelector(
        "all", scorer=scorer, cv=cv, null="permutation", n_permutations=40, random_state=5
    ).fit(X, y)
    rng = np.random.RandomState(5)
    if cv == "halves":
        tr, va = halves_masks(y, C, rng)
        train, val = tr[None], va[None]
    else:
        folds = StratifiedKFold(cv, shuffle=True, random_state=rng).split(X, y)
        train = np.array([np.isin(np.arange(y.size), a) for a, _ in folds])
        val = ~train
    cells = split_cells(train, val)
    assert (cells[sel.permutations_] == cells).all()
    errs = brute_force_null(X, y, C, train, val, sel.permutations_, scorer)
    eligible = ~sel.constant_features_
    np.testing.assert_array_equal(sel.null_min_errors_, errs.min(axis=1))
    assert sel.expected_min_errors_ == pytest.approx(errs.min(axis=1).mean(), rel=1e-12)
    assert sel.expected_errors_ == pytest.approx(errs.mean(), rel=1e-12)
    observed = sel.n_errors_[eligible]
    want = (1 + (errs <= observed).sum(axis=0)) / (1 + 40)
    np.testing.assert_array_equal(sel.pvalues_[eligible], want)
    assert (sel.pvalues_[~eligible] == 1).all()


def test_null_auto_is_analytic_for_halves_and_permutation_for_folds():
    X, y = noise([20, 20], 30)
    assert DiscriminativeSelector(random_state=0).fit(X, y).null_ == "analytic"
    sel = DiscriminativeSelector(cv=4, n_permutations=20, random_state=0).fit(X, y)
    assert sel.null_ == "permutation" and sel.null_min_errors_.shape == (20,)
    assert DiscriminativeSelector(cv=4, null="analytic").fit(X, y).null_ == "analytic"


def test_permutation_thresholds_use_the_permutation_null():
    X, y = noise([30, 30], 300, seed=4)
    X[:, :5] += 1.8 * y[:, None]
    sel = DiscriminativeSelector(null="permutation", n_permutations=100, random_state=0).fit(X, y)
    assert sel.threshold_ == pytest.approx(0.5 * (sel.expected_errors_ + sel.expected_min_errors_))
    np.testing.assert_array_equal(sel.get_support(), sel.n_errors_ < sel.threshold_)
    mc = DiscriminativeSelector(
        "max_chance", null="permutation", n_permutations=100, random_state=0
    ).fit(X, y)
    assert mc.threshold_ == sel.expected_min_errors_
    # BH needs k p-values <= 0.05 k / M: with M = 100 and 400 permutations (smallest
    # p-value 1/401), at least 5 strong features: ten planted here.
    Xs = X[:, :100].copy()
    Xs[:, 5:10] += 1.8 * y[:, None]
    fdr = DiscriminativeSelector(
        "fdr", statistic="errors", null="permutation", n_permutations=400, random_state=0
    )
    fdr.fit(Xs, y)
    np.testing.assert_array_equal(fdr.get_support(), benjamini_hochberg(fdr.pvalues_) <= 0.05)
    assert fdr.get_support()[:10].sum() >= 5 and fdr.get_support()[10:].sum() <= 2


def test_bonferroni_warning_names_the_permutation_floor():
    X, y = noise([20, 20], 100)
    with pytest.warns(NothingSelectedWarning, match="smallest p-value this null can give is 0.02"):
        DiscriminativeSelector(
            "bonferroni", statistic="errors", null="permutation", n_permutations=49, random_state=0
        ).fit(X, y)


# ---------------------------------------------------------------- acceptance: pure noise


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("scorer", ["gaussian_nb", "stump"])
def test_imbalanced_noise_48_12_keeps_at_most_ten_percent(seed, scorer):
    X, y = noise([48, 12], 2000, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        for threshold in ["mgm", "max_chance", "fdr", "bonferroni"]:
            for statistic in ["auto", "errors"]:
                sel = DiscriminativeSelector(
                    threshold, statistic=statistic, scorer=scorer, random_state=seed
                ).fit(X, y)
                assert sel.get_support().sum() <= 200, threshold
            # The paper's literal chance rate is what kept 1980 of them.
            assert sel.p_error_ == pytest.approx(6 / 30)
    paper = DiscriminativeSelector(
        scorer=scorer, p_error="uniform", null="analytic", random_state=seed
    ).fit(X, y)
    assert paper.get_support().sum() > 1000


def test_imbalanced_noise_permutation_null_keeps_at_most_ten_percent():
    X, y = noise([48, 12], 2000, seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NothingSelectedWarning)
        for threshold in ["mgm", "max_chance", "fdr", "bonferroni"]:
            sel = DiscriminativeSelector(
                threshold, null="permutation", n_permutations=200, random_state=0
            ).fit(X, y)
            assert sel.get_support().sum() <= 200, threshold


def test_extreme_imbalance_398_2_bonferroni_keeps_none():
    X, y = noise([398, 2], 2000, seed=3)
    with pytest.warns(NothingSelectedWarning, match="the floor, not the data, decided"):
        sel = DiscriminativeSelector(
            "bonferroni", statistic="errors", null="analytic", random_state=0
        ).fit(X, y)
    assert sel.get_support().sum() == 0
    assert sel.p_error_ == pytest.approx(1 / 200)
    assert sel.min_pvalue_ == pytest.approx(binomial_tail(0, 200, 1 / 200))
    # Not even a perfect feature could pass: P(Binomial(200, 1/200) <= 0) = 0.367.
    assert binomial_tail(0, 200, 1 / 200) > 0.05 / 2000


# ---------------------------------------------------------------- acceptance: correlation


def test_permutation_expected_min_errors_matches_relabelled_refits_on_correlated_noise():
    X, y = block_correlated([30, 30], 20, 50, 0.8, seed=5)
    sel = DiscriminativeSelector(null="permutation", n_permutations=300, random_state=0).fit(X, y)
    rng = np.random.default_rng(6)
    minima = [
        DiscriminativeSelector("all", random_state=k).fit(X, rng.permutation(y)).n_errors_.min()
        for k in range(30)
    ]
    assert abs(sel.expected_min_errors_ - np.mean(minima)) <= 1.0
    # The analytic value assumes 1000 independent features and is stricter.
    analytic = expected_min_errors(1000, sel.n_validation_, sel.p_error_)
    assert analytic < sel.expected_min_errors_


# ---------------------------------------------------------------- uniform p-values (KS)


def test_permutation_pvalues_are_uniform_under_the_null():
    """Monte Carlo: one feature of 300 independent null data sets, 49 permutations each.

    Error counts tie, so the +1 p-value is conservative (its CDF lies below the
    diagonal); breaking the ties at random in the same permutations gives the exactly
    uniform randomized p-value, checked by a two-sided KS test.
    """
    rng = np.random.default_rng(7)
    randomized, reported = [], []
    B = 49
    for rep in range(300):
        X, y = noise([22, 8], 2, seed=1000 + rep)
        sel = DiscriminativeSelector(
            "all", null="permutation", n_permutations=B, random_state=rep
        ).fit(X, y)
        tr, va = halves_masks(y, 2, np.random.RandomState(rep))
        null = gaussian_nb_split_errors(X[:, :1], y[sel.permutations_], 2, tr[None], va[None])
        null = null[:, 0, 0]
        obs = sel.n_errors_[0]
        below, ties = (null < obs).sum(), (null == obs).sum()
        randomized.append((below + rng.uniform() * (ties + 1)) / (B + 1))
        reported.append(sel.pvalues_[0])
    assert stats.kstest(randomized, "uniform").pvalue > 0.01
    reported = np.array(reported)
    # Valid: P(p <= a) <= a up to Monte Carlo error (binomial SE at 300 draws).
    for a in [0.02, 0.1, 0.3, 0.5]:
        assert (reported <= a).mean() <= a + 3 * np.sqrt(a * (1 - a) / 300)
    assert stats.kstest(reported, "uniform", alternative="greater").pvalue > 0.01


def test_permutation_null_needs_room_to_permute():
    # Leave-one-out: every example is its own cell; labels cannot move.
    X, y = noise([5, 5], 4)
    from sklearn.model_selection import LeaveOneOut

    with pytest.raises(ValueError, match="no room for label permutations"):
        DiscriminativeSelector(cv=LeaveOneOut(), null="permutation").fit(X, y)
    # null="auto" falls back to the analytic null and says so.
    with pytest.warns(UserWarning, match="no room for label permutations"):
        sel = DiscriminativeSelector("all", cv=LeaveOneOut()).fit(X, y)
    assert sel.null_ == "analytic"


@pytest.mark.parametrize("classes", [(48, 12), (40, 15, 5)])
def test_shown_best_chance_errors_match_fresh_noise(classes):
    # Acceptance: on imbalanced pure noise the expected best chance errors the selector (and
    # the report) show are within 0.5 errors of the mean best errors of fresh noise data sets;
    # the analytic value is flagged as a bound, and is far below.
    X, y = noise(list(classes), 2000, seed=0)
    sel = DiscriminativeSelector(random_state=0).fit(X, y)
    assert sel.null_ == "permutation"
    analytic = sel.chance_nulls_["analytic"]
    assert analytic.is_bound and analytic.expected_min_errors < sel.expected_min_errors_ - 1.5
    fresh = [
        DiscriminativeSelector("all", null="analytic", random_state=k)
        .fit(*noise(list(classes), 2000, seed=1000 + k))
        .n_errors_.min()
        for k in range(30)
    ]
    assert abs(sel.expected_min_errors_ - np.mean(fresh)) <= 0.5
