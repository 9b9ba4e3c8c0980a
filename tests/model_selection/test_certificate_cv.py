"""Cross-validated certificates: exact nulls against scikit-learn's own cross-validation,
calibration on null data, power where the search score saturates, and the verdicts."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import PredefinedSplit, cross_val_predict
from sklearn.naive_bayes import GaussianNB

from widefs.model_selection import SearchCertificate, search_certificate
from widefs.model_selection._cross_validated import stratified_folds
from widefs.rules import CN2Classifier
from widefs.univariate import DiscriminativeSelector, label_permutations


class Centroid(ClassifierMixin, BaseEstimator):
    """Nearest class mean, in plain numpy (fast enough for hundreds of certificates)."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.means_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, X):
        d = ((np.asarray(X)[:, None, :] - self.means_[None]) ** 2).sum(axis=2)
        return self.classes_[np.argmin(d, axis=1)]


class Blind(Centroid):
    """A nearest-centroid classifier that says it uses no feature (``get_support``)."""

    def get_support(self):
        return np.zeros(self.means_.shape[1], bool)


class Perfect(Centroid):
    """A nearest-centroid classifier whose 'search' always scores the maximum, like CN2's
    training accuracy on wide data."""

    def fit(self, X, y):
        self.search_score_ = 1.0
        return super().fit(X, y)


def _folds_by_hand(y, n_splits, seed):
    """The documented fold rule, written out: shuffle by the seed, group by class, deal."""
    order = np.random.RandomState(seed).permutation(len(y)).tolist()
    dealt = [i for c in sorted(set(y.tolist())) for i in order if y[i] == c]
    fold = np.empty(len(y), int)
    for position, i in enumerate(dealt):
        fold[i] = position % n_splits
    return fold


def _oracle(est, X, y, cert, scoring):
    """The score by scikit-learn's cross_val_predict on the folds the certificate fixed."""
    real = cert.cross_validation
    folds = PredefinedSplit(_folds_by_hand(y, real.n_splits, real.seed))
    pred = cross_val_predict(clone(est), X, y, cv=folds)
    return np.mean(pred == y) if scoring == "accuracy" else balanced_accuracy_score(y, pred)


def test_stratified_folds_spread_every_class():
    rng = np.random.default_rng(9)
    for n_splits in (2, 3, 5):
        y = rng.choice(["a", "b", "c"], size=37, p=[0.6, 0.3, 0.1])
        y[:n_splits] = "c"  # every class at least n_splits times
        for seed in (0, 1, 2**31 - 2):
            folds = stratified_folds(y, n_splits, seed)
            np.testing.assert_array_equal(folds, _folds_by_hand(y, n_splits, seed))
            sizes = np.bincount(folds, minlength=n_splits)
            assert sizes.max() - sizes.min() <= 1
            for c in "abc":
                per_class = np.bincount(folds[y == c], minlength=n_splits)
                assert per_class.max() - per_class.min() <= 1
        assert not np.array_equal(
            stratified_folds(y, n_splits, 0), stratified_folds(y, n_splits, 1)
        )


@pytest.mark.parametrize("scoring", ["accuracy", "balanced_accuracy"])
def test_cv_null_scores_equal_cross_val_predict(scoring):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(26, 5))
    y = np.array(["a"] * 18 + ["b"] * 8)
    X[y == "b", 0] += 1.5
    cert = search_certificate(
        GaussianNB(), X, y, score="cv", cv=4, scoring=scoring, n_permutations=6, random_state=3
    )
    assert cert.score == "cv" and cert.scoring == scoring and cert.cross_validation.n_splits == 4
    assert cert.observed == pytest.approx(_oracle(GaussianNB(), X, y, cert, scoring), abs=1e-15)
    oracle = [_oracle(GaussianNB(), X, y[p], cert, scoring) for p in cert.permutations]
    np.testing.assert_allclose(cert.null_scores, oracle, rtol=0, atol=1e-15)
    assert len(set(oracle)) > 1
    # The permutations are those of score="search" with the same seed (one draw, same order).
    np.testing.assert_array_equal(
        cert.permutations, label_permutations(np.zeros(26, int), 6, random_state=3)
    )
    real = cert.cross_validation
    assert real.accuracy == pytest.approx(np.mean(real.predictions == y), abs=1e-15)
    assert real.balanced_accuracy == pytest.approx(balanced_accuracy_score(y, real.predictions))
    np.testing.assert_allclose(
        real.class_recall, [np.mean(real.predictions[y == c] == c) for c in ("a", "b")]
    )
    assert real.n_selected is None  # GaussianNB does not say which features it uses


