"""The batched (label-matrix) naive Bayes errors: each label vector's counts, exactly.

The batched path forms the moments from the training rows only and runs the moments, the
class quadratics and the votes in compiled loops; its oracles are the one-label numpy path
(bitwise: the same counts, ties and all) and scikit-learn's GaussianNB fitted feature by
feature (independent).
"""

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB

from widefs.univariate import gaussian_nb_split_errors, halves_masks


def _problem(seed, n, F, C):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F)) * rng.uniform(0.01, 100, F) + rng.uniform(-1e3, 1e3, F)
    X[:, 0] = 7.0  # constant everywhere
    X[:, 1] = np.round(X[:, 1] / 50)  # heavy ties
    X[:, 2] = np.where(np.arange(n) < n // 2, 3.0, X[:, 2])  # constant on many rows
    y = rng.integers(0, C, n)
    y[:C] = np.arange(C)
    return X, y, rng


@pytest.mark.parametrize(("n", "F", "C"), [(20, 40, 2), (37, 90, 3), (45, 60, 4)])
def test_batch_equals_one_label_at_a_time(n, F, C):
    X, y, rng = _problem(C, n, F, C)
    tr, va = zip(*(halves_masks(y, C, random_state=s) for s in range(4)), strict=True)
    tr, va = np.array(tr), np.array(va)
    Y = np.array([y] + [rng.permutation(y) for _ in range(25)])
    Y[-1] = 0  # one class only: the others absent from every training part
    got = gaussian_nb_split_errors(X, Y, C, tr, va)
    assert got.shape == (Y.shape[0], tr.shape[0], F)
    for i, labels in enumerate(Y):
        np.testing.assert_array_equal(got[i], gaussian_nb_split_errors(X, labels, C, tr, va))


def test_batch_matches_sklearn_feature_by_feature():
    X, y, rng = _problem(5, 30, 25, 2)
    tr, va = halves_masks(y, 2, random_state=0)
    Y = np.array([rng.permutation(y) for _ in range(6)])
    got = gaussian_nb_split_errors(X, Y, 2, tr[None], va[None])[:, 0]
    for i, labels in enumerate(Y):
        for j in range(3, X.shape[1]):  # sklearn divides by zero on constant parts
            clf = GaussianNB().fit(X[tr][:, [j]], labels[tr])
            assert got[i, j] == np.count_nonzero(clf.predict(X[va][:, [j]]) != labels[va])


def test_batch_constant_feature_predicts_training_majority():
    X, y, rng = _problem(1, 24, 5, 2)
    tr, va = halves_masks(y, 2, random_state=3)
    Y = np.array([rng.permutation(y) for _ in range(8)])
    with np.errstate(invalid="raise", over="raise"):
        got = gaussian_nb_split_errors(X, Y, 2, tr[None], va[None])[:, 0]
    for i, labels in enumerate(Y):
        majority = np.argmax(np.bincount(labels[tr], minlength=2))
        assert got[i, 0] == np.count_nonzero(labels[va] != majority)


@pytest.mark.parametrize("n", range(4, 14))
def test_batch_every_validation_size(n):
    # Small validation parts (2..7 rows, odd and even class counts), against both oracles.
    X, y, rng = _problem(n, n, 30, 2)
    tr, va = halves_masks(y, 2, random_state=n)
    Y = np.array([y] + [rng.permutation(y) for _ in range(9)])
    got = gaussian_nb_split_errors(X, Y, 2, tr[None], va[None])[:, 0]
    for i, labels in enumerate(Y):
        np.testing.assert_array_equal(
            got[i], gaussian_nb_split_errors(X, labels, 2, tr[None], va[None])[0]
        )
        for j in range(3, X.shape[1]):  # sklearn divides by zero on constant parts
            clf = GaussianNB().fit(X[tr][:, [j]], labels[tr])
            assert got[i, j] == np.count_nonzero(clf.predict(X[va][:, [j]]) != labels[va])


@pytest.mark.parametrize("C", [2, 3])
def test_batch_blocks_reuse_the_errors_buffer(C, monkeypatch):
    # Blocks of 7 features (the last one narrower) on 3 splits: every block and split
    # writes the same two-class errors buffer, which must hold only its own counts.
    from widefs.univariate import _scores

    X, y, rng = _problem(10 + C, 26, 40, C)
    tr, va = zip(*(halves_masks(y, C, random_state=s) for s in range(3)), strict=True)
    tr, va = np.array(tr), np.array(va)
    Y = np.array([rng.permutation(y) for _ in range(5)])
    monkeypatch.setattr(_scores, "_LABEL_BATCH_BYTES", 8 * Y.shape[0] * C * 4 * 7)
    got = gaussian_nb_split_errors(X, Y, C, tr, va)
    for i, labels in enumerate(Y):
        np.testing.assert_array_equal(got[i], gaussian_nb_split_errors(X, labels, C, tr, va))
