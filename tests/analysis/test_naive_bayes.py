"""The comparison's naive Bayes on a fold's rows in place against scikit-learn's GaussianNB."""

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB

from widefs.analysis import _naive_bayes
from widefs.analysis._naive_bayes import BlockGaussianNB

FITTED = ("theta_", "var_", "epsilon_", "class_prior_", "class_count_", "classes_")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block", [7, 64, 8192])
def test_rows_in_place_give_gaussian_nb_bit_for_bit(dtype, block, monkeypatch):
    """Three unbalanced classes, a constant column (smoothing only), rows out of order: every
    fitted attribute, the joint log-likelihoods and the predictions are GaussianNB's."""
    monkeypatch.setattr(_naive_bayes, "_BLOCK", block)
    rng = np.random.default_rng(0)
    X = np.round(rng.normal(size=(45, 300)), 3).astype(dtype)
    X[:, 11] = 2.5
    y = np.array(["b", "a", "c", "a", "b"] * 9)
    X[y == "c", :3] += 2
    train = rng.choice(45, 33, replace=False)
    test = np.setdiff1d(np.arange(45), train)
    ref = GaussianNB().fit(X[train], y[train])
    ours = BlockGaussianNB()._fit_rows(X, y[train], train)
    for name in FITTED:
        np.testing.assert_array_equal(getattr(ours, name), getattr(ref, name))
        assert np.asarray(getattr(ours, name)).dtype == np.asarray(getattr(ref, name)).dtype
    np.testing.assert_array_equal(ours._predict_rows(X, test), ref.predict(X[test]))
    rows = np.array([ours._joint_log_likelihood(X[r : r + 1])[0] for r in test])
    np.testing.assert_array_equal(rows, ref._joint_log_likelihood(X[test]))
    assert ours.n_features_in_ == 300
    # Its own fit is GaussianNB's.
    np.testing.assert_array_equal(BlockGaussianNB().fit(X, y).var_, GaussianNB().fit(X, y).var_)


def test_priors_and_smoothing_reach_the_blocks(monkeypatch):
    monkeypatch.setattr(_naive_bayes, "_BLOCK", 5)
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(20, 12)), np.repeat([0, 1], 10)
    kw = dict(priors=[0.3, 0.7], var_smoothing=1e-2)
    ours = BlockGaussianNB(**kw)._fit_rows(X, y[2:], np.arange(2, 20))
    ref = GaussianNB(**kw).fit(X[2:], y[2:])
    for name in FITTED:
        np.testing.assert_array_equal(getattr(ours, name), getattr(ref, name))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nested_folds_in_place_give_the_copies_results(dtype, monkeypatch):
    from widefs.model_selection import _nested, nested_evaluate

    monkeypatch.setattr(_naive_bayes, "_BLOCK", 64)
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 200)).astype(dtype)
    y = np.repeat(["a", "b"], 20)
    X[y == "b", :3] += 1
    in_place = nested_evaluate(BlockGaussianNB(), X, y, cv=4, n_repeats=2, random_state=0)
    copied = nested_evaluate(GaussianNB(), X, y, cv=4, n_repeats=2, random_state=0)
    assert _nested._rows_fit(BlockGaussianNB(), X) and not _nested._rows_fit(GaussianNB(), X)
    np.testing.assert_array_equal(in_place["test_score"], copied["test_score"])
    np.testing.assert_array_equal(in_place["predictions"], copied["predictions"])