def test_cv_certificate_of_cn2_is_exact_and_takes_frames():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(24, 8)), columns=[f"g{i}" for i in range(8)])
    y = np.repeat([0, 1], 12)
    X.loc[y == 1, "g2"] += 2
    est = CN2Classifier(max_rule_length=1)
    cert = search_certificate(est, X, y, score="cv", n_permutations=4, random_state=0)
    oracle = [_oracle(est, X, y[p], cert, "accuracy") for p in cert.permutations]
    np.testing.assert_allclose(cert.null_scores, oracle, rtol=0, atol=1e-15)
    assert cert.n_selected.shape == (5,) and cert.n_selected.min() >= 1
    assert cert.estimator.rules_  # fitted on the real labels
    listed = search_certificate(
        est, X.to_numpy().tolist(), y, score="cv", n_permutations=4, random_state=0
    )
    np.testing.assert_array_equal(listed.null_scores, cert.null_scores)


def test_cv_certificate_does_not_depend_on_n_jobs():
    from joblib import parallel_config

    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(20, 3)), np.repeat([0, 1], 10)
    one = search_certificate(Centroid(), X, y, score="cv", n_permutations=9, random_state=1)
    with parallel_config(backend="threading"):
        two = search_certificate(
            Centroid(), X, y, score="cv", n_permutations=9, random_state=1, n_jobs=3
        )
    np.testing.assert_array_equal(one.null_scores, two.null_scores)


@pytest.mark.parametrize(
    "counts, scoring", [((10, 10), "accuracy"), ((14, 6), "balanced_accuracy")]
)
def test_cv_pvalues_calibrated_on_null_data(counts, scoring):
    """200 null datasets, 19 permutations: the rejection rate at 0.05 inside the binomial 99%
    band (3 to 19 of 200); the tie-broken p-value uniform (KS); reported >= tie-broken.
    Certifying the training accuracy on the real labels (or a null not re-cross-validated)
    would make the p-values far too small."""
    rng = np.random.default_rng(12)
    reported, randomized = [], []
    for d in range(200):
        X = rng.normal(size=(sum(counts), 4))
        y = rng.permutation(np.repeat([0, 1], counts))
        cert = search_certificate(
            Centroid(),
            X,
            y,
            score="cv",
            cv=4,
            scoring=scoring,
            n_permutations=19,
            stop_after=None,
            random_state=d,
        )
        reported.append(cert.pvalue)
        randomized.append(cert.randomized_pvalue(rng))
    reported, randomized = np.array(reported), np.array(randomized)
    lo, hi = stats.binom.ppf([0.005, 0.995], 200, 0.05)
    assert lo <= np.count_nonzero(reported <= 0.05) <= hi
    assert lo <= np.count_nonzero(randomized <= 0.05) <= hi
    assert stats.kstest(randomized, "uniform").pvalue > 0.01
    assert np.all(reported >= randomized - 1e-12)


def _planted(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 200))
    y = rng.permutation(np.repeat([0, 1], 20))
    X[:, :3] += 2 * y[:, None]
    return X, y


