"""The vectorized one-feature scorers against brute-force per-feature fitting."""

import itertools

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB

from widefs._utils import iter_column_blocks
from widefs.univariate import (
    gaussian_nb_log_likelihoods,
    gaussian_nb_split_errors,
    halves_masks,
    stump_split_errors,
)


def random_problem(seed, n=41, F=120, C=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F)) * rng.uniform(0.01, 100, F) + rng.uniform(-1e3, 1e3, F)
    y = rng.integers(0, C, n)
    X[:, 3] = 7.0  # constant feature
    X[:, 4] = np.round(X[:, 4])  # ties
    return X, y


def splits(y, C, seed):
    tr, va = halves_masks(y, C, seed)
    return np.stack([tr, va]), np.stack([va, tr])


@pytest.mark.parametrize("C", [2, 3])
@pytest.mark.parametrize("width", [None, 7])
def test_gnb_errors_match_sklearn_loop(C, width, monkeypatch):
    # width 7: blocks of 7 features (the last narrower) share the scratch buffers
    if width:
        import widefs.univariate._scores as scores

        monkeypatch.setattr(scores, "feature_blocks", lambda F, b: iter_column_blocks(F, width))
    X, y = random_problem(C, C=C)
    train, val = splits(y, C, 1)
    got = gaussian_nb_split_errors(X, y, C, train, val)
    for r in range(2):
        for j in range(X.shape[1]):
            if j == 3:
                continue  # sklearn divides by zero on a constant feature
            clf = GaussianNB().fit(X[train[r]][:, [j]], y[train[r]])
            want = (clf.predict(X[val[r]][:, [j]]) != y[val[r]]).sum()
            assert got[r, j] == want, (r, j)


def test_constant_feature_predicts_training_majority():
    X, y = random_problem(0)
    train, val = splits(y, 2, 0)
    with np.errstate(all="raise"):
        got = gaussian_nb_split_errors(X, y, 2, train, val)
    for r in range(2):
        majority = np.argmax(np.bincount(y[train[r]], minlength=2))
        assert got[r, 3] == (y[val[r]] != majority).sum()


def brute_stump_errors(x_tr, y_tr, x_va, y_va, C):
    """Every threshold between distinct training values, majority per side, fewest errors."""
    n = y_tr.size
    best = (n - np.bincount(y_tr, minlength=C).max(), np.inf, None, None)
    vals = np.unique(x_tr)
    for a, b in itertools.pairwise(vals):
        t = (a + b) / 2
        left, right = y_tr[x_tr <= t], y_tr[x_tr > t]
        lc = np.argmax(np.bincount(left, minlength=C))
        rc = np.argmax(np.bincount(right, minlength=C))
        err = (left != lc).sum() + (right != rc).sum()
        if err < best[0]:
            best = (err, t, lc, rc)
    _, t, lc, rc = best
    if lc is None:
        pred = np.full(y_va.size, np.argmax(np.bincount(y_tr, minlength=C)))
    else:
        pred = np.where(x_va <= t, lc, rc)
    return (pred != y_va).sum()


@pytest.mark.parametrize("C", [2, 3])
def test_stump_errors_match_brute_force(C):
    X, y = random_problem(10 + C, n=30, F=40, C=C)
    train, val = splits(y, C, 2)
    got = stump_split_errors(X, y, C, train, val)
    for r in range(2):
        for j in range(X.shape[1]):
            want = brute_stump_errors(X[train[r], j], y[train[r]], X[val[r], j], y[val[r]], C)
            assert got[r, j] == want, (r, j)


def test_log_likelihood_terms_reproduce_gaussian_nb():
    X, y = random_problem(5, F=6)
    X = np.delete(X, 3, axis=1)
    n = y.size
    train = ~np.eye(n, dtype=bool)  # leave-one-out rounds
    log_prior, terms = gaussian_nb_log_likelihoods(X, y, 2, train, np.arange(n))
    subset = [0, 2, 4]
    for i in range(n):
        clf = GaussianNB(var_smoothing=0.0).fit(X[train[i]][:, subset], y[train[i]])
        want = clf.predict_joint_log_proba(X[[i]][:, subset])[0]
        got = log_prior[i] + terms[i][:, subset].sum(axis=1)
        # Per-feature smoothing differs from sklearn's at 1e-9 relative; compare unsmoothed.
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_halves_rule_and_determinism():
    y = np.array([0] * 39 + [1] * 22)
    tr, va = halves_masks(y, 2, 3)
    assert tr.sum() == 30 and va.sum() == 31 and not (tr & va).any() and (tr | va).all()
    assert abs((y[tr] == 0).sum() - (y[va] == 0).sum()) <= 1
    tr2, _ = halves_masks(y, 2, 3)
    assert (tr == tr2).all()
    avail = np.ones(61, bool)
    avail[0] = False
    tr3, va3 = halves_masks(y, 2, 3, available=avail)
    assert not tr3[0] and not va3[0] and tr3.sum() + va3.sum() == 60
