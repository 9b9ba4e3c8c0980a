import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom, false_discovery_control
from sklearn.model_selection import KFold, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline

from widefs.exceptions import NothingSelectedWarning
from widefs.stats import expected_min_errors, mgm_threshold
from widefs.univariate import DiscriminativeSelector, threshold_in_errors

# The deprecated continuous statistics of DiscriminativeSelector are still tested here.
pytestmark = pytest.mark.filterwarnings("ignore:DiscriminativeSelector.*deprecated:FutureWarning")


def planted(n=40, F=2000, informative=10, shift=2.0, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.normal(size=(n, F))
    X[:, :informative] += shift * y[:, None]
    return X, y


def test_mgm_keeps_planted_and_rejects_noise():
    X, y = planted()
    sel = DiscriminativeSelector(random_state=0).fit(X, y)
    support = sel.get_support()
    assert support[:10].sum() >= 8
    # A noise feature's errors are about Binomial(20, 1/2); MGM (6.65 errors here) passes
    # P(X <= 6) = 5.8% of them: the price of MGM's power, checked within 5 standard errors.
    rate = binom.cdf(np.ceil(sel.threshold_) - 1, 20, 0.5)
    se = np.sqrt(1990 * rate * (1 - rate))
    assert abs(support[10:].sum() - 1990 * rate) < 5 * se
    assert sel.n_validation_ == 20 and sel.n_scored_ == 2000
    assert sel.threshold_ == pytest.approx(mgm_threshold(2000, 20, 0.5))
    assert sel.expected_min_errors_ == pytest.approx(expected_min_errors(2000, 20, 0.5))
    assert sel.expected_errors_ == 10.0
    np.testing.assert_array_equal(support, sel.n_errors_ < sel.threshold_)
    np.testing.assert_allclose(sel.scores_, 1 - sel.n_errors_ / 20)


def test_fdr_matches_scipy_bh():
    X, y = planted(seed=1)
    sel = DiscriminativeSelector("fdr", random_state=0).fit(X, y)
    adjusted = false_discovery_control(sel.pvalues_, method="bh")
    np.testing.assert_array_equal(sel.get_support(), adjusted <= 0.05)


def test_bonferroni_is_stricter_than_fdr():
    X, y = planted(seed=2, shift=3.0)
    fdr = DiscriminativeSelector("fdr", random_state=0).fit(X, y).get_support()
    bonf = DiscriminativeSelector("bonferroni", random_state=0).fit(X, y).get_support()
    assert bonf.sum() <= fdr.sum()
    assert not (bonf & ~fdr).any()


def test_threshold_order_on_the_same_errors():
    X, y = planted(seed=3)
    counts = {
        t: DiscriminativeSelector(t, random_state=0).fit(X, y).get_support().sum()
        for t in ["max_chance", "mgm", "all"]
    }
    assert counts["max_chance"] <= counts["mgm"] <= counts["all"] == 2000


def test_k_best_ties_to_lower_index():
    errors = np.array([3, 1, 3, 3, 0])
    cut, sel = threshold_in_errors(3, errors, 10, 0.5)
    assert sel.tolist() == [True, True, False, False, True]
    assert cut == 4
    cut, sel = threshold_in_errors(0.25, errors, 10, 0.5)
    assert cut == 2.5 and sel.tolist() == [False, True, False, False, True]


def test_constant_features_never_selected_no_warnings():
    X, y = planted(F=50)
    X[:, 0] = 1.0  # informative column made constant
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        sel = DiscriminativeSelector("all", random_state=0).fit(X, y)
    assert sel.constant_features_[0] and not sel.get_support()[0]
    assert sel.pvalues_[0] == 1.0 and sel.n_scored_ == 49


def test_nothing_selected_warns_and_transform_is_empty():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 5))
    y = np.repeat([0, 1], 15)
    with pytest.warns(NothingSelectedWarning, match="No feature passed"):
        sel = DiscriminativeSelector("bonferroni", random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="No features were selected"):
        assert sel.transform(X).shape == (30, 0)


def test_multiclass_and_p_error_auto():
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1, 2], 20)
    X = rng.normal(size=(60, 300))
    X[:, 0] += 3 * (y == 2)
    sel = DiscriminativeSelector(random_state=0).fit(X, y)
    assert sel.p_error_ == pytest.approx(2 / 3)
    assert sel.expected_errors_ == pytest.approx(30 * 2 / 3)
    assert sel.get_support()[0]


def test_cv_counts_every_example_once():
    X, y = planted(n=40, F=100, seed=5)
    sel = DiscriminativeSelector(cv=5, random_state=0).fit(X, y)
    assert sel.n_validation_ == 40
    # Unstratified folds leave no room for label permutations: the analytic null.
    sel2 = DiscriminativeSelector(cv=KFold(4), null="analytic", random_state=0).fit(X, y)
    assert sel2.n_validation_ == 40
    # Manual check of one feature's summed fold errors with GaussianNB.
    manual = 0
    for tr, va in KFold(4).split(X):
        clf = GaussianNB().fit(X[tr][:, [0]], y[tr])
        manual += (clf.predict(X[va][:, [0]]) != y[va]).sum()
    assert sel2.n_errors_[0] == manual


def test_deterministic_given_random_state():
    X, y = planted(seed=6)
    a = DiscriminativeSelector(random_state=7).fit(X, y).n_errors_
    b = DiscriminativeSelector(random_state=7).fit(X, y).n_errors_
    c = DiscriminativeSelector(random_state=8).fit(X, y).n_errors_
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()


def test_stump_scorer_selects_planted():
    X, y = planted(seed=7, shift=3.0)
    sel = DiscriminativeSelector(scorer="stump", random_state=0).fit(X, y)
    assert sel.get_support()[:10].sum() >= 8


def test_pipeline_and_feature_names():
    X, y = planted(F=200, seed=8)
    frame = pd.DataFrame(X, columns=[f"g{i}" for i in range(200)])
    sel = DiscriminativeSelector(random_state=0).fit(frame, y)
    names = sel.get_feature_names_out()
    assert set(names) <= set(frame.columns) and "g0" in names
    scores = cross_val_score(
        make_pipeline(DiscriminativeSelector(random_state=0), GaussianNB()), X, y, cv=4
    )
    assert scores.mean() > 0.8


@pytest.mark.parametrize(
    ("kwargs", "X", "y", "match"),
    [
        ({}, np.ones((6, 2)), np.zeros(6), "at least 2 classes"),
        ({"threshold": "nope"}, np.ones((6, 2)), [0, 1] * 3, "threshold"),
        ({}, np.array([[np.nan, 1.0]] * 6), [0, 1] * 3, "NaN"),
        ({"alpha": 2.0}, np.ones((6, 2)), [0, 1] * 3, "alpha"),
    ],
)
def test_bad_input(kwargs, X, y, match):
    with pytest.raises(ValueError, match=match):
        DiscriminativeSelector(**kwargs).fit(X, y)