def test_cn2_cv_certificate_rejects_where_the_training_accuracy_saturates():
    """A 2 SD shift in 3 of 200 features: CN2's training accuracy is at its maximum on the
    pilot's relabellings too (no p-value); "auto" then certifies its cross-validated accuracy
    at p <= 0.05."""
    X, y = _planted(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = search_certificate(
            CN2Classifier(), X, y, score="auto", n_permutations=39, random_state=0
        )
    pilot = auto.replaced
    assert pilot.null_scores[-1] == 1.0 and np.all(pilot.null_scores[:-1] < 1.0)
    assert pilot.n_permutations <= 4 and pilot.score == "search" and pilot.observed == 1.0
    assert auto.score == "cv" and auto.scoring == "accuracy" and auto.uninformative is None
    np.testing.assert_array_equal(
        auto.permutations, label_permutations(np.zeros(40, int), 39, random_state=0)
    )
    assert auto.pvalue <= 0.05 and auto.observed > 0.75 and auto.null_mean < 0.65


def test_auto_draws_the_pilot_after_the_permutations_and_the_folds():
    """The pilot comes from the same RandomState after the null's permutations and the folds'
    seed: reproducible for a seed, independent of the null, and the null's permutations and
    folds are those of score="cv" with the same seed."""
    X, y = _planted(0)
    auto = search_certificate(Perfect(), X, y, score="auto", cv=3, n_permutations=5, random_state=4)
    rng = np.random.RandomState(4)
    perms = label_permutations(np.zeros(40, int), 5, rng)
    seed = rng.randint(np.iinfo(np.int32).max)
    pilot = label_permutations(np.zeros(40, int), 4, rng)
    np.testing.assert_array_equal(auto.replaced.permutations, pilot[:1])  # 1.0 at once
    np.testing.assert_array_equal(auto.permutations, perms)
    assert auto.cross_validation.seed == seed
    cv = search_certificate(Perfect(), X, y, score="cv", cv=3, n_permutations=5, random_state=4)
    np.testing.assert_array_equal(auto.null_scores, cv.null_scores)
    # A classifier without a search score is certified cross-validated, without a pilot.
    plain = search_certificate(Centroid(), X, y, cv=3, n_permutations=5, random_state=4)
    assert plain.score == "cv" and plain.replaced is None
    np.testing.assert_array_equal(
        plain.null_scores,
        search_certificate(
            Centroid(), X, y, score="cv", cv=3, n_permutations=5, random_state=4
        ).null_scores,
    )


class Coin(Centroid):
    """A search score at the maximum on half of the labellings (by the first label): the
    pilot must stop at the first maximum, or after 4 scores below it."""

    def fit(self, X, y):
        self.search_score_ = 1.0 if y[0] == 1 else 0.5
        return super().fit(X, y)


def test_auto_pilot_stops_at_the_first_maximum():
    X, y = _planted(1)
    decisions = set()
    for state in range(8):
        cert = search_certificate(Coin(), X, y, cv=2, n_permutations=3, random_state=state)
        rng = np.random.RandomState(state)
        label_permutations(np.zeros(40, int), 3, rng)
        rng.randint(np.iinfo(np.int32).max)
        pilot = label_permutations(np.zeros(40, int), 4, rng)
        at_max = y[pilot[:, 0]] == 1
        k = int(np.argmax(at_max)) + 1 if at_max.any() else 4
        expected = "cv" if at_max.any() else "search"
        assert cert.score == expected
        decisions.add(expected)
        if expected == "cv":
            assert cert.replaced.n_permutations == k
            np.testing.assert_array_equal(cert.replaced.permutations, pilot[:k])
    assert decisions == {"cv", "search"}


def test_auto_keeps_an_informative_search_score_and_a_selector():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 10))
    y = (X[:, 0] > 0).astype(int)
    sel = DiscriminativeSelector(null="analytic", random_state=0)
    auto = search_certificate(sel, X, y, score="auto", n_permutations=9, random_state=0)
    plain = search_certificate(sel, X, y, n_permutations=9, random_state=0)
    assert auto.score == "search" and auto.replaced is None
    np.testing.assert_array_equal(auto.null_scores, plain.null_scores)
    # A saturated selector (no predict) keeps its flagged search certificate.
    tiny = rng.normal(size=(8, 2000))
    ty = np.repeat([0, 1], 4)
    sat = search_certificate(sel, tiny, ty, score="auto", n_permutations=9, random_state=0)
    assert sat.score == "search" and sat.uninformative == "null at maximum"


