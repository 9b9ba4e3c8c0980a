"""Prescreened: the F-test pre-screen and the search it feeds, as one estimator."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.naive_bayes import GaussianNB

from widefs._utils import block_width
from widefs.model_selection import Prescreened, f_scores_blockwise, search_certificate
from widefs.rules import CN2Classifier


def test_blockwise_f_equals_f_classif_across_blocks():
    rng = np.random.default_rng(0)
    n_rows = 20
    n_cols = 2 * block_width(n_rows) + 7  # three blocks, the last one short
    X = rng.normal(size=(n_rows, n_cols))
    X[:, 5] = 1.0  # constant: F undefined
    X[:, -1] = 2.0
    y = np.repeat([0, 1, 2, 3], 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F_ref, p_ref = f_classif(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the constant columns warn nothing
        F, p = f_scores_blockwise(X, y)
    np.testing.assert_array_equal(F, F_ref)
    np.testing.assert_array_equal(p, p_ref)
    assert np.isnan(F[[5, -1]]).all()


@pytest.mark.parametrize("seed", range(4))
def test_blockwise_f_is_f_classif_bit_for_bit_and_widens_float32(seed):
    """Unbalanced classes (2 or 3, as strings), decimals as read from a CSV: the same floats
    as f_classif; a float32 matrix gives f_classif's floats on its float64 copy (a screen of
    float32 data keeps the features it kept on float64), and Prescreened keeps the same."""
    rng = np.random.default_rng(seed)
    n = (17, 62, 80, 33)[seed]
    X = np.round(rng.normal(size=(n, 3 * block_width(n) + 5)) * 10 ** (seed % 3), 4)
    y = np.array(["a", "b", "c"])[rng.integers(0, 2 + seed % 2, n)]
    X[:, 3] = -7.25  # constant
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F_ref, p_ref = f_classif(X, y)
        F32_ref, _ = f_classif(X.astype(np.float32).astype(float), y)
    F, p = f_scores_blockwise(X, y)
    np.testing.assert_array_equal(F, F_ref)
    np.testing.assert_array_equal(p, p_ref)
    F32, _ = f_scores_blockwise(X.astype(np.float32), y)
    np.testing.assert_array_equal(F32, F32_ref)
    fit32 = Prescreened(GaussianNB(), k=25).fit(X.astype(np.float32), y)
    fit64 = Prescreened(GaussianNB(), k=25).fit(X.astype(np.float32).astype(float), y)
    np.testing.assert_array_equal(fit32.screen_support_, fit64.screen_support_)
    np.testing.assert_array_equal(fit32.scores_, F32_ref)


def test_blockwise_f_refuses_missing_values_and_a_wrong_length_of_labels():
    X = np.ones((4, 3))
    X[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        f_scores_blockwise(X, [0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"one label per row of X \(4\)"):
        f_scores_blockwise(np.ones((4, 3)), [0, 1, 1])


@pytest.mark.parametrize("k", [1, 3, 10, 39, 40, 41])
def test_screen_keeps_what_select_k_best_keeps_ties_and_constants_included(k):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(12, 40)).astype(float)  # integer data: many equal F
    X[:, [2, 9]] = 4.0  # constant columns rank last
    X[:, 11] = X[:, 4]  # an exact tie
    y = np.repeat([0, 1], 6)
    est = Prescreened(GaussianNB(), k=k).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = SelectKBest(f_classif, k=min(k, 40)).fit(X, y).get_support()
    np.testing.assert_array_equal(est.screen_support_, want)
    assert est.screen_support_.sum() == min(k, 40)
    if k < 38:
        assert not est.screen_support_[[2, 9]].any()


def test_prescreened_search_reruns_the_screen_on_every_relabelling():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 40))
    y = (X[:, 3] + 0.5 * rng.normal(size=30) > 0).astype(int)
    cert = search_certificate(Prescreened(CN2Classifier(), k=5), X, y, score="search", n_permutations=4,
                              random_state=1)  # fmt: skip
    for perm, score in zip(cert.permutations, cert.null_scores, strict=True):
        yp = y[perm]
        # The oracle: screen on the relabelled y, then the plain search on the kept columns.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            keep = SelectKBest(f_classif, k=5).fit(X, yp).get_support()
        want = clone(CN2Classifier()).fit(X[:, keep], yp).search_score_
        assert score == want
    assert cert.estimator.screen_support_.sum() == 5


def test_predicts_and_reports_its_features_as_input_columns():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 40))
    y = (X[:, 7] > 0).astype(int)
    est = Prescreened(CN2Classifier(), k=5).fit(X, y)
    keep = np.flatnonzero(est.screen_support_)
    inner = est.estimator_.get_support(indices=True)
    np.testing.assert_array_equal(est.get_support(), np.isin(np.arange(40), keep[inner]))
    np.testing.assert_array_equal(est.get_support(indices=True), keep[inner])
    assert est.get_support()[7]
    np.testing.assert_array_equal(est.predict(X), est.estimator_.predict(X[:, keep]))
    np.testing.assert_array_equal(est.classes_, [0, 1])
    assert est.search_score_ == est.estimator_.search_score_


def test_a_frame_reaches_the_search_with_its_names():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(30, 12)), columns=[f"g{i}" for i in range(12)])
    y = (frame["g7"] > 0).astype(int).to_numpy()
    est = Prescreened(CN2Classifier(), k=3).fit(frame, y)
    assert "g7" in list(est.estimator_.feature_names_in_)
    np.testing.assert_array_equal(est.predict(frame), est.estimator_.predict(frame[
        list(est.estimator_.feature_names_in_)]))  # fmt: skip


def test_search_without_score_or_support():
    X = np.random.default_rng(4).normal(size=(20, 6))
    y = np.repeat([0, 1], 10)
    est = Prescreened(GaussianNB(), k=2).fit(X, y)
    assert not hasattr(est, "search_score_")  # GaussianNB has no search score
    np.testing.assert_array_equal(est.get_support(), est.screen_support_)
    assert est.predict_proba(X).shape == (20, 2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_screen_of_rows_in_place_is_the_screen_of_their_copy(dtype):
    """The F of ``X[rows]`` read in place equals the F of the copy bit for bit: three
    unbalanced classes, rows out of order and repeated, ties and constant columns, blocks."""
    from widefs.model_selection._prescreen import _f_scores, _f_scores_rows

    rng = np.random.default_rng(3)
    n_cols = 2 * block_width(23) + 5
    X = np.round(rng.normal(size=(40, n_cols)), 2).astype(dtype)
    X[:, 3] = 1.5  # constant: NaN both ways
    X[:, 4] = X[:, 6]  # tied scores
    y = np.array(["c", "a", "b", "a"] * 10)
    rows = np.r_[rng.choice(40, 20, replace=False), [0, 0, 5]]
    ref = _f_scores(X[rows], y[rows], pvalues=False)[0]
    got = _f_scores_rows(X, y[rows], rows)
    np.testing.assert_array_equal(got, ref)
    assert np.isnan(got[3]) and got[4] == got[6]
    bad = X.copy()
    bad[rows[0], 7] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        _f_scores_rows(bad, y[rows], rows)


def _copying(monkeypatch):
    """Forces every fold to copy its training rows (the path before rows were read in place)."""
    from widefs.model_selection import _nested

    monkeypatch.setattr(_nested, "_rows_fit", lambda estimator, X: False)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_folds_read_in_place_give_the_copies_results(dtype, monkeypatch):
    """Nested CV of a screened search: fold scores, predictions and selected features
    identical whether folds read their rows in place or copy them; so the comparison's rows
    and a cross-validated certificate's p-value are unchanged."""
    from widefs.model_selection import _nested, nested_evaluate

    rng = np.random.default_rng(5)
    X = rng.normal(size=(36, 300)).astype(dtype)
    y = np.repeat(["a", "b"], 18)
    X[y == "b", :4] += 1.2
    calls = []
    real = Prescreened._fit_rows

    def counted(self, *args):
        calls.append(1)
        return real(self, *args)

    monkeypatch.setattr(Prescreened, "_fit_rows", counted)
    est = Prescreened(CN2Classifier(), k=20)
    runs = []
    for copy in (False, True):
        if copy:
            _copying(monkeypatch)
        nested = nested_evaluate(est, X, y, cv=3, n_repeats=2, random_state=0)
        cert = search_certificate(
            est, X, y, score="cv", cv=3, n_permutations=9, stop_after=None, random_state=1
        )
        runs.append((nested, cert))
    assert len(calls) == 6 + 3 * 10  # the in-place run only: 6 folds, 3 folds x 10 labellings
    (a, ca), (b, cb) = runs
    np.testing.assert_array_equal(a["test_score"], b["test_score"])
    np.testing.assert_array_equal(a["predictions"], b["predictions"])
    for ia, ib in zip(a["selected_features"], b["selected_features"], strict=True):
        np.testing.assert_array_equal(ia, ib)
    np.testing.assert_array_equal(ca.null_scores, cb.null_scores)
    assert ca.pvalue == cb.pvalue and ca.observed == cb.observed
    assert _nested._rows_fit(est, X) is False  # patched for the second run


