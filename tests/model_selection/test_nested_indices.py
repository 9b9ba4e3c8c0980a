"""nested_evaluate keeps each fold's selection as sorted indices: the same information as the
boolean masks, and the same frequencies, stability and counts to the last bit."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from widefs.model_selection import nested_evaluate, selected_feature_mask, selection_stability
from widefs.model_selection._nested import _selection_summary


class _MeanSelector(ClassifierMixin, BaseEstimator):
    """Uses the features whose training mean exceeds ``cut``; predicts the first class."""

    def __init__(self, cut=0.0):
        self.cut = cut

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.support_ = np.asarray(X).mean(axis=0) > self.cut
        return self

    def get_support(self):
        return self.support_

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def _old_summary(masks):
    """The masks' summary as it was computed from the stacked boolean masks (Nogueira's
    index written out as it was, apart from the code under test)."""
    Z = np.array(masks)
    M, d = Z.shape
    stability = np.nan
    if M >= 2:
        p = Z.mean(axis=0)
        s2 = M / (M - 1) * p * (1 - p)
        kbar = Z.sum(axis=1).mean()
        denom = (kbar / d) * (1 - kbar / d)
        stability = np.nan if denom == 0 else float(1 - s2.mean() / denom)
        assert stability == selection_stability(Z) or np.isnan(stability)
    return Z.mean(axis=0), stability, Z.sum(axis=1)


def _masks(indices, d):
    out = np.zeros((len(indices), d), bool)
    for row, idx in zip(out, indices, strict=True):
        row[idx] = True
    return out


CASES = {
    "ties and overlaps": [[0, 2, 5], [2, 5], [0, 2, 5], [1, 2, 5], [5]],
    "none selected in one fold": [[], [3], [3, 4]],
    "none selected anywhere": [[], [], [], []],
    "all selected everywhere": [list(range(7))] * 3,
    "all in some folds": [list(range(7)), [0], list(range(7)), [6]],
    "ten folds, thirds": [[j for j in range(7) if (j + k) % 3] for k in range(10)],
    "two folds": [[1, 4], [4, 5, 6]],
    "one fold": [[2, 3]],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_summary_of_indices_equals_the_summary_of_masks_bit_for_bit(name):
    d = 7
    indices = [np.array(i, dtype=np.intp) for i in CASES[name]]
    masks = _masks(indices, d)
    res = _selection_summary(indices, d)
    frequency, stability, counts = _old_summary(masks)
    np.testing.assert_array_equal(res["selection_frequency"], frequency)
    assert res["selection_frequency"].dtype == np.float64
    np.testing.assert_array_equal(res["n_selected"], counts)
    assert res["n_selected"].dtype == counts.dtype
    assert (np.isnan(stability) and np.isnan(res["stability"])) or res["stability"] == stability
    # The round trip: indices -> masks -> indices.
    for idx, mask in zip(res["selected_features"], masks, strict=True):
        np.testing.assert_array_equal(np.flatnonzero(mask), idx)


def test_a_fold_that_does_not_say_leaves_the_summary_empty():
    res = _selection_summary([np.array([1], np.intp), None], 3)
    assert res["selection_frequency"] is None and res["n_selected"] is None
    assert np.isnan(res["stability"])


@pytest.mark.parametrize("cut", [-0.2, 0.0, 0.15, 5.0])
def test_nested_evaluate_indices_are_the_fold_models_masks(cut):
    # cut 5: nothing selected in any fold; -0.2: nearly everything; between: varied sets.
    rng = np.random.default_rng(11)
    X, y = rng.normal(scale=0.3, size=(30, 12)), np.repeat([0, 1], 15)
    res = nested_evaluate(_MeanSelector(cut), X, y, cv=3, n_repeats=2, random_state=5)
    masks = [
        selected_feature_mask(_MeanSelector(cut).fit(X[tr], y[tr]), X.shape[1])
        for tr, _ in res["splits"]
    ]
    for idx, mask in zip(res["selected_features"], masks, strict=True):
        assert idx.dtype == np.intp and np.all(np.diff(idx) > 0)
        np.testing.assert_array_equal(idx, np.flatnonzero(mask))
    frequency, stability, counts = _old_summary(masks)
    np.testing.assert_array_equal(res["selection_frequency"], frequency)
    np.testing.assert_array_equal(res["n_selected"], counts)
    assert (np.isnan(stability) and np.isnan(res["stability"])) or res["stability"] == stability


def test_cross_validated_score_counts_a_selection_of_feature_zero():
    # Each fold's count is the number of indices, not their sum: a method that keeps only
    # feature 0 keeps one feature (a sum of indices called it nothing selected, and its
    # certificate uninformative).
    from widefs.model_selection._cross_validated import cross_validated_score

    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    X[:, 0] += 5.0  # only feature 0 has a training mean above the cut
    y = np.repeat([0, 1], 10)
    got = cross_validated_score(_MeanSelector(cut=2.0), X, y, n_splits=4, seed=0)
    np.testing.assert_array_equal(got.n_selected, [1, 1, 1, 1])
    X[:, 1] += 5.0
    got = cross_validated_score(_MeanSelector(cut=2.0), X, y, n_splits=4, seed=0)
    np.testing.assert_array_equal(got.n_selected, [2, 2, 2, 2])