def test_verdicts_by_hand():
    perms = np.zeros((4, 3), int)
    half = SearchCertificate(1.0, np.array([1.0, 1.0, 0.9, 0.8]), perms, None)
    assert half.saturated and half.uninformative == "null at maximum"
    assert half.pvalue_floor == 3 / 5 and half.pvalue == 3 / 5
    below = SearchCertificate(1.0, np.array([1.0, 0.9, 0.9, 0.8]), perms, None)
    assert not below.saturated and below.uninformative is None and below.pvalue_floor == 2 / 5
    none = SearchCertificate(0.9, np.array([0.7, 0.8, 0.9, 0.8]), perms, None)
    assert none.pvalue_floor == 1 / 5 and none.pvalue == 2 / 5
    # A lower maximum (scores out of a different range) moves the verdict.
    assert SearchCertificate(0.9, none.null_scores, perms, None, max_score=0.8).saturated
    empty = SearchCertificate(0.9, none.null_scores, perms, None, n_selected=np.array([0, 0]))
    assert empty.selected_nothing and empty.uninformative == "nothing selected"
    some = SearchCertificate(0.9, none.null_scores, perms, None, n_selected=np.array([0, 1]))
    assert not some.selected_nothing and some.uninformative is None
    # Nothing selected is said before a saturated null.
    both = SearchCertificate(1.0, half.null_scores, perms, None, n_selected=np.array([0]))
    assert both.uninformative == "nothing selected"


def test_nothing_selected_in_every_fold_is_uninformative():
    rng = np.random.default_rng(6)
    X, y = rng.normal(size=(20, 3)), np.repeat([0, 1], 10)
    cert = search_certificate(Blind(), X, y, score="cv", n_permutations=4, random_state=0)
    np.testing.assert_array_equal(cert.n_selected, [0] * 5)
    assert cert.uninformative == "nothing selected"


@pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")
def test_cv_argument_errors_name_the_problem():
    rng = np.random.default_rng(7)
    X, y = rng.normal(size=(12, 3)), np.array([0] * 9 + [1] * 3)
    with pytest.raises(ValueError, match="score must be one of"):
        search_certificate(Centroid(), X, y, score="loo")
    with pytest.raises(
        ValueError,
        match="cv=5 folds need at least 5 examples of every class; the smallest class has 3",
    ):
        search_certificate(Centroid(), X, y, score="cv")
    with pytest.raises(ValueError, match="cv must be an integer of at least 2"):
        search_certificate(Centroid(), X, y, score="cv", cv=1)
    with pytest.raises(ValueError, match="cv must be an integer"):
        search_certificate(Centroid(), X, y, score="cv", cv=True)
    with pytest.raises(ValueError, match="scoring must be one of"):
        search_certificate(Centroid(), X, y, score="cv", cv=3, scoring="f1")
    with pytest.raises(TypeError, match="score='cv' needs a classifier with predict"):
        search_certificate(DiscriminativeSelector(), X, y, score="cv", cv=3)
    with pytest.raises(TypeError, match="or score='cv' for any classifier"):
        search_certificate(Centroid(), X, y, score="search", n_permutations=3)
    # "auto" certifies a classifier without a search score cross-validated: cv=5 fails here.
    with pytest.raises(ValueError, match="cv=5 folds need at least 5"):
        search_certificate(Centroid(), X, y, n_permutations=3)
    with pytest.raises(ValueError, match="stop_after must be a positive integer or None"):
        search_certificate(Centroid(), X, y, stop_after=0)
    with pytest.raises(ValueError, match="stop_after must be a positive integer or None"):
        search_certificate(Centroid(), X, y, stop_after=True)
    # The cv checks apply to "search" only through score: cv=5 is fine there.
    search_certificate(DiscriminativeSelector(null="analytic"), X, y, n_permutations=2)


class BlindSearch(Blind):
    """A classifier whose search kept no feature (its score is the default class's)."""

    def fit(self, X, y):
        self.search_score_ = float(np.mean(y == np.bincount(y).argmax()))
        return super().fit(X, y)


@pytest.mark.filterwarnings("ignore::widefs.exceptions.NothingSelectedWarning")
def test_nothing_selected_counts_for_classifiers_not_for_a_selectors_threshold():
    rng = np.random.default_rng(8)
    X, y = rng.normal(size=(20, 30)), np.repeat([0, 1], 10)
    blind = search_certificate(BlindSearch(), X, y, n_permutations=4, random_state=0)
    np.testing.assert_array_equal(blind.n_selected, [0])
    assert blind.uninformative == "nothing selected"
    # A selector certifies its best find whatever its threshold keeps (here nothing).
    sel = DiscriminativeSelector("max_chance", null="analytic", random_state=0)
    assert not sel.fit(X, y).get_support().any()
    cert = search_certificate(sel, X, y, n_permutations=4, random_state=0)
    assert cert.n_selected is None and not cert.selected_nothing