def test_fit_of_rows_is_the_fit_of_their_copy():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 80))
    y = np.repeat([0, 1, 2], 10)
    X[y == 2, 7] += 3
    rows = np.sort(rng.choice(30, 24, replace=False))
    a = Prescreened(GaussianNB(), k=5)._fit_rows(X, y[rows], rows)
    b = Prescreened(GaussianNB(), k=5).fit(X[rows], y[rows])
    np.testing.assert_array_equal(a.scores_, b.scores_)
    np.testing.assert_array_equal(a.get_support(), b.get_support())
    np.testing.assert_array_equal(a.estimator_.theta_, b.estimator_.theta_)
    np.testing.assert_array_equal(a._predict_rows(X, np.arange(30)), b.predict(X))
    assert a.n_features_in_ == 80
    with pytest.raises(ValueError, match="0 sample"):
        Prescreened(GaussianNB(), k=5)._fit_rows(X, y[:0], rows[:0])
    with pytest.raises(ValueError, match="k"):
        Prescreened(GaussianNB(), k=0)._fit_rows(X, y[rows], rows)


def test_top_k_by_partition_is_the_last_k_of_a_stable_sort():
    """Many ties, NaN and infinite scores, every k: the kept set is the last k of the stable
    argsort (SelectKBest's choice)."""
    from widefs._utils import top_k_mask as _top_k

    rng = np.random.default_rng(7)
    for _ in range(500):
        n = int(rng.integers(1, 40))
        scores = rng.integers(0, 4, n).astype(float)
        scores[rng.random(n) < 0.2] = np.nan
        scores[rng.random(n) < 0.1] = np.inf
        scores[rng.random(n) < 0.1] = -np.inf
        for k in range(1, n + 2):
            ranked = np.nan_to_num(scores, nan=np.finfo(float).min)
            expected = np.zeros(n, dtype=bool)
            expected[np.argsort(ranked, kind="mergesort")[-k:]] = True
            np.testing.assert_array_equal(_top_k(scores, k), expected)
